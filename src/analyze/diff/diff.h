/*
 * diff.h - `opscope diff`: two profiles or traces aligned by a key (internal).
 *
 * Each input is streamed once into an opscope_diff_side_t (a sink), which keeps per group of
 * its key only aggregates (count, total, min, max, moments of the per-call durations), plus
 * the run's totals and lengths (graphs, tokens, profiler steps). Memory grows with the number
 * of groups, never with the number of records, for ggml profiles; for Kineto traces the
 * collector of analyze/kineto/kineto.h (which keeps every CPU op and GPU activity, see kineto.md) is
 * what gives kernels their CPU op, layer and phase.
 * opscope_diff_new then aligns the two sides' groups, normalises runs of different length,
 * tests each delta against the run-to-run spread (Welch's t-test), finds fusion differences
 * and the regressions --fail-on-regression reports. Definitions: docs/diff.md.
 *
 * Ownership: a side owns its strings and groups; a diff borrows both sides, which must
 * outlive it. Thread safety: none (one object per thread).
 */
#ifndef OPSCOPE_DIFF_H
#define OPSCOPE_DIFF_H

#include "analyze/kineto/kineto.h"
#include "opscope.h"
#include "analyze/diff/welch.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Parts of a group's key (--by takes a comma-separated list). */
typedef enum opscope_diff_key {
    OPSCOPE_DIFF_KEY_OP = 1u << 0,       /* name, sub-op, fused name or copy call; per backend */
    OPSCOPE_DIFF_KEY_KERNEL = 1u << 1,   /* the same for GPU kernels: the full kernel name */
    OPSCOPE_DIFF_KEY_SHAPE = 1u << 2,    /* op and exact source shapes and types */
    OPSCOPE_DIFF_KEY_CATEGORY = 1u << 3, /* gemm, attention_prefill, norm... (all backends) */
    OPSCOPE_DIFF_KEY_CPU_OP = 1u << 4,   /* the CPU op that launched the kernel */
    OPSCOPE_DIFF_KEY_LAYER = 1u << 5,    /* model layer */
    OPSCOPE_DIFF_KEY_PHASE = 1u << 6,    /* prefill / decode */
} opscope_diff_key;

/* Parses "op,phase" into KEYS. Returns 0, or -1 with *BAD pointing at the unknown word. */
int opscope_diff_keys_parse(const char *spec, unsigned *keys, const char **bad);
/* "op,phase" for KEYS (in the order above). */
void opscope_diff_keys_name(unsigned keys, char *buf, size_t size);

/* ------------------------------------------------------------------------------------------ */
/* One input.                                                                                 */

typedef struct opscope_diff_side opscope_diff_side_t;

/* KEYS: the --by keys (0: op). NULL when out of memory. */
opscope_diff_side_t *opscope_diff_side_new(unsigned keys);
void opscope_diff_side_free(opscope_diff_side_t *s);

/* The Kineto collector the read of this side fills (NULL: none). Set before the read; it
 * must be finished (opscope_kineto_finish) before opscope_diff_side_finish. */
void opscope_diff_side_set_kineto(opscope_diff_side_t *s, const opscope_kineto_t *k);

/* The Kineto collector set with opscope_diff_side_set_kineto (NULL: none). */
const opscope_kineto_t *opscope_diff_side_kineto(const opscope_diff_side_t *s);

/* The sink the reader feeds. S must outlive it. */
opscope_sink opscope_diff_side_sink(opscope_diff_side_t *s);

/* Backend names of the records read (after the read; for the merge decision). */
size_t opscope_diff_side_n_backend_names(const opscope_diff_side_t *s);
const char *opscope_diff_side_backend_name(const opscope_diff_side_t *s, size_t i);

/* Builds the groups; MERGE_BACKENDS drops the backend from op/kernel/shape keys. Call once,
 * after the read. Returns 0, or -1 when out of memory. */
