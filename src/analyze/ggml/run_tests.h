/*
 * run_tests.h - a llama-bench run's tests, from what ran (capture.run) and the per-graph
 * aggregates (internal; docs/metrics.md, "Tests").
 *
 * A test is one llama context (llama-bench makes one per test and frees it after): its graphs
 * are those that start after the previous context's free and before its own. llama-bench
 * clears the context's memory (llama_memory_clear) before its warm-up and before each
 * repetition, so with k >= 2 clears the graphs after the first clear are the warm-up and
 * those after each later clear one repetition (forky's llama.cpp 0.7.0, checked with and
 * without --no-warmup: the warm-up segment is then empty). In a repetition the prompt is the
 * graphs up to the last one wider than 1 row, the generation the 1-row graphs after it; the
 * repetition's time runs from its clear to the end of its last graph (llama-bench's sample:
 * from just after the clear to after the last synchronize), and tokens/s is llama-bench's:
 * the mean over repetitions of (prompt + generated tokens) / time.
 * Ownership: results are the caller's (free with free()). Thread safety: pure.
 */
#ifndef OPSCOPE_RUN_TESTS_H
#define OPSCOPE_RUN_TESTS_H

#include "analyze/ggml/graphs.h"
#include "analyze/ggml/roofline.h"
#include "analyze/ggml/stats.h"
#include "opscope.h"

typedef struct opscope_run_test {
    size_t context;             /* index into run->contexts */
    const char *model;          /* the model file's path (the run's string), NULL: unknown */
    int64_t n_prompt, n_gen;    /* tokens of its first repetition */
    uint32_t n_batch, n_ubatch, n_threads;
    uint64_t backend_mask;      /* backends of its graphs (bit min(id, 63)) */
    size_t n_reps;              /* repetitions with graphs */
    double avg_ts, stddev_ts;   /* tokens/s: mean and sample standard deviation over them */
    uint64_t avg_ns;            /* mean repetition time */
    uint64_t graphs, warmup_graphs;
    uint64_t op_ns, warmup_op_ns; /* op time of its repetitions' graphs / of its warm-up's */
} opscope_run_test;

/* The tests of RUN (NULL: none) over G's graphs (finished): *OUT (malloc'd, NULL when none)
 * and *N. A context with fewer than 2 clears is no llama-bench test and is left out, and so is
 * one during whose life a call followed a clear that wiped the data (llama-bench's clears keep
 * it; llama.cpp's warm-ups, llama-server's among them, wipe it: opscope_run_decode.wiped).
 * Returns 0, or -1 when out of memory. */
int opscope_run_tests(const opscope_run_info *run, const opscope_graphs_t *g,
                      opscope_run_test **out, size_t *n);

/* One of a test's top op groups: the op groups of S on the test's backends, by time. */
typedef struct opscope_run_test_op {
    const char *display;
    uint64_t total_ns;
    double share;               /* of the op time of every group on those backends */
} opscope_run_test_op;

/* Up to MAX top groups of test T into OUT; returns how many. Backends shared with another
 * test mix both tests' work (a note in the outputs says when; llama-bench gives each context
 * backends of its own). */
size_t opscope_run_test_top_ops(const opscope_stats_t *s, const opscope_run_test *t,
                                opscope_run_test_op *out, size_t max);

/* Whether two tests of the list share a backend. */
bool opscope_run_tests_share_backends(const opscope_run_test *tests, size_t n);

/* A known slow setup seen in the run (docs/metrics.md, "Slow setups"); the outputs say each
 * in one line with its figure. */
typedef enum opscope_run_note_kind {
    OPSCOPE_RUN_NOTE_REFERENCE_BLAS, /* the BLAS backend's library is netlib's reference BLAS */
    OPSCOPE_RUN_NOTE_FEW_THREADS,    /* a llama context ran fewer CPU threads than CPUs online */
    OPSCOPE_RUN_NOTE_BELOW_PEAK,     /* a large op group far below its roofline (with peaks) */
} opscope_run_note_kind;

typedef struct opscope_run_note {
    opscope_run_note_kind kind;
    /* REFERENCE_BLAS: MUL_MAT on backends named "BLAS": its FLOPs, time, and its share of all
     * op time (0 when none ran there) */
    uint64_t flops, ns;
    double share;
    /* FEW_THREADS: the fewest threads a context had, the CPUs online */
    uint32_t threads, cores;
    /* BELOW_PEAK: the group (the longest of those with at least 10% of the op time whose
     * roofline position is below 10%) and its position; share as above */
    const opscope_op_stats *group;
    opscope_roof roof;
} opscope_run_note;

/* The slow setups seen in S, up to MAX into OUT; returns how many. Reference BLAS and few
 * threads need S's run (opscope_stats_run); below-peak needs PEAK (NULL: not judged). */
size_t opscope_run_notes(const opscope_stats_t *s, const opscope_peak *peak, opscope_run_note *out,
                         size_t max);

#endif /* OPSCOPE_RUN_TESTS_H */
