/*
 * vkl_cmd.c - command recording: timestamps around every dispatch and transfer.
 *
 * An item (a dispatch or transfer) starts at the first command after the item before it
 * (start_mark) and ends right after itself, or, inside ggml-vulkan's node label, when that
 * label ends: a node's dispatches are one item (item_begin). Each command buffer's recording
 * takes query slabs as it needs them; a slab is reset by a vkCmdResetQueryPool recorded just
 * before its first timestamp (in the same command buffer, so no host reset feature is needed
 * and the program's device is created as it asked).
 * A slab returns to the free list when the recording is reset and every batch that read it
 * is done. With no slab left (VKL_MAX_POOLS pools in flight), commands go untimed and are
 * counted as lost.
 */
#include "vklayer/vkl.h"
#include "vklayer/vkl_map.h"

#include <stdlib.h>
#include <string.h>

#define CB_SLOTS 65536 /* command buffers alive at once, a power of two */
#define POOL_SLOTS 4096

/* What the layer keeps of a command pool: its queue family and the command buffers it tracks
 * there (ggml resets a pool per graph). */
typedef struct vkl_pool {
    uint32_t family;
    vkl_cb *cbs;
} vkl_pool;

static uint64_t g_cb_keys[CB_SLOTS], g_cb_vals[CB_SLOTS];
static vkl_map g_cbs = VKL_MAP_INIT(g_cb_keys, g_cb_vals, CB_SLOTS);     /* handle -> vkl_cb */
static uint64_t g_pool_keys[POOL_SLOTS], g_pool_vals[POOL_SLOTS];
static vkl_map g_pools = VKL_MAP_INIT(g_pool_keys, g_pool_vals, POOL_SLOTS); /* handle -> vkl_pool */

#define KEY(h) ((uint64_t)(uintptr_t)(h))

static vkl_cb *cb_of(VkCommandBuffer h) {
    uint64_t *v = vkl_map_get(&g_cbs, KEY(h));
    return v ? (vkl_cb *)(uintptr_t)*v : NULL;
}

static vkl_pool *pool_of(VkCommandPool p) {
    uint64_t *v = vkl_map_get(&g_pools, KEY(p));
    return v ? (vkl_pool *)(uintptr_t)*v : NULL;
}

/* ---- slabs ---- */

static int slab_get(vkl_device *d) {
    if (d->free_slab < 0 && d->n_pools < VKL_MAX_POOLS) {
        VkQueryPoolCreateInfo ci = {VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO, NULL, 0, VK_QUERY_TYPE_TIMESTAMP,
                                    VKL_POOL_SLABS * VKL_SLAB_Q, 0};
        VkQueryPool qp;
        if (d->CreateQueryPool(d->handle, &ci, NULL, &qp) == VK_SUCCESS) {
            int p = d->n_pools++;
            d->pools[p] = qp;
            for (int s = VKL_POOL_SLABS - 1; s >= 0; s--) {
                vkl_slab *sl = &d->slabs[p * VKL_POOL_SLABS + s];
                sl->pool = p;
                sl->first = s * VKL_SLAB_Q;
                sl->refs = 0;
                sl->next_free = d->free_slab;
                d->free_slab = p * VKL_POOL_SLABS + s;
            }
        }
    }
    int s = d->free_slab;
    if (s >= 0) {
        d->free_slab = d->slabs[s].next_free;
        d->slabs[s].refs = 1;
    }
    return s;
}

void vkl_slab_unref(vkl_device *d, int s) {
    if (s >= 0 && --d->slabs[s].refs == 0) {
        d->slabs[s].next_free = d->free_slab;
        d->free_slab = s;
    }
}

/* ---- recordings ---- */

static void drop_push(vkl_drop *dr, const vkl_cmd *c) {
    if (dr->n == dr->cap) {
        size_t nc = dr->cap ? dr->cap * 2 : 64;
        opscope_gpu_item *nv = realloc(dr->v, nc * sizeof *nv);
        if (!nv) {
            return; /* the capture then waits for an item that never comes: that compute stays
                       host-timed, nothing else is lost */
        }
        dr->v = nv;
        dr->cap = nc;
    }
    opscope_gpu_item *it = &dr->v[dr->n++];
    memset(it, 0, sizeof *it);
    it->name = c->name;
    it->label = c->label;
    it->label_id = c->label_id;
    it->seq = c->seq;
    it->kind = c->kind;
    it->flags = OPSCOPE_GPU_F_DROPPED;
    it->bytes = (uint64_t)c->scope; /* carried to drop_deliver; cleared there */
}

/* Forgets CB's recording. Items never submitted go to DR (the capture counts on them). */
static void recording_reset(vkl_cb *cb, vkl_drop *dr) {
    if (!cb->submitted) {
        for (int i = 0; i < cb->n_cmds; i++) {
            if (cb->cmds[i].scope) {
                drop_push(dr, &cb->cmds[i]);
            }
        }
    }
    for (int i = 0; i < cb->n_slabs; i++) {
        vkl_slab_unref(cb->dev, cb->slabs[i]);
    }
    cb->n_cmds = 0;
    cb->n_slabs = 0;
    cb->cur_slab = -1;
    cb->cur_q = 0;
    cb->pend_slab = -1;
    cb->open_slab = -1;
    cb->n_labels = 0;
    cb->pipeline = NULL;
    cb->submitted = false;
}

