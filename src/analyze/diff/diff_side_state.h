/*
 * diff_side_state.h - one input of `opscope diff` (diff.h): the side's state and the group
 * table that the sink (diff_side.c), the Kineto attribution (diff_attrib.c) and the final
 * groups' labels (diff_label.c) share (internal to analyze/diff).
 *
 * The group table's functions are static inline: the sink finds and adds to a group for
 * every record. Ownership: the side owns every table here (diff_side.c frees them). Thread
 * safety: none (one side per thread).
 */
#ifndef OPSCOPE_DIFF_SIDE_STATE_H
#define OPSCOPE_DIFF_SIDE_STATE_H

#include "analyze/diff/diff.h"
#include "analyze/record/shape_fmt.h"
#include "model/strtab.h"
#include "util/hash.h"
#include "util/hindex.h"
#include "util/vec.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define NONE32 UINT32_MAX
#define CPU_FROM_OP (UINT32_MAX - 1) /* ggml records: the node's op stands for the CPU op */
#define PHASE_DATA 254                /* CPU-op records: data loading (no kernel phase) */
#define MAX_RUN 8
#define GRAPH_RING 64
#define SHAPE_OTHER (UINT32_MAX - 2)   /* shapes past the sink's caps (diff_side.c) */
#define MAX_LANES 64
#define MAX_INPUTS 256                 /* runs (input files) per side with per-run totals */
#define MAX_GSTRATA 64                 /* graph sizes (tokens) with their own per-graph stratum */
#define NO_GRAPH INT64_MIN

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
    opscope_diff_threads th; /* per-thread times of its records that have them */
} dgroup;

/* What a record adds besides its duration: its split and sampling weight (0: none) and its
 * per-thread times (th.n = 0: none). */
typedef struct wsample {
    int32_t split;
    uint32_t weight;
    opscope_diff_threads th;
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
    uint64_t win_open_ns; /* the start of a run's window open at its last write, end unknown; 0: none */
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

/* An index of 256 slots to start (util/hindex.h). 0, or -1 when out of memory. */
static inline int opscope_diff_ix_init(opscope_hindex *h) { return opscope_hindex_init(h, 192); }

/* Traces grouped by op pair their GPU work by what launched it, not by kernel names; by
 * shape too, on the launching call's input dims, exactly (no fallback to the CPU op). */
static inline bool opscope_diff_side_work_pairs(const opscope_diff_side_t *s) {
    return (s->keys & (OPSCOPE_DIFF_KEY_OP | OPSCOPE_DIFF_KEY_SHAPE)) && !(s->keys & OPSCOPE_DIFF_KEY_KERNEL);
}

/* STR (LEN bytes, copied) in the side's strings: its id, or NONE32 when out of memory. */
static inline uint32_t opscope_diff_side_intern(opscope_diff_side_t *s, const char *str, size_t len) {
    uint32_t id;
    if (!opscope_strtab_intern(s->strings, str, len, &id)) return NONE32;
    return id;
}

/* The hash of key K: one multiply per word and one final mix (this runs for every record). */
static inline uint64_t opscope_diff_key_hash(const dkey *k) {
    uint64_t h = opscope_hash_word(OPSCOPE_FNV_BASIS, (uint64_t)k->op << 32 | k->shape);
    h = opscope_hash_word(h, (uint64_t)k->cat << 32 | k->cpu);
    h = opscope_hash_word(h, (uint64_t)k->layer << 32 | k->phase);
    return opscope_mix64(h ^ ((uint64_t)k->work << 32 | (uint32_t)k->backend));
}

/* Whether keys A and B are the same group. */
static inline bool opscope_diff_key_eq(const dkey *a, const dkey *b) {
    return a->op == b->op && a->shape == b->shape && a->backend == b->backend &&
           a->cat == b->cat && a->cpu == b->cpu && a->layer == b->layer && a->phase == b->phase &&
           a->work == b->work;
}

/* The group index's comparison (util/hindex.h): group I has key KEY. */
static inline bool opscope_diff_group_eq(const void *ctx, uint32_t i, const void *key) {
    return opscope_diff_key_eq(&((const opscope_diff_side_t *)ctx)->groups[i].key, key);
}

/* The index of S's group (atom) of key K, made (zeroed, no graph) when new; -1 when out of
 * memory. Earlier group pointers are invalid after a new one. */
static inline long opscope_diff_group_find(opscope_diff_side_t *s, const dkey *k) {
    bool added;
    uint32_t i = opscope_hindex_find_or_append(&s->group_ix, opscope_diff_key_hash(k), k, opscope_diff_group_eq, s,
                                               (void **)&s->groups, &s->cap_groups, &s->n_groups,
                                               sizeof *s->groups, &added);
    if (i == OPSCOPE_HINDEX_NONE) return -1;
    if (added) {
        dgroup *g = &s->groups[i];
        memset(g, 0, sizeof *g);
        g->key = *k;
        g->g_cur = NO_GRAPH;
    }
    return (long)i;
}

/* Adds one call of D ns to G's count, total, extremes and moments. */
static inline void opscope_diff_group_acc(dgroup *g, uint64_t d) {
    if (!g->count || d < g->min_ns) g->min_ns = d;
    if (d > g->max_ns) g->max_ns = d;
    g->count++;
    g->total_ns += d;
    opscope_moments_add(&g->m, d);
}

/* Adds B's per-thread sums to A's. */
static inline void opscope_diff_threads_add(opscope_diff_threads *a, const opscope_diff_threads *b) {
    a->n += b->n;
    a->work_ns += b->work_ns;
    a->work_mean_ns += b->work_mean_ns;
    a->work_max_ns += b->work_max_ns;
    a->wait_ns += b->wait_ns;
}

/* A key set's comparison (util/hindex.h): entry I is KEY. */
static inline bool opscope_diff_keyset_eq(const void *ctx, uint32_t i, const void *key) {
    return opscope_diff_key_eq(&((const keyset *)ctx)->v[i], key);
}

/* The index of key K in KS, added when new; -1 when out of memory. */
static inline long opscope_diff_keyset_find(keyset *ks, const dkey *k) {
    bool added;
    uint32_t i = opscope_hindex_find_or_append(&ks->ix, opscope_diff_key_hash(k), k, opscope_diff_keyset_eq, ks,
                                               (void **)&ks->v, &ks->cap, &ks->n, sizeof *ks->v, &added);
    if (i == OPSCOPE_HINDEX_NONE) return -1;
    if (added) ks->v[i] = *k;
    return (long)i;
}

#endif /* OPSCOPE_DIFF_SIDE_STATE_H */
