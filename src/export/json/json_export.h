/*
 * json_export.h - opscope's JSON export as an opscope_sink (internal).
 *
 * Writes the ggml profiler JSON layout, version 3 (profiler, version, backends, records with
 * n_src/ne_src/nb_src/type_src, tensor_name, ne, out_type, op_params, sub_op), plus opscope's
 * additions per record (graph_id, node_index, n_fused, thread_id, host_start_ns,
 * host_end_ns, flops, category) and, at the end, a "summary" object with the report's
 * numbers (json_summary.h; with the RPC servers and calls of a merged profile when the
 * caller hands its analysis over: opscope_json_export_set_rpc). Records stream through in
 * input order; reading the file back gives the same records (docs/formats.md). Fields a
 * record does not carry are left out.
 *
 * Ownership: the caller owns OUT (commits or aborts it after finish) and the handle.
 * Thread safety: none.
 */
#ifndef OPSCOPE_JSON_EXPORT_H
#define OPSCOPE_JSON_EXPORT_H

#include "opscope.h"
#include "util/out.h"
#include "analyze/record/derived.h"
#include "analyze/ggml/roofline.h"
#include "analyze/rpc/rpc_calls.h"
#include "analyze/ggml/stats.h"

struct opscope_graphs; /* analyze/ggml/graphs.h */

typedef struct opscope_json_export opscope_json_export_t;

opscope_json_export_t *opscope_json_export_new(opscope_out_t *out);
void opscope_json_export_free(opscope_json_export_t *x);

opscope_sink opscope_json_export_sink(opscope_json_export_t *x);
/* Its on_record with the record's derived values (analyze/record/derived.h; UD is X), for a session. */
int opscope_json_export_derived(void *ud, const opscope_record *r, opscope_derived *d);

/* Adds members to the summary: FN(W, UD), called at finish after the summary's own members
 * and before its closing brace, writes `,"key":value` pairs (the Kineto section). FN may be
 * NULL (none); UD is borrowed and must stay valid until finish. */
void opscope_json_export_set_summary_extra(opscope_json_export_t *x,
                                           void (*fn)(opscope_out_t *w, void *ud), void *ud);

/* Adds top-level members: FN(W, UD) writes `,"key":value` pairs at finish, after the
 * totals and "capture" and before "summary" (opscope merge's "merge" member). FN may be NULL;
 * UD is borrowed until finish. */
void opscope_json_export_set_top_extra(opscope_json_export_t *x,
                                       void (*fn)(opscope_out_t *w, void *ud), void *ud);

/* The peaks the summary's roofline uses (NULL: none); borrowed until finish. */
void opscope_json_export_set_peak(opscope_json_export_t *x, const opscope_peak *peak);

/* The RPC analysis (analyze/rpc/rpc_calls.h) whose servers and calls go into the summary: fed by
 * the caller from the same read (its sink beside the export's), finished here at the latest.
 * Borrowed until finish; NULL (the default): no "rpc" member. */
void opscope_json_export_set_rpc(opscope_json_export_t *x, opscope_rpc_t *rpc);
/* The per-graph analysis whose groups by batch the summary lists ("graphs_by_batch"), borrowed,
 * finished before opscope_json_export_finish (NULL: none). */
void opscope_json_export_set_graphs(opscope_json_export_t *x, const struct opscope_graphs *graphs);
struct opscope_threads; /* analyze/threads/threads.h */
/* The CPU threads' analysis for the summary (borrowed; NULL: none). */
void opscope_json_export_set_threads(opscope_json_export_t *x, struct opscope_threads *threads);

/* Closes the records and writes totals and, when STATS is not NULL (finished), the summary.
 * Returns 0, or -1 when out of memory. */
int opscope_json_export_finish(opscope_json_export_t *x, const opscope_stats_t *stats);

#endif /* OPSCOPE_JSON_EXPORT_H */
