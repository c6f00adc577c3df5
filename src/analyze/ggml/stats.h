/*
 * stats.h - streaming aggregation of a profile (internal).
 *
 * opscope_stats_t consumes records one at a time (directly or as an opscope_sink) and keeps
 * only aggregates, so its memory depends on the number of distinct ops, shapes and backends,
 * never on the number of records:
 * - per group (name, sub-op, fused name or copy call, record type, backend): count, total/min/max time,
 *   bytes, FLOPs and the shapes of the longest call (ties: the later call, as the seed tool);
 * - optionally the same per group and exact source shapes and types (capped, see
 *   opscope_stats_opts.max_shape_groups);
 * - per backend: ops vs copies, time, bytes, FLOPs, time span;
 * - the N longest individual records (a heap of N full records);
 * - totals and the profile's meta.
 * A COPY record's `extra` is the ggml call that made the copy (tensor_set...), not a fused
 * name: its group keeps it in `call`, shows it as "copy_H2D (via tensor_set)", and leaves
 * `extra` NULL. Results (sorted lists, inefficiency ranking, copies by direction and by
 * direction and call) are computed by
 * opscope_stats_finish() and valid until the object is freed.
 *
 * Ownership: every string in a result is owned by the stats object. Thread safety: none.
 */
#ifndef OPSCOPE_STATS_H
#define OPSCOPE_STATS_H

#include "analyze/record/derived.h"
#include "analyze/record/op_display.h"
#include "analyze/record/shape_fmt.h"
#include "opscope.h"
#include "analyze/intervals/busy.h"

#include <stdbool.h>

typedef struct opscope_stats opscope_stats_t;

typedef struct opscope_stats_opts {
    size_t top_kernels;      /* longest records to keep (0: none) */
    bool by_shape;           /* also aggregate per exact shape */
    size_t max_shape_groups; /* cap of per-shape groups (0: default 65536); the rest counted */
} opscope_stats_opts;

typedef struct opscope_op_stats {
    const char *name;     /* record name */
    const char *sub_op;   /* UNARY/GLU op or NULL */
    const char *extra;    /* fused-op name (OP groups only) or NULL */
    const char *call;     /* COPY groups: the ggml call that copied (tensor_set...) or NULL */
    const char *display;  /* "UNARY(SILU)", "ADD [fused: ADD+RMS_NORM]", "MUL_MAT",
                             "copy_H2D (via tensor_set)" */
    opscope_record_type type;
    int32_t backend_id;   /* -1 in the copy lists (all backends) */
    uint64_t count, total_ns, min_ns, max_ns, bytes, flops;
    uint64_t n_with_flops; /* calls whose op defines FLOPs */
    opscope_shape shape;  /* of the longest call, or the group's exact shape (by shape) */
    /* Memory traffic (opscope_record_traffic): the sum over the calls whose traffic is known
     * (n_with_traffic of count); n_traffic_upper of them counted an upper bound. */
    uint64_t traffic_bytes, n_with_traffic, n_traffic_upper;
    /* Sampled device timing (records with OPSCOPE_HAS_WEIGHT; docs/capture.md): the graph
     * computes whose device times are in this group, the computes they stand for (their
     * weights), and the estimated total over all of those (sum of duration x weight). All 0
     * when every compute was timed. */
    uint64_t timed_computes, sampled_computes, est_ns;
    /* Its records that sampling left untimed on the device (OPSCOPE_HAS_SAMPLED_OUT: host-timed
     * GRAPH_SPLITs) and their summed duration: measured, but no part of an estimate. */
    uint64_t n_sampled_out, sampled_out_ns;
    /* A merged RPC profile: the part of total_ns (client records on an RPC backend) during
     * which a server's records run, counted as the server's (analyze/rpc/rpc_cover.h); %Time
     * counts total_ns - rpc_covered_ns. 0 elsewhere. */
    uint64_t rpc_covered_ns;
    int64_t last_graph_;  /* internal: the compute counted last */
    int32_t last_split_;
} opscope_op_stats;

