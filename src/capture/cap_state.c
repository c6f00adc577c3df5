/* cap_state.c - capture configuration, tables and export (see cap_state.h). */
#include "capture/cap_state.h"

#include "capture/cap_clock.h"
#include "export/json_export.h"
#include "util/out.h"
#include "analyze/stats.h"
#include "export/text.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

opscope_cap_counters opscope_cap_stats;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER; /* table insertions */

/* ---- configuration ---- */

static bool ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

void opscope_cap_config_parse(const char *value, opscope_cap_config *cfg) {
    memset(cfg, 0, sizeof *cfg);
    if (!value) {
        cfg->dest = OPSCOPE_CAP_DEST_NONE;
    } else if (value[0] == '\0' || strcmp(value, "1") == 0 || strcmp(value, "stdout") == 0) {
        cfg->dest = OPSCOPE_CAP_DEST_STDOUT;
    } else if (strcmp(value, "stderr") == 0) {
        cfg->dest = OPSCOPE_CAP_DEST_STDERR;
    } else {
        cfg->dest = ends_with(value, ".txt") ? OPSCOPE_CAP_DEST_TEXT : OPSCOPE_CAP_DEST_JSON;
        snprintf(cfg->path, sizeof cfg->path, "%s", value);
    }
}

void opscope_cap_config_child(opscope_cap_config *cfg, long pid) {
    if (cfg->dest != OPSCOPE_CAP_DEST_JSON && cfg->dest != OPSCOPE_CAP_DEST_TEXT) {
        return;
    }
    size_t n = strlen(cfg->path);
    snprintf(cfg->path + n, sizeof cfg->path - n, ".%ld", pid);
}

/* ---- names ---- */

static char g_names[OPSCOPE_CAP_NAMES_COUNT][OPSCOPE_CAP_MAX_NAMES][32];

void opscope_cap_names_set(int family, int index, const char *name) {
    if (family < 0 || family >= OPSCOPE_CAP_NAMES_COUNT || index < 0 ||
        index >= OPSCOPE_CAP_MAX_NAMES || !name) {
        return;
    }
    snprintf(g_names[family][index], sizeof g_names[family][index], "%s", name);
}

const char *opscope_cap_names_get(int family, int index) {
    if (family < 0 || family >= OPSCOPE_CAP_NAMES_COUNT || index < 0 ||
        index >= OPSCOPE_CAP_MAX_NAMES) {
        return "?";
    }
    char *s = g_names[family][index];
    if (s[0] == '\0') {
        /* Only reached when init did not name this value: a stable fallback. */
        snprintf(s, 32, "%s_%d", family == OPSCOPE_CAP_NAMES_OP ? "OP" : "SUB", index);
    }
    return s;
}

/* ---- backends ---- */

static opscope_cap_backend g_backends[OPSCOPE_CAP_MAX_BACKENDS];
static _Atomic int g_n_backends;

int opscope_cap_backend_find(const void *key) {
    int n = atomic_load_explicit(&g_n_backends, memory_order_acquire);
    for (int i = 0; i < n; i++) {
        if (g_backends[i].key == key) {
            return i;
        }
    }
    return -1;
}

int opscope_cap_backend_add(const opscope_cap_backend *proto) {
    int i = opscope_cap_backend_find(proto->key);
    if (i >= 0) {
        return i;
    }
    pthread_mutex_lock(&g_lock);
    i = opscope_cap_backend_find(proto->key);
    if (i < 0) {
        int n = atomic_load(&g_n_backends);
        if (n < OPSCOPE_CAP_MAX_BACKENDS) {
            opscope_cap_backend *b = &g_backends[n];
            b->key = proto->key;
            b->is_device_key = proto->is_device_key;
            snprintf(b->name, sizeof b->name, "%s", proto->name);
            snprintf(b->device, sizeof b->device, "%s", proto->device);
            b->device_type = proto->device_type;
            b->dev = proto->dev;
            b->set_abort = proto->set_abort;
            atomic_store_explicit(&b->user_cb, NULL, memory_order_relaxed);
            atomic_store_explicit(&b->user_data, NULL, memory_order_relaxed);
            /* the release store publishes every field above */
            atomic_store_explicit(&g_n_backends, n + 1, memory_order_release);
            i = n;
        }
    }
    pthread_mutex_unlock(&g_lock);
    return i;
}

