/*
 * html_graphs.h - the graph computes of a ggml profile for the HTML viewer (internal, used by
 * html.c and html_data.c): each compute's span and phase, from analyze/ggml/graphs.h (the report's
 * "Graphs by batch" and diff's `--by phase`: one definition), written as the page data's
 * "graphs" member (docs/viewer.md, "Data format"). The viewer draws them, and the runs of
 * consecutive computes of one phase, as labelled bands over the lanes.
 *
 * Every record is counted, before any --max-records stride, so a thinned page keeps every
 * compute's true span. Memory: analyze/ggml/graphs.h's, 300-500 bytes per graph id.
 * Ownership: the sink owns it (opscope_html_graphs_free). Thread safety: none.
 */
#ifndef OPSCOPE_HTML_GRAPHS_H
#define OPSCOPE_HTML_GRAPHS_H

#include "opscope.h"
#include "util/out.h"

#include <stdint.h>

typedef struct opscope_html_graphs opscope_html_graphs_t;

/* NULL when out of memory. */
opscope_html_graphs_t *opscope_html_graphs_new(void);
void opscope_html_graphs_free(opscope_html_graphs_t *g); /* NULL: no-op */

/* Counts REC (no-op without a graph id). 0, or -1 when out of memory. */
int opscope_html_graphs_add(opscope_html_graphs_t *g, const opscope_record *rec);

/* Gives each compute its phase and orders them by start (idempotent until the next add).
 * 0, or -1 when out of memory. */
int opscope_html_graphs_finish(opscope_html_graphs_t *g);

/* Writes `,"graphs":{...}` with times in ns after T0, the computes in start order (after
 * finish; nothing when G is NULL or holds none). Allocates nothing. */
void opscope_html_graphs_write(opscope_out_t *w, const opscope_html_graphs_t *g, uint64_t t0);

#endif /* OPSCOPE_HTML_GRAPHS_H */
