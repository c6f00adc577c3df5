/*
 * report.c - `opscope report PROFILE [options]`: one streaming pass over the input feeds
 * the statistics and every requested export at once; outputs are written to temporary
 * files and renamed only when the whole input was read, so a bad input leaves no file.
 */
#include "export/sections.h"
#include "export/chrome.h"
#include "cli/args.h"
#include "cli/cli.h"
#include "cli/select.h"
#include "export/html.h"
#include "export/json_export.h"
#include "export/kineto_report.h"
#include "export/ops_export.h"
#include "util/out.h"
#include "cli/progress.h"
#include "read/readers.h"
#include "export/sqlite/sqlite_export.h"
#include "analyze/stats.h"
#include "analyze/tee.h"
#include "analyze/graphs.h"
#include "analyze/rpc_calls.h"
#include "export/text.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool g_chrome_splits; /* --chrome-splits */
static opscope_chrome_t *g_chrome; /* the --chrome-trace exporter: a trace's runtime calls */
static opscope_html_sink_t *g_html; /* the --html-viewer sink: a trace's CPU lanes */

typedef struct report_args {
    const char *input;
    size_t top_ops, top_kernels, html_max_records;
    bool top_ops_set, inefficiency, by_shape, quiet;
    const char *chrome, *json, *text, *html, *sqlite, *peak, *export_ops;
    opscope_cli_select select; /* --batch, --graphs */
} report_args;

static void usage(FILE *f) {
    fputs("usage: opscope report PROFILE [options]\n"
          "\n"
          "Summarise a ggml profile (JSON versions 2 and 3), a PyTorch/Kineto or Chrome trace\n"
          "('.gz' is read directly, '-' reads stdin) and export it.\n"
          "Every export is written in the same pass over the input.\n"
          "\n"
          "Options:\n"
          "  --top-ops N            list the N most time-consuming operations (default 50)\n"
          "  --top-kernels N        list the N longest individual records (default 5)\n"
          "  --inefficiency         longer ranking by time per output byte (ops only)\n"
          "  --by-shape             also aggregate per exact source shapes and types\n"
          "  --chrome-trace FILE    Chrome Trace Event JSON at real timestamps\n"
          "                         (chrome://tracing, Perfetto): a lane per backend\n"
          "  --chrome-splits        a lane per scheduler split instead\n"
          "  --html-viewer FILE     self-contained HTML timeline\n"
          "  --html-max-records N   keep at most N records in the HTML (0 = all)\n"
          "  --json FILE            profile JSON (version 3 layout) with a summary\n"
          "  --text FILE            plain-text report\n"
          "  --sqlite FILE          the profile as an SQLite database: records, backends,\n"
          "                         graphs, Kineto links; views of the report's tables\n"
          "  --export-ops FILE      the profile's unique graph ops, one line each, as\n"
          "                         'test-backend-ops --test-file FILE' reads them; counts and\n"
          "                         times per backend in FILE.tsv; what cannot be exported is\n"
          "                         listed on stderr (see also 'opscope replay')\n"
          "  --peak FILE|cache      roofline against measured peaks (a file of 'opscope peak\n"
          "                         --json', or 'cache': this machine's last 'opscope peak'):\n"
          "                         each op group memory- or compute-bound, % of the roofline\n"
          "  --batch N|A-B|A-       only the graph computes of that batch (the widest\n"
          "                         MUL_MAT's rows: 1 = llama.cpp's generation steps, the\n"
          "                         prompt's tokens for its graphs); reads PROFILE twice\n"
          "  --batch decode|prefill only the decode steps (1 query per sequence: a server's\n"
          "                         slots decoding together too) or the prompts\n"
          "  --graphs N|A-B|A-      only the graph computes with those graph ids\n"
          "                         (--batch and --graphs filter every output)\n"
          "  -q, --quiet            no summary on stdout\n"
          "  -h, --help             this help\n"
          "  --version              print the version\n"
          "\n"
          "FILE '-' writes to stdout (the summary is then left out; not for --sqlite).\n"
          "Exit status: 0 ok, 1 usage error, 2 bad input or failed output.\n",
          f);
}

#define usage_error(...) opscope_cli_usage_error("report", __VA_ARGS__)

enum {
    OPT_TOP_OPS, OPT_TOP_KERNELS, OPT_CHROME, OPT_HTML, OPT_HTML_MAX, OPT_JSON, OPT_TEXT,
    OPT_SQLITE, OPT_PEAK, OPT_EXPORT_OPS, OPT_INEFFICIENCY, OPT_BY_SHAPE, OPT_BATCH, OPT_GRAPHS,
    OPT_CHROME_SPLITS
};