static void drop_deliver(vkl_drop *dr) {
    const opscope_gpu_host *h = g_vkl.host;
    for (size_t i = 0; i < dr->n && h; i++) {
        uint64_t scope = dr->v[i].bytes;
        dr->v[i].bytes = 0;
        h->deliver(scope, &dr->v[i], 1);
    }
    free(dr->v);
}

static void cb_free(vkl_cb *cb, vkl_drop *dr) {
    vkl_pool *p = pool_of(cb->pool);
    for (vkl_cb **pp = p ? &p->cbs : NULL; pp && *pp; pp = &(*pp)->pool_next) {
        if (*pp == cb) {
            *pp = cb->pool_next;
            break;
        }
    }
    vkl_map_del(&g_cbs, KEY(cb->handle));
    recording_reset(cb, dr);
    free(cb->cmds);
    free(cb->slabs);
    free(cb);
}

void vkl_cb_forget_pool(VkCommandPool pool, bool free_them) {
    vkl_drop dr = {0};
    pthread_mutex_lock(&g_vkl.mu);
    vkl_pool *p = pool_of(pool);
    vkl_cb *cb = p ? p->cbs : NULL;
    while (cb) {
        vkl_cb *next = cb->pool_next;
        if (free_them) {
            cb_free(cb, &dr);
        } else {
            recording_reset(cb, &dr);
        }
        cb = next;
    }
    if (free_them && p) {
        vkl_map_del(&g_pools, KEY(pool));
        free(p);
    }
    pthread_mutex_unlock(&g_vkl.mu);
    drop_deliver(&dr);
}

/* ---- intercepted functions ---- */

static VKAPI_ATTR VkResult VKAPI_CALL vkl_CreateCommandPool(VkDevice dev, const VkCommandPoolCreateInfo *ci,
                                                           const VkAllocationCallbacks *a, VkCommandPool *out) {
    vkl_device *d = vkl_device_of(dev);
    VkResult r = d->CreateCommandPool(dev, ci, a, out);
    if (r == VK_SUCCESS) {
        pthread_mutex_lock(&g_vkl.mu);
        vkl_pool *p = calloc(1, sizeof *p);
        uint64_t *v = p ? vkl_map_put(&g_pools, KEY(*out)) : NULL;
        if (v) {
            p->family = ci->queueFamilyIndex;
            *v = (uint64_t)(uintptr_t)p;
        } else {
            free(p); /* untracked: its command buffers go untimed */
        }
        pthread_mutex_unlock(&g_vkl.mu);
    }
    return r;
}

static VKAPI_ATTR void VKAPI_CALL vkl_DestroyCommandPool(VkDevice dev, VkCommandPool pool, const VkAllocationCallbacks *a) {
    vkl_device *d = vkl_device_of(dev);
    if (pool) {
        vkl_cb_forget_pool(pool, true);
    }
    d->DestroyCommandPool(dev, pool, a);
}

static VKAPI_ATTR VkResult VKAPI_CALL vkl_ResetCommandPool(VkDevice dev, VkCommandPool pool, VkCommandPoolResetFlags f) {
    vkl_device *d = vkl_device_of(dev);
    vkl_cb_forget_pool(pool, false);
    return d->ResetCommandPool(dev, pool, f);
}

static VKAPI_ATTR VkResult VKAPI_CALL vkl_AllocateCommandBuffers(VkDevice dev, const VkCommandBufferAllocateInfo *ai,
                                                                VkCommandBuffer *out) {
    vkl_device *d = vkl_device_of(dev);
    VkResult r = d->AllocateCommandBuffers(dev, ai, out);
    if (r != VK_SUCCESS || !d->timing) {
        return r;
    }
    pthread_mutex_lock(&g_vkl.mu);
    vkl_pool *p = pool_of(ai->commandPool);
    for (uint32_t i = 0; p && ai->level == VK_COMMAND_BUFFER_LEVEL_PRIMARY && i < ai->commandBufferCount; i++) {
        /* secondary buffers, untracked pools and a full table: untimed */
        vkl_cb *cb = calloc(1, sizeof *cb);
        uint64_t *v = cb ? vkl_map_put(&g_cbs, KEY(out[i])) : NULL;
        if (!v) {
            free(cb);
            continue;
        }
        cb->handle = out[i];
        cb->pool = ai->commandPool;
        cb->pool_next = p->cbs;
        p->cbs = cb;
        cb->dev = d;
        cb->family = p->family;
        cb->cur_slab = -1;
        cb->pend_slab = -1;
        cb->open_slab = -1;
        *v = (uint64_t)(uintptr_t)cb;
    }
    pthread_mutex_unlock(&g_vkl.mu);
    return r;
}

static VKAPI_ATTR void VKAPI_CALL vkl_FreeCommandBuffers(VkDevice dev, VkCommandPool pool, uint32_t n,
                                                        const VkCommandBuffer *cbs) {
    vkl_device *d = vkl_device_of(dev);
    vkl_drop dr = {0};
    pthread_mutex_lock(&g_vkl.mu);
    for (uint32_t i = 0; i < n; i++) {
        vkl_cb *cb = cbs[i] ? cb_of(cbs[i]) : NULL;
        if (cb) {
            cb_free(cb, &dr);
        }
    }
    pthread_mutex_unlock(&g_vkl.mu);
    drop_deliver(&dr);
    d->FreeCommandBuffers(dev, pool, n, cbs);
}

