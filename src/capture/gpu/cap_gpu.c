/*
 * cap_gpu.c - device timing from a GPU source (capture/gpu/gpu_source.h) into records.
 *
 * The capture opens a scope around each compute of a backend that has no per-op timing of
 * its own (cap_ggml.c); the source tags the device work recorded meanwhile with it. After the
 * compute, the graph's nodes are described (cap_record.c's shared descriptions) and the scope
 * is ended, which tells how many items to wait for. The items arrive, from whichever thread
 * saw the work complete, before or after that; once both halves are here, gpu_map.c assigns
 * items to node groups and one GPU record per group is written on the arriving thread.
 * Half-met scopes are bounded (MAX_OPEN): past it the oldest is given up and counted. A
 * described scope holds its thread's kept chain, where its descriptions are, until its records
 * are written or it is given up (opscope_cap_buf_keep_hold): the chain may be renewed meanwhile,
 * but is not freed.
 * Thread safety: any thread; one mutex guards the open scopes (never held while calling the
 * source or writing records).
 */
#include "capture/gpu/cap_gpu.h"

#include "capture/store/cap_clock.h"
#include "capture/store/cap_counters.h"
#include "capture/life/cap_env.h"
#include "capture/life/cap_life.h"
#include "capture/timing/cap_record.h"
#include "capture/resolve/cap_resolve.h"
#include "capture/store/cap_tables.h"
#include "capture/gpu/gpu_map.h"
#include "capture/gpu/gpu_sample.h"
#include "util/hash.h"
#include "util/sort.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define OPSCOPE_VK_MANIFEST "opscope-vklayer.json"

#define MAX_OPEN 256

typedef struct gpu_node {
    const opscope_cap_rec *desc; /* NULL for empty nodes */
    int16_t op, sub_kind, sub_op;
    bool empty;
    uint64_t bytes;
} gpu_node;

typedef struct gpu_pend {
    uint64_t scope;
    bool described;   /* the compute's half is here */
    int64_t expected; /* items the source recorded, -1 until end_scope */
    int bi, sched, split, n_nodes;
    uint32_t weight;  /* the computes its records stand for (gpu_sample.h) */
    int64_t gid;
    uint64_t t0, t1;  /* host ticks of the compute */
    gpu_node *nodes;
    const opscope_cap_rec *copy; /* a copy call's description (then no nodes) */
    opscope_gpu_item *items;
    size_t n_items, cap_items;
    opscope_cap_keep_hold hold; /* the kept chain NODES' and COPY's descriptions are in */
    struct gpu_pend *next;
} gpu_pend;

static _Atomic(const opscope_gpu_source *) g_src;
static _Thread_local uint64_t t_scope;
/* this thread's compute was chosen for timing (weight > 0) or not (0), while it runs */
static _Thread_local uint32_t t_weight = 1;
static pthread_mutex_t g_sample_mu = PTHREAD_MUTEX_INITIALIZER;
static opscope_gpu_sample g_sample;
static _Atomic uint64_t g_next_scope = 1;
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static gpu_pend *g_open;
static int g_n_open;
static const opscope_gpu_rules *g_rules;

/* ---- the host table given to the source ---- */

static uint64_t host_scope(void) {
    return t_scope;
}

static void emit_ready(gpu_pend *p);

static gpu_pend *find_or_add(uint64_t scope) {
    for (gpu_pend *p = g_open; p; p = p->next) {
        if (p->scope == scope) {
            return p;
        }
    }
    gpu_pend *p = calloc(1, sizeof *p);
    if (!p) {
        return NULL;
    }
    p->scope = scope;
    p->expected = -1;
    p->next = g_open;
    g_open = p;
    g_n_open++;
    return p;
}

static void unlink_pend(gpu_pend *p) {
    for (gpu_pend **pp = &g_open; *pp; pp = &(*pp)->next) {
        if (*pp == p) {
            *pp = p->next;
            g_n_open--;
            return;
        }
    }
}

/* After P's records are committed (or P was given up): its descriptions may go. */
static void pend_free(gpu_pend *p) {
    opscope_cap_buf_keep_unhold(p->hold);
    free(p->nodes);
    free(p->items);
    free(p);
}

/* Gives up the oldest half-met scope when too many are open (a source that never delivers,
 * or items of a scope the capture never described). Under g_mu; returns it to free. */
static gpu_pend *trim(void) {
    if (g_n_open <= MAX_OPEN) {
        return NULL;
    }
    gpu_pend *last = g_open;
    while (last && last->next) {
        last = last->next;
    }
    if (last) {
        unlink_pend(last);
        atomic_fetch_add_explicit(&opscope_cap_stats.gpu_lost, last->n_items ? last->n_items : 1, memory_order_relaxed);
    }
    return last;
}