int opscope_cap_backend_find_dev(const void *dev) {
    int n = atomic_load_explicit(&g_n_backends, memory_order_acquire);
    for (int i = 0; i < n; i++) {
        if (g_backends[i].dev == dev) {
            return i;
        }
    }
    return -1;
}

opscope_cap_backend *opscope_cap_backend_at(int i) {
    return &g_backends[i];
}

int opscope_cap_backend_count(void) {
    return atomic_load_explicit(&g_n_backends, memory_order_acquire);
}

/* ---- schedulers ---- */

typedef struct sched_entry {
    const void *_Atomic key; /* NULL once freed (the address may be reused by a new one) */
    _Atomic uint64_t reset_tick;
    _Atomic bool disabled;
} sched_entry;

static sched_entry g_scheds[OPSCOPE_CAP_MAX_SCHEDS];
static _Atomic int g_n_scheds;
static int g_live_scheds;

int opscope_cap_sched_find(const void *sched) {
    int n = atomic_load_explicit(&g_n_scheds, memory_order_acquire);
    for (int i = n - 1; i >= 0; i--) {
        if (atomic_load_explicit(&g_scheds[i].key, memory_order_relaxed) == sched) {
            return i;
        }
    }
    return -1;
}

int opscope_cap_sched_id(const void *sched) {
    int i = opscope_cap_sched_find(sched);
    if (i >= 0 || !sched) {
        return i;
    }
    pthread_mutex_lock(&g_lock);
    i = opscope_cap_sched_find(sched);
    if (i < 0) {
        int n = atomic_load(&g_n_scheds);
        if (n < OPSCOPE_CAP_MAX_SCHEDS) {
            atomic_store(&g_scheds[n].key, sched);
            atomic_store(&g_scheds[n].reset_tick, 0);
            atomic_store(&g_scheds[n].disabled, false);
            atomic_store_explicit(&g_n_scheds, n + 1, memory_order_release);
            g_live_scheds++;
            i = n;
        }
    }
    pthread_mutex_unlock(&g_lock);
    return i;
}

bool opscope_cap_sched_freed(const void *sched) {
    pthread_mutex_lock(&g_lock);
    int i = opscope_cap_sched_find(sched);
    if (i >= 0) {
        atomic_store(&g_scheds[i].key, NULL);
        g_live_scheds--;
    }
    bool none = i >= 0 && g_live_scheds == 0;
    pthread_mutex_unlock(&g_lock);
    return none;
}

void opscope_cap_sched_reset(int id) {
    if (id >= 0 && id < OPSCOPE_CAP_MAX_SCHEDS) {
        atomic_store(&g_scheds[id].reset_tick, opscope_cap_now());
    }
}

void opscope_cap_sched_set_enabled(int id, bool on) {
    if (id >= 0 && id < OPSCOPE_CAP_MAX_SCHEDS) {
        atomic_store(&g_scheds[id].disabled, !on);
    }
}

bool opscope_cap_sched_enabled(int id) {
    if (id < 0 || id >= OPSCOPE_CAP_MAX_SCHEDS) {
        return true;
    }
    return !atomic_load_explicit(&g_scheds[id].disabled, memory_order_relaxed);
}

/* ---- conversion ---- */

static const char *const k_copy_names[OPSCOPE_CAP_COPY_COUNT] = {
    "copy_H2D", "copy_D2H", "copy_D2D", "copy_H2H"};

static const char *const k_copy_apis[OPSCOPE_CAP_API_COUNT] = {
    [OPSCOPE_CAP_API_TENSOR_COPY] = "tensor_copy",
    [OPSCOPE_CAP_API_SET] = "tensor_set",
    [OPSCOPE_CAP_API_GET] = "tensor_get",
    [OPSCOPE_CAP_API_SET_ASYNC] = "tensor_set_async",
    [OPSCOPE_CAP_API_GET_ASYNC] = "tensor_get_async",
    [OPSCOPE_CAP_API_SET_2D] = "tensor_set_2d",
    [OPSCOPE_CAP_API_GET_2D] = "tensor_get_2d",
    [OPSCOPE_CAP_API_SET_2D_ASYNC] = "tensor_set_2d_async",
    [OPSCOPE_CAP_API_GET_2D_ASYNC] = "tensor_get_2d_async",
    [OPSCOPE_CAP_API_CPY_TENSOR_ASYNC] = "cpy_tensor_async",
};

