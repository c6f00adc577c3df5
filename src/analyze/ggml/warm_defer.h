/*
 * warm_defer.h - warm-up apart in the one read of an input (diff's default, docs/diff.md
 * "Warm-up apart"): a sink that holds each graph compute's records back until it has decided
 * whether the compute is a warm-up, then lets them go, in their order, to the steady-state
 * filter (graph_filter.h, its warm_of asking opscope_warm_defer_verdict) (internal).
 *
 * The decision is graphs.c's rule, streamed: a graph is decided when it leaves a ring of the
 * last few graph ids seen (or at the end, or when the held records pass the byte bound:
 * then the oldest held one's), a warm-up when no graph decided before it had its topology
 * (opscope_record_topo; in a run with weights, a graph with a GRAPH_SPLIT record never is).
 * Outliers (their median is known at the end only) are not predicted: every other graph is
 * steady. The topologies are the input's graphs' (graphs.h), fed in the same pass as the
 * two-pass way's first pass fed them, and opscope_warm_defer_check compares every graph's verdict with the exact one: when
 * all agree, what the filter passed is what the two-pass read passes (the same records in the
 * same order); else (a stall, records of graphs interleaved past the ring, a lower id after a
 * higher one of its topology) the caller reads the input again with the exact list.
 * Records without a graph id before the first graph's are held too: the load when a graph
 * comes, else (the end, or the bound reached first) they go to PLAIN, the sink the caller
 * uses for an input without graph computes; so does everything of an input whose meta says
 * it is a trace (Kineto, Chrome), or whose first record has a kernel category.
 *
 * Memory: the held records (rec_fifo.h), at most MAX_BYTES past one record; per graph 32
 * bytes (its verdict) and the graphs' own 300-500 bytes (when its own). Ownership: the object owns its
 * tables and borrows the two sinks. Thread safety: none.
 */
#ifndef OPSCOPE_WARM_DEFER_H
#define OPSCOPE_WARM_DEFER_H

#include "analyze/ggml/graphs.h"
#include "analyze/ggml/warm_apart.h"
#include "opscope.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct opscope_warm_defer opscope_warm_defer_t;

/* STEADY: the filter's sink (its warm_of set to opscope_warm_defer_verdict with this object);
 * PLAIN: where records go when the input has no graph computes. GRAPHS (borrowed; NULL: the
 * object makes and feeds its own): a graphs object the caller feeds every record of the
 * input with opscope_graphs_add (flops 0) before this sink sees it, which the rule and the
 * check then read (diff's first run already builds one). NULL when out of memory. */
opscope_warm_defer_t *opscope_warm_defer_new(opscope_sink steady, opscope_sink plain, size_t max_bytes,
                                             opscope_graphs_t *graphs);
void opscope_warm_defer_free(opscope_warm_defer_t *w);

/* The sink to read the input into (on_end lets every held record go). */
opscope_sink opscope_warm_defer_sink(opscope_warm_defer_t *w);

/* The verdict of graph ID (CTX: the object): asked by the filter for released records only,
 * so always a decided one (STEADY for an id never seen). */
opscope_graph_warm opscope_warm_defer_verdict(const void *ctx, int64_t id);

/* After the read: the input's warm-up and outlier graphs into *APART (as
 * opscope_warm_apart_from: zeros for a trace or an input without graph computes), and *HELD:
 * whether what went to the sinks is exactly what the two-pass read gives (every verdict
 * right; no out-of-memory while holding). 0, or -1 out of memory (*APART then empty). */
int opscope_warm_defer_check(opscope_warm_defer_t *w, opscope_warm_apart *apart, bool *held);

#endif /* OPSCOPE_WARM_DEFER_H */