static bool ready(const gpu_pend *p) {
    return p->described && p->expected >= 0 && (int64_t)p->n_items >= p->expected;
}

static void emit_loose(const opscope_gpu_item *it, size_t n);

/* Under g_mu: P out of the table when both halves are in, else NULL. */
static gpu_pend *take_if_ready(gpu_pend *p) {
    if (p && ready(p)) {
        unlink_pend(p);
        return p;
    }
    return NULL;
}

/* After g_mu: writes the records of DONE and frees GONE (either may be NULL). */
static void settle(gpu_pend *done, gpu_pend *gone) {
    if (done) {
        emit_ready(done);
    }
    if (gone) {
        pend_free(gone);
    }
}

/* The capture's half of SCOPE: HALF's description (nodes or copy: owned by the table from
 * here on), EXPECTED items. Writes the records now when the items are all in. False when the
 * table had no room (HALF's nodes are freed). */
static bool describe(uint64_t scope, const gpu_pend *half, int64_t expected) {
    pthread_mutex_lock(&g_mu);
    gpu_pend *p = find_or_add(scope);
    gpu_pend *done = NULL;
    if (p) {
        /* the description over the entry, keeping what the items' half put there */
        gpu_pend items = *p;
        *p = *half;
        p->scope = items.scope;
        p->items = items.items;
        p->n_items = items.n_items;
        p->cap_items = items.cap_items;
        p->next = items.next;
        p->described = true;
        p->expected = expected;
        /* the descriptions (this thread's, made since its last safe point) stay until the
         * records pointing at them are written: taken before any other thread can see P */
        p->hold = opscope_cap_buf_keep_hold();
        done = take_if_ready(p);
    }
    gpu_pend *gone = trim();
    pthread_mutex_unlock(&g_mu);
    if (!p) {
        free(half->nodes);
    }
    settle(done, gone);
    return p != NULL;
}

static void host_deliver(uint64_t scope, const opscope_gpu_item *items, size_t n) {
    if (n == 0 || !atomic_load_explicit(&opscope_cap_on, memory_order_relaxed)) {
        return;
    }
    if (scope == 0) {
        emit_loose(items, n);
        return;
    }
    pthread_mutex_lock(&g_mu);
    gpu_pend *p = find_or_add(scope);
    bool ok = p != NULL;
    if (p && p->n_items + n > p->cap_items) {
        size_t nc = (p->n_items + n) * 2;
        opscope_gpu_item *nv = realloc(p->items, nc * sizeof *nv);
        if (nv) {
            p->items = nv;
            p->cap_items = nc;
        } else {
            ok = false;
        }
    }
    gpu_pend *done = NULL;
    if (ok) {
        memcpy(p->items + p->n_items, items, n * sizeof *items);
        p->n_items += n;
        done = take_if_ready(p);
    } else {
        atomic_fetch_add_explicit(&opscope_cap_stats.gpu_lost, n, memory_order_relaxed);
    }
    gpu_pend *gone = trim();
    pthread_mutex_unlock(&g_mu);
    settle(done, gone);
}

static void host_lost(uint64_t n) {
    atomic_fetch_add_explicit(&opscope_cap_stats.gpu_lost, n, memory_order_relaxed);
}

static void host_warn(const char *msg) {
    fprintf(stderr, "opscope: %s\n", msg);
}

static const opscope_gpu_host g_host = {OPSCOPE_GPU_ABI, host_scope, host_deliver, host_lost, host_warn};

/* OPSCOPE_GPU_TIMING (all|sampled; `opscope record --gpu-timing`) and OPSCOPE_GPU_BUDGET (the
 * percent of compute time timing may add), read once when a source attaches. */
static void sample_setup(void) {
    static const char *const k_modes[] = {"sampled", "all", NULL};
    opscope_gpu_sample_config c = {.mode = OPSCOPE_GPU_TIMING_SAMPLED};
    if (opscope_cap_env_word("OPSCOPE_GPU_TIMING", k_modes, 0, NULL) == 1) {
        c.mode = OPSCOPE_GPU_TIMING_ALL;
    }
    /* 5: gpu_sample's own default budget (5 / 100 is the double 0.05 is) */
    c.budget = opscope_cap_env_real("OPSCOPE_GPU_BUDGET", 0, 100, 5, "percent") / 100;
    opscope_gpu_sample_init(&g_sample, &c);
}

OPSCOPE_EXPORT const opscope_gpu_host *opscope_gpu_attach(const opscope_gpu_source *src);