const char *opscope_cap_copy_api_name(int api) {
    return api >= 0 && api < OPSCOPE_CAP_API_COUNT ? k_copy_apis[api] : NULL;
}

void opscope_cap_convert(const opscope_cap_rec *r, opscope_record *o, opscope_cap_strbuf *buf) {
    opscope_cap_convert_parts(r, r->src, o, buf);
}

/* The first backend (not a copy-only device entry) of TYPE, -1 when none is known yet. */
static int first_backend_of(opscope_device_type type) {
    int nb = opscope_cap_backend_count();
    for (int i = 0; i < nb; i++) {
        const opscope_cap_backend *b = opscope_cap_backend_at(i);
        if (b->device_type == type && !b->is_device_key) {
            return i;
        }
    }
    return -1;
}

void opscope_cap_convert_parts(const opscope_cap_rec *r, const opscope_cap_src *src, opscope_record *o,
                               opscope_cap_strbuf *buf) {
    opscope_record_init(o);
    o->type = r->kind == OPSCOPE_CAP_KIND_COPY ? OPSCOPE_RECORD_COPY : OPSCOPE_RECORD_OP;
    memcpy(buf->name, r->name, OPSCOPE_CAP_NAME);
    buf->name[OPSCOPE_CAP_NAME] = '\0';
    o->tensor_name = buf->name[0] ? buf->name : NULL;
    o->backend_id = r->backend;
    if (r->backend == OPSCOPE_CAP_BACKEND_HOST) {
        /* host memory whose buffer named no device: the CPU backend, once one is known */
        o->backend_id = first_backend_of(OPSCOPE_DEVICE_CPU);
    }
    o->split_id = r->split;
    o->thread_id = r->thread;
    o->has = OPSCOPE_HAS_THREAD | OPSCOPE_HAS_HOST_TIME;
    uint64_t t0 = opscope_cap_ticks_to_ns(r->t0), t1 = opscope_cap_ticks_to_ns(r->t1);
    o->start_ns = o->host_start_ns = t0;
    o->host_end_ns = t1 > t0 ? t1 : t0;
    o->duration_ns = o->host_end_ns - t0;
    o->bytes = r->bytes;
    if (r->graph >= 0) {
        o->graph_id = r->graph;
        o->has |= OPSCOPE_HAS_GRAPH;
    }
    if (r->kind == OPSCOPE_CAP_KIND_COPY) {
        o->name = (r->op >= 0 && r->op < OPSCOPE_CAP_COPY_COUNT) ? k_copy_names[r->op] : "copy";
        o->extra = opscope_cap_copy_api_name(r->api);
    } else {
        o->name = opscope_cap_names_get(OPSCOPE_CAP_NAMES_OP, r->op);
        if (r->sub_kind == OPSCOPE_CAP_SUB_UNARY) {
            o->sub_op = opscope_cap_names_get(OPSCOPE_CAP_NAMES_UNARY, r->sub_op);
        } else if (r->sub_kind == OPSCOPE_CAP_SUB_GLU) {
            o->sub_op = opscope_cap_names_get(OPSCOPE_CAP_NAMES_GLU, r->sub_op);
        }
        o->n_fused = r->n_fused ? r->n_fused : 1;
        if (r->flags & OPSCOPE_CAP_F_SPLIT_ONLY) {
            o->name = "GRAPH_SPLIT";
            snprintf(buf->extra, sizeof buf->extra, "%d nodes, no per-op timing", r->n_fused);
            o->extra = buf->extra;
        } else if (r->n_fused > 1) {
            size_t off = 0;
            buf->extra[0] = '\0';
            for (int i = 0; i < r->n_fused && i < OPSCOPE_CAP_MAX_FUSED; i++) {
                int m = snprintf(buf->extra + off, sizeof buf->extra - off, "%s%s", i ? "+" : "",
                                 opscope_cap_names_get(OPSCOPE_CAP_NAMES_OP, r->fused[i]));
                if (m < 0 || (size_t)m >= sizeof buf->extra - off) {
                    break;
                }
                off += (size_t)m;
            }
            o->extra = buf->extra;
        }
        o->node_index = r->node;
        o->has |= OPSCOPE_HAS_NODE | OPSCOPE_HAS_OUT | OPSCOPE_HAS_OP_PARAMS;
        o->out_type = r->out_type;
        memcpy(o->ne, r->ne, sizeof o->ne);
        memcpy(o->op_params, r->op_params, sizeof o->op_params);
    }
    o->n_src = r->n_src;
    if (r->n_src) {
        o->has |= OPSCOPE_HAS_STRIDES | OPSCOPE_HAS_SRC_TYPES;
    }
    for (int s = 0; s < r->n_src && s < OPSCOPE_MAX_SRC; s++) {
        memcpy(o->ne_src[s], src[s].ne, sizeof o->ne_src[s]);
        memcpy(o->nb_src[s], src[s].nb, sizeof o->nb_src[s]);
        o->type_src[s] = src[s].type;
    }
    /* No flops: the capture measures none, and OPSCOPE_HAS_FLOPS means "given by the input";
     * consumers derive them from the shapes (opscope_record_flops), like any input's. */
}

