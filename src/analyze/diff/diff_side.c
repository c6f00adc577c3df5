/*
 * diff_side.c - one input of `opscope diff`: a sink that aggregates records by the diff's key
 * (see diff.h). Per record: the op identity (name, sub-op, fused name or copy call, category,
 * type) found by hashing the name in place, the group of the key found in a second table,
 * and for ggml profiles the graph's token count and phase, the layer from the tensor name and
 * runs of consecutive records (for fusion differences). Nothing per record is kept, except a
 * 4-byte key per GPU activity of a Kineto trace when the key needs the trace analysis.
 */
#include "analyze/diff/diff.h"
#include "analyze/diff/diff_cpu_kernels.h"
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
#include "util/sort.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE32 UINT32_MAX
#define CPU_FROM_OP (UINT32_MAX - 1) /* ggml records: the node's op stands for the CPU op */
#define PHASE_UNKNOWN 255             /* the graph's first MUL_MAT has not come yet */
#define PHASE_DATA 254                /* CPU-op records: data loading (no kernel phase) */
#define MAX_RUN 8
#define MAX_RUNS 65536
#define MAX_PENDING 65536
#define MAX_SHAPES 65536
#define GRAPH_RING 64
#define MAX_ATOMS 262144               /* groups of op, backend, shape and key parts */
#define SHAPE_OTHER (UINT32_MAX - 2)   /* shapes past MAX_SHAPES, or past MAX_ATOMS */
#define MAX_LANES 64
#define MAX_INPUTS 256                 /* runs (input files) per side with per-run totals */
#define MAX_GSTRATA 64                 /* graph sizes (tokens) with their own per-graph stratum */
#define NO_GRAPH INT64_MIN

/* ---------------------------------------------------------------------------------------- */

/* An op identity: what `--by op` groups (before the backend). */
typedef struct dop {
    const char *name, *sub, *extra, *cat;
    uint32_t name_len, name_id, sub_id, extra_id, in_cat_id, cat_id; /* ids + 1; 0 = none */
    opscope_record_type type;
    bool cat_per_record; /* FLASH_ATTN_EXT without an input category: prefill or decode */
    bool is_mul_mat, is_flash;
    int32_t n_fused;
    uint64_t count, total_ns;
} dop;

/* A group of the key. Unused parts hold NONE32 / INT32_MIN so that the struct compares as
 * bytes (it is zeroed before being filled). */
typedef struct dkey {
    uint32_t op, shape, cat, cpu, layer, phase;
    int32_t backend;
    uint32_t work; /* traces, --by op: what launched the work (CPU op and input dims) id + 1 */
} dkey;

typedef struct dgroup {
    dkey key;
    uint64_t count, total_ns, min_ns, max_ns, calls;
    opscope_moments m;
    /* the atom's time per graph compute: the sum of the current graph, then its moments */
    int64_t g_cur;
    uint64_t g_sum;
    opscope_moments gm;
    /* sampled device timing: computes timed, the computes they stand for, sum of d x weight
     * (d alone for records without one), and the compute counted last */
    uint64_t timed, sampled, est_ns;
    int64_t w_graph;
    int32_t w_split;
} dgroup;

/* What a record adds besides its duration: its split and sampling weight (0: none). */
typedef struct wsample {
    int32_t split;
    uint32_t weight;
} wsample;

typedef struct pend {
    dkey key;
    uint64_t dur;
    wsample ws;
} pend;

/* Per-graph totals of graphs of one size (tokens): the spread of a whole graph's time. */
typedef struct gstratum {
    uint64_t tokens;
    opscope_moments m;
} gstratum;

typedef struct run_ent {
    uint32_t n;
    uint32_t ids[MAX_RUN];
    uint64_t count, total_ns;
} run_ent;

typedef struct lane {
    int32_t backend, split, thread;
    int64_t graph;
    uint32_t n;
    uint32_t ids[MAX_RUN];
    uint64_t dur[MAX_RUN];
} lane;

typedef struct ring_ent {
    int64_t id;
    uint8_t phase;
    uint8_t used;
    uint64_t tokens; /* 0: not known */
    uint64_t sum;    /* the graph's time so far */
} ring_ent;

typedef struct bname {
    int32_t id;
    const char *name;
} bname;

/* A set of keys with dense indexes. */
typedef struct keyset {
    dkey *v;
    size_t n, cap;
    opscope_hindex ix;
} keyset;

struct opscope_diff_side {
    unsigned keys;
    opscope_strtab_t *strings;
    const opscope_kineto_t *kin;
    /* op identities */
    dop *ops;
    size_t n_ops, cap_ops;
    opscope_hindex op_ix;
    uint32_t flash_cat_prefill, flash_cat_decode; /* category ids + 1 of FLASH_ATTN_EXT */
    /* shapes (--by shape) */
    opscope_shape *shapes;
    size_t n_shapes, cap_shapes;
    opscope_hindex shape_ix;
    /* groups */
    dgroup *groups;
    size_t n_groups, cap_groups;
    opscope_hindex group_ix;
    /* backends */
    bname *described;
    size_t n_described, cap_described;
    int32_t *seen_backends;
    size_t n_seen_backends, cap_seen_backends;
    int32_t last_backend;
    /* graphs */
    bool g_valid, g_new;
    int64_t g_id;
    ring_ent *g_ent;
    uint8_t g_phase;
    uint32_t g_layer;
    ring_ent ring[GRAPH_RING];
    size_t ring_pos;
    pend *pending;
    size_t n_pending, cap_pending;
    /* runs of consecutive records */
    lane lanes[MAX_LANES];
    size_t n_lanes;
    run_ent *runs;
    size_t n_runs, cap_runs;
    opscope_hindex run_ix;
    /* Kineto: the record waiting to learn whether it was a GPU activity */
    bool defer;
    bool pend_valid;
    dkey pend_key;
    uint64_t pend_dur;
    size_t pend_n;
    struct keyset partials;
    uint32_t *gpu_partial; /* per GPU activity (by seq): index into partials */
    size_t n_gpu_partial, cap_gpu_partial;
    /* per-graph totals, by graph size */
    gstratum gstrata[MAX_GSTRATA + 1]; /* the last one: every other size */
    size_t n_gstrata;
    /* runs: each input file read into this side; per run the atoms' cumulative totals */
    uint64_t *run_snap[MAX_INPUTS];
    size_t run_snap_n[MAX_INPUTS];
    uint64_t run_graphs[MAX_INPUTS], run_tokens[MAX_INPUTS], run_wall[MAX_INPUTS];
    uint64_t run_total[MAX_INPUTS];
    uint64_t run_first, run_last, run_records;
    /* results */
    opscope_diff_totals totals;
    uint64_t *final_runs; /* n_final x totals.inputs per-run totals */
    bool finished;
    opscope_diff_group *final;
    size_t n_final;
    opscope_diff_fused *fused;
    size_t n_fused;
    opscope_diff_cpu_op *cpu_ops;
    size_t n_cpu_ops;
    opscope_diff_kernel *cpu_kern; /* the kernels of every CPU op, by op */
    opscope_diff_kernel *kernels; /* work pairs: the kernels of each group, by group */
    size_t n_kernels;
    size_t *kernel_at;            /* per final group: its first entry in kernels (n_final + 1) */
    bool merge_backends;
    bool failed, attributed;
    /* a CPU-only trace's CPU-op record being added (add_cpu_records): its key parts */
    bool feed;
    uint32_t feed_cpu, feed_work, feed_phase;
};