static const opscope_cli_opt report_opts[] = {
    {"--top-ops", NULL, OPT_TOP_OPS, true},
    {"--top-kernels", NULL, OPT_TOP_KERNELS, true},
    {"--chrome-trace", NULL, OPT_CHROME, true},
    {"--chrome-splits", NULL, OPT_CHROME_SPLITS, false},
    {"--html-viewer", NULL, OPT_HTML, true},
    {"--html-max-records", NULL, OPT_HTML_MAX, true},
    {"--json", NULL, OPT_JSON, true},
    {"--text", NULL, OPT_TEXT, true},
    {"--sqlite", NULL, OPT_SQLITE, true},
    {"--peak", NULL, OPT_PEAK, true},
    {"--export-ops", NULL, OPT_EXPORT_OPS, true},
    {"--inefficiency", NULL, OPT_INEFFICIENCY, false},
    {"--by-shape", NULL, OPT_BY_SHAPE, false},
    {"--batch", NULL, OPT_BATCH, true},
    {"--graphs", NULL, OPT_GRAPHS, true},
};

/* One option of the command line into the report_args (CTX). Returns -1, or the exit status. */
static int on_option(void *ctx, const opscope_cli_arg *o) {
    report_args *a = ctx;
    const char *val = o->val;
    switch (o->id) {
    case OPT_TOP_OPS:
        if (!opscope_cli_parse_count(val, &a->top_ops) || a->top_ops == 0)
            return usage_error("--top-ops: expected a positive integer, got '%s'", val);
        a->top_ops_set = true;
        break;
    case OPT_TOP_KERNELS:
        /* Each kept record is a full copy (about 1 kB): cap what one flag can ask. */
        if (!opscope_cli_parse_count(val, &a->top_kernels) || a->top_kernels == 0 ||
            a->top_kernels > 1000000)
            return usage_error("--top-kernels: expected an integer in 1..1000000, got '%s'",
                               val);
        break;
    case OPT_CHROME: a->chrome = val; break;
    case OPT_CHROME_SPLITS: g_chrome_splits = true; break;
    case OPT_HTML: a->html = val; break;
    case OPT_HTML_MAX:
        if (!opscope_cli_parse_count(val, &a->html_max_records))
            return usage_error("--html-max-records: expected an integer, got '%s'", val);
        break;
    case OPT_JSON: a->json = val; break;
    case OPT_TEXT: a->text = val; break;
    case OPT_SQLITE:
        if (!strcmp(val, "-"))
            return usage_error("--sqlite: a database needs a file, not stdout");
        a->sqlite = val;
        break;
    case OPT_PEAK: a->peak = val; break;
    case OPT_EXPORT_OPS: a->export_ops = val; break;
    case OPT_INEFFICIENCY: a->inefficiency = true; break;
    case OPT_BY_SHAPE: a->by_shape = true; break;
    case OPT_BATCH:
    case OPT_GRAPHS: return opscope_cli_select_option("report", &a->select, o->name, val);
    }
    return -1;
}

/* Returns -1 on success, else the exit status. */
static int parse_args(int argc, char **argv, report_args *a) {
    memset(a, 0, sizeof *a);
    opscope_cli_parser p = {.cmd = "report", .usage = usage, .version = true, OPSCOPE_CLI_OPTS(report_opts),
                            .inputs = &a->input, .max_inputs = 1, .argc = argc, .argv = argv};
    int st = opscope_cli_parse(&p, on_option, a);
    if (st >= 0) return st;
    a->quiet = p.quiet;
    if (!a->input) return usage_error("missing PROFILE");
    int sst = opscope_cli_select_check("report", &a->select, &a->input, 1);
    if (sst >= 0) return sst;
    const char *outs[] = {a->chrome, a->json, a->text, a->html, a->sqlite, a->export_ops};
    int ost = opscope_cli_check_outputs("report", "exports", outs, sizeof outs / sizeof *outs);
    if (ost >= 0) return ost;
    return opscope_cli_check_not_input("report", outs, sizeof outs / sizeof *outs, &a->input, 1);
}

/* ------------------------------------------------------------------------------------------ */
/* Exports. Each one is a sink fed during the read plus a finish step after it. An export owns
 * either an opscope_out_t (committed by the driver) or, like the HTML viewer, its own file.  */

