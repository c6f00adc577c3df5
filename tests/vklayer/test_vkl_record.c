/*
 * test_vkl_record.c - the layer's recording rules against a fake driver.
 *
 * The layer's intercepted command functions run over a fake device whose functions only log
 * what reaches the driver (a command stream). Each test records a stream the way ggml-vulkan
 * does (labels per node and per dispatch, barriers between dependent nodes) and checks the
 * stream the driver received and the items the layer hands to a submit, against rules stated
 * independently of the code (docs/capture.md, "Vulkan"):
 *  - no barrier is added unless OPSCOPE_VK_SERIALIZE=1, then one per item, right before its
 *    end timestamp;
 *  - every query an item refers to is written once, after its slab's reset and before the
 *    recording ends; an item's end is written after its last dispatch and before the next
 *    item's first command; its start before its first setup command;
 *  - a node's dispatches (one node label, ggml-vulkan's "OP+OP name" form) share one start and
 *    one end, written when the label ends; an item outside a node label ends right after its
 *    command;
 *  - after a barrier an item starts at the previous item's end; on a CPU device always, and
 *    end timestamps are written at the top of the pipe there; elsewhere at the bottom, and an
 *    item recorded beside the previous one (no barrier) starts at a top-of-pipe timestamp.
 */
#include "test.h"
#include "vklayer/vkl.h"

#include <stdlib.h>
#include <string.h>

int vkl_cb_take(VkCommandBuffer h, vkl_cmd **cmds, int *n_cmds, int *cap_cmds, int **slabs, int *n_slabs,
                int *cap_slabs);

/* ---- the fake driver: every command it receives, in order ---- */

typedef enum ev_kind {
    EV_RESET_QP,
    EV_TS,
    EV_BARRIER,
    EV_PUSH,
    EV_BIND,
    EV_DESC,
    EV_DISPATCH,
    EV_COPY,
    EV_SET_EVENT,
    EV_END,
} ev_kind;

typedef struct ev {
    ev_kind kind;
    uint64_t pool;   /* EV_RESET_QP, EV_TS */
    uint32_t q, n;   /* EV_TS: query; EV_RESET_QP: first, count */
    uint32_t stage;  /* EV_TS */
} ev;

static ev g_ev[4096];
static int g_nev;
static int g_pools;

static void log_ev(ev e) {
    if (g_nev < (int)(sizeof g_ev / sizeof g_ev[0])) {
        g_ev[g_nev++] = e;
    }
}

/* Dispatchable objects start with the loader's key; the layer finds its device by it. */
typedef struct fake_obj {
    void *key;
} fake_obj;
static int g_key;