int opscope_diff_side_finish(opscope_diff_side_t *s, bool merge_backends);

/* Work pairs (traces, --by op): after both sides are finished, a group whose CPU op and
 * input dims the other side lacks falls back to the CPU op alone. Rebuilds both sides'
 * groups (earlier group pointers are invalid). Does nothing for other keys or inputs.
 * Returns 0, or -1 when out of memory. */
int opscope_diff_sides_pair(opscope_diff_side_t *a, opscope_diff_side_t *b);

typedef struct opscope_diff_totals {
    const char *profiler;     /* from the input's meta ("ggml", "kineto", "chrome"...) */
    int32_t version;
    bool trace;               /* a Kineto or Chrome trace (GPU activities), not a ggml profile */
    uint64_t n_records, n_ops, n_copies;
    uint64_t op_ns, copy_ns, total_ns; /* sums of durations; total = op + copy */
    uint64_t first_start_ns, last_end_ns, wall_ns; /* wall = last end - first start */
    uint64_t graphs;          /* distinct graph ids (ggml scheduler computes), 0 if none */
    uint64_t tokens;          /* sum over graphs of their token count (docs/diff.md) */
    uint64_t prefill_graphs, decode_graphs;
    uint64_t iterations;      /* Kineto profiler steps (ProfilerStep#N annotations) */
    uint64_t phase_pending_dropped; /* records whose graph's phase was not found in time */
    uint64_t runs_dropped;    /* record runs not counted: the run table was full */
    uint64_t atoms_capped;    /* records not split by shape for the noise test (memory cap) */
    uint64_t inputs;          /* runs: the input files read into this side (sink ends) */
    /* The spread of whole graph computes' times: per graph size (tokens), sum of n s^2 and of
     * (n s^2)^2 / (n - 1) over sizes with 2 graphs or more, and how many graphs those hold. */
    double graph_var, graph_df_den;
    uint64_t graph_samples;
    /* CPU threads: the most threads of a compute (records with per-thread times, or the
     * llama contexts' n_threads; 0: unknown) and the records with per-thread times */
    int32_t threads;
    uint64_t thread_records;
    /* Capture windows (docs/metrics.md, "Capture windows and marks"): an input recorded in
     * windows, the windows of every input and their summed span (a window open at the last
     * write ends at that write, else at the last record read so far) */
    bool windowed;
    uint64_t windows, window_ns;
} opscope_diff_totals;

const opscope_diff_totals *opscope_diff_side_totals(const opscope_diff_side_t *s);

/* Per-thread times (opscope_record.threads) summed over a group's records that have them:
 * n records; work_ns every thread's work; work_mean_ns and work_max_ns the sums of each
 * record's mean (integer division) and largest thread's work; wait_ns every thread's wait. */
typedef struct opscope_diff_threads {
    uint64_t n, work_ns, work_mean_ns, work_max_ns, wait_ns;
} opscope_diff_threads;

/* One run (input file) of a side: its graphs, tokens, op + copy time and wall span. */
typedef struct opscope_diff_run {
    uint64_t graphs, tokens, total_ns, wall_ns;
} opscope_diff_run;
/* Run R (0 <= R < totals.inputs) into *OUT; false when R is out of range or past the 256
 * runs a side keeps. */
bool opscope_diff_side_run(const opscope_diff_side_t *s, size_t r, opscope_diff_run *out);