static void start_mark(vkl_device *d, VkCommandBuffer h, bool waits);
static void item_close(vkl_device *d, VkCommandBuffer h, uint32_t end_node);

static void restart(VkCommandBuffer h) {
    vkl_drop dr = {0};
    pthread_mutex_lock(&g_vkl.mu);
    vkl_cb *cb = cb_of(h);
    if (cb) {
        recording_reset(cb, &dr);
    }
    pthread_mutex_unlock(&g_vkl.mu);
    drop_deliver(&dr);
}

static VKAPI_ATTR VkResult VKAPI_CALL vkl_BeginCommandBuffer(VkCommandBuffer h, const VkCommandBufferBeginInfo *bi) {
    vkl_device *d = vkl_device_of(h);
    restart(h);
    return d->BeginCommandBuffer(h, bi);
}

/* The last item's end timestamp, before the recording closes. */
static VKAPI_ATTR VkResult VKAPI_CALL vkl_EndCommandBuffer(VkCommandBuffer h) {
    vkl_device *d = vkl_device_of(h);
    item_close(d, h, UINT32_MAX);
    return d->EndCommandBuffer(h);
}

static VKAPI_ATTR VkResult VKAPI_CALL vkl_ResetCommandBuffer(VkCommandBuffer h, VkCommandBufferResetFlags f) {
    vkl_device *d = vkl_device_of(h);
    restart(h);
    return d->ResetCommandBuffer(h, f);
}

static VKAPI_ATTR void VKAPI_CALL vkl_CmdBindPipeline(VkCommandBuffer h, VkPipelineBindPoint bp, VkPipeline p) {
    vkl_device *d = vkl_device_of(h);
    if (bp == VK_PIPELINE_BIND_POINT_COMPUTE && d->timing && g_vkl.host &&
        g_vkl.host->scope() != OPSCOPE_GPU_SCOPE_UNTIMED) {
        start_mark(d, h, false);
        pthread_mutex_lock(&g_vkl.mu);
        vkl_cb *cb = cb_of(h);
        if (cb) {
            cb->pipeline = vkl_pipeline_name(p);
        }
        pthread_mutex_unlock(&g_vkl.mu);
    }
    d->CmdBindPipeline(h, bp, p);
}

/* Room for NEED elements of SIZE bytes in *ARR (*CAP held): the capacity doubled from FIRST
 * until they fit. False when out of memory (*ARR and *CAP as they were). */
static bool room_for(void **arr, int *cap, int need, int first, size_t size) {
    if (need <= *cap) {
        return true;
    }
    int nc = *cap ? *cap : first;
    while (nc < need) {
        nc *= 2;
    }
    void *nv = realloc(*arr, (size_t)nc * size);
    if (!nv) {
        return false;
    }
    *arr = nv;
    *cap = nc;
    return true;
}

/* The next free query of CB's recording (a new slab, reset by a command, when the current one
 * is full): *SLAB, *Q. False when none is left. Under g_vkl.mu. */
static bool query_take(vkl_device *d, vkl_cb *cb, VkCommandBuffer h, int *slab, int *q) {
    if (cb->cur_slab < 0 || cb->cur_q >= VKL_SLAB_Q) {
        int s = -1;
        if (room_for((void **)&cb->slabs, &cb->cap_slabs, cb->n_slabs + 1, 8, sizeof *cb->slabs)) {
            s = slab_get(d);
        }
        if (s < 0) {
            return false;
        }
        cb->slabs[cb->n_slabs++] = s;
        cb->cur_slab = s;
        cb->cur_q = 0;
        d->CmdResetQueryPool(h, d->pools[d->slabs[s].pool], (uint32_t)d->slabs[s].first, VKL_SLAB_Q);
    }
    *slab = cb->cur_slab;
    *q = cb->cur_q++;
    return true;
}

static vkl_cb *timed_cb(vkl_device *d, VkCommandBuffer h) {
    vkl_cb *cb = cb_of(h);
    return (cb && cb->family < VKL_MAX_FAMILIES && d->valid_bits[cb->family] && d->timing) ? cb : NULL;
}

static void write_ts(vkl_device *d, VkCommandBuffer h, VkPipelineStageFlagBits stage, int slab, int q) {
    const vkl_slab *sl = &d->slabs[slab];
    d->CmdWriteTimestamp(h, stage, d->pools[sl->pool], (uint32_t)(sl->first + q));
}

/* The barrier OPSCOPE_VK_SERIALIZE=1 puts between an item and its end timestamp (the same
 * one ggml-vulkan records between dependent nodes): the end then waits for the item's work
 * on any device, and the program runs one node at a time, as under GGML_VK_PERF_LOGGER. */
static void serial_barrier(vkl_device *d, VkCommandBuffer h) {
    VkMemoryBarrier mb = {VK_STRUCTURE_TYPE_MEMORY_BARRIER, NULL,
                          VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                          VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                              VK_ACCESS_TRANSFER_WRITE_BIT};
    VkPipelineStageFlags st = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
    d->CmdPipelineBarrier(h, st, st, 0, 1, &mb, 0, NULL, 0, NULL);
}