static VkResult f_CreateCommandPool(VkDevice d, const VkCommandPoolCreateInfo *ci, const VkAllocationCallbacks *a,
                                    VkCommandPool *out) {
    (void)d, (void)ci, (void)a;
    *out = (VkCommandPool)(uintptr_t)0x7000;
    return VK_SUCCESS;
}
static void f_DestroyCommandPool(VkDevice d, VkCommandPool p, const VkAllocationCallbacks *a) {
    (void)d, (void)p, (void)a;
}
static fake_obj g_cb_obj = {&g_key};
static VkResult f_AllocateCommandBuffers(VkDevice d, const VkCommandBufferAllocateInfo *ai, VkCommandBuffer *out) {
    (void)d, (void)ai;
    out[0] = (VkCommandBuffer)&g_cb_obj;
    return VK_SUCCESS;
}
static VkResult f_BeginCommandBuffer(VkCommandBuffer h, const VkCommandBufferBeginInfo *bi) {
    (void)h, (void)bi;
    return VK_SUCCESS;
}
static VkResult f_EndCommandBuffer(VkCommandBuffer h) {
    (void)h;
    log_ev((ev){.kind = EV_END});
    return VK_SUCCESS;
}
static VkResult f_CreateQueryPool(VkDevice d, const VkQueryPoolCreateInfo *ci, const VkAllocationCallbacks *a,
                                  VkQueryPool *out) {
    (void)d, (void)ci, (void)a;
    *out = (VkQueryPool)(uintptr_t)(0x9000 + ++g_pools);
    return VK_SUCCESS;
}
static void f_CmdResetQueryPool(VkCommandBuffer h, VkQueryPool p, uint32_t first, uint32_t n) {
    (void)h;
    log_ev((ev){.kind = EV_RESET_QP, .pool = (uint64_t)(uintptr_t)p, .q = first, .n = n});
}
static void f_CmdWriteTimestamp(VkCommandBuffer h, VkPipelineStageFlagBits st, VkQueryPool p, uint32_t q) {
    (void)h;
    log_ev((ev){.kind = EV_TS, .pool = (uint64_t)(uintptr_t)p, .q = q, .stage = (uint32_t)st});
}
static void f_CmdPipelineBarrier(VkCommandBuffer h, VkPipelineStageFlags s, VkPipelineStageFlags t,
                                 VkDependencyFlags dep, uint32_t nm, const VkMemoryBarrier *m, uint32_t nb,
                                 const VkBufferMemoryBarrier *b, uint32_t ni, const VkImageMemoryBarrier *im) {
    (void)h, (void)s, (void)t, (void)dep, (void)nm, (void)m, (void)nb, (void)b, (void)ni, (void)im;
    log_ev((ev){.kind = EV_BARRIER});
}
static void f_CmdPushConstants(VkCommandBuffer h, VkPipelineLayout l, VkShaderStageFlags st, uint32_t off,
                               uint32_t size, const void *v) {
    (void)h, (void)l, (void)st, (void)off, (void)size, (void)v;
    log_ev((ev){.kind = EV_PUSH});
}
static void f_CmdBindPipeline(VkCommandBuffer h, VkPipelineBindPoint bp, VkPipeline p) {
    (void)h, (void)bp, (void)p;
    log_ev((ev){.kind = EV_BIND});
}
static void f_CmdBindDescriptorSets(VkCommandBuffer h, VkPipelineBindPoint bp, VkPipelineLayout l, uint32_t first,
                                    uint32_t n, const VkDescriptorSet *s, uint32_t nd, const uint32_t *dyn) {
    (void)h, (void)bp, (void)l, (void)first, (void)n, (void)s, (void)nd, (void)dyn;
    log_ev((ev){.kind = EV_DESC});
}
static void f_CmdDispatch(VkCommandBuffer h, uint32_t x, uint32_t y, uint32_t z) {
    (void)h, (void)x, (void)y, (void)z;
    log_ev((ev){.kind = EV_DISPATCH});
}
static void f_CmdCopyBuffer(VkCommandBuffer h, VkBuffer s, VkBuffer t, uint32_t n, const VkBufferCopy *r) {
    (void)h, (void)s, (void)t, (void)n, (void)r;
    log_ev((ev){.kind = EV_COPY});
}
static void f_CmdSetEvent(VkCommandBuffer h, VkEvent e, VkPipelineStageFlags st) {
    (void)h, (void)e, (void)st;
    log_ev((ev){.kind = EV_SET_EVENT});
}
static void f_CmdLabel(VkCommandBuffer h, const VkDebugUtilsLabelEXT *li) {
    (void)h, (void)li;
}
static void f_CmdEndLabel(VkCommandBuffer h) {
    (void)h;
}

/* ---- the capture's side ---- */

static uint64_t g_scope;
static uint64_t h_scope(void) {
    return g_scope;
}
static void h_deliver(uint64_t scope, const opscope_gpu_item *items, size_t n) {
    (void)scope, (void)items, (void)n;
}
static uint64_t g_lost;
static void h_lost(uint64_t n) {
    g_lost += n;
}
static void h_warn(const char *msg) {
    fprintf(stderr, "warn: %s\n", msg);
}
static const opscope_gpu_host g_host = {OPSCOPE_GPU_ABI, h_scope, h_deliver, h_lost, h_warn};

/* ---- driving the layer ---- */

#define FN(type, name) ((PFN_##type)vkl_cmd_proc(#type))

static vkl_device *g_dev;
static fake_obj g_dev_obj = {&g_key};