OPSCOPE_EXPORT const opscope_gpu_host *opscope_gpu_attach(const opscope_gpu_source *src) {
    if (!src || src->abi != OPSCOPE_GPU_ABI || !src->end_scope) {
        return NULL;
    }
    /* the source attaches when the program creates its device, usually before the first
     * compute: the capture's own start-up must not wait for that */
    if (!opscope_cap_ggml_ready() || !opscope_cap_life_init()) {
        return NULL;
    }
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, sample_setup); /* before the source is seen: decisions read it */
    const opscope_gpu_source *none = NULL;
    if (!atomic_compare_exchange_strong(&g_src, &none, src)) {
        return NULL;
    }
    g_rules = opscope_gpu_rules_for(src->name);
    return &g_host;
}

/* ---- scopes around computes ---- */

/* The topology of G: each node's op and second dimension (tokens, in most ops), so a prompt
 * and a decode of the same model differ while a growing KV cache does not. */
static uint64_t topology_of(struct ggml_cgraph *g, int n) {
    uint64_t h = opscope_mix64((uint64_t)n + 1);
    for (int i = 0; i < n; i++) {
        const struct ggml_tensor *t = opscope_cap_ggml.graph_node(g, i);
        h = opscope_mix64(h ^ ((uint64_t)t->op << 48) ^ (uint64_t)t->ne[1]);
    }
    return h;
}

bool opscope_cap_gpu_decide(struct ggml_cgraph *g, int n) {
    t_weight = 1;
    if (!atomic_load_explicit(&g_src, memory_order_relaxed) || g_sample.cfg.mode == OPSCOPE_GPU_TIMING_ALL) {
        return true;
    }
    uint64_t key = topology_of(g, n);
    uint64_t now = opscope_cap_now();
    pthread_mutex_lock(&g_sample_mu);
    opscope_gpu_sample_decision d = opscope_gpu_sample_begin(&g_sample, key, now);
    pthread_mutex_unlock(&g_sample_mu);
    t_weight = d.timed ? d.weight : 0;
    return d.timed;
}

void opscope_cap_gpu_decided(void) {
    t_weight = 1;
}

uint64_t opscope_cap_gpu_open(void) {
    if (!atomic_load_explicit(&g_src, memory_order_relaxed)) {
        return 0;
    }
    if (t_weight == 0) {
        t_scope = OPSCOPE_GPU_SCOPE_UNTIMED;
        return OPSCOPE_GPU_SCOPE_UNTIMED;
    }
    uint64_t s = atomic_fetch_add_explicit(&g_next_scope, 1, memory_order_relaxed);
    t_scope = s;
    return s;
}

void opscope_cap_gpu_close(uint64_t prev) {
    t_scope = prev;
}

uint64_t opscope_cap_gpu_current(void) {
    return t_scope;
}

bool opscope_cap_gpu_graph(uint64_t scope, const opscope_cap_compute *c) {
    struct ggml_cgraph *g = c->g;
    int n = c->n;
    const opscope_gpu_source *src = atomic_load_explicit(&g_src, memory_order_acquire);
    if (!src || scope == 0 || scope == OPSCOPE_GPU_SCOPE_UNTIMED) {
        return false;
    }
    gpu_node *nodes = calloc((size_t)(n > 0 ? n : 1), sizeof *nodes);
    bool ok = nodes != NULL;
    for (int i = 0; ok && i < n; i++) {
        const struct ggml_tensor *t = opscope_cap_ggml.graph_node(g, i);
        gpu_node *x = &nodes[i];
        x->op = (int16_t)t->op;
        x->empty = opscope_cap_op_is_empty(t->op) || !(t->flags & GGML_TENSOR_FLAG_COMPUTE) ||
                   opscope_cap_ggml.nbytes(t) == 0;
        x->sub_kind = t->op == GGML_OP_UNARY ? OPSCOPE_CAP_SUB_UNARY : t->op == GGML_OP_GLU ? OPSCOPE_CAP_SUB_GLU : 0;
        x->sub_op = x->sub_kind ? (int16_t)t->op_params[0] : 0;
        if (!x->empty) {
            x->desc = opscope_cap_desc_for(t);
            x->bytes = opscope_cap_out_bytes(t);
            ok = x->desc != NULL;
        }
    }
    /* how many items the compute recorded; from here on they can only be delivered */
    uint64_t expected = src->end_scope(scope);
    if (expected == 0) {
        free(nodes);
        return false;
    }
    if (!ok) {
        /* nothing described (records full): the items are given up when they come */
        free(nodes);
        nodes = NULL;
        n = 0;
    }
    gpu_pend half = {.bi = c->bi, .sched = c->sched, .split = c->split, .gid = c->gid, .t0 = c->t0, .t1 = c->t1, .n_nodes = n,
                     .nodes = nodes,
                     .weight = g_sample.cfg.mode == OPSCOPE_GPU_TIMING_ALL ? 0 : t_weight ? t_weight : 1};
    return describe(scope, &half, (int64_t)expected) && ok;
}

