/*
 * graph_filter.h - keeps the records of some graph computes: a range of graph ids and/or of
 * batches (graphs.h), e.g. the generation steps of a llama.cpp run alone (internal).
 *
 * A filter is a sink in front of another: backends pass through, records pass when their
 * graph is chosen (a record without a graph id never is), the meta passes with the file's
 * own record count and total time cleared (they describe the whole file, not what is kept).
 * A batch range needs the batch of every graph before its first record: INDEX, the finished
 * analysis of a first pass over the same input.
 * STEADY (diff's default, docs/diff.md "Warm-up apart") drops the records of the warm-up and
 * outlier graphs APART lists (warm_apart.h, a first pass) and the load (records without a
 * graph id before the first graph's first record); alone, it lets the other records without
 * a graph id pass. WARM_OF, when set, stands for APART: the verdict of a graph decided in the
 * same pass (warm_defer.h), asked once per run of its records.
 *
 * Ownership: the filter borrows INDEX and the next sink. Thread safety: none.
 */
#ifndef OPSCOPE_GRAPH_FILTER_H
#define OPSCOPE_GRAPH_FILTER_H

#include "analyze/ggml/graphs.h"
#include "analyze/ggml/warm_apart.h"
#include "opscope.h"

#include <stdbool.h>

/* LO..HI inclusive. */
typedef struct opscope_range {
    int64_t lo, hi;
} opscope_range;

/* Parses "N", "A-B" or "A-" (A and up; numbers >= 0, A <= B) into *OUT. False otherwise, with
 * *OUT untouched. S may be NULL. */
bool opscope_range_parse(const char *s, opscope_range *out);

typedef struct opscope_graph_filter {
    bool by_graph, by_batch, by_phase, steady;
    opscope_range graphs, batch;
    opscope_graph_phase phase;     /* with by_phase: graphs of this phase (graphs.h) */
    const opscope_graphs_t *index; /* finished; needed with by_batch and by_phase */
    const opscope_warm_apart *apart; /* with steady (NULL: every graph steady) */
    opscope_graph_warm (*warm_of)(const void *ctx, int64_t id); /* with steady: instead of apart */
    const void *warm_ctx;
    opscope_sink next;
    uint64_t kept, dropped;        /* records (out) */
    /* with STEADY (out): what it dropped as load, warm-up and outlier graphs (indexed by
     * opscope_graph_warm; load at [OPSCOPE_GRAPH_STEADY]): records and summed durations */
    uint64_t apart_n[3], apart_ns[3];
    bool seen_graph;               /* a record of a graph came (internal) */
    int64_t last_id;               /* the last graph looked up and its verdict (internal) */
    bool last_ok, have_last;
    opscope_graph_warm last_warm;
} opscope_graph_filter;

/* True when F's graph ids, batch and phase choose G (STEADY and INDEX not consulted). */
bool opscope_graph_filter_chooses(const opscope_graph_filter *f, const opscope_graph_stats *g);

/* The sink of F (F must outlive it). */
opscope_sink opscope_graph_filter_sink(opscope_graph_filter *f);

#endif /* OPSCOPE_GRAPH_FILTER_H */