/* ---- replay ---- */

typedef struct gather_ent {
    uint64_t t0, t1;
    const opscope_cap_rec *r; /* an OP/COPY record, an opscope_cap_event or opscope_cap_call */
    int32_t step;             /* a call's step */
} gather_ent;

typedef struct gather {
    gather_ent *v;
    size_t n, cap;
    int sched;
    bool oom;
} gather;

static bool gather_push(gather *g, uint64_t t0, uint64_t t1, const opscope_cap_rec *r, int32_t step) {
    if (g->n == g->cap) {
        size_t nc = g->cap ? g->cap * 2 : 4096;
        gather_ent *nv = realloc(g->v, nc * sizeof *nv);
        if (!nv) {
            g->oom = true;
            return false;
        }
        g->v = nv;
        g->cap = nc;
    }
    g->v[g->n].t0 = t0;
    g->v[g->n].t1 = t1;
    g->v[g->n].r = r;
    g->v[g->n].step = step;
    g->n++;
    return true;
}

static bool sched_wanted(const gather *g, int sched, uint64_t t0) {
    if (g->sched >= 0 && sched != g->sched) {
        return false;
    }
    return !(sched >= 0 && sched < OPSCOPE_CAP_MAX_SCHEDS &&
             t0 < atomic_load_explicit(&g_scheds[sched].reset_tick, memory_order_relaxed));
}

static int gather_one(void *ud, const opscope_cap_rec *r) {
    gather *g = ud;
    int sched;
    uint64_t t0, t1;
    if (r->kind == OPSCOPE_CAP_KIND_CALL) {
        const opscope_cap_call *c = (const opscope_cap_call *)r;
        for (int32_t k = 0; k < c->n; k++) {
            if (sched_wanted(g, c->sched, c->t[2 * k]) &&
                !gather_push(g, c->t[2 * k], c->t[2 * k + 1], r, k)) {
                return 1;
            }
        }
        return 0;
    }
    if (r->kind == OPSCOPE_CAP_KIND_EVENT) {
        const opscope_cap_event *e = (const opscope_cap_event *)r;
        sched = e->sched;
        t0 = e->t0;
        t1 = e->t1;
    } else if (r->kind == OPSCOPE_CAP_KIND_GPU) {
        const opscope_cap_gpu *e = (const opscope_cap_gpu *)r;
        sched = e->sched;
        t0 = e->tick0;
        t1 = e->tick1;
    } else if (r->kind == OPSCOPE_CAP_KIND_OP || r->kind == OPSCOPE_CAP_KIND_COPY) {
        sched = r->sched;
        t0 = r->t0;
        t1 = r->t1;
    } else {
        return 0; /* graph, description and plan records are not records of the profile */
    }
    if (!sched_wanted(g, sched, t0)) {
        return 0;
    }
    return gather_push(g, t0, t1, r, 0) ? 0 : 1;
}

static int by_start(const void *a, const void *b) {
    const gather_ent *x = a, *y = b;
    if (x->t0 != y->t0) {
        return x->t0 < y->t0 ? -1 : 1;
    }
    return x->t1 < y->t1 ? -1 : x->t1 > y->t1;
}

/* Step T of compute C (times T0, T1) as an OP record: T's description with the step's and
 * the compute's fields over it; the sources follow the description's header. */