typedef struct exporter {
    const char *flag, *path;
    opscope_out_t *out;  /* NULL when the export writes its own file */
    void *impl;
    opscope_sink sink;
    /* Writes the trailer (or the whole file). Returns 0, or -1 with ERR filled. */
    int (*finish)(struct exporter *e, const opscope_stats_t *stats, opscope_error *err);
    /* Frees IMPL; DISCARD: the read failed, write nothing. */
    void (*release)(struct exporter *e, bool discard);
} exporter;

#define MAX_EXPORTS 6

static void set_nomem(opscope_error *err) {
    memset(err, 0, sizeof *err);
    err->code = OPSCOPE_ERROR_NOMEM;
    err->msg = "out of memory";
}

/* The Kineto analysis of this run (filled during the read when the input is a trace). */
static opscope_kineto_session *g_kineto;

static int chrome_finish(exporter *e, const opscope_stats_t *stats, opscope_error *err) {
    (void)stats;
    /* a trace keeps its CPU side (cpu_op slices, profiler steps) beside the GPU records */
    if (opscope_chrome_add_kineto_cpu(e->impl, opscope_kineto_session_get(g_kineto)) ||
        opscope_chrome_finish(e->impl))
        return set_nomem(err), -1;
    return 0;
}
static void chrome_release(exporter *e, bool discard) {
    (void)discard;
    opscope_chrome_free(e->impl);
    g_chrome = NULL;
}

static opscope_rpc_t *g_rpc; /* the RPC calls of a merged profile (opscope merge) */
static opscope_graphs_t *g_graphs; /* per graph aggregates and their groups by batch */

static void json_kineto(opscope_out_t *w, void *ud) {
    (void)ud;
    opscope_kineto_session_write_json(w, g_kineto);
}

static int json_finish(exporter *e, const opscope_stats_t *stats, opscope_error *err) {
    opscope_json_export_set_summary_extra(e->impl, json_kineto, NULL);
    if (opscope_json_export_finish(e->impl, stats)) return set_nomem(err), -1;
    return 0;
}
static void json_release(exporter *e, bool discard) {
    (void)discard;
    opscope_json_export_free(e->impl);
}

/* Opens E->path as an opscope_out_t. Returns 0 or -1 with ERR filled. */
static int open_out(exporter *e, opscope_error *err) {
    e->out = opscope_out_open(e->path, err);
    return e->out ? 0 : -1;
}

static int open_chrome(exporter *e, opscope_error *err) {
    if (open_out(e, err)) return -1;
    opscope_chrome_t *c = opscope_chrome_new(e->out);
    if (!c) return set_nomem(err), -1;
    opscope_chrome_set_splits(c, g_chrome_splits);
    g_chrome = c;
    e->impl = c;
    e->sink = opscope_chrome_sink(c);
    e->finish = chrome_finish;
    e->release = chrome_release;
    return 0;
}

/* The peaks of --peak (NULL: none). */
static const opscope_peak *g_peak;

static int open_json(exporter *e, opscope_error *err) {
    if (open_out(e, err)) return -1;
    opscope_json_export_t *x = opscope_json_export_new(e->out);
    if (!x) return set_nomem(err), -1;
    opscope_json_export_set_peak(x, g_peak);
    opscope_json_export_set_rpc(x, g_rpc);
    opscope_json_export_set_graphs(x, g_graphs);
    e->impl = x;
    e->sink = opscope_json_export_sink(x);
    e->finish = json_finish;
    e->release = json_release;
    return 0;
}

/* --html-viewer: the viewer sink (src/export/html.h) writes its own file at finish. */
static int html_finish(exporter *e, const opscope_stats_t *stats, opscope_error *err) {
    (void)stats;
    opscope_html_sink_t *h = e->impl;
    e->impl = NULL; /* finish frees it, on success and on failure */
    g_html = NULL;
    if (opscope_html_sink_add_kineto(h, opscope_kineto_session_get(g_kineto))) {
        opscope_html_sink_abort(h);
        return set_nomem(err), -1;
    }
    return opscope_html_sink_finish(h, err);
}
static void html_release(exporter *e, bool discard) {
    (void)discard;
    opscope_html_sink_abort(e->impl); /* NULL after finish: a no-op */
    e->impl = NULL;
    g_html = NULL;
}

