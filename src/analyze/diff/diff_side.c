/*
 * diff_side.c - one input of `opscope diff`: a sink that aggregates records by the diff's key
 * (see diff.h). Per record: the op identity (name, sub-op, fused name or copy call, category,
 * type) found by hashing the name in place, the group of the key found in a second table,
 * and for ggml profiles the graph's token count and phase, the layer from the tensor name and
 * runs of consecutive records (for fusion differences). Nothing per record is kept, except a
 * 4-byte key per GPU activity of a Kineto trace when the key needs the trace analysis.
 */
#include "analyze/diff/diff.h"
#include "analyze/diff/diff_attrib.h"
#include "analyze/diff/diff_label.h"
#include "analyze/diff/diff_side_state.h"
#include "model/record.h"
#include "analyze/kineto/cpu_ops.h"
#include "util/vec.h"
#include "analyze/record/derived.h"
#include "util/hash.h"
#include "util/hindex.h"
#include "analyze/record/op_category.h"
#include "analyze/record/shape_fmt.h"
#include "analyze/ggml/stats.h"
#include "model/ggml_vocab.h"
#include "model/strtab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PHASE_UNKNOWN 255             /* the graph's first MUL_MAT has not come yet */
#define MAX_RUNS 65536
#define MAX_PENDING 65536
#define MAX_SHAPES 65536
#define MAX_ATOMS 262144               /* groups of op, backend, shape and key parts */

/* ---------------------------------------------------------------------------------------- */
/* The side.                                                                                */

opscope_diff_side_t *opscope_diff_side_new(unsigned keys) {
    opscope_diff_side_t *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->keys = keys ? keys : OPSCOPE_DIFF_KEY_OP;
    s->strings = opscope_strtab_new();
    s->last_backend = INT32_MIN;
    s->totals.profiler = "";
    if (!s->strings || opscope_diff_ix_init(&s->op_ix) || opscope_diff_ix_init(&s->shape_ix) ||
        opscope_diff_ix_init(&s->group_ix) || opscope_diff_ix_init(&s->run_ix) ||
        opscope_diff_ix_init(&s->partials.ix)) {
        opscope_diff_side_free(s);
        return NULL;
    }
    return s;
}

void opscope_diff_side_free(opscope_diff_side_t *s) {
    if (!s) return;
    opscope_strtab_free(s->strings);
    free(s->ops);
    opscope_hindex_free(&s->op_ix);
    free(s->shapes);
    opscope_hindex_free(&s->shape_ix);
    free(s->groups);
    opscope_hindex_free(&s->group_ix);
    free(s->described);
    free(s->seen_backends);
    free(s->pending);
    free(s->runs);
    opscope_hindex_free(&s->run_ix);
    free(s->partials.v);
    opscope_hindex_free(&s->partials.ix);
    free(s->gpu_partial);
    free(s->final);
    free(s->final_runs);
    for (size_t i = 0; i < MAX_INPUTS; i++) free(s->run_snap[i]);
    free(s->fused);
    free(s->cpu_ops);
    free(s->cpu_kern);
    free(s->kernels);
    free(s->kernel_at);
    free(s);
}

void opscope_diff_side_set_kineto(opscope_diff_side_t *s, const opscope_kineto_t *k) {
    s->kin = k;
    s->defer = k && (opscope_diff_side_work_pairs(s) ||
                     (s->keys & (OPSCOPE_DIFF_KEY_CPU_OP | OPSCOPE_DIFF_KEY_LAYER | OPSCOPE_DIFF_KEY_PHASE)));
}

const opscope_kineto_t *opscope_diff_side_kineto(const opscope_diff_side_t *s) { return s->kin; }

/* ---------------------------------------------------------------------------------------- */
/* Op identities.                                                                             */

/* An op identity as the record gives it: the name in place, the rest as ids. */
typedef struct op_key {
    const char *name;
    size_t nlen;
    uint32_t sub_id, extra_id, in_cat_id;
    opscope_record_type type;
} op_key;

static bool op_eq(const void *ctx, uint32_t i, const void *key) {
    const dop *o = &((const opscope_diff_side_t *)ctx)->ops[i];
    const op_key *k = key;
    return o->name_len == k->nlen && o->sub_id == k->sub_id && o->extra_id == k->extra_id &&
           o->in_cat_id == k->in_cat_id && o->type == k->type && memcmp(o->name, k->name, k->nlen) == 0;
}