static VkCommandBuffer setup(bool cpu, bool serialize) {
    static vkl_device d;
    static vkl_slab slabs[VKL_MAX_POOLS * VKL_POOL_SLABS];
    memset(&d, 0, sizeof d);
    memset(slabs, 0, sizeof slabs);
    d.key = &g_key;
    d.handle = (VkDevice)&g_dev_obj;
    d.timing = true;
    d.serialize = serialize;
    d.share_bounds = cpu;
    d.end_stage = cpu ? VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT : VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT;
    d.period = 1.0;
    d.mask = ~(uint64_t)0;
    d.valid_bits[0] = 64;
    d.slabs = slabs;
    d.free_slab = -1;
    d.CreateCommandPool = f_CreateCommandPool;
    d.DestroyCommandPool = f_DestroyCommandPool;
    d.AllocateCommandBuffers = f_AllocateCommandBuffers;
    d.BeginCommandBuffer = f_BeginCommandBuffer;
    d.EndCommandBuffer = f_EndCommandBuffer;
    d.CreateQueryPool = f_CreateQueryPool;
    d.CmdResetQueryPool = f_CmdResetQueryPool;
    d.CmdWriteTimestamp = f_CmdWriteTimestamp;
    d.CmdPipelineBarrier = f_CmdPipelineBarrier;
    d.CmdPushConstants = f_CmdPushConstants;
    d.CmdBindPipeline = f_CmdBindPipeline;
    d.CmdBindDescriptorSets = f_CmdBindDescriptorSets;
    d.CmdDispatch = f_CmdDispatch;
    d.CmdCopyBuffer = f_CmdCopyBuffer;
    d.CmdSetEvent = f_CmdSetEvent;
    d.CmdBeginDebugUtilsLabelEXT = f_CmdLabel;
    d.CmdEndDebugUtilsLabelEXT = f_CmdEndLabel;
    g_dev = &d;
    g_vkl.devices = &d;
    g_vkl.host = &g_host;
    g_nev = 0;
    g_pools = 0;
    g_lost = 0;
    g_scope = 0;

    VkCommandPoolCreateInfo pci = {VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, NULL, 0, 0};
    VkCommandPool pool;
    FN(vkCreateCommandPool, x)((VkDevice)&g_dev_obj, &pci, NULL, &pool);
    VkCommandBufferAllocateInfo ai = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, NULL, pool,
                                      VK_COMMAND_BUFFER_LEVEL_PRIMARY, 1};
    VkCommandBuffer cb;
    FN(vkAllocateCommandBuffers, x)((VkDevice)&g_dev_obj, &ai, &cb);
    VkCommandBufferBeginInfo bi = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO, NULL, 0, NULL};
    FN(vkBeginCommandBuffer, x)(cb, &bi);
    return cb;
}

/* Frees what setup made (the layer's command buffer and pool state): the test stays leak-free
 * under AddressSanitizer. */
static void teardown(void) {
    FN(vkDestroyCommandPool, x)((VkDevice)&g_dev_obj, (VkCommandPool)(uintptr_t)0x7000, NULL);
}

static void label(VkCommandBuffer cb, const char *text) {
    VkDebugUtilsLabelEXT li = {VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT, NULL, text, {0, 0, 0, 0}};
    FN(vkCmdBeginDebugUtilsLabelEXT, x)(cb, &li);
}
static void end_label(VkCommandBuffer cb) {
    FN(vkCmdEndDebugUtilsLabelEXT, x)(cb);
}
static void barrier(VkCommandBuffer cb) {
    FN(vkCmdPipelineBarrier, x)(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 0,
                                NULL, 0, NULL, 0, NULL);
}
/* As ggml_vk_dispatch_pipeline: setup, a label around the dispatch when LABELLED. */
static void dispatch(VkCommandBuffer cb, bool labelled) {
    FN(vkCmdPushConstants, x)(cb, VK_NULL_HANDLE, VK_SHADER_STAGE_COMPUTE_BIT, 0, 4, "abcd");
    FN(vkCmdBindPipeline, x)(cb, VK_PIPELINE_BIND_POINT_COMPUTE, VK_NULL_HANDLE);
    FN(vkCmdBindDescriptorSets, x)(cb, VK_PIPELINE_BIND_POINT_COMPUTE, VK_NULL_HANDLE, 0, 0, NULL, 0, NULL);
    if (labelled) label(cb, "matmul_f32_f32 (1,1,1)");
    FN(vkCmdDispatch, x)(cb, 1, 1, 1);
    if (labelled) end_label(cb);
}
static void end(VkCommandBuffer cb) {
    FN(vkEndCommandBuffer, x)(cb);
}

/*
 * A decode-like stream: node A (one dispatch), the program's barrier, node B (two dispatches
 * with the program's barrier between them, as FLASH_ATTN_EXT's split-k reduce), node C right
 * after B with no barrier (independent), the recording's end. Event indices of the three
 * nodes' first setup command and each dispatch are returned.
 */