/* A group after finish. Component strings are NULL when that part is not in the key. */
typedef struct opscope_diff_group {
    const char *key;      /* canonical: the components joined by \x1f (alignment key) */
    const char *name;     /* display: the components joined by " · " */
    const char *op, *backend, *shape, *category, *cpu_op, *layer, *phase;
    uint64_t count, total_ns, min_ns, max_ns;
    uint64_t calls;       /* with cpu-op on a trace: distinct CPU op calls; else = count */
    opscope_moments m;    /* per-call durations */
    /* The noise of the group's total. A group may hold calls of different ops (a category,
     * a layer, or one op on several shapes): their spread is not noise, so calls are
     * stratified by op identity, backend and source shapes ("atoms"): var_total = sum over atoms of n * s^2 (s^2: the atom's sample
     * variance), df_den = sum of (n * s^2)^2 / (n - 1) (Welch-Satterthwaite), over atoms of
     * at least 2 calls; n_tested counts their calls. */
    double var_total, df_den;
    uint64_t n_tested;
    uint64_t n_graph_tested; /* of n_tested: per-graph sums (the larger estimate), not calls */
    /* per run (totals.inputs of them) the group's total; NULL with one run, more than 256,
     * or a Kineto key attributed after the read */
    const uint64_t *run_ns;
    /* Sampled device timing (records with a weight; docs/capture.md): the graph computes
     * whose device times are in the group (0 when every compute was timed), the computes
     * they stand for (their weights; a record without one, its own compute) and the
     * estimated total over those (sum of duration x weight; without a weight, the
     * duration). Of a group merged from atoms (shapes, ops of a category), the counts are
     * its largest atom's. */
    uint64_t timed_computes, sampled_computes, est_ns;
    opscope_diff_threads threads; /* n = 0: no record had per-thread times */
} opscope_diff_group;

size_t opscope_diff_side_n_groups(const opscope_diff_side_t *s);
const opscope_diff_group *opscope_diff_side_group(const opscope_diff_side_t *s, size_t i);

/* Fused ggml records: one entry per fused name (an OP record's extra with n_fused > 1). */
typedef struct opscope_diff_fused {
    const char *pattern;  /* "RMS_NORM+MUL" */
    uint64_t count, total_ns;
    int32_t n_fused;      /* the largest node count of a record */
} opscope_diff_fused;
size_t opscope_diff_side_n_fused(const opscope_diff_side_t *s);
const opscope_diff_fused *opscope_diff_side_fused(const opscope_diff_side_t *s, size_t i);

/* Runs of N consecutive unfused OP records named NAMES (same graph, backend, split and
 * thread): how many and their summed time. Returns 0 when never seen (or N out of 2..8). */
uint64_t opscope_diff_side_runs(const opscope_diff_side_t *s, const char *const *names, size_t n,
                                uint64_t *total_ns);

/* Traces grouped by op ("work pairs"): a group is what launched the work (the CPU op with
 * its input dims, or the kernel family when no CPU op is known), and these are the kernels
 * it ran on this side (names borrowed from the side), longest first. Returns how many (0
 * for other keys and inputs) and *OUT. GI: the group's index (opscope_diff_side_group). */
typedef struct opscope_diff_kernel {
    const char *name;
    opscope_record_type type;
    uint64_t count, total_ns;
    int category; /* opscope_kernel_category of a CPU op's kernel; -1 when not set */
} opscope_diff_kernel;
size_t opscope_diff_side_group_kernels(const opscope_diff_side_t *s, size_t gi,
                                       const opscope_diff_kernel **out);

/* Kineto: GPU activities per CPU op (kernels, distinct calls, time) and the kernels it
 * launched by name (KERN: N_KERN entries, longest first; names borrowed from the side). */
typedef struct opscope_diff_cpu_op {
    const char *name;
    uint64_t kernels, calls, total_ns;
    const opscope_diff_kernel *kern;
    size_t n_kern;
} opscope_diff_cpu_op;
size_t opscope_diff_side_n_cpu_ops(const opscope_diff_side_t *s);
const opscope_diff_cpu_op *opscope_diff_side_cpu_op(const opscope_diff_side_t *s, size_t i);

/* ------------------------------------------------------------------------------------------ */
/* Two inputs aligned.                                                                        */