/* Returns the op index of REC, or -1 when out of memory. */
static long op_find(opscope_diff_side_t *s, const opscope_record *rec) {
    const char *rname = rec->name ? rec->name : "";
    size_t nlen = strlen(rname);
    opscope_derived d; /* the names as the report's (derived.h) */
    opscope_derived_init(&d, rec);
    const char *sub = opscope_derived_sub_op(&d, NULL);
    uint32_t sub_id = 0, extra_id = 0, in_cat_id = 0, id;
    if (sub) {
        if ((id = opscope_diff_side_intern(s, sub, strlen(sub))) == NONE32) return -1;
        sub_id = id + 1;
    }
    const char *extra = opscope_derived_fused(&d); /* Vulkan's "RMS_NORM_MUL" is "RMS_NORM+MUL" */
    if (extra) {
        if ((id = opscope_diff_side_intern(s, extra, strlen(extra))) == NONE32) return -1;
        extra_id = id + 1;
    }
    if (rec->category) {
        if ((id = opscope_diff_side_intern(s, rec->category, strlen(rec->category))) == NONE32) return -1;
        in_cat_id = id + 1;
    }
    uint64_t h = opscope_hash_bytes(rname, nlen) ^
                 opscope_mix64((uint64_t)sub_id << 32 ^ extra_id ^ (uint64_t)in_cat_id << 16 ^
                       (uint64_t)rec->type << 62);
    op_key k = {rname, nlen, sub_id, extra_id, in_cat_id, rec->type};
    uint32_t found = opscope_hindex_find(&s->op_ix, h, &k, op_eq, s);
    if (found != OPSCOPE_HINDEX_NONE) return (long)found;
    if (nlen > UINT32_MAX || s->n_ops >= OPSCOPE_HINDEX_NONE ||
        opscope_vec_reserve((void **)&s->ops, &s->cap_ops, s->n_ops + 1, sizeof *s->ops, 64))
        return -1;
    dop *o = &s->ops[s->n_ops];
    memset(o, 0, sizeof *o);
    uint32_t name_id;
    o->name = opscope_strtab_intern(s->strings, rname, nlen, &name_id);
    if (!o->name) return -1;
    o->name_id = name_id;
    o->name_len = (uint32_t)nlen;
    o->sub_id = sub_id;
    o->extra_id = extra_id;
    o->in_cat_id = in_cat_id;
    o->sub = sub_id ? opscope_strtab_get(s->strings, sub_id - 1) : NULL;
    o->extra = extra_id ? opscope_strtab_get(s->strings, extra_id - 1) : NULL;
    o->type = rec->type;
    o->is_mul_mat = rec->type == OPSCOPE_RECORD_OP && opscope_ggml_op_is(rname, OPSCOPE_GGML_OP_MUL_MAT);
    o->is_flash = rec->type == OPSCOPE_RECORD_OP && opscope_ggml_op_is(rname, OPSCOPE_GGML_OP_FLASH_ATTN_EXT);
    o->cat_per_record = !rec->category && o->is_flash;
    const char *cat = opscope_record_category(rec);
    if ((id = opscope_diff_side_intern(s, cat, strlen(cat))) == NONE32) return -1;
    o->cat_id = id + 1;
    o->cat = opscope_strtab_get(s->strings, id);
    if (opscope_hindex_add(&s->op_ix, h, (uint32_t)s->n_ops)) return -1;
    return (long)s->n_ops++;
}

/* ---------------------------------------------------------------------------------------- */
typedef struct shape_key {
    const opscope_record *rec;
    int n;
} shape_key;

static bool shape_eq(const void *ctx, uint32_t i, const void *key) {
    const opscope_shape *sh = &((const opscope_diff_side_t *)ctx)->shapes[i];
    const shape_key *k = key;
    if (sh->n_src != k->n) return false;
    for (int j = 0; j < k->n; j++)
        if (memcmp(sh->ne_src[j], k->rec->ne_src[j], sizeof sh->ne_src[j]) ||
            sh->type_src[j] != k->rec->type_src[j])
            return false;
    return true;
}

static uint32_t shape_find(opscope_diff_side_t *s, const opscope_record *r) {
    int n = opscope_record_n_src(r);
    uint64_t h = OPSCOPE_FNV_BASIS ^ (uint64_t)n;
    for (int i = 0; i < n; i++) {
        for (int d = 0; d < OPSCOPE_MAX_DIMS; d++) h = opscope_hash_word(h, (uint64_t)r->ne_src[i][d]);
        h = opscope_hash_word(h, (uint64_t)(uint32_t)r->type_src[i]);
    }
    h = opscope_mix64(h);
    shape_key k = {r, n};
    uint32_t found = opscope_hindex_find(&s->shape_ix, h, &k, shape_eq, s);
    if (found != OPSCOPE_HINDEX_NONE) return found;
    if (s->n_shapes >= MAX_SHAPES) return SHAPE_OTHER;
    if (opscope_vec_reserve((void **)&s->shapes, &s->cap_shapes, s->n_shapes + 1, sizeof *s->shapes, 64) ||
        opscope_hindex_add(&s->shape_ix, h, (uint32_t)s->n_shapes)) {
        s->failed = true;
        return NONE32;
    }
    opscope_shape *sh = &s->shapes[s->n_shapes];
    opscope_shape_of_record(sh, r);
    sh->has_out = false; /* the key is the sources; the output follows from them */
    return (uint32_t)s->n_shapes++;
}

/* ---------------------------------------------------------------------------------------- */
/* Groups.                                                                                    */

/* The atom's per-graph sum of GRAPH ends: one sample of its time per graph compute. */
static void group_graph_flush(dgroup *g) {
    if (g->g_cur == NO_GRAPH) return;
    opscope_moments_add(&g->gm, g->g_sum);
    g->g_cur = NO_GRAPH;
    g->g_sum = 0;
}

/* Sampling: a record stands for WS.weight computes (1 when it has no weight). Computes are
 * counted per group (a compute's records of one group come together), the timed ones for
 * weighted records only; est_ns and sampled mean something once one of those is in. */