/* ---------------------------------------------------------------------------------------- */

/* An index of 256 slots to start (util/hindex.h). */
static int ix_init(opscope_hindex *h) { return opscope_hindex_init(h, 192); }

opscope_diff_side_t *opscope_diff_side_new(unsigned keys) {
    opscope_diff_side_t *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->keys = keys ? keys : OPSCOPE_DIFF_KEY_OP;
    s->strings = opscope_strtab_new();
    s->last_backend = INT32_MIN;
    s->totals.profiler = "";
    if (!s->strings || ix_init(&s->op_ix) || ix_init(&s->shape_ix) || ix_init(&s->group_ix) ||
        ix_init(&s->run_ix) || ix_init(&s->partials.ix)) {
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

/* Traces grouped by op pair their GPU work by what launched it, not by kernel names; by
 * shape too, on the launching call's input dims, exactly (no fallback to the CPU op). */
static bool work_pairs(const opscope_diff_side_t *s) {
    return (s->keys & (OPSCOPE_DIFF_KEY_OP | OPSCOPE_DIFF_KEY_SHAPE)) && !(s->keys & OPSCOPE_DIFF_KEY_KERNEL);
}

void opscope_diff_side_set_kineto(opscope_diff_side_t *s, const opscope_kineto_t *k) {
    s->kin = k;
    s->defer = k && (work_pairs(s) || (s->keys & (OPSCOPE_DIFF_KEY_CPU_OP | OPSCOPE_DIFF_KEY_LAYER |
                                                  OPSCOPE_DIFF_KEY_PHASE)));
}

const opscope_kineto_t *opscope_diff_side_kineto(const opscope_diff_side_t *s) { return s->kin; }

static uint32_t intern_id(opscope_diff_side_t *s, const char *str, size_t len) {
    uint32_t id;
    if (!opscope_strtab_intern(s->strings, str, len, &id)) return NONE32;
    return id;
}

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
        if ((id = intern_id(s, sub, strlen(sub))) == NONE32) return -1;
        sub_id = id + 1;
    }
    const char *extra = opscope_derived_fused(&d); /* Vulkan's "RMS_NORM_MUL" is "RMS_NORM+MUL" */
    if (extra) {
        if ((id = intern_id(s, extra, strlen(extra))) == NONE32) return -1;
        extra_id = id + 1;
    }
    if (rec->category) {
        if ((id = intern_id(s, rec->category, strlen(rec->category))) == NONE32) return -1;
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
    if ((id = intern_id(s, cat, strlen(cat))) == NONE32) return -1;
    o->cat_id = id + 1;
    o->cat = opscope_strtab_get(s->strings, id);
    if (opscope_hindex_add(&s->op_ix, h, (uint32_t)s->n_ops)) return -1;
    return (long)s->n_ops++;
}

/* ---------------------------------------------------------------------------------------- */
/* Shapes: the sources' dims and types (as report --by-shape).                              */

static int rec_n_src(const opscope_record *r) {
    return r->n_src < 0 ? 0 : r->n_src > OPSCOPE_MAX_SRC ? OPSCOPE_MAX_SRC : r->n_src;
}

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
    int n = rec_n_src(r);
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

/* One multiply per word and one final mix: this runs for every record. */
static uint64_t key_hash(const dkey *k) {
    uint64_t h = opscope_hash_word(OPSCOPE_FNV_BASIS, (uint64_t)k->op << 32 | k->shape);
    h = opscope_hash_word(h, (uint64_t)k->cat << 32 | k->cpu);
    h = opscope_hash_word(h, (uint64_t)k->layer << 32 | k->phase);
    return opscope_mix64(h ^ ((uint64_t)k->work << 32 | (uint32_t)k->backend));
}

static bool key_eq(const dkey *a, const dkey *b) {
    return a->op == b->op && a->shape == b->shape && a->backend == b->backend &&
           a->cat == b->cat && a->cpu == b->cpu && a->layer == b->layer && a->phase == b->phase &&
           a->work == b->work;
}

static bool group_eq(const void *ctx, uint32_t i, const void *key) {
    return key_eq(&((const opscope_diff_side_t *)ctx)->groups[i].key, key);
}

static long group_find(opscope_diff_side_t *s, const dkey *k) {
    uint64_t h = key_hash(k);
    uint32_t found = opscope_hindex_find(&s->group_ix, h, k, group_eq, s);
    if (found != OPSCOPE_HINDEX_NONE) return (long)found;
    if (s->n_groups >= OPSCOPE_HINDEX_NONE ||
        opscope_vec_reserve((void **)&s->groups, &s->cap_groups, s->n_groups + 1, sizeof *s->groups, 64) ||
        opscope_hindex_add(&s->group_ix, h, (uint32_t)s->n_groups))
        return -1;
    dgroup *g = &s->groups[s->n_groups];
    memset(g, 0, sizeof *g);
    g->key = *k;
    g->g_cur = NO_GRAPH;
    return (long)s->n_groups++;
}

/* The atom's per-graph sum of GRAPH ends: one sample of its time per graph compute. */
static void group_graph_flush(dgroup *g) {
    if (g->g_cur == NO_GRAPH) return;
    opscope_moments_add(&g->gm, g->g_sum);
    g->g_cur = NO_GRAPH;
    g->g_sum = 0;
}

static void group_acc(dgroup *g, uint64_t d) {
    if (!g->count || d < g->min_ns) g->min_ns = d;
    if (d > g->max_ns) g->max_ns = d;
    g->count++;
    g->total_ns += d;
    opscope_moments_add(&g->m, d);
}

/* Sampling: a record stands for WS.weight computes (1 when it has no weight). Computes are
 * counted per group (a compute's records of one group come together), the timed ones for
 * weighted records only; est_ns and sampled mean something once one of those is in. */
static void group_weight(dgroup *g, uint64_t d, int64_t graph, wsample ws) {
    uint32_t w = ws.weight ? ws.weight : 1;
    g->est_ns += d * w;
    if (g->count == 1 || g->w_graph != graph || g->w_split != ws.split) {
        g->timed += ws.weight != 0;
        g->sampled += w;
        g->w_graph = graph;
        g->w_split = ws.split;
    }
}

/* Adds a record's duration: each record is one call of its group, in graph compute GRAPH
 * (NO_GRAPH: none). */
static int add(opscope_diff_side_t *s, const dkey *k, uint64_t d, int64_t graph, wsample ws) {
    long gi = group_find(s, k);
    if (gi < 0) return -1;
    dgroup *g = &s->groups[gi];
    group_acc(g, d);
    group_weight(g, d, graph, ws);
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
        if (add(s, &s->pending[i].key, s->pending[i].dur, s->g_id, s->pending[i].ws)) return -1;
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

static bool keyset_eq(const void *ctx, uint32_t i, const void *key) {
    return key_eq(&((const keyset *)ctx)->v[i], key);
}

static long keyset_find(keyset *ks, const dkey *k) {
    uint64_t h = key_hash(k);
    uint32_t found = opscope_hindex_find(&ks->ix, h, k, keyset_eq, ks);
    if (found != OPSCOPE_HINDEX_NONE) return (long)found;
    if (ks->n >= OPSCOPE_HINDEX_NONE ||
        opscope_vec_reserve((void **)&ks->v, &ks->cap, ks->n + 1, sizeof *ks->v, 64) ||
        opscope_hindex_add(&ks->ix, h, (uint32_t)ks->n))
        return -1;
    ks->v[ks->n] = *k;
    return (long)ks->n++;
}

static long partial_find(opscope_diff_side_t *s, const dkey *k) { return keyset_find(&s->partials, k); }

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
    return add(s, &k, s->pend_dur, NO_GRAPH, (wsample){0, 0});
}

/* ---------------------------------------------------------------------------------------- */
/* The sink.                                                                                  */

static int side_meta(void *ud, const opscope_meta *m) {
    opscope_diff_side_t *s = ud;
    const char *p = opscope_strtab_intern(s->strings, m->profiler ? m->profiler : "",
                                          m->profiler ? strlen(m->profiler) : 0, NULL);
    if (!p) return -1;
    s->totals.profiler = p;
    s->totals.version = m->version;
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

    wsample ws = {rec->split_id, (rec->has & OPSCOPE_HAS_WEIGHT) ? (rec->weight ? rec->weight : 1) : 0};
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
            uint32_t id = intern_id(s, c, strlen(c));
            if (id == NONE32) return -1;
            k.cat = id + 1;
        }
    }
    if (s->feed) { /* a CPU-op record (add_cpu_records): it is its own CPU op */
        if (keys & OPSCOPE_DIFF_KEY_CPU_OP) k.cpu = s->feed_cpu;
        if (keys & OPSCOPE_DIFF_KEY_PHASE) k.phase = s->feed_phase;
        if (work_pairs(s)) k.work = s->feed_work + 1;
        return add(s, &k, d, NO_GRAPH, ws);
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
    return add(s, &k, d, graph ? rec->graph_id : NO_GRAPH, ws);
}

