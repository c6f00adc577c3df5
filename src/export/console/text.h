/*
 * text.h - human-readable reports from finished stats (internal).
 *
 * opscope_console_write: the console summary (the seed tool's layout with aligned columns,
 * %time, count, total/avg/min/max, bandwidth, GFLOP/s and shapes; then per backend, copies
 * by direction, inefficiency, longest records).
 * opscope_text_write: the plain-text report with the seed's three sections (profiling
 * summary; per-backend summary with aggregate bandwidth; operations table with every source
 * shape and type), followed by the same rankings, never truncated.
 * Long C++ kernel names appear in their short form (name_labels.h); the text report ends
 * with the list of those forms and the full names.
 * Both only read STATS (opscope_stats_finish must have run) and write through W.
 * Thread safety: none beyond that of W.
 */
#ifndef OPSCOPE_TEXT_H
#define OPSCOPE_TEXT_H

#include "export/console/sampled_text.h"
#include "export/fmt/name_labels.h"
#include "util/out.h"
#include "analyze/ggml/roofline.h"
#include "analyze/ggml/stats.h"

#include <stdbool.h>

struct opscope_graphs; /* analyze/ggml/graphs.h */
struct opscope_threads; /* analyze/threads/threads.h */

typedef struct opscope_report_opts {
    const char *source;    /* input name for the title, may be NULL */
    size_t top_ops;        /* console: operations listed (0: 50) */
    size_t top_kernels;    /* longest records listed (0: 5) */
    size_t top_shapes;     /* console: per-shape groups listed (0: 30) */
    bool inefficiency;     /* longer inefficiency ranking (20 instead of 5) */
    bool by_shape;         /* include the per-shape table */
    const opscope_peak *peak; /* measured peaks: the tables add the roofline (NULL: none) */
    const struct opscope_graphs *graphs; /* finished: the "Graphs by batch" section (NULL: none) */
    struct opscope_threads *threads; /* CPU threads at ggml's barriers (NULL: none) */
    const char *filter;    /* "batch 1": the records were filtered (report --batch/--graphs) */
    uint64_t filter_kept, filter_records; /* records kept of those read */
} opscope_report_opts;

void opscope_console_write(opscope_out_t *w, const opscope_stats_t *stats,
                           const opscope_report_opts *opts);
void opscope_text_write(opscope_out_t *w, const opscope_stats_t *stats,
                        const opscope_report_opts *opts);

/* Shared pieces (text.c). LIMIT 0 = all rows. WITH_SOURCES adds typed source shapes.
 * LABELS (name_labels.h, may be NULL: full names) gives the names printed. */
void opscope_text_op_table(opscope_out_t *w, const opscope_stats_t *s, size_t n,
                           const opscope_op_stats *(*get)(const opscope_stats_t *, size_t),
                           size_t limit, bool with_sources, opscope_name_labels_t *labels);
/* The same with the roofline columns (bound, % of roofline) against PEAK (NULL: none). */
void opscope_text_op_table_peak(opscope_out_t *w, const opscope_stats_t *s, size_t n,
                                const opscope_op_stats *(*get)(const opscope_stats_t *, size_t),
                                size_t limit, bool with_sources, opscope_name_labels_t *labels,
                                const opscope_peak *peak);
/* The per-backend section: one entry per device, its backend ids together (a note says so
 * when a device has several). */
void opscope_text_backends(opscope_out_t *w, const opscope_stats_t *s);
/* The peaks the roofline columns use, and the backends they do not apply to (PEAK NULL:
 * nothing). */
void opscope_text_roofline_note(opscope_out_t *w, const opscope_stats_t *s,
                                const opscope_peak *peak);
void opscope_text_copies(opscope_out_t *w, const opscope_stats_t *s,
                         opscope_name_labels_t *labels);
void opscope_text_inefficiency(opscope_out_t *w, const opscope_stats_t *s, size_t limit,
                               opscope_name_labels_t *labels);
void opscope_text_top_kernels(opscope_out_t *w, const opscope_stats_t *s, size_t limit,
                              opscope_name_labels_t *labels);
const char *opscope_device_type_name(opscope_device_type t);
/* The "Dropped:" lines (records the capture could not keep, why, which graphs lost records,
 * how to keep them), values at column INDENT. Nothing when M dropped nothing. */
void opscope_text_dropped(opscope_out_t *w, const opscope_meta *m, int indent);
/* The "Ended:" line: how the program ended when the capture did not see it end (a checkpoint,
 * killed, crashed: model/run_end.h) or it ended by a caught signal; nothing for an exit or a
 * profile that does not say. Values at column INDENT. */
void opscope_text_ended(opscope_out_t *w, const opscope_meta *m, int indent);
/* A merged RPC profile: the client's RPC time its servers' records cover, which %Time counts
 * once (analyze/rpc/rpc_cover.h), or that it could not be computed; nothing otherwise. Values
 * start at column INDENT. */
void opscope_text_rpc_covered(opscope_out_t *w, const opscope_totals *t, int indent);

#endif /* OPSCOPE_TEXT_H */