typedef struct stream_pos {
    int setup[3];    /* first setup command of node A, B, C */
    int disp[4];     /* dispatches: A, B1, B2, C */
    int barrier[2];  /* the program's barriers: after A, inside B */
} stream_pos;

static int find_nth(ev_kind k, int nth) {
    for (int i = 0, seen = 0; i < g_nev; i++) {
        if (g_ev[i].kind == k && seen++ == nth) {
            return i;
        }
    }
    return -1;
}

static void record_stream(VkCommandBuffer cb, bool labels) {
    if (labels) label(cb, "submit 0");
    if (labels) label(cb, "MUL_MAT ffn_up-0");
    dispatch(cb, labels);
    if (labels) end_label(cb);
    barrier(cb);
    if (labels) label(cb, "FLASH_ATTN_EXT __fattn__-0");
    dispatch(cb, labels);
    barrier(cb);
    dispatch(cb, labels);
    if (labels) end_label(cb);
    if (labels) label(cb, "MUL_MAT ffn_gate-0");
    dispatch(cb, labels);
    if (labels) end_label(cb);
    if (labels) end_label(cb);
    end(cb);
}

static stream_pos positions(void) {
    stream_pos p;
    for (int i = 0; i < 4; i++) p.disp[i] = find_nth(EV_DISPATCH, i);
    for (int i = 0; i < 3; i++) p.setup[i] = find_nth(EV_PUSH, i == 0 ? 0 : i == 1 ? 1 : 3);
    return p;
}

/* Where query (SLAB, Q) of the device is written in the stream; -1 never; -2 twice or more
 * or before its slab's reset. */
static int written_at(int slab, int q) {
    const vkl_slab *sl = &g_dev->slabs[slab];
    uint64_t pool = (uint64_t)(uintptr_t)g_dev->pools[sl->pool];
    uint32_t query = (uint32_t)(sl->first + q);
    int at = -1;
    bool reset = false;
    for (int i = 0; i < g_nev; i++) {
        const ev *e = &g_ev[i];
        if (e->kind == EV_RESET_QP && e->pool == pool && query >= e->q && query < e->q + e->n) {
            reset = true;
        }
        if (e->kind == EV_TS && e->pool == pool && e->q == query) {
            if (at >= 0 || !reset) return -2;
            at = i;
        }
    }
    return at;
}

static int count(ev_kind k, int from, int to) {
    int n = 0;
    for (int i = from; i < to && i < g_nev; i++) n += g_ev[i].kind == k;
    return n;
}

typedef struct taken {
    vkl_cmd *cmds;
    int n;
} taken;

static taken take(VkCommandBuffer cb) {
    taken t = {NULL, 0};
    int cap = 0, *slabs = NULL, ns = 0, caps = 0;
    vkl_cb_take(cb, &t.cmds, &t.n, &cap, &slabs, &ns, &caps);
    free(slabs);
    return t;
}

/* The rules every mode keeps; SER: serialize mode (the end follows a barrier). */
static int check_items(const taken *t, const stream_pos *p, bool ser) {
    ASSERT_EQ_INT(t->n, 4);
    int last_disp[4] = {p->disp[0], p->disp[2], p->disp[2], p->disp[3]};
    int first_setup[4] = {p->setup[0], p->setup[1], p->setup[1], p->setup[2]};
    int next_cmd[4] = {p->setup[1] - 1, p->setup[2], p->setup[2], g_nev - 1}; /* bound for the end */
    for (int i = 0; i < t->n; i++) {
        const vkl_cmd *c = &t->cmds[i];
        int s = written_at(c->slab0, c->q0), e = written_at(c->slab1, c->q1);
        ASSERT_GE_INT(s, 0);
        ASSERT_GE_INT(e, 0);
        /* the end after the item's last dispatch, before the next node's setup and the end */
        ASSERT_GT_INT(e, last_disp[i]);
        ASSERT_LE_INT(e, next_cmd[i]);
        ASSERT_LT_INT(e, find_nth(EV_END, 0));
        if (ser) {
            ASSERT_EQ_INT(g_ev[e - 1].kind, EV_BARRIER);
        }
        /* the start before the item's first setup command, after the previous node's dispatch */
        ASSERT_LT_INT(s, first_setup[i]);
        if (i > 0 && i != 2) {
            ASSERT_GT_INT(s, last_disp[i - 1]);
        }
    }
    /* B's two dispatches are one node: one start, one end */
    ASSERT_EQ_INT(t->cmds[1].slab0, t->cmds[2].slab0);
    ASSERT_EQ_INT(t->cmds[1].q0, t->cmds[2].q0);
    ASSERT_EQ_INT(t->cmds[1].slab1, t->cmds[2].slab1);
    ASSERT_EQ_INT(t->cmds[1].q1, t->cmds[2].q1);
    ASSERT_EQ_U64(g_lost, 0);
    return 0;
}