uint64_t opscope_cap_gpu_end(uint64_t scope) {
    const opscope_gpu_source *src = atomic_load_explicit(&g_src, memory_order_acquire);
    return src && scope && scope != OPSCOPE_GPU_SCOPE_UNTIMED ? src->end_scope(scope) : 0;
}

bool opscope_cap_gpu_copy(uint64_t scope, uint64_t expected, const opscope_cap_rec *desc, uint64_t t0, uint64_t t1) {
    gpu_pend half = {.bi = desc->backend, .sched = desc->sched, .split = desc->split, .gid = desc->graph,
                     .t0 = t0, .t1 = t1, .copy = desc};
    return describe(scope, &half, (int64_t)expected);
}

/* ---- records ---- */

/* Interned strings for record names (kernels, fused names): never freed, bounded. */
static const char *intern(const char *s) {
    static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    static struct ent {
        struct ent *next;
        char s[];
    } *tab[1024];
    static size_t total;
    uint64_t h = opscope_fnv1a(OPSCOPE_FNV_BASIS, s, strlen(s));
    size_t b = (size_t)(h % 1024);
    const char *out = NULL;
    pthread_mutex_lock(&mu);
    for (struct ent *e = tab[b]; e && !out; e = e->next) {
        if (strcmp(e->s, s) == 0) {
            out = e->s;
        }
    }
    size_t l = strlen(s) + 1;
    if (!out && total + l < (8u << 20)) {
        struct ent *e = malloc(sizeof *e + l);
        if (e) {
            memcpy(e->s, s, l);
            e->next = tab[b];
            tab[b] = e;
            total += l;
            out = e->s;
        }
    }
    pthread_mutex_unlock(&mu);
    return out;
}