typedef struct opscope_backend_stats {
    int32_t backend_id;
    const char *name;     /* from the profile's backends, "" if never described */
    const char *device;
    opscope_device_type device_type;
    const char *process;  /* its process in a merged profile (opscope merge), else NULL */
    bool described;       /* the profile listed this backend */
    uint64_t n_ops, op_ns, op_bytes, op_flops;
    uint64_t n_copies, copy_ns, copy_bytes;
    uint64_t first_start_ns, last_end_ns; /* span of its records (0, 0 if none) */
    /* Busy time: the union of its OP intervals, so overlapping ops (a GPU's concurrent
     * kernels, on any stream) count once; overlap_ns = op time - busy time. Exact in any
     * record order (analyze/intervals/busy.h); n_unsorted counts the ops that came out of start
     * order (a Kineto trace lists each stream's kernels together). */
    uint64_t busy_ns, overlap_ns, n_unsorted;  /* after opscope_stats_finish */
    opscope_busy busy;                         /* the union so far (internal) */
    uint64_t op_traffic;  /* memory traffic of its OPs whose traffic is known */
    uint64_t rpc_covered_ns; /* of its records, covered by a server's (opscope_op_stats) */
} opscope_backend_stats;

/*
 * One device: the backends that share a described (name, device, device type), merged. A
 * program makes a ggml backend object per context (llama.cpp: one to fit memory, one per
 * llama-bench test) and a capture gives each its own id, so one device can have several
 * (docs/formats.md, "Backend ids"). Backends never described stay alone.
 */
typedef struct opscope_device_stats {
    opscope_backend_stats sum; /* backend_id: the lowest id; counts, times, bytes summed; the
                                * span over the backends with records; busy_ns summed (two
                                * backends computing at once would count their common time
                                * twice) */
    const int32_t *ids;        /* its backend ids, ascending */
    size_t n_ids;
} opscope_device_stats;

typedef struct opscope_totals {
    uint64_t n_records, n_ops, n_copies;
    uint64_t total_ns;    /* sum of durations (the seed tool's "total time") */
    uint64_t op_ns, copy_ns, bytes, copy_bytes, flops;
    uint64_t first_start_ns, last_end_ns; /* wall span of all records */
    uint64_t shape_groups_dropped;        /* records not grouped by shape (cap reached) */
    uint64_t traffic_bytes;               /* OP memory traffic, where known */
    /* A merged RPC profile: the client's RPC time that its servers' records cover (the
     * groups' rpc_covered_ns summed); %Time's denominator is opscope_totals_counted_ns. 0
     * when there is none, or when the records came out of start order (rpc_cover_unsorted:
     * not computed). */
    uint64_t rpc_covered_ns;
    bool rpc_cover_unsorted;
    /* Sampled device timing (records with OPSCOPE_HAS_WEIGHT or _SAMPLED_OUT): the records
     * weighted and sampled out, and the totals estimated over all computes (a weighted record
     * counts duration x weight, a sampled-out split 0, any other its duration); total_ns,
     * op_ns and copy_ns stay the measured sums. Counts 0: every compute timed. */
    uint64_t n_weighted, n_sampled_out;
    uint64_t est_total_ns, est_op_ns, est_copy_ns;
} opscope_totals;

/* True when T's records came from sampled device timing: its totals are measured-only. */
static inline bool opscope_totals_sampled(const opscope_totals *t) {
    return t->n_weighted || t->n_sampled_out;
}

/* The time %Time divides by: each instant once per machine (total_ns less the client's RPC
 * time its servers' records cover). */
static inline uint64_t opscope_totals_counted_ns(const opscope_totals *t) {
    return t->total_ns - t->rpc_covered_ns;
}

/* Returns a new aggregator, or NULL when out of memory. OPTS may be NULL (defaults). */
opscope_stats_t *opscope_stats_new(const opscope_stats_opts *opts);
void opscope_stats_free(opscope_stats_t *s);

