/*
 * diff_report.h - the outputs of `opscope diff` (internal): console and plain text
 * (diff_text.c), JSON (diff_json.c), a self-contained HTML page with both timelines
 * (diff_html.c). Every writer only reads a finished opscope_diff_t and writes through W;
 * the caller commits or aborts W. Layouts: docs/diff.md. Thread safety: none beyond W's.
 */
#ifndef OPSCOPE_DIFF_REPORT_H
#define OPSCOPE_DIFF_REPORT_H

#include "analyze/diff/diff.h"
#include "analyze/session/session.h"
#include "export/fmt/json_fmt.h"
#include "export/fmt/time_fmt.h"
#include "export/html/html.h"
#include "util/out.h"

#include <stdbool.h>

/* Warm-up apart (docs/diff.md): what each side's reads left out of the statistics, by
 * opscope_graph_warm (analyze/ggml/graphs.h): [OPSCOPE_GRAPH_STEADY] is the load (records before
 * the first graph compute), then the warm-up and the outlier graphs. */
typedef struct opscope_diff_apart {
    bool on;                 /* set apart (no --include-warmup, no input read from stdin) */
    bool stdin_read;         /* not set apart because an input is stdin (read once) */
    const char *no_steady;   /* not set apart: this input has no steady graph compute */
    bool no_graphs;          /* no input has graph computes (traces, old profiles): no note */
    uint64_t graphs[2][3], records[2][3], ns[2][3]; /* per side (0 BASE, 1 NEW) */
} opscope_diff_apart;

/* The note on them: one line (console, text) or the "warmup" member (JSON, after a comma). */
void opscope_diff_apart_write_text(opscope_out_t *w, const opscope_diff_apart *a);
void opscope_diff_apart_write_json(opscope_out_t *w, const opscope_diff_apart *a);

typedef struct opscope_diff_report_opts {
    const char *base_path, *new_path; /* input names for the header (the first run's) */
    const char *const *paths[2];      /* every run's name per side (NULL: the above only) */
    size_t n_paths[2];
    size_t top;                       /* console rows (0: 30); the text report lists all */
    const char *filter;               /* "batch 1": both inputs were filtered (diff --batch) */
    uint64_t filter_kept[2], filter_records[2]; /* records kept of those read, per side */
    opscope_diff_apart apart;         /* warm-up, outliers and load left out */
    /* llama-bench tests per side (analyze/ggml/run_tests.h; borrowed, may be empty): the Tests
     * section pairs them (diff_tests.c); TESTS_ONLY (--by test): that section alone. */
    const struct opscope_run_test *tests[2];
    size_t n_tests[2];
    bool tests_only;
    /* llama requests per side (analyze/ggml/run_requests.h; borrowed, may be empty): the Requests
     * section pairs them (diff_requests.c); REQUESTS_ONLY (--by request): that section alone. */
    const struct opscope_run_request *requests[2];
    size_t n_requests[2];
    bool requests_only;
    /* two traces' events per name over the chosen profiler steps (analyze/diff/trace_ops.h;
     * borrowed, NULL: not traces): the Trace ops section (diff_trace_ops.c) */
    const struct opscope_trace_ops_cmp *trace_ops;
} opscope_diff_report_opts;

/* The Trace ops section (text; CONSOLE: the first rows of each side, short kernel names) and
 * the "trace_ops" member (JSON, after a comma), when the inputs are traces; nothing otherwise. */
void opscope_diff_trace_ops_write_text(opscope_out_t *w, const opscope_diff_report_opts *o, bool console);
void opscope_diff_trace_ops_write_json(opscope_out_t *w, const opscope_diff_report_opts *o);

/* The Tests section (text, console) and the "tests" member (JSON, after a comma), when both
 * sides have tests; nothing otherwise. */
void opscope_diff_tests_write_text(opscope_out_t *w, const opscope_diff_report_opts *o);
void opscope_diff_tests_write_json(opscope_out_t *w, const opscope_diff_report_opts *o);
/* The Requests section and the "requests" member (JSON, after a comma), when both sides have
 * requests; nothing otherwise. */
void opscope_diff_requests_write_text(opscope_out_t *w, const opscope_diff_report_opts *o);
void opscope_diff_requests_write_json(opscope_out_t *w, const opscope_diff_report_opts *o);

/* Console summary: header, totals, the TOP largest deltas among the shown rows (short
 * kernel names), fusion differences, the regression check when asked. */
void opscope_diff_write_console(opscope_out_t *w, const opscope_diff_t *d,
                                const opscope_diff_report_opts *o);

/* Plain-text report: the same with every row (below --min-share too, marked) and full names. */
void opscope_diff_write_text(opscope_out_t *w, const opscope_diff_t *d,
                             const opscope_diff_report_opts *o);

/* The JSON document (keys in docs/diff.md). */
void opscope_diff_write_json(opscope_out_t *w, const opscope_diff_t *d,
                             const opscope_diff_report_opts *o);

/* The HTML page: both timelines (the viewer sinks BASE_H and NEW_H, fed during the reads) on
 * aligned time axes and the diff table. Writes W; returns 0, or -1 with ERR filled. */
int opscope_diff_write_html(opscope_out_t *w, const opscope_diff_t *d,
                            opscope_html_sink_t *base_h, opscope_html_sink_t *new_h,
                            const opscope_diff_report_opts *o, opscope_error *err);

/* Sampled device timing (diff_sampled.c): per group whose computes a side device-timed in
 * part, the timed / all computes of each side and the estimated totals, marked as such;
 * the first LIMIT rows (0: every one) of the shown rows (ALL: every row). Nothing when no
 * side was sampled. */
void opscope_diff_write_sampled(opscope_out_t *w, const opscope_diff_t *d, size_t limit, bool all);

/* CPU threads (diff_threads_out.c; nothing when neither side has per-thread times): the
 * section of the console and text report (the whole run, then the first LIMIT rows (0:
 * every one) of the shown rows (ALL: every row)), the "threads" member of a row (R) and of
 * the document (each after a comma). */
void opscope_diff_threads_write_text(opscope_out_t *w, const opscope_diff_t *d, size_t limit, bool all);
void opscope_diff_threads_row_json(opscope_jw *j, const opscope_diff_t *d, const opscope_diff_row *r);
void opscope_diff_threads_write_json(opscope_jw *j, const opscope_diff_t *d);

/* True when either side of R has device-timed records of sampled computes (estimates). */
bool opscope_diff_row_sampled(const opscope_diff_row *r);


/* The diff's outputs as session outputs (analyze/session/session.h): each writes V at finish, so the
 * command fills V (borrowed) after both reads and before opscope_session_finish. */
typedef struct opscope_diff_view {
    const opscope_diff_t *d;
    opscope_diff_report_opts ro;
    opscope_html_sink_t *html[2]; /* the timelines of the HTML page (fed during the reads) */
} opscope_diff_view;

typedef enum opscope_diff_out_kind {
    OPSCOPE_DIFF_OUT_JSON,
    OPSCOPE_DIFF_OUT_TEXT,
    OPSCOPE_DIFF_OUT_HTML,
    OPSCOPE_DIFF_OUT_CONSOLE,
} opscope_diff_out_kind;

/* Fills *O with the output KIND writing through W (taken over, aborted on failure). Returns 0,
 * or -1 with ERR filled (out of memory). */
int opscope_output_diff(opscope_output *o, opscope_out_t *w, opscope_diff_out_kind kind,
                        const opscope_diff_view *v, opscope_error *err);

#endif /* OPSCOPE_DIFF_REPORT_H */
