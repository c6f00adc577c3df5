/*
 * warm_apart.h - the graph computes a steady-state comparison leaves out: warm-ups and
 * outliers (graphs.h), kept from a first pass over an input as a short sorted list, so the
 * second pass (graph_filter.h, STEADY) needs no per-graph table (internal).
 *
 * A run has a few warm-ups (one per topology) and few outliers, so the list is small where
 * the graphs are millions. Ownership: the list owns its arrays. Thread safety: none.
 */
#ifndef OPSCOPE_WARM_APART_H
#define OPSCOPE_WARM_APART_H

#include "analyze/ggml/graphs.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct opscope_warm_apart {
    int64_t *ids;         /* sorted */
    uint8_t *kind;        /* opscope_graph_warm of each id */
    size_t n;
    uint64_t graphs[3];   /* graphs by opscope_graph_warm ([OPSCOPE_GRAPH_STEADY]: the steady) */
    uint64_t chosen_steady; /* of the steady graphs, those a selection chose (see _from) */
} opscope_warm_apart;

/* The non-steady graphs of G (finished) into *A (zeroed first); CHOOSE (NULL: every graph)
 * with CTX says which graphs a --batch or --graphs selection keeps, for chosen_steady. 0, or
 * -1 out of memory. */
int opscope_warm_apart_from(opscope_warm_apart *a, const opscope_graphs_t *g,
                            bool (*choose)(const void *ctx, const opscope_graph_stats *s), const void *ctx);
void opscope_warm_apart_free(opscope_warm_apart *a);
/* What graph ID is (STEADY when not listed). A may be NULL (all steady). */
opscope_graph_warm opscope_warm_apart_find(const opscope_warm_apart *a, int64_t id);

#endif /* OPSCOPE_WARM_APART_H */