static int by_seq(const void *a, const void *b) {
    const opscope_gpu_item *x = a, *y = b;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static const char *node_name(const gpu_node *x, const char **sub) {
    *sub = NULL;
    if (x->sub_kind == OPSCOPE_CAP_SUB_UNARY) {
        *sub = opscope_cap_ggml.unary_op_name((enum ggml_unary_op)x->sub_op);
    } else if (x->sub_kind == OPSCOPE_CAP_SUB_GLU) {
        *sub = opscope_cap_ggml.glu_op_name((enum ggml_glu_op)x->sub_op);
    }
    return opscope_cap_ggml.op_name((enum ggml_op)x->op);
}

static bool write_gpu(const opscope_cap_gpu *e) {
    opscope_cap_gpu *r = opscope_cap_buf_alloc_bytes(sizeof *r);
    if (!r) {
        return false;
    }
    *r = *e;
    r->size = (uint16_t)sizeof *r;
    r->kind = OPSCOPE_CAP_KIND_GPU;
    opscope_cap_buf_commit_bytes(sizeof *r);
    atomic_fetch_add_explicit(&opscope_cap_stats.records, 1, memory_order_relaxed);
    return true;
}

/* The kernels of items [a, b): distinct consecutive names joined by '+'. */
static const char *kernel_list(const opscope_gpu_item *it, int a, int b) {
    char buf[512];
    size_t o = 0;
    const char *prev = NULL;
    buf[0] = '\0';
    for (int k = a; k < b; k++) {
        const char *n = it[k].name ? it[k].name : "?";
        if (prev && strcmp(prev, n) == 0) {
            continue;
        }
        prev = n;
        int m = snprintf(buf + o, sizeof buf - o, "%s%s", o ? "+" : "", n);
        if (m < 0 || (size_t)m >= sizeof buf - o) {
            break;
        }
        o += (size_t)m;
    }
    return intern(buf);
}

static uint64_t host_end(const gpu_pend *p) {
    uint64_t done_ns = 0;
    for (size_t i = 0; i < p->n_items; i++) {
        if (p->items[i].host_done > done_ns) {
            done_ns = p->items[i].host_done;
        }
    }
    uint64_t h = done_ns ? opscope_cap_ns_to_ticks(done_ns) : 0;
    return h > p->t1 ? h : p->t1;
}

/* A copy call's transfers: one COPY record with their device span. */
static void emit_copy_ready(gpu_pend *p) {
    opscope_sort(p->items, p->n_items, sizeof *p->items, by_seq);
    uint64_t s = UINT64_MAX, e = 0;
    bool aligned = false;
    for (size_t i = 0; i < p->n_items; i++) {
        const opscope_gpu_item *it = &p->items[i];
        if (!(it->flags & OPSCOPE_GPU_F_DROPPED)) {
            aligned |= (it->flags & OPSCOPE_GPU_F_ALIGNED) != 0;
            if (it->t0 < s) s = it->t0;
            if (it->t1 > e) e = it->t1;
        }
    }
    opscope_cap_gpu r = {0};
    r.flags = aligned ? OPSCOPE_CAP_F_ALIGNED : 0;
    r.backend = p->copy->backend;
    r.sched = p->copy->sched;
    r.thread = p->copy->thread;
    r.copy_dir = p->copy->op;
    r.split = p->copy->split;
    r.node = -1;
    r.n_fused = 1;
    r.n_kernels = (int32_t)p->n_items;
    r.graph = p->copy->graph;
    r.host0 = p->t0;
    r.host1 = host_end(p);
    r.bytes = p->copy->bytes;
    r.desc = p->copy;
    r.kernels = kernel_list(p->items, 0, (int)p->n_items);
    if (e == 0) {
        /* never timed on the device: the host's time of the call */
        s = opscope_cap_ticks_to_ns(p->t0);
        e = opscope_cap_ticks_to_ns(p->t1);
        r.n_kernels = 0;
        r.kernels = NULL;
    }
    r.ns0 = s;
    r.ns1 = e;
    r.tick0 = opscope_cap_ns_to_ticks(s);
    r.tick1 = opscope_cap_ns_to_ticks(e);
    if (!write_gpu(&r)) {
        opscope_cap_buf_note_dropped(1);
    }
    pend_free(p);
}

/* OPSCOPE_GPU_LOG: one TSV line per device-timed compute, from its raw items alone (before
 * any mapping): graph_id split_id backend_id items batches device_span_ns first_ns last_ns,
 * where device_span_ns sums each submission's first-start-to-last-end. For tests and for
 * seeing how long the device waited between submissions. */
/* With OPSCOPE_GPU_LOG_ITEMS=1 the log also holds what the mapping reads, as '#' lines:
 * "#N index op sub empty tensor" per node and "#I seq kind name|label" per item (for seeing
 * why a kernel went to a node, and as test fixtures). */
static void gpu_log_items(FILE *fp, const gpu_pend *p) {
    for (int i = 0; i < p->n_nodes; i++) {
        const char *sub;
        const char *op = node_name(&p->nodes[i], &sub);
        fprintf(fp, "#N\t%d\t%s\t%s\t%d\t%s\n", i, op, sub ? sub : "-", p->nodes[i].empty,
                p->nodes[i].desc && p->nodes[i].desc->name[0] ? p->nodes[i].desc->name : "-");
    }
    for (size_t i = 0; i < p->n_items; i++) {
        const opscope_gpu_item *it = &p->items[i];
        fprintf(fp, "#I\t%u\t%u\t%s|%s\n", it->seq, it->kind, it->name ? it->name : "-", it->label ? it->label : "");
    }
}

static void gpu_log(const gpu_pend *p) {
    static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    static FILE *fp;
    static bool tried, items;
    pthread_mutex_lock(&mu);
    if (!tried) {
        tried = true;
        const char *path = getenv("OPSCOPE_GPU_LOG");
        fp = path && *path ? fopen(path, "a") : NULL;
        if (path && *path && !fp) {
            char why[160];
            snprintf(why, sizeof why, "cannot be opened (%s)", strerror(errno));
            opscope_cap_env_warn("OPSCOPE_GPU_LOG", path, why, "no GPU log");
        }
        items = opscope_cap_env_flag("OPSCOPE_GPU_LOG_ITEMS", false);
    }
    if (fp && items) {
        gpu_log_items(fp, p);
    }
    if (fp) {
        uint64_t span = 0, first = UINT64_MAX, last = 0, bs = UINT64_MAX, be = 0;
        int batches = 0;
        uint32_t cur = 0;
        for (size_t i = 0; i <= p->n_items; i++) {
            const opscope_gpu_item *it = i < p->n_items ? &p->items[i] : NULL;
            if (it && (it->flags & OPSCOPE_GPU_F_DROPPED)) {
                continue;
            }
            if (!it || (batches && it->batch != cur)) {
                if (be > bs) span += be - bs;
                bs = UINT64_MAX;
                be = 0;
            }
            if (!it) break;
            if (!batches || it->batch != cur) {
                batches++;
                cur = it->batch;
            }
            if (it->t0 < bs) bs = it->t0;
            if (it->t1 > be) be = it->t1;
            if (it->t0 < first) first = it->t0;
            if (it->t1 > last) last = it->t1;
        }
        fprintf(fp, "%lld\t%d\t%d\t%zu\t%d\t%llu\t%llu\t%llu\n", (long long)p->gid, p->split, p->bi, p->n_items,
                batches, (unsigned long long)span, (unsigned long long)(first == UINT64_MAX ? 0 : first),
                (unsigned long long)last);
        fflush(fp);
    }
    pthread_mutex_unlock(&mu);
}

/* Each group's device span (0, 0: never timed) and whether it was aligned at submit; spans
 * that several groups share (a concurrent group timed as one) split by gpu_map's rule. SP:
 * 3 * NG values (starts, ends, weights). */
static void group_spans(const gpu_pend *p, const opscope_gpu_group *groups, int ng, uint64_t *sp, bool *aligned) {
    uint64_t *s = sp, *e = sp + ng, *w = sp + 2 * ng;
    for (int k = 0; k < ng; k++) {
        const opscope_gpu_group *gr = &groups[k];
        s[k] = UINT64_MAX;
        e[k] = 0;
        aligned[k] = false;
        for (int i = gr->item0; i < gr->item0 + gr->n_items; i++) {
            const opscope_gpu_item *it = &p->items[i];
            if (it->flags & OPSCOPE_GPU_F_DROPPED) {
                continue;
            }
            aligned[k] |= (it->flags & OPSCOPE_GPU_F_ALIGNED) != 0;
            if (it->t0 < s[k]) s[k] = it->t0;
            if (it->t1 > e[k]) e[k] = it->t1;
        }
        if (e[k] == 0) {
            s[k] = 0;
        }
        w[k] = p->nodes[gr->main].bytes;
    }
    opscope_gpu_split_shared(s, e, w, ng);
}

static void emit_ready(gpu_pend *p) {
    if (p->copy) {
        emit_copy_ready(p);
        return;
    }
    uint64_t a = opscope_cap_now();
    int n = p->n_nodes, ni = (int)p->n_items;
    if (n == 0 || ni == 0) {
        if (ni) {
            atomic_fetch_add_explicit(&opscope_cap_stats.gpu_lost, (uint64_t)ni, memory_order_relaxed);
        }
        pend_free(p);
        return;
    }
    opscope_sort(p->items, p->n_items, sizeof *p->items, by_seq);
    gpu_log(p);
    opscope_gpu_node *gn = malloc((size_t)n * sizeof *gn);
    opscope_gpu_group *groups = malloc((size_t)(ni + 1) * sizeof *groups);
    int ng = gn && groups ? 0 : -1;
    for (int i = 0; gn && i < n; i++) {
        gn[i].op = node_name(&p->nodes[i], &gn[i].sub);
        gn[i].empty = p->nodes[i].empty;
        gn[i].name = p->nodes[i].desc ? p->nodes[i].desc->name : NULL;
    }
    if (ng == 0) {
        ng = opscope_gpu_map(g_rules, gn, n, p->items, ni, groups, ni + 1);
    }
    int thread = opscope_cap_buf_thread_id();
    uint64_t dropped = 0, untimed = 0;
    /* the host side of a compute runs from its call until the host saw its work done (a fence
     * wait returned): asynchronous backends return from the call long before */
    uint64_t host1 = host_end(p);
    uint64_t *sp = ng > 0 ? malloc((size_t)ng * 3 * sizeof *sp) : NULL;
    bool *al = ng > 0 ? malloc((size_t)ng * sizeof *al) : NULL;
    if (ng > 0 && (!sp || !al)) {
        ng = -1;
    } else if (ng > 0) {
        group_spans(p, groups, ng, sp, al);
    }
    for (int k = 0; k < ng; k++) {
        const opscope_gpu_group *gr = &groups[k];
        uint64_t s = sp[k], e = sp[ng + k];
        bool aligned = al[k];
        if (e == 0) {
            untimed++; /* none of its items has a time: device timing lost, not the memory cap */
            continue;
        }
        opscope_cap_gpu r = {0};
        r.flags = aligned ? OPSCOPE_CAP_F_ALIGNED : 0;
        r.backend = (int16_t)p->bi;
        r.sched = (int16_t)p->sched;
        r.thread = (int16_t)thread;
        r.copy_dir = -1;
        r.split = p->split;
        r.node = gr->first;
        r.n_fused = gr->last - gr->first + 1;
        r.n_kernels = gr->n_items;
        r.weight = p->weight;
        r.graph = p->gid;
        r.ns0 = s;
        r.ns1 = e;
        r.tick0 = opscope_cap_ns_to_ticks(s);
        r.tick1 = opscope_cap_ns_to_ticks(e);
        r.host0 = p->t0;
        r.host1 = host1;
        r.desc = p->nodes[gr->main].desc;
        int last = gr->last;
        while (last > gr->first && p->nodes[last].empty) {
            last--;
        }
        r.bytes = p->nodes[last].bytes;
        if (gr->first != gr->last) {
            char name[256];
            opscope_gpu_group_name(g_rules, gn, gr, name, sizeof name);
            r.fused = intern(name);
        }
        r.kernels = kernel_list(p->items, gr->item0, gr->item0 + gr->n_items);
        if (!write_gpu(&r)) {
            dropped++;
        } else {
            atomic_fetch_add_explicit(&opscope_cap_stats.op_ticks, r.tick1 - r.tick0, memory_order_relaxed);
        }
    }
    if (ng < 0) {
        atomic_fetch_add_explicit(&opscope_cap_stats.gpu_lost, (uint64_t)ni, memory_order_relaxed);
    }
    if (untimed) {
        atomic_fetch_add_explicit(&opscope_cap_stats.gpu_lost, untimed, memory_order_relaxed);
    }
    if (dropped) {
        opscope_cap_buf_note_dropped(dropped);
    }
    free(sp);
    free(al);
    free(gn);
    free(groups);
    pend_free(p);
    atomic_fetch_add_explicit(&opscope_cap_stats.walk_ticks, opscope_cap_now() - a, memory_order_relaxed);
}

/* Device work recorded outside any compute the capture saw: its own records (transfers as
 * copies on the device, kernels by name), on the first GPU backend. */
static void emit_loose(const opscope_gpu_item *items, size_t n) {
    int bi = -1;
    int nb = opscope_cap_backend_count();
    for (int i = 0; i < nb && bi < 0; i++) {
        const opscope_cap_backend *b = opscope_cap_backend_at(i);
        if (b->device_type == OPSCOPE_DEVICE_GPU && !b->is_device_key) {
            bi = i;
        }
    }
    int thread = opscope_cap_buf_thread_id();
    for (size_t k = 0; k < n; k++) {
        const opscope_gpu_item *it = &items[k];
        if (it->flags & OPSCOPE_GPU_F_DROPPED) {
            continue;
        }
        opscope_cap_gpu r = {0};
        r.flags = (it->flags & OPSCOPE_GPU_F_ALIGNED) ? OPSCOPE_CAP_F_ALIGNED : 0;
        r.backend = (int16_t)bi;
        r.sched = -1;
        r.thread = (int16_t)thread;
        /* a buffer copy moves data; a fill or update writes device memory, like a kernel */
        r.copy_dir = it->kind == OPSCOPE_GPU_ITEM_COPY ? OPSCOPE_CAP_COPY_D2D : -1;
        r.split = -1;
        r.node = -1;
        r.n_fused = 1;
        r.n_kernels = 1;
        r.graph = -1;
        r.ns0 = it->t0;
        r.ns1 = it->t1;
        r.tick0 = opscope_cap_ns_to_ticks(it->t0);
        r.tick1 = opscope_cap_ns_to_ticks(it->t1);
        r.host0 = r.tick0;
        r.host1 = r.tick1;
        r.bytes = it->bytes;
        r.kernels = it->name;
        r.fused = it->kind == OPSCOPE_GPU_ITEM_COPY ? it->name : NULL;
        if (!write_gpu(&r)) {
            opscope_cap_buf_note_dropped(1);
        }
    }
}

uint64_t opscope_cap_gpu_lost(void) {
    return atomic_load_explicit(&opscope_cap_stats.gpu_lost, memory_order_relaxed);
}

void opscope_cap_gpu_poll(void) {
    const opscope_gpu_source *src = atomic_load_explicit(&g_src, memory_order_acquire);
    if (src && src->poll) {
        src->poll();
    }
}

void opscope_cap_gpu_settle(void) {
    /* the program's work is done: a described compute still short of items lost them (a
     * source that dropped records, and counted them through lost()): it gets the records of
     * the items it has */
    pthread_mutex_lock(&g_mu);
    gpu_pend *done = NULL;
    for (gpu_pend **pp = &g_open; *pp;) {
        gpu_pend *p = *pp;
        if (p->described && p->expected >= 0) {
            *pp = p->next;
            g_n_open--;
            p->next = done;
            done = p;
        } else {
            pp = &p->next;
        }
    }
    pthread_mutex_unlock(&g_mu);
    while (done) {
        gpu_pend *p = done;
        done = p->next;
        emit_ready(p);
    }
}

bool opscope_cap_gpu_attached(void) {
    return atomic_load_explicit(&g_src, memory_order_relaxed) != NULL;
}

void opscope_cap_gpu_note_untimed(const char *backend) {
    static atomic_flag once = ATOMIC_FLAG_INIT;
    if (strncmp(backend, "Vulkan", 6) != 0 || atomic_flag_test_and_set(&once)) {
        return;
    }
    fprintf(stderr, "opscope: %s has no per-op timing (%s); its splits are timed on the host as a whole\n",
            backend,
            atomic_load(&g_src) ? "the Vulkan layer timed none of its work"
                                : "the Vulkan layer VK_LAYER_OPSCOPE_profiler did not load");
}

/* ---- enabling the Vulkan layer for this process ----
 * The loader reads its variables when the program creates its instance, after this
 * library's constructors ran: so a program started with only LD_PRELOAD and GGML_PROFILE
 * gets the layer too. VK_LOADER_LAYERS_ENABLE only enables a layer that is found (a missing
 * manifest cannot make instance creation fail); GGML_VK_DEBUG_MARKERS makes ggml-vulkan name
 * its pipelines. OPSCOPE_VK_LAYER=0 turns this off, =1 on where vulkan_possible says no. */

static void append_env(const char *name, const char *value, char sep) {
    const char *old = getenv(name);
    if (!old || !*old) {
        setenv(name, value, 1);
        return;
    }
    if (strstr(old, value)) {
        return;
    }
    size_t l = strlen(old) + strlen(value) + 2;
    char *v = malloc(l);
    if (v) {
        snprintf(v, l, "%s%c%s", old, sep, value);
        setenv(name, v, 1);
        free(v);
    }
}

/* Whether ggml can run work on Vulkan here: GGML_VK_VISIBLE_DEVICES set (which also shows
 * CPU devices, lavapipe), or a GPU's device node. Where it cannot, the layer is left out: the
 * loader would still load it for the instance ggml-vulkan makes to list devices, and its
 * address space is what a CPU run under `ulimit -v` lacks. */
static bool vulkan_possible(void) {
    if (getenv("GGML_VK_VISIBLE_DEVICES")) {
        return true;
    }
    static const char *const nodes[] = {"/dev/nvidia0", "/dev/kfd", "/dev/dxg"};
    for (size_t i = 0; i < sizeof nodes / sizeof nodes[0]; i++) {
        if (access(nodes[i], F_OK) == 0) {
            return true;
        }
    }
    DIR *d = opendir("/dev/dri");
    bool found = false;
    for (struct dirent *e; d && !found && (e = readdir(d));) {
        found = strncmp(e->d_name, "renderD", 7) == 0;
    }
    if (d) {
        closedir(d);
    }
    return found;
}

__attribute__((constructor)) static void enable_vulkan_layer(void) {
    if (!getenv("GGML_PROFILE")) {
        return;
    }
    static const char *const k_layer[] = {"0", "1", NULL};
    int on = opscope_cap_env_word("OPSCOPE_VK_LAYER", k_layer, -1, "the default (enabled where ggml can use Vulkan)");
    if (on == 0 || (on != 1 && !vulkan_possible())) {
        return;
    }
    Dl_info info;
    if (!dladdr((void *)enable_vulkan_layer, &info) || !info.dli_fname) {
        return;
    }
    /* the manifest lies beside this library (build tree), or in the install's explicit layer
     * folder, at a path relative to this library fixed at build time (cmake/install.cmake) */
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", info.dli_fname);
    char *slash = strrchr(dir, '/');
    if (!slash) {
        return;
    }
    *slash = '\0';
    char manifest[4200];
    snprintf(manifest, sizeof manifest, "%s/%s", dir, OPSCOPE_VK_MANIFEST);
#ifdef OPSCOPE_LIB_TO_LAYERDIR
    if (access(manifest, R_OK) != 0) {
        snprintf(manifest, sizeof manifest, "%s/%s/%s", dir, OPSCOPE_LIB_TO_LAYERDIR, OPSCOPE_VK_MANIFEST);
    }
#endif
    if (access(manifest, R_OK) != 0) {
        return; /* not built here: the first Vulkan split says so */
    }
    append_env("VK_ADD_LAYER_PATH", manifest, ':');
    append_env("VK_LOADER_LAYERS_ENABLE", "VK_LAYER_OPSCOPE_profiler", ',');
    if (!getenv("GGML_VK_DEBUG_MARKERS")) {
        setenv("GGML_VK_DEBUG_MARKERS", "1", 1);
    }
}