static void group_weight(dgroup *g, uint64_t d, int64_t graph, const wsample *ws) {
    uint32_t w = ws->weight ? ws->weight : 1;
    g->est_ns += d * w;
    if (g->count == 1 || g->w_graph != graph || g->w_split != ws->split) {
        g->timed += ws->weight != 0;
        g->sampled += w;
        g->w_graph = graph;
        g->w_split = ws->split;
    }
}

/* Sums the record's per-thread times (WS->th) into G's. */
static void group_threads(dgroup *g, const wsample *ws) {
    if (ws->th.n) opscope_diff_threads_add(&g->th, &ws->th);
}

/* A record's per-thread times as one record's sums into *TH (n = 0 when it has none); the
 * side's thread count and records with per-thread times grow with it. */
static void record_threads(opscope_diff_totals *t, const opscope_record *r, opscope_diff_threads *th) {
    memset(th, 0, sizeof *th);
    if (!(r->has & OPSCOPE_HAS_THREADS) || !r->threads || r->n_threads <= 0) return;
    int nt = r->n_threads > OPSCOPE_MAX_THREADS ? OPSCOPE_MAX_THREADS : r->n_threads;
    uint64_t hi = 0;
    for (int i = 0; i < nt; i++) {
        uint64_t w = r->threads[2 * i];
        th->work_ns += w;
        th->wait_ns += r->threads[2 * i + 1];
        if (w > hi) hi = w;
    }
    th->n = 1;
    th->work_max_ns = hi;
    th->work_mean_ns = th->work_ns / (uint64_t)nt;
    t->thread_records++;
    if (nt > t->threads) t->threads = nt;
}

/* Adds a record's duration: each record is one call of its group, in graph compute GRAPH
 * (NO_GRAPH: none). */
