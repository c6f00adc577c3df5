/*
 * fake_cupti.c - a test double of libcupti (and of the few CUDA runtime calls a test program
 * makes through it), so the CUPTI source runs through the real capture path without a GPU.
 * Not part of opscope; its records are laid out with C structs in NVIDIA's documented field
 * order, independently of the offsets in src/capture/gpu/cupti_rec.c.
 *
 * The program side (fake_cuda_*): kernel launches, memsets, stream capture, instantiation,
 * exec update and graph launch. They call the subscriber's callbacks as CUPTI does (runtime
 * API enter, a nested driver API call with a correlation id of its own, exit; resource
 * callbacks for nodes created during capture, cloned at instantiation, the exec created) and
 * queue activity records with the nested call's correlation id; a "device" runs each kernel
 * for its duration (a busy wait, so device times lie inside the host call).
 *
 * Scenarios, from the environment:
 *   FAKE_CUPTI_VERSION=N       cuptiGetVersion (default 130001, CUDA 13.0)
 *   FAKE_CUPTI_REFUSE=1|N      cuptiSubscribe fails with 39 (another subscriber holds CUPTI), or N
 *   FAKE_CUPTI_NO_TSCB=1       no timestamp callback: the source calibrates (device clock 5 s ahead)
 *   FAKE_CUPTI_ZERO_TS=1       CUDA 12.6U2-13.0's bug: with the timestamp callback registered,
 *                              kernel records carry zero timestamps
 *   FAKE_CUPTI_RAW_TS=1        kernel records stamped with the fake's own clock (5 s ahead)
 *                              although the callback was registered (out of range)
 *   FAKE_CUPTI_PER_BUFFER=N    records per buffer (default 4096): records split across buffers
 *   FAKE_CUPTI_REVERSE=1       each flush completes its buffers last first, records reversed
 *   FAKE_CUPTI_DROP=N          the first flush loses its last N records, reported as dropped
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fake_cupti_abi.h"

typedef struct node {
    uint64_t id;
    uint32_t type; /* NODE_KERNEL, NODE_MEMSET */
    const char *name;
    uint64_t dur, bytes;
} node;
typedef struct graph {
    node nodes[256];
    int n;
} graph;

static cb_fn g_cb;
static void *g_ud;
static bool g_enabled[4][64];
static req_fn g_req;
static done_fn g_done;
static ts_fn g_ts;
static uint32_t g_corr = 100;
static uint64_t g_next_node = 5000;
static graph *g_capturing;
static union {
    rec_kernel k;
    rec_memset s;
} g_pending[8192];
static int g_n_pending;
static uint64_t g_device_free; /* when the device finishes its queued work */
static size_t g_dropped;
static bool g_first_flush = true;

static int env_int(const char *name, int def) {
    const char *v = getenv(name);
    return v && *v ? atoi(v) : def;
}