static int test_gpu_default(void) {
    VkCommandBuffer cb = setup(false, false);
    record_stream(cb, true);
    stream_pos p = positions();
    taken t = take(cb);
    int r = check_items(&t, &p, false);
    /* no barrier added: the program's two */
    ASSERT_EQ_INT(count(EV_BARRIER, 0, g_nev), 2);
    /* every end timestamp at the bottom of the pipe (it waits for the work before it) */
    for (int i = 0; i < t.n && !r; i++) {
        ASSERT_EQ_INT(g_ev[written_at(t.cmds[i].slab1, t.cmds[i].q1)].stage, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT);
    }
    /* B follows a barrier: it starts when A's work is done, at A's end, written before the
     * barrier (waiting for inputs is B's) */
    int b0 = find_nth(EV_BARRIER, 0);
    ASSERT_EQ_INT(t.cmds[1].slab0, t.cmds[0].slab1);
    ASSERT_EQ_INT(t.cmds[1].q0, t.cmds[0].q1);
    ASSERT_LT_INT(written_at(t.cmds[0].slab1, t.cmds[0].q1), b0);
    /* A and C (beside B, no barrier) start at a top-of-pipe timestamp of their own, which does
     * not wait: on a GPU C keeps its overlap with B */
    ASSERT_EQ_INT(g_ev[written_at(t.cmds[0].slab0, t.cmds[0].q0)].stage, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT);
    ASSERT_EQ_INT(g_ev[written_at(t.cmds[3].slab0, t.cmds[3].q0)].stage, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT);
    ASSERT_TRUE(t.cmds[3].q0 != t.cmds[2].q1 || t.cmds[3].slab0 != t.cmds[2].slab1);
    /* one end per node, starts for A and C: 3 + 2 timestamps */
    ASSERT_EQ_INT(count(EV_TS, 0, g_nev), 5);
    free(t.cmds);
    teardown();
    return r;
}

static int test_cpu_shared_bounds(void) {
    VkCommandBuffer cb = setup(true, false);
    record_stream(cb, true);
    stream_pos p = positions();
    taken t = take(cb);
    int r = check_items(&t, &p, false);
    ASSERT_EQ_INT(count(EV_BARRIER, 0, g_nev), 2);
    /* each node starts where the one before ended; ends at the top of the pipe */
    ASSERT_EQ_INT(t.cmds[1].slab0, t.cmds[0].slab1);
    ASSERT_EQ_INT(t.cmds[1].q0, t.cmds[0].q1);
    ASSERT_EQ_INT(t.cmds[3].q0, t.cmds[2].q1);
    for (int i = 0; i < t.n; i++) {
        ASSERT_EQ_INT(g_ev[written_at(t.cmds[i].slab1, t.cmds[i].q1)].stage, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT);
    }
    /* the first start and one end per node */
    ASSERT_EQ_INT(count(EV_TS, 0, g_nev), 4);
    free(t.cmds);
    teardown();
    return r;
}

static int test_serialize(void) {
    VkCommandBuffer cb = setup(false, true);
    record_stream(cb, true);
    stream_pos p = positions();
    taken t = take(cb);
    int r = check_items(&t, &p, true);
    /* the program's two, plus one per node */
    ASSERT_EQ_INT(count(EV_BARRIER, 0, g_nev), 5);
    /* none between B's dispatches but the program's own */
    ASSERT_EQ_INT(count(EV_BARRIER, p.disp[1], p.disp[2]), 1);
    /* A ends with its node, before the program's barrier that follows */
    ASSERT_LT_INT(written_at(t.cmds[0].slab1, t.cmds[0].q1), find_nth(EV_BARRIER, 1));
    /* and each item starts where the one before ended */
    ASSERT_EQ_INT(t.cmds[1].q0, t.cmds[0].q1);
    ASSERT_EQ_INT(t.cmds[3].q0, t.cmds[2].q1);
    free(t.cmds);
    teardown();
    return r;
}