static int add(opscope_diff_side_t *s, const dkey *k, uint64_t d, int64_t graph, const wsample *ws) {
    long gi = opscope_diff_group_find(s, k);
    if (gi < 0) return -1;
    dgroup *g = &s->groups[gi];
    opscope_diff_group_acc(g, d);
    group_weight(g, d, graph, ws);
    group_threads(g, ws);
    g->calls++;
    if (graph != NO_GRAPH) {
        if (g->g_cur != graph) group_graph_flush(g);
        g->g_cur = graph;
        g->g_sum += d;
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* ggml graphs: tokens, phase (from the first MUL_MAT of a graph), layer (tensor names).    */

static int pending_flush(opscope_diff_side_t *s, uint8_t phase) {
    for (size_t i = 0; i < s->n_pending; i++) {
        s->pending[i].key.phase = phase;
        if (add(s, &s->pending[i].key, s->pending[i].dur, s->g_id, &s->pending[i].ws)) return -1;
    }
    s->n_pending = 0;
    return 0;
}

static ring_ent *ring_find(opscope_diff_side_t *s, int64_t id) {
    for (size_t i = 0; i < GRAPH_RING; i++)
        if (s->ring[i].used && s->ring[i].id == id) return &s->ring[i];
    return NULL;
}

/* A finished graph's total time, one sample of its size's stratum. */
static void gstrata_add(opscope_diff_side_t *s, uint64_t tokens, uint64_t sum) {
    size_t i = 0;
    while (i < s->n_gstrata && s->gstrata[i].tokens != tokens) i++;
    if (i == s->n_gstrata) {
        if (s->n_gstrata < MAX_GSTRATA) s->gstrata[s->n_gstrata++].tokens = tokens;
        else i = MAX_GSTRATA; /* every further size shares the last stratum */
    }
    opscope_moments_add(&s->gstrata[i].m, sum);
}

/* The current graph's phase is PH: counted once per graph, given to its pending records. */
static int graph_phase_set(opscope_diff_side_t *s, uint8_t ph) {
    s->g_phase = ph;
    ring_ent *e = ring_find(s, s->g_id);
    if (e) e->phase = ph;
    if (s->g_new && ph == OPSCOPE_KINETO_PHASE_PREFILL) s->totals.prefill_graphs++;
    if (s->g_new && ph == OPSCOPE_KINETO_PHASE_DECODE) s->totals.decode_graphs++;
    return pending_flush(s, ph);
}

/* The current graph ends without attention deciding its phase: its first MUL_MAT's tokens
 * do (more than one: prefill), none: none. */
static int graph_leave(opscope_diff_side_t *s) {
    if (!s->g_valid || s->g_phase != PHASE_UNKNOWN) return 0;
    ring_ent *e = ring_find(s, s->g_id);
    uint64_t t = e ? e->tokens : 0;
    return graph_phase_set(s, t > 1 ? OPSCOPE_KINETO_PHASE_PREFILL
                              : t == 1 ? OPSCOPE_KINETO_PHASE_DECODE : OPSCOPE_KINETO_PHASE_NONE);
}

/* The record's graph becomes the current one. Returns 0 or -1 (no memory). */
static int graph_switch(opscope_diff_side_t *s, int64_t id) {
    if (graph_leave(s)) return -1;
    ring_ent *e = ring_find(s, id);
    s->g_valid = true;
    s->g_id = id;
    s->g_layer = NONE32;
    if (e) { /* a graph seen before (records of graphs interleaved) */
        s->g_new = false;
        s->g_phase = e->phase;
        s->g_ent = e;
        return 0;
    }
    s->g_new = true;
    s->g_phase = PHASE_UNKNOWN;
    s->totals.graphs++;
    e = &s->ring[s->ring_pos];
    s->ring_pos = (s->ring_pos + 1) % GRAPH_RING;
    if (e->used) gstrata_add(s, e->tokens, e->sum);
    *e = (ring_ent){.id = id, .phase = PHASE_UNKNOWN, .used = 1};
    s->g_ent = e;
    return 0;
}

/* The graph's first MUL_MAT: its rows are the graph's tokens (all sequences together). */
static void graph_tokens_found(opscope_diff_side_t *s, int64_t t) {
    if (t < 1) t = 1;
    ring_ent *e = ring_find(s, s->g_id);
    if (!e || e->tokens) return;
    e->tokens = (uint64_t)t;
    if (s->g_new) s->totals.tokens += (uint64_t)t;
}

/* Layer of a ggml tensor name: "attn_norm-3" and "cache_k_l3" give 3. A name ggml made up
 * ("node_42") or none at all inherits the layer of the graph's previous record (*INHERIT). */
static uint32_t layer_of_name(const char *t, bool *inherit) {
    *inherit = false;
    if (!t || !*t) {
        *inherit = true;
        return NONE32;
    }
    size_t n = strlen(t);
    const char *cut = strstr(t, " ("); /* " (view)", " (copy of x)", " (reshaped)" */
    if (cut) n = (size_t)(cut - t);
    size_t e = n;
    while (e > 0 && t[e - 1] >= '0' && t[e - 1] <= '9') e--;
    if (e == 5 && n > 5 && !memcmp(t, "node_", 5)) {
        *inherit = true;
        return NONE32;
    }
    if (e == n || n - e > 6) return NONE32;
    bool dash = e >= 1 && t[e - 1] == '-';
    bool l = e >= 2 && t[e - 1] == 'l' && t[e - 2] == '_';
    if (!dash && !l) return NONE32;
    uint32_t v = 0;
    for (size_t i = e; i < n; i++) v = v * 10 + (uint32_t)(t[i] - '0');
    return v;
}

/* ---------------------------------------------------------------------------------------- */
/* Runs of consecutive unfused OP records on one lane of one graph (fusion differences).    */

static uint64_t run_hash(const uint32_t *ids, uint32_t n) {
    uint64_t h = n;
    for (uint32_t i = 0; i < n; i++) h = opscope_mix64(opscope_hash_word(h, ids[i]));
    return h;
}

typedef struct run_key {
    const uint32_t *ids;
    uint32_t n;
} run_key;

static bool run_eq(const void *ctx, uint32_t i, const void *key) {
    const run_ent *r = &((const opscope_diff_side_t *)ctx)->runs[i];
    const run_key *k = key;
    return r->n == k->n && !memcmp(r->ids, k->ids, k->n * sizeof *k->ids);
}

static long run_find(const opscope_diff_side_t *s, const uint32_t *ids, uint32_t n, uint64_t h) {
    run_key k = {ids, n};
    uint32_t found = opscope_hindex_find(&s->run_ix, h, &k, run_eq, s);
    return found == OPSCOPE_HINDEX_NONE ? -1 : (long)found;
}

static int runs_add(opscope_diff_side_t *s, const opscope_record *rec, const dop *o) {
    int32_t thread = rec->has & OPSCOPE_HAS_THREAD ? rec->thread_id : -1;
    lane *l = NULL;
    for (size_t i = 0; i < s->n_lanes && !l; i++)
        if (s->lanes[i].backend == rec->backend_id && s->lanes[i].split == rec->split_id &&
            s->lanes[i].thread == thread)
            l = &s->lanes[i];
    if (!l) {
        if (s->n_lanes == MAX_LANES) return 0;
        l = &s->lanes[s->n_lanes++];
        memset(l, 0, sizeof *l);
        l->backend = rec->backend_id;
        l->split = rec->split_id;
        l->thread = thread;
        l->graph = rec->graph_id;
    }
    if (l->graph != rec->graph_id || o->extra) { /* a new graph, or a fused record: cut */
        l->graph = rec->graph_id;
        l->n = 0;
        if (o->extra) return 0;
    }
    if (l->n == MAX_RUN) {
        memmove(l->ids, l->ids + 1, (MAX_RUN - 1) * sizeof *l->ids);
        memmove(l->dur, l->dur + 1, (MAX_RUN - 1) * sizeof *l->dur);
        l->n--;
    }
    l->ids[l->n] = o->name_id;
    l->dur[l->n] = rec->duration_ns;
    l->n++;
    uint64_t sum = rec->duration_ns;
    for (uint32_t len = 2; len <= l->n; len++) {
        const uint32_t *ids = l->ids + (l->n - len);
        sum += l->dur[l->n - len];
        uint64_t h = run_hash(ids, len);
        long ri = run_find(s, ids, len, h);
        if (ri < 0) {
            if (s->n_runs >= MAX_RUNS) {
                s->totals.runs_dropped++;
                continue;
            }
            if (opscope_vec_reserve((void **)&s->runs, &s->cap_runs, s->n_runs + 1, sizeof *s->runs, 64) ||
                opscope_hindex_add(&s->run_ix, h, (uint32_t)s->n_runs))
                return -1;
            run_ent *r = &s->runs[s->n_runs];
            memset(r, 0, sizeof *r);
            r->n = len;
            memcpy(r->ids, ids, len * sizeof *ids);
            ri = (long)s->n_runs++;
        }
        s->runs[ri].count++;
        s->runs[ri].total_ns += sum;
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* Kineto: a trace record waits for the next one to learn whether it was a GPU activity.    */

static long partial_find(opscope_diff_side_t *s, const dkey *k) {
    return opscope_diff_keyset_find(&s->partials, k);
}

/* The collector's activity count grew since the pending record came: it was activity
 * PEND_N, attributed at finish; else it is added now without attribution. */
static int pending_resolve(opscope_diff_side_t *s) {
    if (!s->pend_valid) return 0;
    s->pend_valid = false;
    size_t n = opscope_kineto_n_gpu(s->kin);
    if (n > s->pend_n) {
        long p = partial_find(s, &s->pend_key);
        if (p < 0 || opscope_vec_reserve((void **)&s->gpu_partial, &s->cap_gpu_partial, s->pend_n + 1,
                          sizeof *s->gpu_partial, 64))
            return -1;
        for (size_t i = s->n_gpu_partial; i < s->pend_n; i++) s->gpu_partial[i] = NONE32;
        s->gpu_partial[s->pend_n] = (uint32_t)p;
        if (s->n_gpu_partial <= s->pend_n) s->n_gpu_partial = s->pend_n + 1;
        return 0;
    }
    dkey k = s->pend_key;
    if (s->keys & OPSCOPE_DIFF_KEY_CPU_OP) k.cpu = NONE32;
    if (s->keys & OPSCOPE_DIFF_KEY_LAYER) k.layer = NONE32;
    if (s->keys & OPSCOPE_DIFF_KEY_PHASE) k.phase = OPSCOPE_KINETO_PHASE_NONE;
    const wsample none = {0};
    return add(s, &k, s->pend_dur, NO_GRAPH, &none);
}

/* ---------------------------------------------------------------------------------------- */
/* The sink.                                                                                  */

/* Closes the window a run left open (its end unknown) at the last record read: at the end of
 * that run's read, whether its meta came before its records (a record log) or after (JSON). */
static void close_open_window(opscope_diff_side_t *s) {
    if (s->win_open_ns && s->totals.last_end_ns > s->win_open_ns)
        s->totals.window_ns += s->totals.last_end_ns - s->win_open_ns;
    s->win_open_ns = 0;
}

/* A run's capture windows into the totals (the header says them, docs/server.md). */
static void add_windows(opscope_diff_side_t *s, const opscope_capture_info *c) {
    if (!c || !c->windowed) return;
    s->totals.windowed = true;
    s->totals.windows += c->n_windows;
    for (size_t i = 0; i < c->n_windows; i++) {
        uint64_t a = c->windows[i].start_ns, e = c->windows[i].end_ns ? c->windows[i].end_ns : c->end_ns;
        if (e > a) s->totals.window_ns += e - a;
        else if (!e) s->win_open_ns = a; /* open, no last write known: ends at the run's last record */
    }
}

static int side_meta(void *ud, const opscope_meta *m) {
    opscope_diff_side_t *s = ud;
    add_windows(s, m->capture);
    const char *p = opscope_strtab_intern(s->strings, m->profiler ? m->profiler : "",
                                          m->profiler ? strlen(m->profiler) : 0, NULL);
    if (!p) return -1;
    s->totals.profiler = p;
    s->totals.version = m->version;
    /* a run without per-thread times (one thread: no barrier waits) says its threads here */
    const opscope_run_info *run = m->capture ? m->capture->run : NULL;
    for (size_t i = 0; run && i < run->n_contexts; i++)
        if (run->contexts[i].n_threads > (uint32_t)s->totals.threads && run->contexts[i].n_threads <= INT32_MAX)
            s->totals.threads = (int32_t)run->contexts[i].n_threads;
    return 0;
}

static int side_backend(void *ud, const opscope_backend *b) {
    opscope_diff_side_t *s = ud;
    const char *name = b->name ? b->name : "";
    const char *n = opscope_strtab_intern(s->strings, name, strlen(name), NULL);
    if (!n) return -1;
    for (size_t i = 0; i < s->n_described; i++)
        if (s->described[i].id == b->id) {
            s->described[i].name = n;
            return 0;
        }
    if (opscope_vec_reserve((void **)&s->described, &s->cap_described, s->n_described + 1, sizeof *s->described, 64))
        return -1;
    s->described[s->n_described++] = (bname){b->id, n};
    return 0;
}

static int note_backend(opscope_diff_side_t *s, int32_t id) {
    if (id == s->last_backend) return 0;
    s->last_backend = id;
    for (size_t i = 0; i < s->n_seen_backends; i++)
        if (s->seen_backends[i] == id) return 0;
    if (opscope_vec_reserve((void **)&s->seen_backends, &s->cap_seen_backends, s->n_seen_backends + 1,
             sizeof *s->seen_backends, 64))
        return -1;
    s->seen_backends[s->n_seen_backends++] = id;
    return 0;
}

static int side_record(void *ud, const opscope_record *rec) {
    opscope_diff_side_t *s = ud;
    uint64_t d = rec->duration_ns, start = rec->start_ns, end = start + d;
    opscope_diff_totals *t = &s->totals;
    if (t->n_records == 0 || start < t->first_start_ns) t->first_start_ns = start;
    if (t->n_records == 0 || end > t->last_end_ns) t->last_end_ns = end;
    t->n_records++;
    if (s->run_records == 0 || start < s->run_first) s->run_first = start;
    if (s->run_records == 0 || end > s->run_last) s->run_last = end;
    s->run_records++;
    if (rec->type == OPSCOPE_RECORD_COPY) {
        t->n_copies++;
        t->copy_ns += d;
    } else {
        t->n_ops++;
        t->op_ns += d;
    }
    if (rec->category) t->trace = true;
    if (s->pend_valid && pending_resolve(s)) return -1;
    if (note_backend(s, rec->backend_id)) return -1;

    long oi = op_find(s, rec);
    if (oi < 0) return -1;
    dop *o = &s->ops[oi];
    o->count++;
    o->total_ns += d;
    if (rec->n_fused > o->n_fused) o->n_fused = rec->n_fused;

    unsigned keys = s->keys;
    bool graph = (rec->has & OPSCOPE_HAS_GRAPH) && !rec->category;
    if (graph && (!s->g_valid || rec->graph_id != s->g_id) && graph_switch(s, rec->graph_id))
        return -1;
    if (graph && o->is_mul_mat && rec->n_src >= 2) graph_tokens_found(s, rec->ne_src[1][1]);
    /* a whole split (a compute sampled out of device timing): its nodes' batch and queries as
     * the host knew them, so tokens and phases are the same in every timing mode */
    bool split = graph && (rec->has & OPSCOPE_HAS_BATCH);
    if (split && rec->batch > 0) graph_tokens_found(s, rec->batch);
    bool flash = o->is_flash && rec->n_src >= 1;
    int64_t queries = flash ? rec->ne_src[0][1] : split ? rec->queries : 0;
    if (graph && s->g_phase == PHASE_UNKNOWN && (flash || queries > 0)) {
        /* the attention's queries per sequence (ne[1]; sequences in ne[3]): one is a decode
         * step, however many sequences a server decodes at once. Pending records get the
         * phase before this record is added. */
        if (graph_phase_set(s, queries > 1 ? OPSCOPE_KINETO_PHASE_PREFILL : OPSCOPE_KINETO_PHASE_DECODE))
            return -1;
    }
    if (graph && rec->type == OPSCOPE_RECORD_OP && runs_add(s, rec, o)) return -1;
    if (graph) s->g_ent->sum += d;

    wsample ws = {.split = rec->split_id,
                  .weight = (rec->has & OPSCOPE_HAS_WEIGHT) ? (rec->weight ? rec->weight : 1) : 0};
    record_threads(t, rec, &ws.th);
    dkey k;
    memset(&k, 0, sizeof k);
    k.op = k.shape = k.cat = k.cpu = k.layer = k.phase = NONE32;
    k.backend = INT32_MIN;
    /* Every group is split by op identity, backend and source shapes whatever the key
     * ("atoms": calls that should take the same time, the strata of the noise test); finish
     * merges the atoms of a key. */
    k.op = (uint32_t)oi;
    k.backend = rec->backend_id;
    if (s->n_groups < MAX_ATOMS || (keys & OPSCOPE_DIFF_KEY_SHAPE)) {
        k.shape = shape_find(s, rec);
        if (s->failed) return -1;
    } else { /* bounded memory: past the cap, new calls are not split by shape */
        k.shape = SHAPE_OTHER;
        t->atoms_capped++;
    }
    if (keys & OPSCOPE_DIFF_KEY_CATEGORY) {
        k.cat = o->cat_id;
        if (o->cat_per_record) {
            const char *c = opscope_record_category(rec);
            uint32_t id = opscope_diff_side_intern(s, c, strlen(c));
            if (id == NONE32) return -1;
            k.cat = id + 1;
        }
    }
    if (s->feed) { /* a CPU-op record (add_cpu_records): it is its own CPU op */
        if (keys & OPSCOPE_DIFF_KEY_CPU_OP) k.cpu = s->feed_cpu;
        if (keys & OPSCOPE_DIFF_KEY_PHASE) k.phase = s->feed_phase;
        if (opscope_diff_side_work_pairs(s)) k.work = s->feed_work + 1;
        return add(s, &k, d, NO_GRAPH, &ws);
    }
    if (rec->category && s->defer) { /* CPU op, layer and phase come from the trace analysis */
        s->pend_key = k;
        s->pend_dur = d;
        s->pend_n = opscope_kineto_n_gpu(s->kin);
        s->pend_valid = true;
        return 0;
    }
    if (keys & OPSCOPE_DIFF_KEY_CPU_OP) {
        /* ggml profiles have no CPU op launching kernels: the node's op stands for it */
        k.cpu = rec->category ? NONE32 : CPU_FROM_OP;
    }
    if (keys & OPSCOPE_DIFF_KEY_LAYER) {
        bool inherit;
        uint32_t l = layer_of_name(rec->tensor_name, &inherit);
        if (graph) {
            if (inherit) l = s->g_layer;
            else s->g_layer = l;
        }
        k.layer = l;
    }
    if (keys & OPSCOPE_DIFF_KEY_PHASE) {
        if (graph && s->g_phase == PHASE_UNKNOWN) {
            if (s->n_pending == MAX_PENDING) {
                t->phase_pending_dropped += s->n_pending;
                if (pending_flush(s, OPSCOPE_KINETO_PHASE_NONE)) return -1;
            }
            if (opscope_vec_reserve((void **)&s->pending, &s->cap_pending, s->n_pending + 1, sizeof *s->pending, 64))
                return -1;
            s->pending[s->n_pending++] = (pend){k, d, ws};
            return 0;
        }
        k.phase = graph ? s->g_phase : OPSCOPE_KINETO_PHASE_NONE;
    }
    return add(s, &k, d, graph ? rec->graph_id : NO_GRAPH, &ws);
}

/* The end of one input: its graphs end (their per-graph samples are taken) and its totals
 * are kept as one run of this side; graph ids of a next input are its own. */
static int side_end(void *ud) {
    opscope_diff_side_t *s = ud;
    if (s->pend_valid && pending_resolve(s)) return -1;
    if (graph_leave(s)) return -1;
    close_open_window(s);
    s->g_valid = false;
    for (size_t i = 0; i < s->n_groups; i++) group_graph_flush(&s->groups[i]);
    for (size_t i = 0; i < GRAPH_RING; i++)
        if (s->ring[i].used) gstrata_add(s, s->ring[i].tokens, s->ring[i].sum);
    memset(s->ring, 0, sizeof s->ring);
    s->ring_pos = 0;
    s->n_lanes = 0;
    size_t r = s->totals.inputs;
    if (r < MAX_INPUTS) {
        s->run_snap[r] = malloc((s->n_groups ? s->n_groups : 1) * sizeof **s->run_snap);
        if (!s->run_snap[r]) return -1;
        for (size_t i = 0; i < s->n_groups; i++) s->run_snap[r][i] = s->groups[i].total_ns;
        s->run_snap_n[r] = s->n_groups;
        s->run_graphs[r] = s->totals.graphs;
        s->run_tokens[r] = s->totals.tokens;
        s->run_total[r] = s->totals.op_ns + s->totals.copy_ns;
        s->run_wall[r] = s->run_records ? s->run_last - s->run_first : 0;
    }
    s->totals.inputs++;
    s->run_records = 0;
    return 0;
}

opscope_sink opscope_diff_side_sink(opscope_diff_side_t *s) {
    opscope_sink k = {s, side_meta, side_backend, side_record, side_end};
    return k;
}

/* ---------------------------------------------------------------------------------------- */
/* Finish: the Kineto attribution (diff_attrib.c), the final groups (diff_label.c).         */

/* A fused name lists ggml ops: "RMS_NORM+MUL" (not a note such as "81 nodes, ..."). */
static bool op_list(const char *x) {
    bool plus = false;
    for (const char *p = x; *p; p++) {
        if (*p == '+') plus = true;
        else if (!((*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_')) return false;
    }
    return plus;
}

/* The CPU-op phase as the diff's phase key (none, forward, backward, optimizer; data loading
 * has no kernel phase of its own and is named apart). */
static uint32_t cpu_phase_key(int p) {
    switch (p) {
    case OPSCOPE_CPU_PHASE_FORWARD: return OPSCOPE_KINETO_PHASE_FORWARD;
    case OPSCOPE_CPU_PHASE_BACKWARD: return OPSCOPE_KINETO_PHASE_BACKWARD;
    case OPSCOPE_CPU_PHASE_OPTIMIZER: return OPSCOPE_KINETO_PHASE_OPTIMIZER;
    case OPSCOPE_CPU_PHASE_DATA: return PHASE_DATA;
    default: return OPSCOPE_KINETO_PHASE_NONE;
    }
}

/* A trace without GPU activity: its CPU-op records (analyze/kineto/cpu_ops.h) are the side's records,
 * each with its self time (so the side's total counts every instant of a thread once), on
 * one backend "CPU", grouped as kernels are: by the op and its input dims (work pairs), by
 * name, category (cpu_op, user_annotation...), CPU op, phase. The noise model is the same:
 * per-call durations of each atom. Returns 0, or -1 when out of memory. */
static int add_cpu_records(opscope_diff_side_t *s) {
    const opscope_cpu_ops_t *c = opscope_kineto_cpu_ops(s->kin);
    const opscope_cpu_ops_results *r = opscope_cpu_ops_results_get(c);
    if (!r->n_recs || opscope_kineto_n_gpu(s->kin)) return 0;
    const opscope_strtab_t *names = opscope_kineto_names(s->kin);
    opscope_backend b = {0, "CPU", "CPU", OPSCOPE_DEVICE_CPU, NULL};
    if (side_backend(s, &b)) return -1;
    work_cache wc = {NONE32, NONE32, NONE32};
    bool defer = s->defer;
    s->defer = false;
    s->feed = true;
    int rc = 0;
    opscope_record rec;
    for (size_t i = 0; i < r->n_recs && !rc; i++) {
        const opscope_cpu_op_rec *x = &r->recs[i];
        const char *label = opscope_cpu_ops_label(c, x->name);
        opscope_record_init(&rec);
        rec.type = OPSCOPE_RECORD_OP;
        rec.name = label;
        rec.category = opscope_cpu_kind_name(x->kind);
        rec.backend_id = 0;
        rec.start_ns = (uint64_t)x->start_ns;
        rec.duration_ns = x->self_ns;
        s->feed_cpu = opscope_diff_side_intern(s, label, strlen(label));
        s->feed_work =
            s->feed_cpu != NONE32 ? opscope_diff_work_label(s, &wc, s->feed_cpu, x->dims, names) : NONE32;
        s->feed_phase = cpu_phase_key(x->phase);
        rc = s->feed_work == NONE32 || side_record(s, &rec) ? -1 : 0;
    }
    s->feed = false;
    s->defer = defer;
    return rc;
}

int opscope_diff_side_finish(opscope_diff_side_t *s, bool merge_backends) {
    if (s->finished) return 0;
    if (s->pend_valid && pending_resolve(s)) return -1;
    if (s->kin) {
        s->totals.iterations = opscope_kineto_get_results(s->kin)->n_iterations;
        if (opscope_kineto_n_gpu(s->kin) && opscope_diff_attrib_kineto(s)) return -1;
        if (add_cpu_records(s)) return -1;
        s->attributed = s->defer && opscope_kineto_n_gpu(s->kin);
    }
    opscope_diff_totals *t = &s->totals;
    t->total_ns = t->op_ns + t->copy_ns;
    t->wall_ns = t->n_records ? t->last_end_ns - t->first_start_ns : 0;
    if (t->inputs > 1 && t->inputs <= MAX_INPUTS) { /* runs of other processes: their spans */
        t->wall_ns = 0;
        for (size_t r = 0; r < t->inputs; r++) t->wall_ns += s->run_wall[r];
    }
    for (size_t i = 0; i <= MAX_GSTRATA; i++) {
        const opscope_moments *m = &s->gstrata[i].m;
        if (m->n < 2) continue;
        double v = (double)m->n * opscope_moments_var(m);
        t->graph_var += v;
        t->graph_df_den += v * v / (double)(m->n - 1);
        t->graph_samples += m->n;
    }

    /* fused names */
    s->fused = calloc(s->n_ops ? s->n_ops : 1, sizeof *s->fused);
    if (!s->fused) return -1;
    for (size_t i = 0; i < s->n_ops; i++) {
        const dop *o = &s->ops[i];
        if (o->type != OPSCOPE_RECORD_OP || !o->extra || o->n_fused < 2 || !op_list(o->extra))
            continue;
        opscope_diff_fused *f = NULL;
        for (size_t j = 0; j < s->n_fused && !f; j++)
            if (s->fused[j].pattern == o->extra) f = &s->fused[j];
        if (!f) {
            f = &s->fused[s->n_fused++];
            f->pattern = o->extra;
        }
        f->count += o->count;
        f->total_ns += o->total_ns;
        if (o->n_fused > f->n_fused) f->n_fused = o->n_fused;
    }

    s->merge_backends = merge_backends;
    if (opscope_diff_finals_build(s)) return -1;
    s->finished = true;
    return 0;
}

const opscope_diff_totals *opscope_diff_side_totals(const opscope_diff_side_t *s) {
    return &s->totals;
}

bool opscope_diff_side_run(const opscope_diff_side_t *s, size_t r, opscope_diff_run *out) {
    if (r >= s->totals.inputs || r >= MAX_INPUTS) return false;
    out->graphs = s->run_graphs[r] - (r ? s->run_graphs[r - 1] : 0);
    out->tokens = s->run_tokens[r] - (r ? s->run_tokens[r - 1] : 0);
    out->total_ns = s->run_total[r] - (r ? s->run_total[r - 1] : 0);
    out->wall_ns = s->run_wall[r];
    return true;
}
size_t opscope_diff_side_n_groups(const opscope_diff_side_t *s) { return s->n_final; }
const opscope_diff_group *opscope_diff_side_group(const opscope_diff_side_t *s, size_t i) {
    return i < s->n_final ? &s->final[i] : NULL;
}
size_t opscope_diff_side_n_fused(const opscope_diff_side_t *s) { return s->n_fused; }
const opscope_diff_fused *opscope_diff_side_fused(const opscope_diff_side_t *s, size_t i) {
    return i < s->n_fused ? &s->fused[i] : NULL;
}
size_t opscope_diff_side_n_cpu_ops(const opscope_diff_side_t *s) { return s->n_cpu_ops; }

size_t opscope_diff_side_group_kernels(const opscope_diff_side_t *s, size_t gi,
                                       const opscope_diff_kernel **out) {
    *out = NULL;
    if (!s->kernel_at || gi >= s->n_final) return 0;
    *out = s->kernels + s->kernel_at[gi];
    return s->kernel_at[gi + 1] - s->kernel_at[gi];
}
const opscope_diff_cpu_op *opscope_diff_side_cpu_op(const opscope_diff_side_t *s, size_t i) {
    return i < s->n_cpu_ops ? &s->cpu_ops[i] : NULL;
}

uint64_t opscope_diff_side_runs(const opscope_diff_side_t *s, const char *const *names, size_t n,
                                uint64_t *total_ns) {
    if (total_ns) *total_ns = 0;
    if (n < 2 || n > MAX_RUN) return 0;
    uint32_t ids[MAX_RUN];
    for (size_t i = 0; i < n; i++) {
        /* a name never interned was never seen: no run */
        uint32_t id;
        const char *p = opscope_strtab_intern(s->strings, names[i], strlen(names[i]), &id);
        if (!p) return 0;
        ids[i] = id;
    }
    long r = run_find(s, ids, (uint32_t)n, run_hash(ids, (uint32_t)n));
    if (r < 0) return 0;
    if (total_ns) *total_ns = s->runs[r].total_ns;
    return s->runs[r].count;
}