/* What the layer adds to the stream: decided under g_vkl.mu, recorded outside it. */
typedef struct start_act {
    int end_slab, end_q;     /* >= 0: the open item's end timestamp, written now */
    bool barrier;            /* serialize: our barrier before it */
    int start_slab, start_q; /* >= 0: the next item's start timestamp, written now */
} start_act;

#define START_ACT_NONE {-1, 0, false, -1, 0}

/*
 * Ends the open item: its end timestamp is written now, behind a barrier in serialize mode.
 * In serialize mode and on a CPU device that end is also where the next item starts. Under
 * g_vkl.mu.
 */
static void close_open(vkl_device *d, vkl_cb *cb, start_act *a) {
    if (cb->open_slab < 0) {
        return;
    }
    a->end_slab = cb->open_slab;
    a->end_q = cb->open_q;
    a->barrier = d->serialize;
    cb->open_slab = -1;
    cb->group_open = false;
    if (d->serialize || d->share_bounds) {
        cb->pend_slab = a->end_slab;
        cb->pend_q = a->end_q;
    }
}

/*
 * Marks where the next item starts, unless that is known already. After a barrier or an
 * event wait (WAITS) the next item cannot start before all earlier work is done, which is
 * when the previous item's end timestamp (bottom of the pipe: it waits for all earlier work)
 * was written: that end is the start. So it is on a CPU device, which runs a queue's work in
 * order. Else (a node beside the previous one, unsynchronised) a top-of-pipe timestamp
 * written now, which does not wait: on a GPU the two keep their overlapping intervals.
 * Under g_vkl.mu; CB is timed.
 */
static void mark_next(vkl_device *d, vkl_cb *cb, VkCommandBuffer h, bool waits, start_act *a) {
    if (cb->pend_slab >= 0) {
        return;
    }
    if ((d->share_bounds || waits) && cb->n_cmds > 0) {
        cb->pend_slab = cb->cmds[cb->n_cmds - 1].slab1; /* the previous item's end */
        cb->pend_q = cb->cmds[cb->n_cmds - 1].q1;
    } else if (query_take(d, cb, h, &a->start_slab, &a->start_q)) {
        cb->pend_slab = a->start_slab;
        cb->pend_q = a->start_q;
    }
}

static void act_do(vkl_device *d, VkCommandBuffer h, start_act a) {
    if (a.barrier) {
        serial_barrier(d, h);
    }
    if (a.end_slab >= 0) {
        write_ts(d, h, d->end_stage, a.end_slab, a.end_q);
    }
    if (a.start_slab >= 0) {
        write_ts(d, h, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, a.start_slab, a.start_q);
    }
}

/*
 * The first command after an item (a barrier, an event, push constants, pipeline or
 * descriptor binding, a timestamp of the program's own) starts the next item: its setup and
 * its wait for inputs are part of the node, so the items of a stream tile the device's work.
 * WAITS: the command is a barrier or an event wait. Inside a node that is still open (its
 * next dispatch joins its item) nothing starts.
 */
static void start_mark(vkl_device *d, VkCommandBuffer h, bool waits) {
    if (!d->timing || !g_vkl.host || g_vkl.host->scope() == OPSCOPE_GPU_SCOPE_UNTIMED) {
        return;
    }
    start_act a = START_ACT_NONE;
    pthread_mutex_lock(&g_vkl.mu);
    vkl_cb *cb = timed_cb(d, h);
    if (cb && cb->group_open && waits) {
        close_open(d, cb, &a); /* the concurrent group ends where the program waits for it */
    }
    if (cb && cb->open_slab < 0) {
        mark_next(d, cb, h, waits, &a);
    }
    pthread_mutex_unlock(&g_vkl.mu);
    act_do(d, h, a);
}

/* The open item ends here: its node's label ends (END_NODE: that label's id), an unlabelled
 * item's command was recorded (END_NODE 0), or the recording ends (END_NODE UINT32_MAX). */
static void item_close(vkl_device *d, VkCommandBuffer h, uint32_t end_node) {
    if (!d->timing || !g_vkl.host) {
        return;
    }
    start_act a = START_ACT_NONE;
    pthread_mutex_lock(&g_vkl.mu);
    vkl_cb *cb = timed_cb(d, h);
    if (cb && cb->open_slab >= 0 && (end_node == UINT32_MAX || cb->open_node == end_node)) {
        if (d->group && end_node != UINT32_MAX) {
            cb->group_open = true; /* ended at the next barrier, with whatever runs beside it */
            cb->open_node = 0;
        } else {
            close_open(d, cb, &a);
        }
    }
    pthread_mutex_unlock(&g_vkl.mu);
    act_do(d, h, a);
}

/* A command recorded under the capture's untimed scope (gpu_source.h): nothing of ours goes
 * into the stream for it. Only an item a timed compute left open in the same recording is
 * ended first, so that it does not take the untimed work in. */