typedef enum opscope_diff_norm {
    OPSCOPE_DIFF_NORM_AUTO = 0,  /* by the finest unit both have when the lengths differ */
    OPSCOPE_DIFF_NORM_NONE,      /* totals as they are */
    OPSCOPE_DIFF_NORM_GRAPH,
    OPSCOPE_DIFF_NORM_TOKEN,
    OPSCOPE_DIFF_NORM_ITERATION,
} opscope_diff_norm;

const char *opscope_diff_norm_name(opscope_diff_norm n); /* "none", "graph", "token"... */

typedef struct opscope_diff_opts {
    unsigned keys;
    opscope_diff_norm norm;
    double alpha;          /* significance level of the noise test (0: 0.05) */
    double min_share;      /* percent: groups below it on both sides are left out of the
                              tables and of the regression check */
    double fail_pct;       /* --fail-on-regression PCT; < 0: not asked */
    bool merged_backends;  /* the sides were finished with merge_backends (for the header) */
    const char *by;        /* the keys as the user ordered them ("phase,op"); NULL: canonical */
} opscope_diff_opts;

/* True when the two sides' records share a backend name. */
bool opscope_diff_sides_share_backend(const opscope_diff_side_t *a, const opscope_diff_side_t *b);
/* True when the two sides' records name the same set of backends (else op keys merge
 * backends: a CPU run against one that also used Vulkan0 would align nothing of Vulkan0). */
bool opscope_diff_sides_same_backends(const opscope_diff_side_t *a, const opscope_diff_side_t *b);

typedef enum opscope_diff_status {
    OPSCOPE_DIFF_BOTH = 0,
    OPSCOPE_DIFF_ONLY_BASE,
    OPSCOPE_DIFF_ONLY_NEW,
} opscope_diff_status;

typedef struct opscope_diff_row {
    const opscope_diff_group *base, *newg; /* NULL on the side that lacks the group */
    const char *name, *key;
    opscope_diff_status status;
    double base_ns, new_ns;   /* totals, normalised (per unit) when the diff is */
    double delta_ns;          /* new_ns - base_ns */
    double ratio;             /* new_ns / base_ns; NaN when base_ns is 0 */
    double base_share, new_share; /* percent of the side's total time */
    double p_value;           /* Welch's test on per-call durations; -1: not tested */
    bool significant;         /* false: within the run-to-run spread (docs/diff.md) */
    bool shown;               /* share >= min_share on a side */
    bool regression;          /* counts for --fail-on-regression */
} opscope_diff_row;

typedef enum opscope_diff_fusion_kind {
    OPSCOPE_DIFF_FUSION_GGML = 0, /* a fused node group against a run of separate records */
    OPSCOPE_DIFF_FUSION_CPU_OP,   /* a CPU op launching a different number of kernels */
} opscope_diff_fusion_kind;

typedef struct opscope_diff_fusion {
    opscope_diff_fusion_kind kind;
    const char *name;         /* the pattern ("RMS_NORM+MUL") or the CPU op */
    /* per side: calls (fused records / runs / CPU op calls), kernels (records) and time */
    uint64_t base_calls, base_kernels, new_calls, new_kernels;
    double base_ns, new_ns;   /* normalised as the rows */
    /* ggml: new_ns - base_ns. CPU op: only the kernels one side launches beyond the other's
     * kernels per call (those that disappeared count negative, those that appeared positive),
     * never the op's whole change, which its row shows */
    double delta_ns;
    const char *kernel;       /* CPU op: the kernel credited most (NULL for ggml) */
} opscope_diff_fusion;

typedef struct opscope_diff opscope_diff_t;

/* Aligns BASE and NEW (both finished). Returns NULL when out of memory; *ERRMSG (may be NULL)
 * gets a static reason when the inputs cannot be compared as asked (a unit missing). */
opscope_diff_t *opscope_diff_new(const opscope_diff_side_t *base, const opscope_diff_side_t *newer,
                                 const opscope_diff_opts *opts, const char **errmsg);
