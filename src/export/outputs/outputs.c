/* outputs.c - the formats as session outputs (see outputs.h). */
#include "export/outputs/outputs.h"

#include "export/chrome/chrome.h"
#include "export/kineto/critical_path_out.h"
#include "export/html/html.h"
#include "export/json/json_export.h"
#include "export/kineto/kineto_report.h"
#include "export/kineto/cpu_ops_report.h"
#include "export/sections/sections.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int nomem(opscope_error *err) {
    memset(err, 0, sizeof *err);
    err->code = OPSCOPE_ERROR_NOMEM;
    err->msg = "out of memory";
    return -1;
}

/* An output that writes through one opscope_out_t: its format's handle beside it. */
typedef struct written {
    opscope_out_t *w;
    void *x;
    opscope_summary_kind kind;
    opscope_report_opts ro;
    size_t rpc_rows;
    bool kineto;
} written;

static written *written_new(opscope_out_t *w, opscope_error *err) {
    written *p = calloc(1, sizeof *p);
    if (!p) {
        opscope_out_abort(w);
        nomem(err);
        return NULL;
    }
    p->w = w;
    return p;
}

static int written_commit(void *impl, opscope_error *err) {
    return opscope_out_commit_take(&((written *)impl)->w, err);
}

/* ---- console and text ---- */

static int summary_finish(void *impl, opscope_session_t *s, opscope_error *err) {
    (void)err;
    written *p = impl;
    opscope_report_opts ro = p->ro;
    ro.graphs = opscope_session_graphs(s);
    ro.threads = opscope_session_threads(s);
    opscope_session_filtered f = opscope_session_filter(s);
    if (f.desc) {
        ro.filter = f.desc;
        ro.filter_kept = f.kept;
        ro.filter_records = f.records;
    }
    const opscope_kineto_t *k = opscope_session_kineto(s);
    /* a CPU-only trace leads with its CPU ops; the console leaves out the empty record
     * summary (the text report keeps every section) */
    const opscope_stats_t *st = opscope_session_stats(s);
    bool cpu_first = k && opscope_cpu_ops_report_cpu_only(k) && (!st || !opscope_stats_totals(st)->n_records);
    size_t cpu_top = p->kind == OPSCOPE_SUMMARY_TEXT ? SIZE_MAX : ro.top_ops;
    if (cpu_first) {
        opscope_out_printf(p->w, "opscope report: %s (CPU-only PyTorch profiler trace)\n", ro.source ? ro.source : "-");
        opscope_cpu_ops_report_write(p->w, k, cpu_top, ro.by_shape);
    }
    if (p->kind == OPSCOPE_SUMMARY_TEXT) opscope_text_write(p->w, st, &ro);
    else if (!cpu_first) opscope_console_write(p->w, st, &ro);
    if (k) opscope_kineto_report_write(p->w, k);
    if (k && !cpu_first) opscope_cpu_ops_report_write(p->w, k, cpu_top, ro.by_shape);
    if (k) opscope_critical_path_write_text(p->w, opscope_session_cpath(s));
    opscope_rpc_t *rpc = opscope_session_rpc(s);
    if (rpc && p->rpc_rows) opscope_rpc_write_text(p->w, rpc, p->rpc_rows);
    return 0;
}

static void summary_release(void *impl, bool discard) {
    written *p = impl;
    (void)discard;
    opscope_out_abort(p->w);
    free(p);
}

int opscope_output_summary(opscope_output *o, opscope_out_t *w, opscope_summary_kind kind,
                           const opscope_report_opts *opts, size_t rpc_rows, opscope_error *err) {
    written *p = written_new(w, err);
    if (!p) return -1;
    p->kind = kind;
    p->ro = *opts;
    p->rpc_rows = rpc_rows;
    *o = (opscope_output){.name = kind == OPSCOPE_SUMMARY_TEXT ? "--text" : "console",
                          .impl = p, .finish = summary_finish, .commit = written_commit,
                          .release = summary_release};
    return 0;
}

/* ---- JSON ---- */

static void json_kineto(opscope_out_t *w, void *ud) {
    const opscope_session_t *s = ud;
    opscope_kineto_report_write_json(w, opscope_session_kineto(s), opscope_session_cpath(s));
}

static int json_finish(void *impl, opscope_session_t *s, opscope_error *err) {
    written *p = impl;
    const opscope_kineto_t *k = opscope_session_kineto(s);
    if (p->kineto && k) opscope_json_export_set_summary_extra(p->x, json_kineto, s);
    opscope_json_export_set_rpc(p->x, opscope_session_rpc(s));
    opscope_json_export_set_graphs(p->x, opscope_session_graphs(s));
    opscope_json_export_set_threads(p->x, opscope_session_threads(s));
    return opscope_json_export_finish(p->x, opscope_session_stats(s)) ? nomem(err) : 0;
}

static void json_release(void *impl, bool discard) {
    written *p = impl;
    (void)discard;
    opscope_json_export_free(p->x);
    opscope_out_abort(p->w);
    free(p);
}