static void untimed_cmd(vkl_device *d, VkCommandBuffer h) {
    start_act a = START_ACT_NONE;
    pthread_mutex_lock(&g_vkl.mu);
    vkl_cb *cb = timed_cb(d, h);
    if (cb && cb->open_slab >= 0) {
        close_open(d, cb, &a);
        cb->pend_slab = -1; /* the next timed item starts with a mark of its own */
    }
    pthread_mutex_unlock(&g_vkl.mu);
    act_do(d, h, a);
}

/*
 * Records a timed item (a dispatch or transfer, before the program's command). Inside a node
 * label (ggml-vulkan's "OP+OP name" around each node's commands) the node's dispatches are
 * one item: a later one joins the open item (the capture keeps a node's first start and last
 * end), and the item ends when the label does, so a node costs one start and one end
 * timestamp, as under GGML_VK_PERF_LOGGER. Without one, the item ends right after its
 * command. It starts where mark_next said. Without a query or memory the command goes
 * untimed (counted as lost).
 */
static bool item_begin(vkl_device *d, VkCommandBuffer h, uint8_t kind, const char *name, uint64_t bytes) {
    const opscope_gpu_host *host = g_vkl.host;
    if (!d->timing || !host) {
        return false;
    }
    if (host->scope() == OPSCOPE_GPU_SCOPE_UNTIMED) {
        untimed_cmd(d, h);
        return false;
    }
    start_act a = START_ACT_NONE;
    pthread_mutex_lock(&g_vkl.mu);
    vkl_cb *cb = timed_cb(d, h);
    if (cb) {
        if (!name) {
            name = cb->pipeline ? cb->pipeline : "dispatch";
        }
        const char *label = NULL;
        uint32_t label_id = 0, node = 0;
        for (int l = (cb->n_labels < VKL_LABEL_DEPTH ? cb->n_labels : VKL_LABEL_DEPTH) - 1; l >= 0; l--) {
            if (!label && cb->labels[l]) {
                label = cb->labels[l];
                label_id = cb->label_ids[l];
            }
            if (!node && cb->label_node[l]) {
                node = cb->label_ids[l];
            }
        }
        bool join = cb->open_slab >= 0 && node && node == cb->open_node && cb->n_cmds > 0;
        /* group mode: a node recorded with no barrier after the previous one shares its
         * interval (start and end queries); gpu_map splits it by a documented rule */
        join |= cb->group_open && cb->n_cmds > 0;
        int s0 = -1, q0 = 0, s1 = -1, q1 = 0;
        if (join) {
            cb->group_open = false;
            s0 = cb->cmds[cb->n_cmds - 1].slab0;
            q0 = cb->cmds[cb->n_cmds - 1].q0;
            s1 = cb->open_slab;
            q1 = cb->open_q;
        } else {
            close_open(d, cb, &a); /* an item of another node whose label never ended */
            mark_next(d, cb, h, false, &a);
            if (cb->pend_slab >= 0 && query_take(d, cb, h, &s1, &q1)) {
                s0 = cb->pend_slab;
                q0 = cb->pend_q;
            }
        }
        if (s0 >= 0 && room_for((void **)&cb->cmds, &cb->cap_cmds, cb->n_cmds + 1, 64, sizeof *cb->cmds)) {
            uint64_t scope = host->scope();
            vkl_cmd *c = &cb->cmds[cb->n_cmds++];
            c->scope = scope;
            c->seq = vkl_scope_take(scope);
            c->name = name;
            c->label = label;
            c->label_id = label_id;
            c->bytes = bytes;
            c->kind = kind;
            c->slab0 = (uint16_t)s0;
            c->q0 = (uint8_t)q0;
            c->slab1 = (uint16_t)s1;
            c->q1 = (uint8_t)q1;
            cb->pend_slab = -1;
            cb->open_slab = s1;
            cb->open_q = q1;
            cb->open_node = node;
        } else {
            g_vkl.lost++; /* an end query taken for nothing stays unwritten: never read */
        }
    }
    pthread_mutex_unlock(&g_vkl.mu);
    act_do(d, h, a);
    return true;
}

/* A command that starts the next item (start_mark) and is then passed down the chain: WAITS
 * for a barrier or an event wait. PARAMS: its parameters (the command buffer h first), ARGS
 * their names. */
#define MARK_CMD(NAME, WAITS, PARAMS, ARGS)               \
    static VKAPI_ATTR void VKAPI_CALL vkl_##NAME PARAMS { \
        vkl_device *d = vkl_device_of(h);                 \
        start_mark(d, h, WAITS);                          \
        d->NAME ARGS;                                     \
    }

MARK_CMD(CmdPipelineBarrier, true,
         (VkCommandBuffer h, VkPipelineStageFlags src, VkPipelineStageFlags dst, VkDependencyFlags dep, uint32_t nm,
          const VkMemoryBarrier *m, uint32_t nb, const VkBufferMemoryBarrier *b, uint32_t ni,
          const VkImageMemoryBarrier *im),
         (h, src, dst, dep, nm, m, nb, b, ni, im))
MARK_CMD(CmdPipelineBarrier2, true, (VkCommandBuffer h, const VkDependencyInfo *di), (h, di))

/* Event commands come after an item too (ggml's backend events): an event wait, like a
 * barrier, starts the next item. */
