/*
 * json_summary.h - the "summary" member of opscope's JSON export (json_export.h): the report's
 * numbers (totals, op groups by name, shape, inefficiency and copy direction, backends,
 * devices, top kernels; docs/formats.md), then the sections of what else the read analysed:
 * the RPC servers and calls, the graphs by batch, the run and its requests (internal).
 *
 * The writer knows nothing of the document around it: the export hands it the stats and what
 * goes beside them. Thread safety: none (one writer per output).
 */
#ifndef OPSCOPE_JSON_SUMMARY_H
#define OPSCOPE_JSON_SUMMARY_H

#include "analyze/ggml/roofline.h"
#include "analyze/ggml/stats.h"
#include "analyze/rpc/rpc_calls.h"
#include "util/out.h"

struct opscope_graphs; /* analyze/ggml/graphs.h */
struct opscope_threads; /* analyze/threads/threads.h */

/* What the summary writes beside the stats; every member may be NULL (left out), and all are
 * borrowed. */
typedef struct opscope_json_summary_in {
    const opscope_peak *peak;             /* the roofline's peaks */
    const struct opscope_graphs *graphs;  /* finished: warm-up marks, "graphs_by_batch", run */
    opscope_rpc_t *rpc;                   /* fed by the caller; finished here at the latest */
    struct opscope_threads *threads;      /* "cpu_threads" and the op groups' "threads" */
    void (*extra)(opscope_out_t *w, void *ud); /* writes `,"key":value` members at the end */
    void *extra_ud;
} opscope_json_summary_in;

/* Writes `,\n"summary":{...}` to W: STATS (finished) with IN's sections. Returns 0, or -1
 * when out of memory (the object is still closed, some section then short or missing). */
int opscope_json_summary_write(opscope_out_t *w, const opscope_stats_t *stats,
                               const opscope_json_summary_in *in);

/* The "summary" object of STATS alone, without IN's sections and with no peaks nor warm-up
 * marks (for tests). */
void opscope_json_write_summary(opscope_out_t *w, const opscope_stats_t *stats);

#endif /* OPSCOPE_JSON_SUMMARY_H */