int opscope_output_json(opscope_output *o, opscope_out_t *w, const opscope_json_output_opts *opts,
                        opscope_error *err) {
    written *p = written_new(w, err);
    if (!p) return -1;
    opscope_json_export_t *x = opscope_json_export_new(w);
    if (!x) {
        opscope_out_abort(w);
        free(p);
        return nomem(err);
    }
    opscope_json_export_set_peak(x, opts->peak);
    if (opts->top_extra) opscope_json_export_set_top_extra(x, opts->top_extra, opts->top_ud);
    p->x = x;
    p->kineto = opts->kineto;
    *o = (opscope_output){.name = "--json", .impl = p, .sink = opscope_json_export_sink(x),
                          .on_derived = opscope_json_export_derived,
                          .finish = json_finish, .commit = written_commit,
                          .release = json_release};
    return 0;
}

/* ---- Chrome trace ---- */

static int chrome_finish(void *impl, opscope_session_t *s, opscope_error *err) {
    written *p = impl;
    /* a trace keeps its CPU side (cpu_op slices, profiler steps) beside the GPU records */
    if (opscope_chrome_add_kineto_cpu(p->x, opscope_session_kineto(s)) ||
        opscope_chrome_add_critical_path(p->x, opscope_session_cpath(s)) || opscope_chrome_finish(p->x))
        return nomem(err);
    return 0;
}

/* A trace's runtime calls and launch flows, seen on their way to the analysis. */
static opscope_kineto_collector *chrome_collector(void *impl, opscope_kineto_collector *next) {
    return opscope_chrome_kineto_tee(((written *)impl)->x, next);
}

static void chrome_release(void *impl, bool discard) {
    written *p = impl;
    (void)discard;
    opscope_chrome_free(p->x);
    opscope_out_abort(p->w);
    free(p);
}

int opscope_output_chrome(opscope_output *o, opscope_out_t *w, bool splits, opscope_error *err) {
    written *p = written_new(w, err);
    if (!p) return -1;
    opscope_chrome_t *c = opscope_chrome_new(w);
    if (!c) {
        opscope_out_abort(w);
        free(p);
        return nomem(err);
    }
    opscope_chrome_set_splits(c, splits);
    p->x = c;
    *o = (opscope_output){.name = "--chrome-trace", .impl = p, .sink = opscope_chrome_sink(c),
                          .on_derived = opscope_chrome_sink_derived,
                          .finish = chrome_finish, .commit = written_commit,
                          .release = chrome_release, .collector = chrome_collector};
    return 0;
}

/* ---- HTML viewer ---- */

typedef struct html_output {
    opscope_html_sink_t *h; /* NULL once finished (finish frees it either way) */
    opscope_out_t *w;       /* the page, open from before the read */
    uint64_t seen, kept;    /* the sink's counts, kept for the command's line */
} html_output;

/* A trace's CPU lanes from the analysis, then the page (finish frees the sink either way). */
static int html_finish(void *impl, opscope_session_t *s, opscope_error *err) {
    html_output *p = impl;
    if (opscope_html_sink_add_kineto(p->h, opscope_session_kineto(s))) return nomem(err);
    opscope_html_sink_set_cpath(p->h, opscope_session_cpath(s));
    opscope_html_sink_t *h = p->h;
    p->h = NULL;
    p->seen = opscope_html_sink_seen(h);
    p->kept = opscope_html_sink_kept(h);
    return opscope_html_sink_finish_to(h, p->w, err);
}

static int html_commit(void *impl, opscope_error *err) {
    return opscope_out_commit_take(&((html_output *)impl)->w, err);
}

/* A trace's runtime calls, seen on their way to the analysis. */
static opscope_kineto_collector *html_collector(void *impl, opscope_kineto_collector *next) {
    return opscope_html_sink_kineto_tee(((html_output *)impl)->h, next);
}

static void html_release(void *impl, bool discard) {
    html_output *p = impl;
    (void)discard;
    opscope_html_sink_abort(p->h);
    opscope_out_abort(p->w);
    free(p);
}

int opscope_output_html(opscope_output *o, const char *path, const char *source, size_t max_records,
                        const opscope_peak *peak, opscope_error *err) {
    /* opened now: an unwritable path fails before reading */
    opscope_out_t *w = opscope_out_open(path, err);
    if (!w) return -1;
    html_output *p = calloc(1, sizeof *p);
    if (!p) {
        opscope_out_abort(w);
        return nomem(err);
    }
    p->w = w;
    p->h = opscope_html_sink_new(path, source, max_records, err);
    if (!p->h) {
        html_release(p, true);
        return -1;
    }
    opscope_html_sink_set_peak(p->h, peak);
    *o = (opscope_output){.name = "--html-viewer", .path = path, .impl = p,
                          .sink = opscope_html_sink(p->h), .on_derived = opscope_html_sink_derived,
                          .finish = html_finish, .commit = html_commit, .release = html_release,
                          .collector = html_collector};
    return 0;
}

void opscope_output_html_counts(const opscope_output *o, uint64_t *seen, uint64_t *kept) {
    const html_output *p = o->impl;
    *seen = p->seen;
    *kept = p->kept;
}