MARK_CMD(CmdSetEvent, false, (VkCommandBuffer h, VkEvent e, VkPipelineStageFlags st), (h, e, st))
MARK_CMD(CmdResetEvent, false, (VkCommandBuffer h, VkEvent e, VkPipelineStageFlags st), (h, e, st))
MARK_CMD(CmdWaitEvents, true,
         (VkCommandBuffer h, uint32_t n, const VkEvent *ev, VkPipelineStageFlags src, VkPipelineStageFlags dst,
          uint32_t nm, const VkMemoryBarrier *m, uint32_t nb, const VkBufferMemoryBarrier *b, uint32_t ni,
          const VkImageMemoryBarrier *im),
         (h, n, ev, src, dst, nm, m, nb, b, ni, im))
MARK_CMD(CmdSetEvent2, false, (VkCommandBuffer h, VkEvent e, const VkDependencyInfo *di), (h, e, di))
MARK_CMD(CmdResetEvent2, false, (VkCommandBuffer h, VkEvent e, VkPipelineStageFlags2 st), (h, e, st))
MARK_CMD(CmdWaitEvents2, true, (VkCommandBuffer h, uint32_t n, const VkEvent *ev, const VkDependencyInfo *di),
         (h, n, ev, di))

static VKAPI_ATTR void VKAPI_CALL vkl_CmdPushConstants(VkCommandBuffer h, VkPipelineLayout l, VkShaderStageFlags st,
                                                     uint32_t off, uint32_t size, const void *v) {
    vkl_device *d = vkl_device_of(h);
    if (st & VK_SHADER_STAGE_COMPUTE_BIT) {
        start_mark(d, h, false);
    }
    d->CmdPushConstants(h, l, st, off, size, v);
}

static VKAPI_ATTR void VKAPI_CALL vkl_CmdBindDescriptorSets(VkCommandBuffer h, VkPipelineBindPoint bp,
                                                          VkPipelineLayout l, uint32_t first, uint32_t n,
                                                          const VkDescriptorSet *sets, uint32_t nd,
                                                          const uint32_t *dyn) {
    vkl_device *d = vkl_device_of(h);
    if (bp == VK_PIPELINE_BIND_POINT_COMPUTE) {
        start_mark(d, h, false);
    }
    d->CmdBindDescriptorSets(h, bp, l, first, n, sets, nd, dyn);
}

/* The program's own timestamps (GGML_VK_PERF_LOGGER writes one after every node) are commands
 * after an item too: they start the next item, as in the program's own accounting. */
MARK_CMD(CmdWriteTimestamp, false, (VkCommandBuffer h, VkPipelineStageFlagBits st, VkQueryPool qp, uint32_t q),
         (h, st, qp, q))
MARK_CMD(CmdWriteTimestamp2, false, (VkCommandBuffer h, VkPipelineStageFlags2 st, VkQueryPool qp, uint32_t q),
         (h, st, qp, q))

#define TIMED(d, h, kind, name, bytes, call)                                   \
    do {                                                                       \
        bool timed_ = item_begin(d, h, kind, name, bytes);                     \
        call;                                                                  \
        if (timed_) {                                                          \
            item_close(d, h, 0);                                               \
        }                                                                      \
    } while (0)

/* A dispatch, timed as one item when the device is timed. PARAMS and ARGS as MARK_CMD's. */
#define DISPATCH_CMD(NAME, PARAMS, ARGS)                                   \
    static VKAPI_ATTR void VKAPI_CALL vkl_##NAME PARAMS {                  \
        vkl_device *d = vkl_device_of(h);                                  \
        if (!d->timing) {                                                  \
            d->NAME ARGS;                                                  \
            return;                                                        \
        }                                                                  \
        TIMED(d, h, OPSCOPE_GPU_ITEM_DISPATCH, NULL, 0, d->NAME ARGS);     \
    }

DISPATCH_CMD(CmdDispatch, (VkCommandBuffer h, uint32_t x, uint32_t y, uint32_t z), (h, x, y, z))
DISPATCH_CMD(CmdDispatchBase,
             (VkCommandBuffer h, uint32_t bx, uint32_t by, uint32_t bz, uint32_t x, uint32_t y, uint32_t z),
             (h, bx, by, bz, x, y, z))
DISPATCH_CMD(CmdDispatchIndirect, (VkCommandBuffer h, VkBuffer b, VkDeviceSize off), (h, b, off))

static VKAPI_ATTR void VKAPI_CALL vkl_CmdCopyBuffer(VkCommandBuffer h, VkBuffer s, VkBuffer t, uint32_t n,
                                                   const VkBufferCopy *r) {
    vkl_device *d = vkl_device_of(h);
    uint64_t bytes = 0;
    for (uint32_t i = 0; i < n; i++) {
        bytes += r[i].size;
    }
    TIMED(d, h, OPSCOPE_GPU_ITEM_COPY, "vkCmdCopyBuffer", bytes, d->CmdCopyBuffer(h, s, t, n, r));
}

static VKAPI_ATTR void VKAPI_CALL vkl_CmdCopyBuffer2(VkCommandBuffer h, const VkCopyBufferInfo2 *ci) {
    vkl_device *d = vkl_device_of(h);
    uint64_t bytes = 0;
    for (uint32_t i = 0; i < ci->regionCount; i++) {
        bytes += ci->pRegions[i].size;
    }
    TIMED(d, h, OPSCOPE_GPU_ITEM_COPY, "vkCmdCopyBuffer2", bytes, d->CmdCopyBuffer2(h, ci));
}