static void convert_step(const opscope_cap_tmpl *t, const opscope_cap_call *c, uint64_t t0, uint64_t t1,
                         opscope_record *o, opscope_cap_strbuf *buf) {
    opscope_cap_rec head;
    memcpy(&head, t->desc, sizeof head);
    head.kind = OPSCOPE_CAP_KIND_OP;
    head.n_fused = t->n_fused;
    memcpy(head.fused, t->fused, sizeof head.fused);
    head.node = t->node;
    head.bytes = t->bytes;
    head.flags = c->flags;
    head.backend = c->backend;
    head.sched = c->sched;
    head.thread = c->thread;
    head.split = c->split;
    head.graph = c->graph;
    head.t0 = t0;
    head.t1 = t1;
    opscope_cap_convert_parts(&head, t->desc->src, o, buf);
}

/* A device-timed group (cap_gpu.c): its main node's description, the device interval as the
 * record's time, the compute's host interval as host time. */
static void convert_gpu(const opscope_cap_gpu *e, opscope_record *o, opscope_cap_strbuf *buf) {
    if (e->desc) {
        opscope_cap_rec head;
        memcpy(&head, e->desc, sizeof head);
        /* a copy call's description carries its api (>= 0); an op's has -1 */
        head.kind = e->desc->api >= 0 ? OPSCOPE_CAP_KIND_COPY : OPSCOPE_CAP_KIND_OP;
        head.n_fused = 1;
        head.flags = 0;
        head.backend = e->backend;
        head.sched = e->sched;
        head.thread = e->thread;
        head.split = e->split;
        head.graph = e->graph;
        head.node = e->node;
        head.bytes = e->bytes;
        head.t0 = e->tick0;
        head.t1 = e->tick1;
        opscope_cap_convert_parts(&head, e->desc->src, o, buf);
        o->n_fused = e->n_fused > 0 ? e->n_fused : 1;
        if (e->fused || head.kind == OPSCOPE_CAP_KIND_OP) {
            o->extra = e->fused;
        }
    } else {
        opscope_cap_rec head;
        memset(&head, 0, sizeof head);
        head.kind = e->copy_dir >= 0 ? OPSCOPE_CAP_KIND_COPY : OPSCOPE_CAP_KIND_OP;
        head.op = (int16_t)(e->copy_dir >= 0 ? e->copy_dir : 0);
        head.api = -1;
        head.backend = e->backend;
        head.sched = e->sched;
        head.thread = e->thread;
        head.split = e->split;
        head.graph = e->graph;
        head.node = -1;
        head.bytes = e->bytes;
        opscope_cap_convert_parts(&head, NULL, o, buf);
        o->extra = e->fused;
        if (e->copy_dir < 0) {
            o->name = e->kernels ? e->kernels : "kernel";
            o->has &= ~(uint32_t)(OPSCOPE_HAS_NODE | OPSCOPE_HAS_OUT | OPSCOPE_HAS_OP_PARAMS);
        }
        if (e->graph < 0) {
            o->has &= ~(uint32_t)OPSCOPE_HAS_GRAPH;
        }
    }
    if (e->backend < 0) {
        /* device work from before any compute (buffer clears at load): the first GPU backend */
        o->backend_id = first_backend_of(OPSCOPE_DEVICE_GPU);
    }
    o->start_ns = e->ns0;
    o->duration_ns = e->ns1 > e->ns0 ? e->ns1 - e->ns0 : 0;
    o->host_start_ns = opscope_cap_ticks_to_ns(e->host0);
    o->host_end_ns = opscope_cap_ticks_to_ns(e->host1);
    o->has |= OPSCOPE_HAS_DEVICE_TIME | OPSCOPE_HAS_KERNEL;
    if (e->flags & OPSCOPE_CAP_F_ALIGNED) {
        o->has |= OPSCOPE_HAS_CLOCK_ALIGNED;
    }
    o->kernel = e->kernels;
    o->n_kernels = e->n_kernels;
    if (!e->kernels) {
        /* a copy that recorded device work that never got timed: host time */
        o->has &= ~(uint32_t)(OPSCOPE_HAS_DEVICE_TIME | OPSCOPE_HAS_KERNEL | OPSCOPE_HAS_CLOCK_ALIGNED);
    }
}