void opscope_diff_free(opscope_diff_t *d);

const opscope_diff_opts *opscope_diff_get_opts(const opscope_diff_t *d);
const opscope_diff_side_t *opscope_diff_base(const opscope_diff_t *d);
const opscope_diff_side_t *opscope_diff_newer(const opscope_diff_t *d);

/* What the noise test measured the spread of (docs/diff.md). */
typedef enum opscope_diff_noise {
    OPSCOPE_DIFF_NOISE_RUNS = 0, /* per-run totals: 2 runs or more per side */
    OPSCOPE_DIFF_NOISE_GRAPHS,   /* within one run: per-graph sums (per-call where larger) */
    OPSCOPE_DIFF_NOISE_CALLS,    /* within one run: per-call durations (no graph ids) */
} opscope_diff_noise;
opscope_diff_noise opscope_diff_noise_used(const opscope_diff_t *d);
/* Whether --fail-on-regression tested the total (only with 2 runs or more per side), and the
 * level each regression check is tested at (--alpha over the number of checks). */
bool opscope_diff_total_tested(const opscope_diff_t *d);
double opscope_diff_alpha_check(const opscope_diff_t *d);

/* The normalisation used (never AUTO) and each side's unit count (1 for NONE; the number of
 * runs when a side has several). */
opscope_diff_norm opscope_diff_norm_used(const opscope_diff_t *d);
double opscope_diff_units(const opscope_diff_t *d, int side); /* 0 base, 1 new */
bool opscope_diff_merged_backends(const opscope_diff_t *d);

/* Rows sorted by |delta| (largest first), then by the larger total, then by key. */
size_t opscope_diff_n_rows(const opscope_diff_t *d);
const opscope_diff_row *opscope_diff_row_get(const opscope_diff_t *d, size_t i);

typedef struct opscope_diff_summary {
    size_t n_both, n_only_base, n_only_new, n_not_significant, n_hidden;
    double hidden_delta_ns;   /* summed delta of the rows below min_share */
    /* totals, normalised: wall, op, copy, total */
    double base_wall, new_wall, base_op, new_op, base_copy, new_copy, base_total, new_total;
    bool total_regression;    /* the total got slower by more than fail_pct */
    size_t n_regressions;     /* rows with .regression */
} opscope_diff_summary;
const opscope_diff_summary *opscope_diff_get_summary(const opscope_diff_t *d);

size_t opscope_diff_n_fusions(const opscope_diff_t *d);
const opscope_diff_fusion *opscope_diff_fusion_get(const opscope_diff_t *d, size_t i);

/* CPU threads compared (docs/diff.md, "CPU threads"): only when a side has records with
 * per-thread times (opscope_diff_threads_compared). Negative members: not known. */
typedef struct opscope_diff_thread_cmp {
    int32_t base_threads, new_threads; /* the sides' totals.threads */
    /* when the thread counts differ (both known), both sides have time and a side has
     * per-thread times for it: the time at the fewer threads over the time at the more, and
     * that over more / fewer threads */
    double speedup, efficiency;
    /* per side with per-thread times: work_max / work_mean, wait / (work + wait) */
    double base_imbalance, new_imbalance, base_wait_share, new_wait_share;
} opscope_diff_thread_cmp;

/* True when either side has records with per-thread times (else no output says threads). */
bool opscope_diff_threads_compared(const opscope_diff_t *d);
/* Row R of D compared into *OUT (R NULL: the whole run, its totals and every thread's work
 * and wait). D and R borrowed, only read. */
void opscope_diff_thread_cmp_get(const opscope_diff_t *d, const opscope_diff_row *r, opscope_diff_thread_cmp *out);

/* True when fail_pct >= 0 and the total or a shown group regressed (exit status 3). */
bool opscope_diff_failed(const opscope_diff_t *d);

#endif /* OPSCOPE_DIFF_H */
