/*
 * graphs.h - one aggregate per graph compute, and the graphs grouped by batch (internal).
 *
 * A graph is the records of one graph id (OPSCOPE_HAS_GRAPH; records without one are not
 * counted). Its batch is the widest matrix product it computes: the largest ne[1] of a
 * MUL_MAT's src1, or ne[2] of a MUL_MAT_ID's (ggml puts the tokens there), 0 when it has none.
 * In a llama.cpp run that is the tokens of the ubatch: a prompt's graphs have the prompt's
 * width, a generation step 1 per sequence decoded; whisper's encoder has its frames. So the
 * groups by batch split prompt processing from generation without knowing the program.
 * Its phase follows the attention, per sequence: a FLASH_ATTN_EXT whose queries (src0 ne[1],
 * tokens per sequence; sequences in ne[3]) are 1 is a decode step however many sequences a
 * server decodes at once (batch 4 for 4 slots), more is a prompt; a graph without attention
 * is decode at batch 1, prefill above, none without a matrix product (diff's rule).
 * A record of a whole split (OPSCOPE_HAS_BATCH: GRAPH_SPLIT, e.g. a compute that sampled device
 * timing left untimed) brings its nodes' batch and queries as the host knew them, so a graph
 * has the same batch and phase whether or not its device work was timed.
 *
 * Memory: 300-500 bytes per graph id (hash table entries of 96 bytes, a quarter to half full,
 * and a sorted copy from finish on); ids mostly arrive in runs, looked up by hash. Ownership: results are owned by the object and valid until it is freed or fed again.
 * Thread safety: none.
 */
#ifndef OPSCOPE_GRAPHS_H
#define OPSCOPE_GRAPHS_H

#include "analyze/record/derived.h"
#include "opscope.h"

#include <stdbool.h>

typedef struct opscope_graphs opscope_graphs_t;

typedef enum opscope_graph_phase {
    OPSCOPE_GRAPH_PHASE_NONE = 0,
    OPSCOPE_GRAPH_PHASE_PREFILL,
    OPSCOPE_GRAPH_PHASE_DECODE,
} opscope_graph_phase;

/* "none", "prefill", "decode". */
const char *opscope_graph_phase_name(opscope_graph_phase p);

/* Warm-up apart (docs/metrics.md, "Warm-up"): what a graph compute is to the steady state. */
typedef enum opscope_graph_warm {
    OPSCOPE_GRAPH_STEADY = 0,
    OPSCOPE_GRAPH_WARMUP,  /* the first compute of its topology: shader and pipeline creation,
                              the scheduler's allocation, first touches, lazy weight repacks */
    OPSCOPE_GRAPH_OUTLIER, /* not a warm-up, but its wall is over OPSCOPE_GRAPHS_OUTLIER_X times
                              its batch group's median, and such graphs are rare in the group
                              (OPSCOPE_GRAPHS_STALLS_MAX): a stall */
} opscope_graph_warm;

/* "steady", "warm-up", "outlier". */
const char *opscope_graph_warm_name(opscope_graph_warm w);

typedef struct opscope_graph_stats {
    int64_t id;
    uint64_t n, n_ops, n_copies;
    uint64_t start_ns, end_ns;  /* span of its records */
    /* Its wall: the union of its records' [start, end) (docs/metrics.md, "Graphs by batch"):
     * a pipelined graph is not charged for its neighbours' work inside its span. Exact when
     * a graph's records arrive in start order (the capture's, opscope's own files); a record
     * that starts before the interval being merged is merged into it. */
    uint64_t wall_ns;
    uint64_t cur_start, cur_end; /* the interval being merged (internal) */
    uint64_t backend_mask;      /* bit min(backend_id, 63) of each of its records' backends */
    uint64_t op_ns, copy_ns, bytes, flops;
    int64_t batch;              /* 0: no matrix product */
    int64_t queries;            /* attention's queries per sequence (the largest); 0: none */
    /* Sampled device timing (docs/metrics.md, "Graphs by batch"): some of its records are
     * device-timed with a weight / a split of it was sampled out (host time only); the op
     * time estimated over all computes (weighted records x weight, sampled-out splits 0). */
    bool device_timed, sampled_out;
    uint64_t est_op_ns;
    opscope_graph_phase phase;  /* after finish */
    /* Its topology: the multiset of its OP records' (name, backend), as a sum of their hashes
     * (record order does not matter; shapes do not, so a growing KV cache or another prompt
     * length is the same topology). */
    uint64_t topo;
    opscope_graph_warm warm;    /* after finish */
} opscope_graph_stats;