void opscope_cap_convert_any(const opscope_cap_rec *r, int32_t step, opscope_record *o,
                             opscope_cap_strbuf *buf) {
    if (r->kind == OPSCOPE_CAP_KIND_GPU) {
        convert_gpu((const opscope_cap_gpu *)r, o, buf);
    } else if (r->kind == OPSCOPE_CAP_KIND_CALL) {
        const opscope_cap_call *c = (const opscope_cap_call *)r;
        convert_step(&c->page->step[step], c, c->t[2 * step], c->t[2 * step + 1], o, buf);
    } else if (r->kind == OPSCOPE_CAP_KIND_EVENT) {
        /* an event is a one-step compute with its own template */
        const opscope_cap_event *e = (const opscope_cap_event *)r;
        opscope_cap_tmpl t = {.desc = e->desc, .bytes = e->bytes, .node = e->node, .n_fused = e->n_fused};
        memcpy(t.fused, e->fused, sizeof t.fused);
        opscope_cap_call c = {.flags = e->flags, .backend = e->backend, .sched = e->sched,
                              .thread = e->thread, .split = e->split, .graph = e->graph};
        convert_step(&t, &c, e->t0, e->t1, o, buf);
    } else {
        opscope_cap_convert(r, o, buf);
    }
}

int opscope_cap_replay(int sched, const opscope_sink *sink) {
    gather g = {0};
    g.sched = sched;
    opscope_cap_buf_foreach(gather_one, &g);
    if (g.oom) {
        free(g.v);
        return -1;
    }
    if (g.n > 1) {
        qsort(g.v, g.n, sizeof *g.v, by_start);
    }
    opscope_cap_clock_calibrate();

    int rc = 0;
    uint64_t total = 0;
    opscope_cap_strbuf buf;
    opscope_record rec;
    for (size_t i = 0; i < g.n; i++) {
        uint64_t a = opscope_cap_ticks_to_ns(g.v[i].t0), b = opscope_cap_ticks_to_ns(g.v[i].t1);
        total += b > a ? b - a : 0;
    }
    opscope_meta meta = {0};
    meta.profiler = "opscope";
    meta.version = 3;
    meta.total_records = g.n;
    meta.total_ns = total;
    /* device work a GPU source could not time is missing from the profile too */
    meta.dropped_records = opscope_cap_buf_dropped() + atomic_load(&opscope_cap_stats.gpu_lost);
    if (sink->on_meta && sink->on_meta(sink->ud, &meta)) {
        rc = -1;
    }
    int nb = opscope_cap_backend_count();
    for (int i = 0; i < nb && rc == 0; i++) {
        const opscope_cap_backend *cb = opscope_cap_backend_at(i);
        opscope_backend b = {i, cb->name, cb->device, cb->device_type};
        if (sink->on_backend && sink->on_backend(sink->ud, &b)) {
            rc = -1;
        }
    }
    for (size_t i = 0; i < g.n && rc == 0; i++) {
        opscope_cap_convert_any(g.v[i].r, g.v[i].step, &rec, &buf);
        if (sink->on_record && sink->on_record(sink->ud, &rec)) {
            rc = -1;
        }
    }
    if (rc == 0 && sink->on_end && sink->on_end(sink->ud)) {
        rc = -1;
    }
    free(g.v);
    return rc;
}

/* ---- writing ---- */

/* Feeds both the stats and (optionally) the JSON exporter. */
typedef struct tee2 {
    opscope_sink a, b;
} tee2;

#define TEE_CALL(fn, ...)                                                   \
    do {                                                                    \
        tee2 *t = ud;                                                       \
        if (t->a.fn && t->a.fn(t->a.ud, __VA_ARGS__)) return 1;             \
        if (t->b.fn && t->b.fn(t->b.ud, __VA_ARGS__)) return 1;             \
        return 0;                                                           \
    } while (0)

static int tee_meta(void *ud, const opscope_meta *m) { TEE_CALL(on_meta, m); }
static int tee_backend(void *ud, const opscope_backend *b) { TEE_CALL(on_backend, b); }
static int tee_record(void *ud, const opscope_record *r) { TEE_CALL(on_record, r); }