static uint64_t mono(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The device's clock: the registered callback's, else 5 s ahead of CLOCK_MONOTONIC. */
static uint64_t dev_now(void) {
    return g_ts ? g_ts() : mono() + 5000000000ull;
}

/* ---- the CUPTI subset ---- */

int cuptiGetVersion(uint32_t *v) {
    *v = (uint32_t)env_int("FAKE_CUPTI_VERSION", 130001);
    return 0;
}

int cuptiSubscribe(void **sub, cb_fn cb, void *ud) {
    int refuse = env_int("FAKE_CUPTI_REFUSE", 0);
    if (refuse) {
        return refuse == 1 ? ERR_MULTIPLE_SUBSCRIBERS : refuse;
    }
    g_cb = cb;
    g_ud = ud;
    *sub = (void *)&g_cb;
    return 0;
}

int cuptiUnsubscribe(void *sub) {
    (void)sub;
    g_cb = NULL;
    return 0;
}

int cuptiEnableCallback(uint32_t enable, void *sub, int domain, uint32_t cbid) {
    (void)sub;
    if (domain < 1 || domain > 3 || cbid >= 64) return ERR_INVALID_PARAMETER;
    g_enabled[domain][cbid] = enable != 0;
    return 0;
}

int cuptiGetCallbackName(int domain, uint32_t cbid, const char **name) {
    static const char *const rt[] = {[RT_LAUNCH] = "cudaLaunchKernel_v7000", [RT_GRAPH_LAUNCH] = "cudaGraphLaunch_v10000",
                                     [RT_MEMSET] = "cudaMemsetAsync_v3020", [RT_SYNC] = "cudaStreamSynchronize_v3020",
                                     [RT_BEGIN_CAPTURE] = "cudaStreamBeginCapture_v10000",
                                     [RT_END_CAPTURE] = "cudaStreamEndCapture_v10000"};
    static const char *const drv[] = {[DRV_LAUNCH] = "cuLaunchKernel", [DRV_GRAPH] = "cuGraphLaunch",
                                      [DRV_MEMSET] = "cuMemsetD8Async"};
    const char *n = NULL;
    if (domain == DOM_RUNTIME && cbid < sizeof rt / sizeof rt[0]) n = rt[cbid];
    if (domain == DOM_DRIVER && cbid < sizeof drv / sizeof drv[0]) n = drv[cbid];
    *name = n;
    return n ? 0 : ERR_INVALID_PARAMETER;
}

int cuptiGetResultString(int result, const char **str) {
    static char buf[64];
    snprintf(buf, sizeof buf, "FAKE_RESULT_%d", result);
    *str = buf;
    return 0;
}

int cuptiActivityEnable(int kind) {
    return kind == KIND_KERNEL ? ERR_NOT_SUPPORTED : 0; /* it would serialise: the source must not ask */
}

int cuptiActivityDisable(int kind) {
    (void)kind;
    return 0;
}

int cuptiActivityRegisterCallbacks(req_fn req, done_fn done) {
    g_req = req;
    g_done = done;
    return 0;
}

int cuptiActivityRegisterTimestampCallback(ts_fn fn) {
    if (env_int("FAKE_CUPTI_NO_TSCB", 0)) return ERR_NOT_SUPPORTED;
    g_ts = fn;
    return 0;
}

int cuptiActivityFlushPeriod(uint32_t ms) {
    (void)ms;
    return 0;
}

int cuptiGetTimestamp(uint64_t *ts) {
    *ts = dev_now();
    return 0;
}

int cuptiGetGraphNodeId(void *n, uint64_t *id) {
    *id = ((node *)n)->id;
    return 0;
}

static size_t rec_size(const void *r) {
    return *(const uint32_t *)r == KIND_MEMSET ? sizeof(rec_memset) : sizeof(rec_kernel);
}

int cuptiActivityGetNextRecord(uint8_t *buffer, size_t valid, void **record) {
    uint8_t *p = *record ? (uint8_t *)*record + rec_size(*record) : buffer;
    if (p >= buffer + valid) return ERR_MAX_LIMIT_REACHED;
    *record = p;
    return 0;
}

int cuptiActivityGetNumDroppedRecords(void *ctx, uint32_t stream, size_t *dropped) {
    (void)ctx;
    (void)stream;
    *dropped = g_dropped;
    g_dropped = 0;
    return 0;
}

/* Completes the queued records in buffers of FAKE_CUPTI_PER_BUFFER records. */
int cuptiActivityFlushAll(uint32_t flag) {
    (void)flag;
    if (!g_req || !g_done || g_n_pending == 0) return 0;
    int n = g_n_pending, per = env_int("FAKE_CUPTI_PER_BUFFER", 4096);
    bool reverse = env_int("FAKE_CUPTI_REVERSE", 0);
    if (g_first_flush) {
        int drop = env_int("FAKE_CUPTI_DROP", 0);
        drop = drop < n ? drop : n;
        n -= drop;
        g_dropped += (size_t)drop;
        g_first_flush = false;
    }
    int nb = (n + per - 1) / per;
    uint8_t *bufs[256];
    size_t used[256] = {0};
    for (int b = 0; b < nb && b < 256; b++) {
        size_t size = 0, max = 0;
        g_req(&bufs[b], &size, &max);
        for (int i = b * per; i < n && i < (b + 1) * per && bufs[b]; i++) {
            int src = reverse ? n - 1 - i : i;
            size_t sz = rec_size(&g_pending[src]);
            if (used[b] + sz > size) break;
            memcpy(bufs[b] + used[b], &g_pending[src], sz);
            used[b] += sz;
        }
    }
    g_n_pending = 0;
    for (int k = 0; k < nb && k < 256; k++) {
        int b = reverse ? nb - 1 - k : k;
        g_done(NULL, 7, bufs[b], used[b] ? 1u << 20 : 0, used[b]);
    }
    return 0;
}

/* ---- the CUDA side the test program drives ---- */

static void api(int domain, uint32_t cbid, uint32_t site, uint32_t corr, const void *params) {
    if (!g_cb || !g_enabled[domain][cbid]) return;
    cb_data d = {.site = site, .function_params = params, .correlation_id = corr};
    g_cb(g_ud, domain, cbid, &d);
}

static void resource(uint32_t cbid, graph_data *gd) {
    if (!g_cb || !g_enabled[DOM_RESOURCE][cbid]) return;
    res_data r = {.descriptor = gd};
    g_cb(g_ud, DOM_RESOURCE, cbid, &r);
}

/* The device runs one item for DUR ns after the previous one. */
static void run_on_device(uint64_t *start, uint64_t *end, uint64_t dur) {
    uint64_t now = dev_now();
    *start = now > g_device_free ? now : g_device_free;
    *end = *start + dur;
    g_device_free = *end;
    while (dev_now() < *end) {
    }
}

static void queue_item(const node *n, uint32_t corr, uint64_t graph_node) {
    /* a full buffer completes (FAKE_CUPTI_FLUSH_EVERY: after that many items, as CUPTI does
     * with small buffers); with no subscriber to take them the items are forgotten */
    int every = env_int("FAKE_CUPTI_FLUSH_EVERY", 8192);
    if (g_n_pending >= (every > 0 && every < 8192 ? every : 8192)) cuptiActivityFlushAll(0);
    if (g_n_pending >= 8192) g_n_pending = 0;
    if (n->type == NODE_MEMSET) {
        rec_memset *s = &g_pending[g_n_pending++].s;
        memset(s, 0, sizeof *s);
        s->kind = KIND_MEMSET;
        s->bytes = n->bytes;
        s->stream = 7;
        s->correlation_id = corr;
        s->graph_node_id = graph_node;
        run_on_device(&s->start, &s->end, n->dur);
    } else {
        rec_kernel *k = &g_pending[g_n_pending++].k;
        memset(k, 0, sizeof *k);
        k->kind = KIND_CONC_KERNEL;
        k->name = n->name;
        k->stream = 7;
        k->correlation_id = corr;
        k->graph_node_id = graph_node;
        run_on_device(&k->start, &k->end, n->dur);
        if (g_ts && env_int("FAKE_CUPTI_ZERO_TS", 0)) {
            k->start = k->end = 0;
        } else if (g_ts && env_int("FAKE_CUPTI_RAW_TS", 0)) {
            k->start += 5000000000ull; /* the fake's own clock, as without the callback */
            k->end += 5000000000ull;
        }
    }
}

/* One launch: the runtime call, the driver call inside it, the work (or a captured node). */
static void launch(uint32_t rt_cbid, uint32_t drv_cbid, const node *what) {
    uint32_t corr = g_corr++, inner = g_corr++;
    api(DOM_RUNTIME, rt_cbid, 0, corr, NULL);
    api(DOM_DRIVER, drv_cbid, 0, inner, NULL);
    if (g_capturing && g_capturing->n < 256) {
        node *n = &g_capturing->nodes[g_capturing->n++];
        *n = *what;
        n->id = g_next_node++;
        graph_data gd = {.graph = g_capturing, .node = n, .node_type = n->type};
        resource(CBID_GRAPHNODE_CREATED, &gd);
    } else {
        queue_item(what, inner, 0);
    }
    api(DOM_DRIVER, drv_cbid, 1, inner, NULL);
    api(DOM_RUNTIME, rt_cbid, 1, corr, NULL);
}

void fake_cuda_launch(const char *mangled, uint64_t dur_ns);
void fake_cuda_memset(uint64_t bytes, uint64_t dur_ns);
void fake_cuda_begin_capture(void);
void *fake_cuda_end_capture(void);
void *fake_cuda_instantiate(void *g);
void fake_cuda_exec_update(void *exec, void *g);
void fake_cuda_graph_launch(void *exec);
void fake_cuda_graph_destroy(void *g);

void fake_cuda_launch(const char *mangled, uint64_t dur_ns) {
    node n = {.type = NODE_KERNEL, .name = mangled, .dur = dur_ns};
    launch(RT_LAUNCH, DRV_LAUNCH, &n);
}

void fake_cuda_memset(uint64_t bytes, uint64_t dur_ns) {
    node n = {.type = NODE_MEMSET, .name = NULL, .dur = dur_ns, .bytes = bytes};
    launch(RT_MEMSET, DRV_MEMSET, &n);
}

void fake_cuda_begin_capture(void) {
    uint32_t corr = g_corr++;
    api(DOM_RUNTIME, RT_BEGIN_CAPTURE, 0, corr, NULL);
    g_capturing = calloc(1, sizeof *g_capturing);
    api(DOM_RUNTIME, RT_BEGIN_CAPTURE, 1, corr, NULL);
}

void *fake_cuda_end_capture(void) {
    uint32_t corr = g_corr++;
    api(DOM_RUNTIME, RT_END_CAPTURE, 0, corr, NULL);
    graph *g = g_capturing;
    g_capturing = NULL;
    api(DOM_RUNTIME, RT_END_CAPTURE, 1, corr, NULL);
    return g;
}

/* Instantiation clones every node (new ids, CLONED callbacks, last first: no order is
 * promised), then reports the exec. */
void *fake_cuda_instantiate(void *gv) {
    graph *g = gv, *exec = calloc(1, sizeof *exec);
    exec->n = g->n;
    for (int i = g->n - 1; i >= 0; i--) {
        exec->nodes[i] = g->nodes[i];
        exec->nodes[i].id = g_next_node++;
        graph_data gd = {.graph = exec, .node = &exec->nodes[i], .original_node = &g->nodes[i],
                         .node_type = g->nodes[i].type};
        resource(CBID_GRAPHNODE_CLONED, &gd);
    }
    graph_data gd = {.graph = g, .graph_exec = exec};
    resource(CBID_GRAPHEXEC_CREATED, &gd);
    return exec;
}

/* Same topology: the exec keeps its nodes (and ids), takes the new parameters. */
void fake_cuda_exec_update(void *ev, void *gv) {
    graph *e = ev, *g = gv;
    for (int i = 0; i < e->n && i < g->n; i++) {
        e->nodes[i].name = g->nodes[i].name;
        e->nodes[i].dur = g->nodes[i].dur;
    }
}

void fake_cuda_graph_destroy(void *g) {
    free(g);
}

void fake_cuda_graph_launch(void *ev) {
    graph *e = ev;
    uint32_t corr = g_corr++, inner = g_corr++;
    graph_launch_params params = {ev, NULL};
    api(DOM_RUNTIME, RT_GRAPH_LAUNCH, 0, corr, &params);
    api(DOM_DRIVER, DRV_GRAPH, 0, inner, &params);
    for (int i = 0; i < e->n; i++) {
        queue_item(&e->nodes[i], inner, e->nodes[i].id);
    }
    api(DOM_DRIVER, DRV_GRAPH, 1, inner, &params);
    api(DOM_RUNTIME, RT_GRAPH_LAUNCH, 1, corr, &params);
}