/* Without labels (debug markers off) every dispatch is its own item. */
static int test_unlabelled(void) {
    VkCommandBuffer cb = setup(false, false);
    record_stream(cb, false);
    taken t = take(cb);
    ASSERT_EQ_INT(t.n, 4);
    ASSERT_TRUE(t.cmds[1].q1 != t.cmds[2].q1 || t.cmds[1].slab1 != t.cmds[2].slab1);
    for (int i = 0; i < t.n; i++) {
        ASSERT_GE_INT(written_at(t.cmds[i].slab0, t.cmds[i].q0), 0);
        /* right after its dispatch */
        ASSERT_EQ_INT(written_at(t.cmds[i].slab1, t.cmds[i].q1), find_nth(EV_DISPATCH, i) + 1);
    }
    ASSERT_EQ_INT(count(EV_BARRIER, 0, g_nev), 2);
    free(t.cmds);
    teardown();
    return 0;
}

/* A transfer, then an event: the copy ends before the event command (ggml's backend events). */
static int test_event_closes(void) {
    VkCommandBuffer cb = setup(false, false);
    VkBufferCopy r = {0, 0, 256};
    FN(vkCmdCopyBuffer, x)(cb, VK_NULL_HANDLE, VK_NULL_HANDLE, 1, &r);
    FN(vkCmdSetEvent, x)(cb, VK_NULL_HANDLE, VK_PIPELINE_STAGE_TRANSFER_BIT);
    end(cb);
    taken t = take(cb);
    ASSERT_EQ_INT(t.n, 1);
    ASSERT_EQ_U64(t.cmds[0].bytes, 256);
    int e = written_at(t.cmds[0].slab1, t.cmds[0].q1);
    ASSERT_EQ_INT(e, find_nth(EV_COPY, 0) + 1);
    ASSERT_LT_INT(e, find_nth(EV_SET_EVENT, 0));
    free(t.cmds);
    teardown();
    return 0;
}

/* More items than a slab holds: every query written once, after its own slab's reset. */
static int test_many_items(void) {
    VkCommandBuffer cb = setup(false, false);
    char text[64];
    for (int i = 0; i < 3 * VKL_SLAB_Q; i++) {
        snprintf(text, sizeof text, "ADD add-%d", i);
        label(cb, text);
        dispatch(cb, true);
        end_label(cb);
    }
    end(cb);
    taken t = take(cb);
    ASSERT_EQ_INT(t.n, 3 * VKL_SLAB_Q);
    for (int i = 0; i < t.n; i++) {
        ASSERT_GE_INT(written_at(t.cmds[i].slab0, t.cmds[i].q0), 0);
        ASSERT_GT_INT(written_at(t.cmds[i].slab1, t.cmds[i].q1), find_nth(EV_DISPATCH, i));
    }
    ASSERT_EQ_INT(count(EV_BARRIER, 0, g_nev), 0);
    free(t.cmds);
    teardown();
    return 0;
}

/* A label of another form (an application's region) makes no node: each dispatch in it is an
 * item of its own. */
static int test_region_label(void) {
    VkCommandBuffer cb = setup(false, false);
    label(cb, "frame 3");
    dispatch(cb, false);
    dispatch(cb, false);
    end_label(cb);
    end(cb);
    taken t = take(cb);
    ASSERT_EQ_INT(t.n, 2);
    ASSERT_EQ_STR(t.cmds[0].label, "frame 3");
    ASSERT_EQ_INT(written_at(t.cmds[0].slab1, t.cmds[0].q1), find_nth(EV_DISPATCH, 0) + 1);
    ASSERT_EQ_INT(written_at(t.cmds[1].slab1, t.cmds[1].q1), find_nth(EV_DISPATCH, 1) + 1);
    free(t.cmds);
    teardown();
    return 0;
}

static int test_node_label_form(void) {
    ASSERT_TRUE(vkl_label_is_node("MUL_MAT ffn_up-0"));
    ASSERT_TRUE(vkl_label_is_node("ROPE+VIEW+SET_ROWS Kcur-0"));
    ASSERT_TRUE(vkl_label_is_node("SOFT_MAX+RESHAPE+ARGSORT ffn_moe_probs-0"));
    ASSERT_TRUE(!vkl_label_is_node("frame 3"));
    ASSERT_TRUE(!vkl_label_is_node("MUL_MAT"));
    ASSERT_TRUE(!vkl_label_is_node("MUL_MAT "));
    ASSERT_TRUE(!vkl_label_is_node("ROPE+ Kcur-0"));
    ASSERT_TRUE(!vkl_label_is_node("+ROPE Kcur-0"));
    ASSERT_TRUE(!vkl_label_is_node(""));
    return 0;
}