int opscope_cap_write(opscope_cap_dest dest, const char *path, FILE *fp, int sched) {
    opscope_stats_opts so = {0};
    so.top_kernels = 20;
    opscope_stats_t *st = opscope_stats_new(&so);
    if (!st) {
        fprintf(stderr, "opscope: out of memory writing the profile\n");
        return -1;
    }
    opscope_error err = {0};
    opscope_out_t *w = NULL;
    if (path) {
        w = opscope_out_open(path, &err);
    } else {
        fflush(fp);
        w = opscope_out_from_file(fp, &err);
    }
    if (!w) {
        char line[512];
        opscope_error_format(&err, line, sizeof line);
        fprintf(stderr, "opscope: cannot write %s: %s\n", path ? path : "profile", line);
        opscope_stats_free(st);
        return -1;
    }
    int rc = 0;
    opscope_json_export_t *jx = NULL;
    tee2 t = {opscope_stats_sink(st), {0}};
    if (dest == OPSCOPE_CAP_DEST_JSON) {
        jx = opscope_json_export_new(w);
        if (!jx) {
            rc = -1;
        } else {
            t.b = opscope_json_export_sink(jx);
        }
    }
    opscope_sink s = {&t, tee_meta, tee_backend, tee_record, NULL};
    if (rc == 0) {
        rc = opscope_cap_replay(sched, &s);
    }
    if (rc == 0) {
        rc = opscope_stats_finish(st);
    }
    if (rc == 0) {
        opscope_report_opts ro = {0};
        ro.source = "opscope capture";
        if (dest == OPSCOPE_CAP_DEST_JSON) {
            rc = opscope_json_export_finish(jx, st);
        } else if (dest == OPSCOPE_CAP_DEST_TEXT) {
            opscope_text_write(w, st, &ro);
        } else {
            opscope_console_write(w, st, &ro);
        }
    }
    if (jx) {
        opscope_json_export_free(jx);
    }
    opscope_stats_free(st);
    if (rc != 0) {
        opscope_out_abort(w);
        fprintf(stderr, "opscope: out of memory writing the profile\n");
        return -1;
    }
    if (opscope_out_commit(w, &err) != 0) {
        char line[512];
        opscope_error_format(&err, line, sizeof line);
        fprintf(stderr, "opscope: cannot write %s: %s\n", path ? path : "profile", line);
        return -1;
    }
    return 0;
}

/* ---- graph log (OPSCOPE_GRAPH_LOG) ---- */

typedef struct graph_log {
    opscope_out_t *w;
} graph_log;

static int graph_line(void *ud, const opscope_cap_rec *rec) {
    if (rec->kind != OPSCOPE_CAP_KIND_GRAPH) {
        return 0;
    }
    const opscope_cap_graph *r = (const opscope_cap_graph *)rec;
    graph_log *g = ud;
    static const char *const attr[] = {"exact", "nofusion", "aborted", "inexact"};
    opscope_out_i64(g->w, r->graph);
    opscope_out_char(g->w, '\t');
    opscope_out_i64(g->w, r->split);
    opscope_out_char(g->w, '\t');
    opscope_out_i64(g->w, r->backend);
    opscope_out_char(g->w, '\t');
    opscope_out_i64(g->w, r->sched);
    opscope_out_char(g->w, '\t');
    opscope_out_i64(g->w, r->n_nodes);
    opscope_out_char(g->w, '\t');
    opscope_out_i64(g->w, r->n_steps);
    opscope_out_char(g->w, '\t');
    opscope_out_u64(g->w, opscope_cap_ticks_to_ns(r->t0));
    opscope_out_char(g->w, '\t');
    opscope_out_u64(g->w, opscope_cap_ticks_to_ns(r->t1));
    opscope_out_char(g->w, '\t');
    opscope_out_u64(g->w, r->t_done > r->t1 ? opscope_cap_ticks_to_ns(r->t_done) - opscope_cap_ticks_to_ns(r->t1) : 0);
    opscope_out_char(g->w, '\t');
    opscope_out_str(g->w, r->attr < sizeof attr / sizeof attr[0] ? attr[r->attr] : "?");
    opscope_out_char(g->w, '\t');
    opscope_out_u64(g->w, (uint64_t)((double)r->tail * opscope_cap_ns_per_tick() + 0.5));
    opscope_out_char(g->w, '\n');
    return 0;
}

int opscope_cap_write_graphs(const char *path) {
    opscope_error err = {0};
    graph_log g = {opscope_out_open(path, &err)};
    if (!g.w) {
        fprintf(stderr, "opscope: cannot write %s\n", path);
        return -1;
    }
    opscope_out_str(g.w, "graph_id\tsplit_id\tbackend_id\tsched_id\tn_nodes\tn_steps\tstart_ns\tend_ns\tcapture_ns\tattribution\ttail_ns\n");
    opscope_cap_clock_calibrate();
    opscope_cap_buf_foreach(graph_line, &g);
    return opscope_out_commit(g.w, &err);
}