/* The end of one input: its graphs end (their per-graph samples are taken) and its totals
 * are kept as one run of this side; graph ids of a next input are its own. */
static int side_end(void *ud) {
    opscope_diff_side_t *s = ud;
    if (s->pend_valid && pending_resolve(s)) return -1;
    if (graph_leave(s)) return -1;
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
/* Finish: Kineto attribution, then groups with their strings, merged by canonical key.      */

static const char *backend_name(opscope_diff_side_t *s, int32_t id) {
    for (size_t i = 0; i < s->n_described; i++)
        if (s->described[i].id == id && s->described[i].name[0]) return s->described[i].name;
    char b[32];
    snprintf(b, sizeof b, "backend %d", (int)id);
    return opscope_strtab_intern(s->strings, b, strlen(b), NULL);
}

size_t opscope_diff_side_n_backend_names(const opscope_diff_side_t *s) {
    return s->n_seen_backends;
}

const char *opscope_diff_side_backend_name(const opscope_diff_side_t *s, size_t i) {
    if (i >= s->n_seen_backends) return NULL;
    return backend_name((opscope_diff_side_t *)s, s->seen_backends[i]);
}

/* A set of 64-bit values (distinct CPU op calls). */
typedef struct u64set {
    OPSCOPE_VEC(uint64_t) v;
    opscope_hindex ix;
} u64set;

/* Grown as values come: distinct calls are often far fewer than activities. */
static int u64set_init(u64set *x) {
    memset(x, 0, sizeof *x);
    return ix_init(&x->ix);
}

static void u64set_free(u64set *x) {
    free(x->v.v);
    opscope_hindex_free(&x->ix);
}

static bool u64_eq(const void *ctx, uint32_t i, const void *key) {
    return ((const u64set *)ctx)->v.v[i] == *(const uint64_t *)key;
}

/* Adds V; returns 1 when new, 0 when present, -1 when out of memory. */
static int u64set_add(u64set *x, uint64_t v) {
    uint64_t h = opscope_mix64(v);
    if (opscope_hindex_find(&x->ix, h, &v, u64_eq, x) != OPSCOPE_HINDEX_NONE) return 0;
    if (x->v.n >= OPSCOPE_HINDEX_NONE || OPSCOPE_VEC_PUSH(x->v, v)) return -1;
    if (opscope_hindex_add(&x->ix, h, (uint32_t)(x->v.n - 1))) {
        x->v.n--;
        return -1;
    }
    return 1;
}

/* The last (CPU op, input dims) pair and its label id: calls of one op come in runs. */
typedef struct work_cache {
    uint32_t cpu, dims, id;
} work_cache;

/* The work label "aten::mm [4096,768]x[768,50257]" (the CPU op alone without dims), in our
 * strings. NONE32 when out of memory. */
static uint32_t work_id(opscope_diff_side_t *s, work_cache *c, uint32_t cpu_sid, uint32_t dims,
                        const opscope_strtab_t *names) {
    if (c->id != NONE32 && c->cpu == cpu_sid && c->dims == dims) return c->id;
    const char *op = opscope_strtab_get(s->strings, cpu_sid);
    const char *d = dims != NONE32 ? opscope_strtab_get(names, dims) : NULL;
    uint32_t id;
    if (!d || !*d) {
        id = cpu_sid;
    } else {
        size_t n = strlen(op), m = strlen(d);
        char *buf = malloc(n + m + 2);
        if (!buf) return NONE32;
        memcpy(buf, op, n);
        buf[n] = ' ';
        memcpy(buf + n + 1, d, m + 1);
        id = intern_id(s, buf, n + m + 1);
        free(buf);
    }
    *c = (work_cache){cpu_sid, dims, id};
    return id;
}

/* Hands each of the N CPU ops of CPU its kernels by name from the tally CK (names from the
 * trace's table NAMES, interned in the side's strings). Returns 0 or -1. */
static int cpu_kernels(opscope_diff_side_t *s, opscope_diff_cpu_op *cpu, size_t n,
                       opscope_diff_cpuk *ck, const opscope_strtab_t *names) {
    opscope_diff_cpuk_sort(ck);
    s->cpu_kern = malloc((ck->n ? ck->n : 1) * sizeof *s->cpu_kern);
    if (!s->cpu_kern) return -1;
    for (size_t i = 0; i < ck->n; i++) {
        const opscope_diff_cpuk_ent *e = &ck->v[i];
        const char *nm = opscope_strtab_get(names, e->name);
        uint32_t id = intern_id(s, nm, strlen(nm));
        if (id == NONE32 || e->op >= n) return -1;
        s->cpu_kern[i] = (opscope_diff_kernel){opscope_strtab_get(s->strings, id), OPSCOPE_RECORD_OP,
                                               e->count, e->total_ns, e->cat};
        if (!cpu[e->op].n_kern) cpu[e->op].kern = &s->cpu_kern[i];
        cpu[e->op].n_kern++;
    }
    return 0;
}

static int attribute_kineto(opscope_diff_side_t *s) {
    const opscope_kineto_t *k = s->kin;
    size_t ng = opscope_kineto_n_gpu(k);
    const opscope_strtab_t *names = opscope_kineto_names(k);
    uint32_t nn = opscope_strtab_count(names);
    int rc = -1;
    uint32_t *sid = malloc((nn ? nn : 1) * sizeof *sid); /* collector name id -> ours */
    u64set calls, op_calls;
    keyset reduced = {0};
    work_cache wc = {NONE32, NONE32, NONE32};
    opscope_diff_cpuk ck = {0};
    int rc_calls = u64set_init(&calls), rc_op_calls = u64set_init(&op_calls);
    if (!sid || rc_calls || rc_op_calls || ix_init(&reduced.ix))
        goto done;
    for (uint32_t i = 0; i < nn; i++) sid[i] = NONE32;
    /* CPU op summary (fusion differences): kernels, distinct calls, time per CPU op */
    opscope_diff_cpu_op *cpu = NULL;
    size_t n_cpu = 0, cap_cpu = 0;
    uint32_t *cpu_slot = malloc((nn ? nn : 1) * sizeof *cpu_slot);
    if (!cpu_slot) goto done;
    for (uint32_t i = 0; i < nn; i++) cpu_slot[i] = NONE32;
    for (size_t i = 0; i < ng; i++) {
        opscope_kineto_gpu_info g;
        opscope_kineto_gpu_get(k, i, &g);
        uint32_t cpu_sid = NONE32;
        if (g.cpu_op != NONE32 && g.cpu_op < nn) {
            if (sid[g.cpu_op] == NONE32) {
                const char *nm = opscope_strtab_get(names, g.cpu_op);
                sid[g.cpu_op] = intern_id(s, nm, strlen(nm));
                if (sid[g.cpu_op] == NONE32) goto fail_cpu;
            }
            cpu_sid = sid[g.cpu_op];
            if (g.kind == OPSCOPE_KINETO_KERNEL) {
                if (cpu_slot[g.cpu_op] == NONE32) {
                    if (opscope_vec_reserve((void **)&cpu, &cap_cpu, n_cpu + 1, sizeof *cpu, 64)) goto fail_cpu;
                    cpu[n_cpu] = (opscope_diff_cpu_op){opscope_strtab_get(s->strings, cpu_sid), 0, 0, 0, NULL, 0};
                    cpu_slot[g.cpu_op] = (uint32_t)n_cpu++;
                }
                opscope_diff_cpu_op *c = &cpu[cpu_slot[g.cpu_op]];
                c->kernels++;
                c->total_ns += (uint64_t)g.dur_ns;
                if (opscope_diff_cpuk_add(&ck, cpu_slot[g.cpu_op], g.name_id, (int)g.kcat, (uint64_t)g.dur_ns))
                    goto fail_cpu;
                int nc = g.cpu_call ? u64set_add(&op_calls, (uint64_t)g.cpu_op << 32 | g.cpu_call) : 0;
                if (nc < 0) goto fail_cpu;
                c->calls += (uint64_t)nc;
            }
        }
        if (!s->defer || g.seq >= s->n_gpu_partial || s->gpu_partial[g.seq] == NONE32) continue;
        dkey key = s->partials.v[s->gpu_partial[g.seq]];
        if (s->keys & OPSCOPE_DIFF_KEY_CPU_OP) key.cpu = cpu_sid;
        if (work_pairs(s) && cpu_sid != NONE32) {
            uint32_t w = work_id(s, &wc, cpu_sid, g.cpu_dims, names);
            if (w == NONE32) goto fail_cpu;
            key.work = w + 1;
        }
        if (s->keys & OPSCOPE_DIFF_KEY_LAYER) key.layer = g.layer;
        if (s->keys & OPSCOPE_DIFF_KEY_PHASE) key.phase = (uint32_t)g.phase;
        long gi = group_find(s, &key);
        if (gi < 0) goto fail_cpu;
        dgroup *dg = &s->groups[gi];
        group_acc(dg, (uint64_t)g.dur_ns);
        /* distinct CPU op calls per group of the key (not per atom: a call that launched two
         * kernels is one call); activities without a call count one each */
        bool new_call = true;
        if ((s->keys & OPSCOPE_DIFF_KEY_CPU_OP) && g.cpu_call) {
            dkey rk = key;
            if (!(s->keys & (OPSCOPE_DIFF_KEY_OP | OPSCOPE_DIFF_KEY_KERNEL | OPSCOPE_DIFF_KEY_SHAPE))) {
                rk.op = NONE32;
                rk.backend = INT32_MIN;
            }
            long ri = keyset_find(&reduced, &rk);
            if (ri < 0) goto fail_cpu;
            int nc = u64set_add(&calls, (uint64_t)ri << 32 | g.cpu_call);
            if (nc < 0) goto fail_cpu;
            new_call = nc;
        }
        if (new_call) dg->calls++;
    }
    if (cpu_kernels(s, cpu, n_cpu, &ck, names)) goto fail_cpu;
    s->cpu_ops = cpu;
    s->n_cpu_ops = n_cpu;
    cpu = NULL;
    rc = 0;
fail_cpu:
    opscope_diff_cpuk_free(&ck);
    free(cpu);
    free(cpu_slot);
done:
    free(sid);
    u64set_free(&calls);
    u64set_free(&op_calls);
    free(reduced.v);
    opscope_hindex_free(&reduced.ix);
    return rc;
}

/* Adds atom G's noise to group F: the variance of its total is estimated from its per-call
 * durations and from its per-graph sums (calls of one graph are not independent: a slow
 * graph slows them all), the larger of the two counting; n_tested: the samples it rests on.
 * A single call (the prompt's one GET_ROWS, often the first touch of its table: 0.3 to
 * 1 ms between identical runs against 3 us warm) has no spread to measure; it counts as
 * uncertain as its own size (standard deviation = its duration, one degree of freedom)
 * rather than as exact, which made identical runs fail the regression check. */
static void atom_noise(opscope_diff_group *f, const dgroup *g) {
    if (g->m.n == 1) {
        double x = (double)g->m.shift, v = x * x;
        f->var_total += v;
        f->df_den += v * v;
        f->n_tested += 1;
        return;
    }
    double vc = g->m.n >= 2 ? (double)g->m.n * opscope_moments_var(&g->m) : -1;
    double vg = g->gm.n >= 2 ? (double)g->gm.n * opscope_moments_var(&g->gm) : -1;
    if (vc < 0 && vg < 0) return;
    bool graphs = vg >= vc;
    double v = graphs ? vg : vc;
    uint64_t n = graphs ? g->gm.n : g->m.n;
    f->var_total += v;
    f->df_den += v * v / (double)(n - 1);
    f->n_tested += n;
    if (graphs) f->n_graph_tested += n;
}

typedef struct sbuf {
    char *p;
    size_t n, cap;
    bool failed;
} sbuf;

static void sb_put(sbuf *b, const char *str, size_t len) {
    if (b->failed) return;
    if (opscope_vec_reserve((void **)&b->p, &b->cap, b->n + len + 1, 1, 64)) {
        b->failed = true;
        return;
    }
    memcpy(b->p + b->n, str, len);
    b->n += len;
    b->p[b->n] = '\0';
}
static void sb_str(sbuf *b, const char *str) { sb_put(b, str, strlen(str)); }

static const char *phase_text(uint32_t p) {
    switch (p) {
    case OPSCOPE_KINETO_PHASE_PREFILL: return "prefill";
    case OPSCOPE_KINETO_PHASE_DECODE: return "decode";
    case OPSCOPE_KINETO_PHASE_MIXED: return "mixed";
    case OPSCOPE_KINETO_PHASE_FORWARD: return "forward";
    case OPSCOPE_KINETO_PHASE_BACKWARD: return "backward";
    case OPSCOPE_KINETO_PHASE_OPTIMIZER: return "optimizer";
    case PHASE_DATA: return "data_loading";
    default: return "none";
    }
}

/* A fused name lists ggml ops: "RMS_NORM+MUL" (not a note such as "81 nodes, ..."). */
static bool op_list(const char *x) {
    bool plus = false;
    for (const char *p = x; *p; p++) {
        if (*p == '+') plus = true;
        else if (!((*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_')) return false;
    }
    return plus;
}

/* One atom's share of a final group: its kernel (op identity) and time. */
typedef struct katom {
    size_t group;
    uint32_t op;
    uint64_t count, total_ns;
} katom;

static int katom_cmp(const void *pa, const void *pb) {
    const katom *a = pa, *b = pb;
    if (a->group != b->group) return a->group < b->group ? -1 : 1;
    if (a->op != b->op) return a->op < b->op ? -1 : 1;
    return 0;
}

static int katom_time_cmp(const void *pa, const void *pb) {
    const katom *a = pa, *b = pb;
    if (a->group != b->group) return a->group < b->group ? -1 : 1;
    if (a->total_ns != b->total_ns) return a->total_ns > b->total_ns ? -1 : 1;
    return a->op < b->op ? -1 : a->op > b->op;
}

/* Work pairs: each group's kernels (atoms of one op identity summed), longest first. */
static int group_kernels(opscope_diff_side_t *s, katom *a, size_t n) {
    opscope_sort(a, n, sizeof *a, katom_cmp);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (m && a[m - 1].group == a[i].group && a[m - 1].op == a[i].op) {
            a[m - 1].count += a[i].count;
            a[m - 1].total_ns += a[i].total_ns;
        } else {
            a[m++] = a[i];
        }
    }
    opscope_sort(a, m, sizeof *a, katom_time_cmp);
    s->kernels = malloc((m ? m : 1) * sizeof *s->kernels);
    s->kernel_at = calloc(s->n_final + 1, sizeof *s->kernel_at);
    if (!s->kernels || !s->kernel_at) return -1;
    for (size_t i = 0; i < m; i++) {
        const dop *o = &s->ops[a[i].op];
        s->kernels[i] = (opscope_diff_kernel){o->name, o->type, a[i].count, a[i].total_ns, -1};
        s->kernel_at[a[i].group + 1]++;
    }
    for (size_t g = 0; g < s->n_final; g++) s->kernel_at[g + 1] += s->kernel_at[g];
    s->n_kernels = m;
    return 0;
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
        s->feed_cpu = intern_id(s, label, strlen(label));
        s->feed_work = s->feed_cpu != NONE32 ? work_id(s, &wc, s->feed_cpu, x->dims, names) : NONE32;
        s->feed_phase = cpu_phase_key(x->phase);
        rc = s->feed_work == NONE32 || side_record(s, &rec) ? -1 : 0;
    }
    s->feed = false;
    s->defer = defer;
    return rc;
}

typedef struct fine_set fine_set;
static int build_finals(opscope_diff_side_t *s, const fine_set *other, const fine_set *lumped);

int opscope_diff_side_finish(opscope_diff_side_t *s, bool merge_backends) {
    if (s->finished) return 0;
    if (s->pend_valid && pending_resolve(s)) return -1;
    if (s->kin) {
        s->totals.iterations = opscope_kineto_get_results(s->kin)->n_iterations;
        if (opscope_kineto_n_gpu(s->kin) && attribute_kineto(s)) return -1;
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
    if (build_finals(s, NULL, NULL)) return -1;
    s->finished = true;
    return 0;
}

/* The fine keys of a side's groups, to look up from the other side. */
struct fine_set {
    const char **v;
    size_t n;
    opscope_hindex ix;
};

static bool fine_eq(const void *ctx, uint32_t i, const void *key) {
    return !strcmp(((const fine_set *)ctx)->v[i], key);
}

static bool fine_has(const fine_set *fs, const char *key, size_t len) {
    return opscope_hindex_find(&fs->ix, opscope_hash_bytes(key, len), key, fine_eq, fs) != OPSCOPE_HINDEX_NONE;
}

/* The canonical key of COMP into KEY. */
static void canon_key(sbuf *key, const char *const comp[7]) {
    key->n = 0;
    for (int c = 0; c < 7; c++) {
        if (c) sb_put(key, "\x1f", 1);
        if (comp[c]) sb_str(key, comp[c]);
    }
}

/* Work pairs: a label "op [dims]" whose exact form the other side lacks falls back to the
 * CPU op alone, so a call whose shapes changed (another batch, a padded vocabulary) still
 * pairs; the group then holds every shape of that op not paired exactly. */
static const char *coarse_label(opscope_diff_side_t *s, const char *fine) {
    const char *d = strstr(fine, " [");
    if (!d) return fine;
    const char *c = opscope_strtab_intern(s->strings, fine, (size_t)(d - fine), NULL);
    return c ? c : fine;
}

static bool final_eq(const void *ctx, uint32_t i, const void *key) {
    return !strcmp(((const opscope_diff_side_t *)ctx)->final[i].key, key);
}

/* A new final group of canonical KEY (hash H) and components COMP, indexed in FX; NAME is
 * scratch. NULL when out of memory. */
static opscope_diff_group *new_final(opscope_diff_side_t *s, opscope_hindex *fx, const char *const comp[7],
                                     const sbuf *key, sbuf *name, uint64_t h) {
    opscope_diff_group *f = &s->final[s->n_final];
    f->key = opscope_strtab_intern(s->strings, key->p, key->n, NULL);
    /* display: phase · layer · CPU op · category · op @backend shape */
    name->n = 0;
    static const int order[] = {6, 5, 4, 3};
    for (size_t c = 0; c < 4; c++) {
        if (!comp[order[c]]) continue;
        if (name->n) sb_str(name, " \xc2\xb7 ");
        sb_str(name, comp[order[c]]);
    }
    if (comp[0]) {
        if (name->n) sb_str(name, " \xc2\xb7 ");
        sb_str(name, comp[0]);
        if (comp[1]) {
            sb_str(name, " @");
            sb_str(name, comp[1]);
        }
        if (comp[2]) {
            sb_str(name, " ");
            sb_str(name, comp[2]);
        }
    }
    if (!name->n) sb_str(name, "(all)");
    const char **dst[7] = {&f->op, &f->backend, &f->shape, &f->category, &f->cpu_op, &f->layer, &f->phase};
    for (int c = 0; c < 7; c++)
        if (comp[c] && !(*dst[c] = opscope_strtab_intern(s->strings, comp[c], strlen(comp[c]), NULL)))
            return NULL;
    f->name = name->failed ? NULL : opscope_strtab_intern(s->strings, name->p, name->n, NULL);
    if (!f->key || !f->name || s->n_final >= OPSCOPE_HINDEX_NONE ||
        opscope_hindex_add(fx, h, (uint32_t)s->n_final))
        return NULL;
    s->n_final++;
    return f;
}

/* Builds the final groups from the atoms, merged by canonical key; OTHER (NULL: none) is the
 * other side's fine keys and LUMPED the coarse keys kept whole on both sides (work pairs).
 * Replaces earlier finals. */
/* Folds group I of S into its final group F: counts, extremes, moments, noise, per-run totals. */
static void final_add(opscope_diff_side_t *s, opscope_diff_group *f, size_t i) {
    const dgroup *g = &s->groups[i];
    if (!f->count || g->min_ns < f->min_ns) f->min_ns = g->min_ns;
    if (g->max_ns > f->max_ns) f->max_ns = g->max_ns;
    f->count += g->count;
    f->total_ns += g->total_ns;
    f->calls += g->calls;
    f->est_ns += g->est_ns;
    if (g->timed > f->timed_computes) f->timed_computes = g->timed;
    if (g->sampled > f->sampled_computes) f->sampled_computes = g->sampled;
    opscope_moments_merge(&f->m, &g->m);
    atom_noise(f, g);
    if (!s->final_runs) return;
    size_t inputs = s->totals.inputs;
    uint64_t *fr = s->final_runs + (size_t)(f - s->final) * inputs;
    for (size_t r = 0; r < inputs; r++) {
        uint64_t now = i < s->run_snap_n[r] ? s->run_snap[r][i] : g->total_ns;
        uint64_t before = r && i < s->run_snap_n[r - 1] ? s->run_snap[r - 1][i] : 0;
        fr[r] += now - before;
    }
}

static int build_finals(opscope_diff_side_t *s, const fine_set *other, const fine_set *lumped) {
    bool merge_backends = s->merge_backends;
    const opscope_diff_totals *t = &s->totals;
    free(s->final);
    free(s->final_runs);
    free(s->kernels);
    free(s->kernel_at);
    s->final = NULL;
    s->final_runs = NULL;
    s->kernels = NULL;
    s->kernel_at = NULL;
    s->n_final = s->n_kernels = 0;
    unsigned keys = s->keys;
    bool work = work_pairs(s) && s->kin;
    katom *atoms = NULL;
    size_t n_atoms = 0, cap_atoms = 0;
    bool per_backend = !merge_backends &&
                       (keys & (OPSCOPE_DIFF_KEY_OP | OPSCOPE_DIFF_KEY_KERNEL | OPSCOPE_DIFF_KEY_SHAPE));
    s->final = calloc(s->n_groups ? s->n_groups : 1, sizeof *s->final);
    opscope_hindex fx = {0};
    if (!s->final || ix_init(&fx)) {
        opscope_hindex_free(&fx);
        return -1;
    }
    /* per-run totals, unless the trace analysis attributed records after the runs ended */
    bool per_run = t->inputs >= 2 && t->inputs <= MAX_INPUTS && !s->attributed;
    if (per_run && !(s->final_runs = calloc((s->n_groups ? s->n_groups : 1) * t->inputs,
                                            sizeof *s->final_runs))) {
        opscope_hindex_free(&fx);
        return -1;
    }
    int rc = -1;
    sbuf key = {0}, name = {0};
    for (size_t i = 0; i < s->n_groups; i++) {
        const dgroup *g = &s->groups[i];
        const dkey *k = &g->key;
        if (!g->count) continue;
        const char *comp[7] = {NULL, NULL, NULL, NULL, NULL, NULL, NULL};
        char opbuf[512], *opheap = NULL;
        const char *opdisp = NULL;
        if (k->op != NONE32) {
            const dop *o = &s->ops[k->op];
            size_t n = opscope_op_display(opbuf, sizeof opbuf, o->type, o->name, o->sub, o->extra);
            opdisp = opbuf;
            if (n >= sizeof opbuf) {
                if (!(opheap = malloc(n + 1))) goto out;
                opscope_op_display(opheap, n + 1, o->type, o->name, o->sub, o->extra);
                opdisp = opheap;
            }
        }
        if (keys & (OPSCOPE_DIFF_KEY_OP | OPSCOPE_DIFF_KEY_KERNEL | OPSCOPE_DIFF_KEY_SHAPE))
            comp[0] = opdisp;
        char wbuf[128];
        bool traced = work && k->op != NONE32 && s->ops[k->op].in_cat_id;
        if (traced && (keys & OPSCOPE_DIFF_KEY_SHAPE)) comp[2] = ""; /* no input dims */
        if (traced) {
            if (k->work) {
                comp[0] = opscope_strtab_get(s->strings, k->work - 1);
                const char *dims = (keys & OPSCOPE_DIFF_KEY_SHAPE) ? strstr(comp[0], " [") : NULL;
                if (dims) { /* --by shape: the CPU op and its input dims, apart */
                    free(opheap);
                    if (!(opheap = strndup(comp[0], (size_t)(dims - comp[0])))) goto out;
                    comp[0] = opheap;
                    comp[2] = dims + 1;
                }
            } else { /* no CPU op: the kernel family, which survives vendor and dtype renames */
                snprintf(wbuf, sizeof wbuf, "(no CPU op) %s", s->ops[k->op].cat);
                comp[0] = wbuf;
            }
        }
        if (per_backend) comp[1] = backend_name(s, k->backend);
        char shbuf[1024];
        if ((keys & OPSCOPE_DIFF_KEY_SHAPE) && !traced) { /* a trace's: its input dims (above) */
            if (k->shape == SHAPE_OTHER) snprintf(shbuf, sizeof shbuf, "(other shapes)");
            else opscope_fmt_sources(shbuf, sizeof shbuf, &s->shapes[k->shape]);
            comp[2] = shbuf;
        }
        if (keys & OPSCOPE_DIFF_KEY_CATEGORY) comp[3] = opscope_strtab_get(s->strings, k->cat - 1);
        if (keys & OPSCOPE_DIFF_KEY_CPU_OP)
            comp[4] = k->cpu == CPU_FROM_OP ? opdisp
                      : k->cpu == NONE32    ? "(no CPU op)"
                                            : opscope_strtab_get(s->strings, k->cpu);
        char lbuf[32];
        if (keys & OPSCOPE_DIFF_KEY_LAYER) {
            if (k->layer == NONE32) snprintf(lbuf, sizeof lbuf, "(no layer)");
            else snprintf(lbuf, sizeof lbuf, "layer %u", (unsigned)k->layer);
            comp[5] = lbuf;
        }
        if (keys & OPSCOPE_DIFF_KEY_PHASE) comp[6] = phase_text(k->phase);
        canon_key(&key, comp);
        if (other && work && k->work && !key.failed) {
            bool exact = fine_has(other, key.p, key.n);
            const char *fine = comp[0];
            comp[0] = coarse_label(s, fine);
            canon_key(&key, comp);
            if (exact && !key.failed && !fine_has(lumped, key.p, key.n)) {
                comp[0] = fine;
                canon_key(&key, comp);
            }
        }
        if (key.failed) {
            free(opheap);
            goto out;
        }
        uint64_t h = opscope_hash_bytes(key.p, key.n);
        uint32_t fi = opscope_hindex_find(&fx, h, key.p, final_eq, s);
        opscope_diff_group *f = fi != OPSCOPE_HINDEX_NONE ? &s->final[fi] : NULL;
        if (!f) {
            f = new_final(s, &fx, comp, &key, &name, h);
            if (!f) {
                free(opheap);
                goto out;
            }
        }
        free(opheap);
        if (work && k->op != NONE32) {
            if (opscope_vec_reserve((void **)&atoms, &cap_atoms, n_atoms + 1, sizeof *atoms, 64)) goto out;
            atoms[n_atoms++] = (katom){(size_t)(f - s->final), k->op, g->count, g->total_ns};
        }
        final_add(s, f, i);
    }
    for (size_t i = 0; s->final_runs && i < s->n_final; i++)
        s->final[i].run_ns = s->final_runs + i * t->inputs;
    if (work && group_kernels(s, atoms, n_atoms)) goto out;
    rc = 0;
out:
    free(atoms);
    opscope_hindex_free(&fx);
    free(key.p);
    free(name.p);
    return rc;
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

static int fine_set_of(const opscope_diff_side_t *s, fine_set *fs) {
    memset(fs, 0, sizeof *fs);
    if (ix_init(&fs->ix) || !(fs->v = malloc((s->n_final ? s->n_final : 1) * sizeof *fs->v)))
        return -1;
    for (size_t i = 0; i < s->n_final; i++) {
        if (fs->n >= OPSCOPE_HINDEX_NONE ||
            opscope_hindex_add(&fs->ix, opscope_hash_bytes(s->final[i].key, strlen(s->final[i].key)), (uint32_t)fs->n))
            return -1;
        fs->v[fs->n++] = s->final[i].key;
    }
    return 0;
}

static int set_add(fine_set *fs, size_t *cap, const char *key) {
    if (fine_has(fs, key, strlen(key))) return 0;
    if (fs->n >= OPSCOPE_HINDEX_NONE || opscope_vec_reserve((void **)&fs->v, cap, fs->n + 1, sizeof *fs->v, 64) ||
        opscope_hindex_add(&fs->ix, opscope_hash_bytes(key, strlen(key)), (uint32_t)fs->n))
        return -1;
    fs->v[fs->n++] = key;
    return 0;
}

/* The coarse form of canonical KEY (its first component cut at " [") interned in S. */
static const char *coarse_key(opscope_diff_side_t *s, const char *key) {
    const char *us = strchr(key, '\x1f'), *d = strstr(key, " [");
    if (!d || (us && d > us)) return key;
    size_t n = strlen(key), cut = (size_t)((us ? us : key + n) - d);
    char *buf = malloc(n - cut + 1);
    if (!buf) return NULL;
    memcpy(buf, key, (size_t)(d - key));
    memcpy(buf + (d - key), d + cut, n - (size_t)(d - key) - cut + 1);
    const char *c = opscope_strtab_intern(s->strings, buf, n - cut, NULL);
    free(buf);
    return c;
}

/* The coarse keys of X's groups that OTHER lacks exactly, into R. */
static int remainder_of(opscope_diff_side_t *x, const fine_set *other, fine_set *r, size_t *cap) {
    for (size_t i = 0; i < x->n_final; i++) {
        const char *k = x->final[i].key;
        if (fine_has(other, k, strlen(k))) continue;
        const char *c = coarse_key(x, k);
        if (!c || set_add(r, cap, c)) return -1;
    }
    return 0;
}

int opscope_diff_sides_pair(opscope_diff_side_t *a, opscope_diff_side_t *b) {
    if (!work_pairs(a) || !work_pairs(b) || !a->kin || !b->kin || !a->finished || !b->finished ||
        (a->keys & OPSCOPE_DIFF_KEY_SHAPE))
        return 0;
    /* a CPU op with unpaired shapes on one side only is kept whole on both sides, so that
     * every CPU op the two runs share pairs */
    fine_set fa, fb, ra = {0}, rb = {0}, lumped = {0};
    size_t cra = 0, crb = 0, cl = 0;
    int rc = -1;
    if (fine_set_of(a, &fa) | fine_set_of(b, &fb)) goto out;
    if (ix_init(&ra.ix) || ix_init(&rb.ix) || ix_init(&lumped.ix)) goto out;
    if (remainder_of(a, &fb, &ra, &cra) || remainder_of(b, &fa, &rb, &crb)) goto out;
    for (int side = 0; side < 2; side++) {
        const fine_set *x = side ? &rb : &ra, *y = side ? &ra : &rb;
        for (size_t i = 0; i < x->n; i++)
            if (!fine_has(y, x->v[i], strlen(x->v[i])) && set_add(&lumped, &cl, x->v[i])) goto out;
    }
    if (build_finals(a, &fb, &lumped) || build_finals(b, &fa, &lumped)) goto out;
    rc = 0;
out:
    free(fa.v);
    opscope_hindex_free(&fa.ix);
    free(fb.v);
    opscope_hindex_free(&fb.ix);
    free(ra.v);
    opscope_hindex_free(&ra.ix);
    free(rb.v);
    opscope_hindex_free(&rb.ix);
    free(lumped.v);
    opscope_hindex_free(&lumped.ix);
    return rc;
}

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

/* ---------------------------------------------------------------------------------------- */

static const struct {
    unsigned bit;
    const char *name;
} k_key_names[] = {
    {OPSCOPE_DIFF_KEY_OP, "op"},           {OPSCOPE_DIFF_KEY_KERNEL, "kernel"},
    {OPSCOPE_DIFF_KEY_SHAPE, "shape"},     {OPSCOPE_DIFF_KEY_CATEGORY, "category"},
    {OPSCOPE_DIFF_KEY_CPU_OP, "cpu-op"},   {OPSCOPE_DIFF_KEY_LAYER, "layer"},
    {OPSCOPE_DIFF_KEY_PHASE, "phase"},
};

int opscope_diff_keys_parse(const char *spec, unsigned *keys, const char **bad) {
    unsigned k = 0;
    const char *p = spec;
    for (;;) {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        size_t i = 0, nk = sizeof k_key_names / sizeof k_key_names[0];
        for (; i < nk; i++)
            if (strlen(k_key_names[i].name) == n && !memcmp(k_key_names[i].name, p, n)) break;
        if (i == nk) {
            if (bad) *bad = p;
            return -1;
        }
        k |= k_key_names[i].bit;
        if (!e) break;
        p = e + 1;
    }
    *keys = k;
    return 0;
}

void opscope_diff_keys_name(unsigned keys, char *buf, size_t size) {
    size_t at = 0;
    if (size) buf[0] = '\0';
    for (size_t i = 0; i < sizeof k_key_names / sizeof k_key_names[0]; i++) {
        if (!(keys & k_key_names[i].bit)) continue;
        int n = snprintf(buf + at, size > at ? size - at : 0, "%s%s", at ? "," : "",
                         k_key_names[i].name);
        if (n > 0) at += (size_t)n;
        if (at >= size) break;
    }
}