static VKAPI_ATTR void VKAPI_CALL vkl_CmdFillBuffer(VkCommandBuffer h, VkBuffer b, VkDeviceSize off, VkDeviceSize size,
                                                   uint32_t data) {
    vkl_device *d = vkl_device_of(h);
    TIMED(d, h, OPSCOPE_GPU_ITEM_FILL, "vkCmdFillBuffer", size == VK_WHOLE_SIZE ? 0 : size,
          d->CmdFillBuffer(h, b, off, size, data));
}

static VKAPI_ATTR void VKAPI_CALL vkl_CmdUpdateBuffer(VkCommandBuffer h, VkBuffer b, VkDeviceSize off, VkDeviceSize size,
                                                     const void *data) {
    vkl_device *d = vkl_device_of(h);
    TIMED(d, h, OPSCOPE_GPU_ITEM_UPDATE, "vkCmdUpdateBuffer", size, d->CmdUpdateBuffer(h, b, off, size, data));
}

static VKAPI_ATTR VkResult VKAPI_CALL vkl_SetDebugUtilsObjectNameEXT(VkDevice dev, const VkDebugUtilsObjectNameInfoEXT *ni) {
    vkl_device *d = vkl_device_of(dev);
    if (ni && ni->objectType == VK_OBJECT_TYPE_PIPELINE && ni->pObjectName) {
        pthread_mutex_lock(&g_vkl.mu);
        vkl_pipeline_set_name((VkPipeline)(uintptr_t)ni->objectHandle, ni->pObjectName);
        pthread_mutex_unlock(&g_vkl.mu);
    }
    return d->SetDebugUtilsObjectNameEXT(dev, ni);
}

static VKAPI_ATTR void VKAPI_CALL vkl_CmdBeginDebugUtilsLabelEXT(VkCommandBuffer h, const VkDebugUtilsLabelEXT *li) {
    vkl_device *d = vkl_device_of(h);
    if (d->timing) {
        pthread_mutex_lock(&g_vkl.mu);
        vkl_cb *cb = cb_of(h);
        if (cb) {
            if (cb->n_labels < VKL_LABEL_DEPTH) {
                const char *t = li ? vkl_label_intern(li->pLabelName) : NULL;
                cb->labels[cb->n_labels] = t;
                cb->label_ids[cb->n_labels] = ++g_vkl.label_seq;
                cb->label_node[cb->n_labels] = t && vkl_label_is_node(t);
            }
            cb->n_labels++;
        }
        pthread_mutex_unlock(&g_vkl.mu);
    }
    d->CmdBeginDebugUtilsLabelEXT(h, li);
}

static VKAPI_ATTR void VKAPI_CALL vkl_CmdEndDebugUtilsLabelEXT(VkCommandBuffer h) {
    vkl_device *d = vkl_device_of(h);
    if (d->timing) {
        uint32_t ended = 0;
        pthread_mutex_lock(&g_vkl.mu);
        vkl_cb *cb = cb_of(h);
        if (cb && cb->n_labels > 0) {
            cb->n_labels--;
            if (cb->n_labels < VKL_LABEL_DEPTH && cb->label_node[cb->n_labels]) {
                ended = cb->label_ids[cb->n_labels];
            }
        }
        pthread_mutex_unlock(&g_vkl.mu);
        if (ended) {
            item_close(d, h, ended); /* the node's end, before its label closes */
        }
    }
    d->CmdEndDebugUtilsLabelEXT(h);
}

static VKAPI_ATTR void VKAPI_CALL vkl_DestroyPipeline(VkDevice dev, VkPipeline p, const VkAllocationCallbacks *a) {
    vkl_device *d = vkl_device_of(dev);
    if (p) {
        pthread_mutex_lock(&g_vkl.mu);
        vkl_pipeline_forget(p);
        pthread_mutex_unlock(&g_vkl.mu);
    }
    d->DestroyPipeline(dev, p, a);
}

/* Called by vkl_done.c at submit, under g_vkl.mu: CB's items and slab references move to
 * the batch (the recording keeps its own slab references until it is reset). */
int vkl_cb_take(VkCommandBuffer h, vkl_cmd **cmds, int *n_cmds, int *cap_cmds, int **slabs, int *n_slabs,
                int *cap_slabs) {
    vkl_cb *cb = cb_of(h);
    if (!cb || cb->n_cmds == 0) {
        return 0;
    }
    if (!room_for((void **)cmds, cap_cmds, *n_cmds + cb->n_cmds, 64, sizeof **cmds) ||
        !room_for((void **)slabs, cap_slabs, *n_slabs + cb->n_slabs, 8, sizeof **slabs)) {
        return -1;
    }
    if (cb->submitted) {
        /* submitted again without re-recording: its scopes were delivered already */
        for (int i = 0; i < cb->n_cmds; i++) {
            vkl_cmd c = cb->cmds[i];
            c.scope = 0;
            (*cmds)[(*n_cmds)++] = c;
        }
    } else {
        memcpy(*cmds + *n_cmds, cb->cmds, (size_t)cb->n_cmds * sizeof **cmds);
        *n_cmds += cb->n_cmds;
    }
    for (int i = 0; i < cb->n_slabs; i++) {
        cb->dev->slabs[cb->slabs[i]].refs++;
        (*slabs)[(*n_slabs)++] = cb->slabs[i];
    }
    cb->submitted = true;
    return cb->n_cmds;
}

