/*
 * outputs.h - every output format as an opscope_output of a session (analyze/session/session.h).
 *
 * Each constructor fills *O and returns 0, or returns -1 with ERR filled. Those given an
 * opscope_out_t W take it over, on failure too (it is aborted then): the caller opens the
 * file first, so an unwritable path fails before any reading. What an output writes from the
 * analyses (the stats, the graphs, the RPC calls, the Kineto analysis) it takes from the
 * session at finish; options are copied, pointers in them borrowed until the session ends.
 * The SQLite output is in export/sqlite/sqlite_export.h (linked into the CLI only).
 * Thread safety: none; an output belongs to one session.
 */
#ifndef OPSCOPE_OUTPUTS_H
#define OPSCOPE_OUTPUTS_H

#include "analyze/session/session.h"
#include "export/console/text.h"
#include "util/out.h"

/* The console summary or the text report (KIND), then a trace's Kineto section and the RPC
 * tables (RPC_ROWS rows, 0: none). OPTS' graphs and filter come from the session. */
typedef enum opscope_summary_kind {
    OPSCOPE_SUMMARY_CONSOLE,
    OPSCOPE_SUMMARY_TEXT,
} opscope_summary_kind;
int opscope_output_summary(opscope_output *o, opscope_out_t *w, opscope_summary_kind kind,
                           const opscope_report_opts *opts, size_t rpc_rows, opscope_error *err);

/* The JSON export (version 3 layout with a summary); PEAK may be NULL; TOP_EXTRA (may be
 * NULL) writes members after the header (merge's "merge"). A trace's Kineto analysis goes
 * into the summary when KINETO. */
typedef struct opscope_json_output_opts {
    const opscope_peak *peak;
    void (*top_extra)(opscope_out_t *w, void *ud);
    void *top_ud;
    bool kineto;
} opscope_json_output_opts;
int opscope_output_json(opscope_output *o, opscope_out_t *w, const opscope_json_output_opts *opts,
                        opscope_error *err);

/* The Chrome trace (with a trace's CPU side from the Kineto analysis); SPLITS: a lane per
 * scheduler split instead of one per backend. */
int opscope_output_chrome(opscope_output *o, opscope_out_t *w, bool splits, opscope_error *err);

/* The HTML viewer into PATH: opened here (an unwritable path fails before the read), the
 * page written at finish, renamed into place at commit. */
int opscope_output_html(opscope_output *o, const char *path, const char *source, size_t max_records,
                        const opscope_peak *peak, opscope_error *err);
/* The records the HTML output O saw and kept in its page, once finished (for the command's
 * line, in its done callback: O is released after it). */
void opscope_output_html_counts(const opscope_output *o, uint64_t *seen, uint64_t *kept);

/* The unique graph ops for test-backend-ops into PATH, their counts and times into
 * PATH.tsv (none for stdout); SOURCE names the input in its messages. */
int opscope_output_ops(opscope_output *o, const char *path, const char *source, opscope_error *err);

#endif /* OPSCOPE_OUTPUTS_H */