/* Adds one record. Returns 0, or -1 when out of memory. */
int opscope_stats_add(opscope_stats_t *s, const opscope_record *rec);
/* The same through the record's derived values (an opscope_derived_fn, UD the stats): the
 * stats fill in its op from their group (no lookup) and its display. */
int opscope_stats_add_derived(void *ud, const opscope_record *rec, opscope_derived *d);
int opscope_stats_add_backend(opscope_stats_t *s, const opscope_backend *b);
int opscope_stats_set_meta(opscope_stats_t *s, const opscope_meta *m);

/* A sink feeding S (on_end calls opscope_stats_finish). */
opscope_sink opscope_stats_sink(opscope_stats_t *s);

/* Sorts and derives the result lists. Idempotent. Returns 0 or -1 (out of memory). */
int opscope_stats_finish(opscope_stats_t *s);

const opscope_totals *opscope_stats_totals(const opscope_stats_t *s);
/* The read's meta; its capture (NULL when the profile said none) is owned by S, its run the
 * copy opscope_stats_run gives. */
const opscope_meta *opscope_stats_meta(const opscope_stats_t *s);
/* What ran, from the input's capture.run (owned by S; NULL when the input does not say). */
const opscope_run_info *opscope_stats_run(const opscope_stats_t *s);

/* Groups by total time less rpc_covered_ns (the time %Time counts), descending (ties: more calls
 * first, then display name). */
size_t opscope_stats_n_ops(const opscope_stats_t *s);
const opscope_op_stats *opscope_stats_op(const opscope_stats_t *s, size_t i);

/* Per-shape groups by total time, descending (empty unless opts.by_shape). */
size_t opscope_stats_n_shapes(const opscope_stats_t *s);
const opscope_op_stats *opscope_stats_shape(const opscope_stats_t *s, size_t i);

/* OP groups with bytes > 0, by time per byte, descending. */
size_t opscope_stats_n_inefficient(const opscope_stats_t *s);
const opscope_op_stats *opscope_stats_inefficient(const opscope_stats_t *s, size_t i);

/* COPY groups merged over backends and calls, one per direction (name and sub-op: copy_H2D,
 * "Memcpy HtoD (...)(HtoD)"), by total time. Their `call` is NULL. */
size_t opscope_stats_n_copy_dirs(const opscope_stats_t *s);
const opscope_op_stats *opscope_stats_copy_dir(const opscope_stats_t *s, size_t i);

/* COPY groups merged over backends, one per direction and call ("copy_H2D (via tensor_set)";
 * `call` NULL when the records named none), in the order of their direction in the list
 * above, then by total time. */
size_t opscope_stats_n_copy_calls(const opscope_stats_t *s);
const opscope_op_stats *opscope_stats_copy_call(const opscope_stats_t *s, size_t i);

/* Backends seen in records or described, by id. */
size_t opscope_stats_n_backends(const opscope_stats_t *s);
const opscope_backend_stats *opscope_stats_backend(const opscope_stats_t *s, size_t i);
/* Devices (backends merged by device, above), by lowest backend id. */
size_t opscope_stats_n_devices(const opscope_stats_t *s);
const opscope_device_stats *opscope_stats_device(const opscope_stats_t *s, size_t i);
/* The backend with ID or NULL. */
const opscope_backend_stats *opscope_stats_backend_by_id(const opscope_stats_t *s, int32_t id);

/* The longest records, longest first (ties: earlier record first). Strings owned by S. */
size_t opscope_stats_n_top(const opscope_stats_t *s);
const opscope_record *opscope_stats_top(const opscope_stats_t *s, size_t i);

/* The record's sub-op name (opscope_record_sub_op without the value). Static or borrowed
 * from REC. */
static inline const char *opscope_sub_op_of(const opscope_record *rec) {
    return opscope_record_sub_op(rec, NULL);
}

#endif /* OPSCOPE_STATS_H */