PFN_vkVoidFunction vkl_cmd_proc(const char *name) {
    static const struct {
        const char *name;
        PFN_vkVoidFunction fn;
    } t[] = {
        {"vkCreateCommandPool", (PFN_vkVoidFunction)vkl_CreateCommandPool},
        {"vkDestroyCommandPool", (PFN_vkVoidFunction)vkl_DestroyCommandPool},
        {"vkResetCommandPool", (PFN_vkVoidFunction)vkl_ResetCommandPool},
        {"vkAllocateCommandBuffers", (PFN_vkVoidFunction)vkl_AllocateCommandBuffers},
        {"vkFreeCommandBuffers", (PFN_vkVoidFunction)vkl_FreeCommandBuffers},
        {"vkBeginCommandBuffer", (PFN_vkVoidFunction)vkl_BeginCommandBuffer},
        {"vkEndCommandBuffer", (PFN_vkVoidFunction)vkl_EndCommandBuffer},
        {"vkResetCommandBuffer", (PFN_vkVoidFunction)vkl_ResetCommandBuffer},
        {"vkCmdBindPipeline", (PFN_vkVoidFunction)vkl_CmdBindPipeline},
        {"vkCmdPushConstants", (PFN_vkVoidFunction)vkl_CmdPushConstants},
        {"vkCmdWriteTimestamp", (PFN_vkVoidFunction)vkl_CmdWriteTimestamp},
        {"vkCmdWriteTimestamp2", (PFN_vkVoidFunction)vkl_CmdWriteTimestamp2},
        {"vkCmdWriteTimestamp2KHR", (PFN_vkVoidFunction)vkl_CmdWriteTimestamp2},
        {"vkCmdBindDescriptorSets", (PFN_vkVoidFunction)vkl_CmdBindDescriptorSets},
        {"vkCmdDispatch", (PFN_vkVoidFunction)vkl_CmdDispatch},
        {"vkCmdDispatchBase", (PFN_vkVoidFunction)vkl_CmdDispatchBase},
        {"vkCmdDispatchBaseKHR", (PFN_vkVoidFunction)vkl_CmdDispatchBase},
        {"vkCmdDispatchIndirect", (PFN_vkVoidFunction)vkl_CmdDispatchIndirect},
        {"vkCmdCopyBuffer", (PFN_vkVoidFunction)vkl_CmdCopyBuffer},
        {"vkCmdCopyBuffer2", (PFN_vkVoidFunction)vkl_CmdCopyBuffer2},
        {"vkCmdCopyBuffer2KHR", (PFN_vkVoidFunction)vkl_CmdCopyBuffer2},
        {"vkCmdFillBuffer", (PFN_vkVoidFunction)vkl_CmdFillBuffer},
        {"vkCmdUpdateBuffer", (PFN_vkVoidFunction)vkl_CmdUpdateBuffer},
        {"vkCmdPipelineBarrier", (PFN_vkVoidFunction)vkl_CmdPipelineBarrier},
        {"vkCmdPipelineBarrier2", (PFN_vkVoidFunction)vkl_CmdPipelineBarrier2},
        {"vkCmdPipelineBarrier2KHR", (PFN_vkVoidFunction)vkl_CmdPipelineBarrier2},
        {"vkCmdSetEvent", (PFN_vkVoidFunction)vkl_CmdSetEvent},
        {"vkCmdResetEvent", (PFN_vkVoidFunction)vkl_CmdResetEvent},
        {"vkCmdWaitEvents", (PFN_vkVoidFunction)vkl_CmdWaitEvents},
        {"vkCmdSetEvent2", (PFN_vkVoidFunction)vkl_CmdSetEvent2},
        {"vkCmdSetEvent2KHR", (PFN_vkVoidFunction)vkl_CmdSetEvent2},
        {"vkCmdResetEvent2", (PFN_vkVoidFunction)vkl_CmdResetEvent2},
        {"vkCmdResetEvent2KHR", (PFN_vkVoidFunction)vkl_CmdResetEvent2},
        {"vkCmdWaitEvents2", (PFN_vkVoidFunction)vkl_CmdWaitEvents2},
        {"vkCmdWaitEvents2KHR", (PFN_vkVoidFunction)vkl_CmdWaitEvents2},
        {"vkSetDebugUtilsObjectNameEXT", (PFN_vkVoidFunction)vkl_SetDebugUtilsObjectNameEXT},
        {"vkDestroyPipeline", (PFN_vkVoidFunction)vkl_DestroyPipeline},
        {"vkCmdBeginDebugUtilsLabelEXT", (PFN_vkVoidFunction)vkl_CmdBeginDebugUtilsLabelEXT},
        {"vkCmdEndDebugUtilsLabelEXT", (PFN_vkVoidFunction)vkl_CmdEndDebugUtilsLabelEXT},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        if (strcmp(name, t[i].name) == 0) {
            return t[i].fn;
        }
    }
    return NULL;
}
