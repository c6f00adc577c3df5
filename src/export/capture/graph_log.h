/*
 * graph_log.h - the capture's graph log (OPSCOPE_GRAPH_LOG, docs/capture.md): one tab-separated
 * line per captured graph compute, after a header line (internal). The capture converts its
 * ticks to nanoseconds and hands each graph over as a row; only export/ writes the format.
 * W is an open output owned by the caller. Thread safety: none beyond the output's.
 */
#ifndef OPSCOPE_GRAPH_LOG_H
#define OPSCOPE_GRAPH_LOG_H

#include "util/out.h"

#include <stdint.h>

typedef struct opscope_graph_log_row {
    int64_t graph, split, backend, sched, n_nodes, n_steps;
    uint64_t start_ns, end_ns;
    uint64_t capture_ns; /* after the compute's end, until the capture was done with it */
    const char *attribution; /* "exact", "nofusion", "aborted", "inexact" or "?"; not NULL */
    uint64_t tail_ns;
} opscope_graph_log_row;

/* The header line (the column names). */
void opscope_graph_log_header(opscope_out_t *w);
/* One line for ROW. */
void opscope_graph_log_write(opscope_out_t *w, const opscope_graph_log_row *row);

#endif /* OPSCOPE_GRAPH_LOG_H */