/* Returns 0, -1 with ERR filled, or 1 when this build has no viewer. */
static int open_html(exporter *e, size_t max_records, const char *source, opscope_error *err) {
    /* The sink creates its file at the end; find an unwritable path before reading. */
    opscope_out_t *probe = opscope_out_open(e->path, err);
    if (!probe) return -1;
    opscope_out_abort(probe);
    opscope_html_sink_t *h = opscope_html_sink_new(e->path, source, max_records, err);
    if (!h) return -1;
    opscope_html_sink_set_peak(h, g_peak);
    g_html = h;
    e->impl = h;
    e->sink = opscope_html_sink(h);
    e->finish = html_finish;
    e->release = html_release;
    return 0;
}

/* ------------------------------------------------------------------------------------------ */

static void print_error(const opscope_error *err) {
    char line[512];
    opscope_error_format(err, line, sizeof line);
    fprintf(stderr, "%s\n", line);
}

/* Format-specific sections printed after the summary (the Kineto analysis adds its own). */

static void format_sections(opscope_out_t *w, const opscope_stats_t *stats) {
    (void)stats;
    opscope_kineto_session_write(w, g_kineto);
}

int opscope_cli_report(int argc, char **argv) {
    report_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0) return rc;

    exporter ex[MAX_EXPORTS];
    int n_ex = 0;
    memset(ex, 0, sizeof ex);
    opscope_error err;
    memset(&err, 0, sizeof err);
    opscope_stats_t *stats = NULL;
    opscope_sqlite_export_t *sq = NULL;
    opscope_ops_export_t *ops = NULL;
    opscope_out_t *ops_out = NULL, *ops_tsv = NULL;
    bool stdout_taken = false;
    int status = OPSCOPE_EXIT_INPUT;

    /* The peaks first: a bad peak file fails before the profile is read. */
    opscope_peak peak;
    g_peak = NULL;
    if (a.peak) {
        int prc = opscope_cli_load_peak("report", a.peak, &peak);
        if (prc >= 0) return prc;
        g_peak = &peak;
    }

    opscope_stats_opts so = {0};
    so.top_kernels = a.top_kernels ? a.top_kernels : 5;
    so.by_shape = a.by_shape;
    stats = opscope_stats_new(&so);
    if (!stats) {
        set_nomem(&err);
        print_error(&err);
        return OPSCOPE_EXIT_INPUT;
    }

    /* --batch: the batch of every graph first, from a pass of its own over the input */
    opscope_cli_selection sel;
    if (opscope_cli_select_open(&a.select, a.input, &sel, &err)) {
        print_error(&err);
        opscope_cli_select_close(&sel);
        opscope_stats_free(stats);
        return OPSCOPE_EXIT_INPUT;
    }
    bool filtered = opscope_cli_select_any(&a.select);

    /* one RPC analysis for the text, JSON and SQLite outputs; NULL (no memory): no RPC section */
    g_rpc = opscope_rpc_new();
    /* NULL (no memory): no graphs section */
    g_graphs = opscope_graphs_new();

    struct {
        const char *flag, *path;
        int (*open)(exporter *, opscope_error *);
    } wanted[] = {{"--chrome-trace", a.chrome, open_chrome}, {"--json", a.json, open_json}};
    for (size_t i = 0; i < sizeof wanted / sizeof *wanted; i++) {
        if (!wanted[i].path) continue;
        exporter *e = &ex[n_ex];
        e->flag = wanted[i].flag;
        e->path = wanted[i].path;
        if (!strcmp(e->path, "-")) stdout_taken = true;
        if (wanted[i].open(e, &err)) {
            n_ex++;
            print_error(&err);
            goto fail;
        }
        n_ex++;
    }
    if (a.html) {
        exporter *e = &ex[n_ex];
        e->flag = "--html-viewer";
        e->path = a.html;
        if (!strcmp(a.html, "-")) stdout_taken = true;
        int h = open_html(e, a.html_max_records, a.input, &err);
        if (h > 0) {
            fprintf(stderr, "opscope report: --html-viewer: HTML viewer not built into this "
                            "opscope\n");
            status = OPSCOPE_EXIT_USAGE;
            goto fail;
        }
        n_ex++;
        if (h < 0) {
            print_error(&err);
            goto fail;
        }
    }
    if (a.sqlite) {
        sq = opscope_sqlite_export_new(a.sqlite, a.input, &err);
        if (!sq) {
            print_error(&err);
            goto fail;
        }
        opscope_sqlite_export_set_rpc(sq, g_rpc);
    }
    if (a.export_ops) {
        if (!strcmp(a.export_ops, "-")) stdout_taken = true;
        ops = opscope_ops_export_new();
        if (!ops) {
            set_nomem(&err);
            print_error(&err);
            goto fail;
        }
        ops_out = opscope_out_open(a.export_ops, &err);
        if (!ops_out) {
            print_error(&err);
            goto fail;
        }
        if (strcmp(a.export_ops, "-")) {
            size_t n = strlen(a.export_ops);
            char *tsv = malloc(n + 5);
            if (!tsv) {
                set_nomem(&err);
                print_error(&err);
                goto fail;
            }
            memcpy(tsv, a.export_ops, n);
            memcpy(tsv + n, ".tsv", 5);
            ops_tsv = opscope_out_open(tsv, &err);
            free(tsv);
            if (!ops_tsv) {
                print_error(&err);
                goto fail;
            }
        }
    }
    opscope_out_t *text_out = NULL;
    if (a.text) {
        if (!strcmp(a.text, "-")) stdout_taken = true;
        text_out = opscope_out_open(a.text, &err);
        if (!text_out) {
            print_error(&err);
            goto fail;
        }
    }

    {
        opscope_tee tee;
        opscope_tee_init(&tee);
        opscope_tee_add(&tee, opscope_stats_sink(stats));
        for (int i = 0; i < n_ex; i++) opscope_tee_add(&tee, ex[i].sink);
        if (sq) opscope_tee_add(&tee, opscope_sqlite_export_sink(sq));
        if (ops) opscope_tee_add(&tee, opscope_ops_export_sink(ops));
        if (g_rpc) opscope_tee_add(&tee, opscope_rpc_sink(g_rpc));
        if (g_graphs) opscope_tee_add(&tee, opscope_graphs_sink(g_graphs));
        opscope_sink sink = opscope_tee_sink(&tee);
        if (filtered) {
            sel.filter.next = sink;
            sink = opscope_graph_filter_sink(&sel.filter);
        }
        g_kineto = opscope_kineto_session_begin(); /* NULL (no memory): no Kineto section */
        if (sq) opscope_kineto_session_keep_links(g_kineto);
        opscope_read_options ro = {0};
        /* a filter keeps no record of a trace (no graph ids): no trace analysis of it either */
        ro.kineto = filtered ? NULL : opscope_kineto_session_collector(g_kineto);
        if (g_chrome && ro.kineto) ro.kineto = opscope_chrome_kineto_tee(g_chrome, ro.kineto);
        if (g_html && ro.kineto) ro.kineto = opscope_html_sink_kineto_tee(g_html, ro.kineto);
        int rrc = opscope_progress_read(a.input, OPSCOPE_FORMAT_AUTO, &sink, &ro, &err);
        if (rrc == 0 && opscope_kineto_session_end(g_kineto) != 0) {
            opscope_kineto_session_free(g_kineto);
            g_kineto = NULL;
        }
        if (rrc != 0) {
            /* a sink stopped the read: the database says why, else memory ran out */
            if (err.code == OPSCOPE_ERROR_ABORTED && sq && opscope_sqlite_export_error(sq)->code)
                err = *opscope_sqlite_export_error(sq);
            else if (err.code == OPSCOPE_ERROR_ABORTED) set_nomem(&err);
            print_error(&err);
            opscope_out_abort(text_out);
            goto fail;
        }
    }
    if (opscope_stats_finish(stats)) {
        set_nomem(&err);
        print_error(&err);
        opscope_out_abort(text_out);
        goto fail;
    }

    opscope_report_opts ro = {0};
    ro.source = a.input;
    ro.top_ops = a.top_ops;
    ro.top_kernels = a.top_kernels;
    ro.inefficiency = a.inefficiency;
    ro.by_shape = a.by_shape;
    ro.peak = g_peak;
    ro.graphs = g_graphs;
    if (filtered) {
        ro.filter = sel.desc;
        ro.filter_kept = sel.filter.kept;
        ro.filter_records = sel.filter.kept + sel.filter.dropped;
        opscope_cli_select_note("report", &a.select, a.input, &sel);
    }

    if (ops) {
        if (opscope_ops_export_finish(ops, &err)) {
            fprintf(stderr, "opscope report: --export-ops: %s: %s\n", a.input, err.msg);
            opscope_out_abort(text_out);
            goto fail;
        }
        opscope_ops_export_write(ops, ops_out);
        if (ops_tsv) opscope_ops_export_write_tsv(ops, ops_tsv);
    }

    /* Finish every export; any failure aborts them all. */
    for (int i = 0; i < n_ex; i++) {
        if (ex[i].finish(&ex[i], stats, &err)) {
            print_error(&err);
            opscope_out_abort(text_out);
            goto fail;
        }
    }
    if (text_out) {
        opscope_text_write(text_out, stats, &ro);
        format_sections(text_out, stats);
        if (g_rpc) opscope_rpc_write_text(text_out, g_rpc, 100);
    }
    /* The database first: its finish (indices, views, rename) is the likeliest to fail. */
    if (sq) {
        int src = opscope_sqlite_export_kineto(sq, opscope_kineto_session_get(g_kineto), &err);
        if (src) {
            opscope_sqlite_export_abort(sq);
        } else {
            src = opscope_sqlite_export_finish(sq, &err);
        }
        sq = NULL;
        if (src) {
            print_error(&err);
            opscope_out_abort(text_out);
            goto fail;
        }
        opscope_cli_wrote("report", a.sqlite, "sqlite", a.quiet);
    }
    status = OPSCOPE_EXIT_OK;
    for (int i = 0; i < n_ex; i++) {
        if (ex[i].out && opscope_out_commit(ex[i].out, &err)) {
            print_error(&err);
            status = OPSCOPE_EXIT_INPUT;
        } else {
            opscope_cli_wrote("report", ex[i].path, ex[i].flag + 2, a.quiet);
        }
        ex[i].out = NULL;
        ex[i].release(&ex[i], false);
        ex[i].release = NULL;
    }
    if (text_out && opscope_out_commit(text_out, &err)) {
        print_error(&err);
        status = OPSCOPE_EXIT_INPUT;
    } else if (text_out) {
        opscope_cli_wrote("report", a.text, "text", a.quiet);
    }
    if (ops) {
        int orc = opscope_out_commit(ops_out, &err);
        ops_out = NULL;
        if (orc) print_error(&err);
        if (ops_tsv && opscope_out_commit(ops_tsv, &err)) {
            print_error(&err);
            orc = -1;
        }
        ops_tsv = NULL;
        if (orc) {
            status = OPSCOPE_EXIT_INPUT;
        } else {
            opscope_ops_export_print_notes(ops, stderr, "opscope report: --export-ops: ");
            fprintf(stderr, "opscope report: --export-ops: %zu unique ops from %" PRIu64 " of %" PRIu64
                            " op records written to %s%s%s",
                    opscope_ops_export_n_lines(ops), opscope_ops_export_records_exported(ops),
                    opscope_ops_export_records(ops), a.export_ops,
                    strcmp(a.export_ops, "-") ? "; counts and times in " : "",
                    strcmp(a.export_ops, "-") ? a.export_ops : "");
            fputs(strcmp(a.export_ops, "-") ? ".tsv\n" : "\n", stderr);
        }
        opscope_ops_export_free(ops);
        ops = NULL;
    }
    if (!a.quiet && !stdout_taken) {
        opscope_out_t *con = opscope_out_from_file(stdout, &err);
        if (con) {
            opscope_console_write(con, stats, &ro);
            format_sections(con, stats);
            if (g_rpc) opscope_rpc_write_text(con, g_rpc, 10);
            if (opscope_out_commit(con, &err)) status = OPSCOPE_EXIT_INPUT;
        }
    }
    opscope_stats_free(stats);
    opscope_kineto_session_free(g_kineto);
    g_kineto = NULL;
    opscope_rpc_free(g_rpc);
    g_rpc = NULL;
    opscope_graphs_free(g_graphs);
    g_graphs = NULL;
    opscope_cli_select_close(&sel);
    return status;

fail:
    opscope_sqlite_export_abort(sq);
    opscope_out_abort(ops_out);
    opscope_out_abort(ops_tsv);
    opscope_ops_export_free(ops);
    for (int i = 0; i < n_ex; i++) {
        opscope_out_abort(ex[i].out);
        if (ex[i].release) ex[i].release(&ex[i], true);
    }
    opscope_stats_free(stats);
    opscope_kineto_session_free(g_kineto);
    g_kineto = NULL;
    opscope_rpc_free(g_rpc);
    g_rpc = NULL;
    opscope_graphs_free(g_graphs);
    g_graphs = NULL;
    opscope_cli_select_close(&sel);
    return status;
}