/* The graphs of one batch and phase. */
typedef struct opscope_graph_batch {
    int64_t batch;
    opscope_graph_phase phase;
    uint64_t graphs, records, n_ops;
    uint64_t op_ns, copy_ns, wall_ns;   /* summed over its graphs (wall: each graph's union) */
    uint64_t span_ns;                   /* summed over its graphs: first start to last end */
    uint64_t median_op_ns, median_wall_ns; /* per graph */
    int64_t first_graph;        /* lowest graph id of the group */
    /* Sampled device timing: graphs with device-timed (weighted) records, graphs with a
     * sampled-out split, and the op time estimated over all computes (op_ns stays measured).
     * Both counts 0: every compute timed, est_op_ns == op_ns. */
    uint64_t device_timed_graphs, sampled_out_graphs, est_op_ns;
    /* Outliers: graphs whose wall is over 10x the group's median wall (a warm-up: the first
     * compute of a topology, shader or pipeline creation, first touches; or a stall). Their
     * number, summed wall, and the longest one's id and wall. */
    uint64_t n_outliers, outlier_wall_ns, max_outlier_wall_ns;
    int64_t max_outlier_graph;
    /* Of its graphs, the warm-ups (OPSCOPE_GRAPH_WARMUP): their number, op and wall time. */
    uint64_t warmup_graphs, warmup_op_ns, warmup_wall_ns;
} opscope_graph_batch;

/* A graph is an outlier of its group when its wall exceeds this many times the median. */
#define OPSCOPE_GRAPHS_OUTLIER_X 10
/* ...and it is a stall (OPSCOPE_GRAPH_OUTLIER) when at most one steady graph of the group in
 * this many is one. */
#define OPSCOPE_GRAPHS_STALLS_MAX 4

/* NULL when out of memory. */
opscope_graphs_t *opscope_graphs_new(void);
void opscope_graphs_free(opscope_graphs_t *g);

/* Adds one record (no-op without a graph id). FLOPS: the record's FLOPs as the caller counts
 * them (opscope_record_flops). Returns 0, or -1 when out of memory. */
int opscope_graphs_add(opscope_graphs_t *g, const opscope_record *rec, uint64_t flops);
/* A sink feeding G; on_end finishes it. It counts no FLOPs (the graphs' flops stay 0);
 * opscope_graphs_add_derived (UD is G), the session's, counts the record's derived FLOPs,
 * which the stats computed already. */
opscope_sink opscope_graphs_sink(opscope_graphs_t *g);
int opscope_graphs_add_derived(void *ud, const opscope_record *rec, opscope_derived *d);

/* Sorts the graphs by id, gives each its phase and groups them by batch and phase (idempotent until the next add). 0, or -1
 * when out of memory. */
int opscope_graphs_finish(opscope_graphs_t *g);

/* The graphs, by id (after finish). */
size_t opscope_graphs_n(const opscope_graphs_t *g);
const opscope_graph_stats *opscope_graphs_at(const opscope_graphs_t *g, size_t i);
/* The graph with ID, or NULL (after finish; binary search). */
const opscope_graph_stats *opscope_graphs_find(const opscope_graphs_t *g, int64_t id);
/* The batch groups, by op time, descending (ties: the smaller batch, then phase, first). */
size_t opscope_graphs_n_batches(const opscope_graphs_t *g);
const opscope_graph_batch *opscope_graphs_batch_at(const opscope_graphs_t *g, size_t i);

/* Load: the records without a graph id that came before the first record of a graph
 * compute (weight uploads, repacks at load). Counted as they are added. */
void opscope_graphs_load(const opscope_graphs_t *g, uint64_t *records, uint64_t *ns);

/* A record's part of its graph's topology (opscope_graph_stats.topo): its name and backend,
 * hashed. OP: its ggml op (model/ggml_vocab.h) when the caller knows it, which stands for the
 * name (no hash of it), else -1. Within one graphs object either way gives the same
 * topologies; the values differ between the two. Pure. */
uint64_t opscope_record_topo(const opscope_record *rec, int op);

/* While records are added (before finish too): graph ID's topology so far and whether it
 * has a GRAPH_SPLIT record, and whether a record with a sampling weight came (*WEIGHTED),
 * the inputs of the warm-up rule (warm_defer.h decides with them as it reads). False when
 * ID has no record. */
bool opscope_graphs_peek(const opscope_graphs_t *g, int64_t id, uint64_t *topo, bool *split_only, bool *weighted);

/* The op groups' warm-up and load (analyze/ggml/warm_ops.h), fed by opscope_graphs_add_derived
 * (the session's, after the stats set each record's display); NULL without, or when out of
 * memory. Valid after finish. */
struct opscope_warm_ops;
const struct opscope_warm_ops *opscope_graphs_warm_ops(const opscope_graphs_t *g);

/* The record's batch as defined above (0 when it is no matrix product). Pure. */
int64_t opscope_record_batch(const opscope_record *rec);

/* The section's title, for the reports' own heading style. */
#define OPSCOPE_GRAPHS_TITLE "Graphs by batch (ne[1] of the widest MUL_MAT's src1: tokens in llama.cpp)"
/* True when G (finished, may be NULL) has a section to write. */
static inline bool opscope_graphs_any(const opscope_graphs_t *g) {
    return g && opscope_graphs_n_batches(g) > 0;
}

#endif /* OPSCOPE_GRAPHS_H */