/* Under the capture's untimed scope (gpu_source.h) the driver gets the program's stream
 * exactly: no timestamp, no query reset, no barrier of ours, and nothing to deliver. */
static int test_untimed_scope(void) {
    VkCommandBuffer cb = setup(false, false);
    g_scope = OPSCOPE_GPU_SCOPE_UNTIMED;
    record_stream(cb, true);
    ASSERT_EQ_INT(count(EV_TS, 0, g_nev), 0);
    ASSERT_EQ_INT(count(EV_RESET_QP, 0, g_nev), 0);
    ASSERT_EQ_INT(count(EV_BARRIER, 0, g_nev), 2);
    ASSERT_EQ_INT(count(EV_DISPATCH, 0, g_nev), 4);
    taken t = take(cb);
    ASSERT_EQ_INT(t.n, 0);
    ASSERT_EQ_U64(g_lost, 0);
    free(t.cmds);
    teardown();
    return 0;
}

/* A timed compute's item still open when untimed work is recorded in the same command buffer
 * ends before that work: the untimed dispatch is in no item. */
static int test_timed_then_untimed(void) {
    VkCommandBuffer cb = setup(false, false);
    g_scope = 7;
    label(cb, "MUL_MAT ffn_up-0");
    dispatch(cb, true);
    g_scope = OPSCOPE_GPU_SCOPE_UNTIMED;
    dispatch(cb, false);
    end_label(cb);
    end(cb);
    taken t = take(cb);
    ASSERT_EQ_INT(t.n, 1);
    ASSERT_EQ_U64(t.cmds[0].scope, 7);
    int e = written_at(t.cmds[0].slab1, t.cmds[0].q1);
    ASSERT_GE_INT(e, 0);
    ASSERT_LT_INT(e, find_nth(EV_DISPATCH, 1));
    ASSERT_EQ_INT(count(EV_TS, 0, g_nev), 2);
    free(t.cmds);
    teardown();
    return 0;
}

/* Group mode (OPSCOPE_VK_GROUP=1): nodes with no barrier between them share one interval.
 * B (ended by its label) and C (recorded beside it) get B's start and one end, written after
 * C's dispatch; A ends at the program's barrier. 3 timestamps instead of 5. */
static int test_group(void) {
    VkCommandBuffer cb = setup(false, false);
    g_dev->group = true;
    record_stream(cb, true);
    stream_pos p = positions();
    taken t = take(cb);
    ASSERT_EQ_INT(t.n, 4);
    ASSERT_EQ_INT(count(EV_TS, 0, g_nev), 3);
    ASSERT_EQ_INT(count(EV_BARRIER, 0, g_nev), 2);
    /* A: its own start and end, the end before the program's barrier */
    int a_end = written_at(t.cmds[0].slab1, t.cmds[0].q1);
    ASSERT_GT_INT(a_end, p.disp[0]);
    ASSERT_LT_INT(a_end, find_nth(EV_BARRIER, 0));
    /* B's dispatches and C: one start (A's end) and one end */
    for (int i = 1; i < 4; i++) {
        ASSERT_EQ_INT(t.cmds[i].slab0, t.cmds[0].slab1);
        ASSERT_EQ_INT(t.cmds[i].q0, t.cmds[0].q1);
        ASSERT_EQ_INT(t.cmds[i].slab1, t.cmds[3].slab1);
        ASSERT_EQ_INT(t.cmds[i].q1, t.cmds[3].q1);
    }
    int g_end = written_at(t.cmds[3].slab1, t.cmds[3].q1);
    ASSERT_GT_INT(g_end, p.disp[3]);
    ASSERT_LT_INT(g_end, find_nth(EV_END, 0));
    ASSERT_EQ_U64(g_lost, 0);
    free(t.cmds);
    teardown();
    return 0;
}

TEST_MAIN(TEST(test_gpu_default), TEST(test_group), TEST(test_untimed_scope), TEST(test_timed_then_untimed), TEST(test_cpu_shared_bounds), TEST(test_serialize), TEST(test_unlabelled),
          TEST(test_event_closes), TEST(test_many_items), TEST(test_region_label), TEST(test_node_label_form))
