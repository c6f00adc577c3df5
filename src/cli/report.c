/*
 * report.c - `opscope report PROFILE [options]`: one streaming pass over the input feeds
 * the statistics and every requested export at once; outputs are written to temporary
 * files and renamed only when the whole input was read, so a bad input leaves no file.
 */
#include "analyze/session/session.h"
#include "cli/args.h"
#include "cli/cli.h"
#include "cli/cpath_window.h"
#include "cli/heap.h"
#include "cli/job.h"
#include "cli/progress.h"
#include "cli/select.h"
#include "export/kineto/mem_timeline_out.h"
#include "export/kineto/ktrace_out.h"
#include "export/outputs/outputs.h"
#include "export/sqlite/sqlite_export.h"
#include "util/out.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define REPORT_MAX_INPUTS 65536

typedef struct report_args {
    const char *input;
    const char **inputs; /* every operand: several, or a folder, make a job (cli/job.c) */
    int n_inputs, threads;
    bool threads_set, job;
    size_t top_ops, top_kernels, html_max_records;
    bool top_ops_set, inefficiency, by_shape, quiet, chrome_splits;
    const char *chrome, *json, *text, *html, *sqlite, *peak, *export_ops, *counters, *cpath_trace;
    opscope_cli_cpath_window cpath; /* --critical-path-annotation, --critical-path-instance */
    int hta_steps;                  /* --hta-steps: an opscope_kineto_steps */
    opscope_cli_select select; /* --batch, --graphs */
} report_args;

static void usage(FILE *f) {
    fputs("usage: opscope report PROFILE [options]\n"
          "       opscope report DIR | TRACE|SUMMARY... [--job] [--json FILE] [--threads N] [-q]\n"
          "\n"
          "Summarise a ggml profile (JSON versions 2 and 3), a PyTorch/Kineto or Chrome trace\n"
          "('.gz' is read directly, '-' reads stdin) and export it.\n"
          "Every export is written in the same pass over the input.\n"
          "A folder (its *.json and *.json.gz) or several traces are a distributed job, one\n"
          "trace per rank, read in parallel: what bounds the job, then per rank, per step,\n"
          "launch and stream tables (docs/job.md). Job summaries (a job's --json) join as\n"
          "their ranks: summaries made where the traces are combine into the same job.\n"
          "\n"
          "Options:\n"
          "  --top-ops N            list the N most time-consuming operations (default 50)\n"
          "  --top-kernels N        list the N longest individual records (default 5)\n"
          "  --inefficiency         longer ranking by time per output byte (ops only)\n"
          "  --by-shape             also aggregate per exact source shapes and types (a\n"
          "                         trace's CPU ops: per name and input dims and dtypes)\n"
          "  --chrome-trace FILE    Chrome Trace Event JSON at real timestamps\n"
          "                         (chrome://tracing, Perfetto): a lane per backend\n"
          "  --chrome-splits        a lane per scheduler split instead\n"
          "  --html-viewer FILE     self-contained HTML timeline\n"
          "  --html-max-records N   keep at most N records in the HTML (0 = all)\n"
          "  --json FILE            profile JSON (version 3 layout) with a summary\n"
          "  --text FILE            plain-text report\n"
          "  --sqlite FILE          the profile as an SQLite database: records, backends,\n"
          "                         graphs, Kineto links; views of the report's tables\n"
          "  --counters-trace FILE  a trace written back with counter tracks: queue length\n"
          "                         per stream, memory bandwidth per copy kind (reads the\n"
          "                         trace twice: not stdin)\n"
          "  --critical-path-trace FILE  the trace written back with its critical path: the\n"
          "                         path's events marked (args critical 1), its edges between\n"
          "                         threads and streams as flows (not stdin)\n"
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
          OPSCOPE_CLI_CPATH_WINDOW_HELP
          "  --hta-steps drop-last|keep-last  a trace's events as HTA loads them: the CPU\n"
          "                         events before the last ProfilerStep (drop-last: HTA's\n"
          "                         include_last_profiler_step=False) or through its end\n"
          "                         (keep-last), and the GPU activities they launched;\n"
          "                         'all' (the default): every event (reads it twice)\n"
          "  --threads N            a job: read N traces at once (default: one per core)\n"
          "  --job                  one trace is a job too (its --json: a rank summary that\n"
          "                         'opscope report' of summaries combines into the job)\n"
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
    OPT_CHROME_SPLITS, OPT_THREADS, OPT_JOB, OPT_CPATH_ANN, OPT_CPATH_INST, OPT_COUNTERS, OPT_CPATH_TRACE,
    OPT_HTA_STEPS
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
    {"--counters-trace", NULL, OPT_COUNTERS, true},
    {"--critical-path-trace", NULL, OPT_CPATH_TRACE, true},
    {"--inefficiency", NULL, OPT_INEFFICIENCY, false},
    {"--by-shape", NULL, OPT_BY_SHAPE, false},
    {"--batch", NULL, OPT_BATCH, true},
    {"--graphs", NULL, OPT_GRAPHS, true},
    {"--threads", NULL, OPT_THREADS, true},
    {"--job", NULL, OPT_JOB, false},
    {"--critical-path-annotation", NULL, OPT_CPATH_ANN, true},
    {"--critical-path-instance", NULL, OPT_CPATH_INST, true},
    {"--hta-steps", NULL, OPT_HTA_STEPS, true},
};

/* One option of the command line into the report_args (CTX). Returns a cli status (cli/cli.h). */
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
    case OPT_CHROME_SPLITS: a->chrome_splits = true; break;
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
    case OPT_COUNTERS: a->counters = val; break;
    case OPT_CPATH_TRACE: a->cpath_trace = val; break;
    case OPT_INEFFICIENCY: a->inefficiency = true; break;
    case OPT_BY_SHAPE: a->by_shape = true; break;
    case OPT_BATCH:
    case OPT_GRAPHS: return opscope_cli_select_option("report", &a->select, o->name, val);
    case OPT_JOB: a->job = true; break;
    case OPT_HTA_STEPS:
        if (!strcmp(val, "all")) a->hta_steps = OPSCOPE_KINETO_STEPS_ALL;
        else if (!strcmp(val, "drop-last")) a->hta_steps = OPSCOPE_KINETO_STEPS_DROP_LAST;
        else if (!strcmp(val, "keep-last")) a->hta_steps = OPSCOPE_KINETO_STEPS_KEEP_LAST;
        else return usage_error("--hta-steps: expected drop-last, keep-last or all, got '%s'", val);
        break;
    case OPT_CPATH_ANN:
    case OPT_CPATH_INST: return opscope_cli_cpath_window_option("report", &a->cpath, o->name, val);
    case OPT_THREADS: {
        size_t t;
        if (!opscope_cli_parse_count(val, &t) || t == 0 || t > 64)
            return usage_error("--threads: expected an integer in 1..64, got '%s'", val);
        a->threads = (int)t;
        a->threads_set = true;
        break;
    }
    }
    return OPSCOPE_EXIT_OK;
}

/* Several inputs, a folder, a job summary or --job: a job (cli/job.c). */
static bool is_job(const report_args *a) {
    return a->job || a->n_inputs > 1 || opscope_cli_job_is_dir(a->input) || opscope_cli_job_is_summary(a->input);
}

/* A job (several traces, or a folder) takes --json, --threads and -q only. Returns a cli status
 * (cli/cli.h): 0 when A is one, else the exit status of the usage error. */
static int check_job_args(const report_args *a) {
    const char *other = a->chrome ? "--chrome-trace" : a->html ? "--html-viewer" : a->text ? "--text"
                        : a->sqlite ? "--sqlite" : a->peak ? "--peak" : a->export_ops ? "--export-ops"
                        : a->inefficiency ? "--inefficiency" : a->by_shape ? "--by-shape"
                        : opscope_cli_select_any(&a->select) ? "--batch/--graphs"
                        : a->cpath.annotation ? "--critical-path-annotation"
                        : a->counters ? "--counters-trace"
                        : a->cpath_trace ? "--critical-path-trace"
                        : a->hta_steps ? "--hta-steps" : NULL;
    if (a->html && !a->chrome)
        return usage_error("--html-viewer: not for a job (a folder or several traces); 'opscope view' of the "
                           "same inputs opens the job in the viewer");
    if (other) return usage_error("%s: not for a job (a folder or several traces)", other);
    for (int i = 0; i < a->n_inputs; i++)
        if (!strcmp(a->inputs[i], "-")) return usage_error("'-' (stdin) cannot be one rank of a job");
    return OPSCOPE_EXIT_OK;
}

/* Returns a cli status (cli/cli.h): 0 when A is ready. */
static int parse_args(int argc, char **argv, report_args *a) {
    const char **inputs = a->inputs;
    memset(a, 0, sizeof *a);
    a->inputs = inputs;
    opscope_cli_parser p = {.cmd = "report", .usage = usage, .version = true, OPSCOPE_CLI_OPTS(report_opts),
                            .inputs = a->inputs, .max_inputs = REPORT_MAX_INPUTS, .argc = argc, .argv = argv};
    int st = opscope_cli_parse_profile(&p, on_option, a, &a->quiet, &a->n_inputs, &a->input);
    if (st) return st;
    if (is_job(a)) return check_job_args(a);
    if (a->threads_set) return usage_error("--threads: only for a job (a folder or several traces)");
    int cst = opscope_cli_cpath_window_check("report", &a->cpath);
    if (cst) return cst;
    int sst = opscope_cli_select_check("report", &a->select, &a->input, 1);
    if (sst) return sst;
    if ((a->counters || a->cpath_trace || a->hta_steps) && !strcmp(a->input, "-"))
        return usage_error("%s: reads the trace twice: give a file, not stdin",
                           a->counters ? "--counters-trace" : a->cpath_trace ? "--critical-path-trace" : "--hta-steps");
    const char *outs[] = {a->chrome, a->json, a->text, a->html, a->sqlite, a->export_ops, a->counters, a->cpath_trace};
    int ost = opscope_cli_check_outputs("report", "exports", outs, sizeof outs / sizeof *outs);
    if (ost) return ost;
    return opscope_cli_check_not_input("report", outs, sizeof outs / sizeof *outs, &a->input, 1);
}

/* ------------------------------------------------------------------------------------------ */
/* The run: one session (analyze/session/session.h) with the outputs asked for (export/outputs/outputs.h).    */

/* Opens PATH and hands it to the output MAKE builds; STDOUT_TAKEN notes "-". */
static int add_written(opscope_session_t *s, const char *path, bool *stdout_taken,
                       int (*make)(opscope_output *, opscope_out_t *, const void *, opscope_error *),
                       const void *cfg, opscope_error *err) {
    if (!strcmp(path, "-")) *stdout_taken = true;
    opscope_out_t *w = opscope_out_open(path, err);
    opscope_output o;
    if (!w || make(&o, w, cfg, err)) return -1;
    o.path = path;
    return opscope_session_add(s, &o);
}

static int make_chrome(opscope_output *o, opscope_out_t *w, const void *cfg, opscope_error *err) {
    return opscope_output_chrome(o, w, *(const bool *)cfg, err);
}
static int make_json(opscope_output *o, opscope_out_t *w, const void *cfg, opscope_error *err) {
    return opscope_output_json(o, w, cfg, err);
}
static int make_text(opscope_output *o, opscope_out_t *w, const void *cfg, opscope_error *err) {
    return opscope_output_summary(o, w, OPSCOPE_SUMMARY_TEXT, cfg, 100, err);
}

/* Every output A asks for, in the order they finish and commit: the database first (its
 * commit, indices and views, is the likeliest to fail), the console last. Opened before the
 * read: an unwritable path fails first. Returns 0, or -1 with ERR filled. */
static int add_outputs(opscope_session_t *s, const report_args *a, const opscope_report_opts *ro,
                       opscope_error *err) {
    bool taken = false;
    opscope_json_output_opts jo = {.peak = ro->peak, .kineto = true};
    opscope_output o;
    if (a->sqlite && (opscope_output_sqlite(&o, a->sqlite, a->input, opscope_session_graphs(s), err) || opscope_session_add(s, &o)))
        return -1;
    if ((a->chrome && add_written(s, a->chrome, &taken, make_chrome, &a->chrome_splits, err)) ||
        (a->json && add_written(s, a->json, &taken, make_json, &jo, err)))
        return -1;
    if (a->html) {
        taken |= !strcmp(a->html, "-");
        if (opscope_output_html(&o, a->html, a->input, a->html_max_records, ro->peak, err) ||
            opscope_session_add(s, &o))
            return -1;
    }
    if (a->text && add_written(s, a->text, &taken, make_text, ro, err)) return -1;
    if (a->counters) {
        taken |= !strcmp(a->counters, "-");
        if (opscope_output_counters_trace(&o, a->counters, a->input, err) || opscope_session_add(s, &o)) return -1;
    }
    if (a->cpath_trace) {
        taken |= !strcmp(a->cpath_trace, "-");
        if (opscope_output_cpath_trace(&o, a->cpath_trace, a->input, err) || opscope_session_add(s, &o)) return -1;
    }
    if (a->export_ops) {
        taken |= !strcmp(a->export_ops, "-");
        if (opscope_output_ops(&o, a->export_ops, a->input, err) || opscope_session_add(s, &o))
            return -1;
    }
    if (a->quiet || taken) return 0;
    opscope_out_t *con = opscope_out_from_file(stdout, err);
    if (!con) return 0; /* no summary, as before any output */
    if (opscope_output_summary(&o, con, OPSCOPE_SUMMARY_CONSOLE, ro, 10, err)) return -1;
    return opscope_session_add(s, &o);
}

/* After each commit: the file it wrote, or why not (the console says nothing). */
static void on_done(void *ud, const opscope_output *o, const opscope_error *err) {
    const report_args *a = ud;
    if (err && o->path) opscope_cli_print_error(NULL, err);
    else if (!err && o->say) o->say(o->impl, "report", a->quiet);
    else if (!err && o->path) opscope_cli_wrote("report", o->path, o->name + 2, a->quiet);
}

/* Reads A's input into S, finishes and commits. Returns the exit status. */
static int run(opscope_session_t *s, const report_args *a, opscope_cli_selection *sel) {
    opscope_error err;
    memset(&err, 0, sizeof err);
    opscope_sink sink = opscope_session_sink(s);
    opscope_read_options ro = {0};
    opscope_session_read_options(s, &ro);
    if (opscope_progress_read(a->input, OPSCOPE_FORMAT_AUTO, &sink, &ro, &err) != 0) {
        /* a sink stopped the read: the output says why, else memory ran out */
        if (err.code == OPSCOPE_ERROR_ABORTED) opscope_session_stopped(s, &err);
        opscope_cli_print_error(NULL, &err);
        return OPSCOPE_EXIT_INPUT;
    }
    if (sel) opscope_cli_select_note("report", &a->select, a->input, sel);
    opscope_cli_heap_keep_freed(); /* the finish's scratch reuses freed pages (cli/heap.h) */
    if (opscope_session_finish(s, &err)) {
        const opscope_output *o = opscope_session_failed(s);
        if (o && !strcmp(o->name, "--export-ops"))
            fprintf(stderr, "opscope report: --export-ops: %s: %s\n", a->input, err.msg);
        else
            opscope_cli_print_error(NULL, &err);
        return OPSCOPE_EXIT_INPUT;
    }
    if (opscope_cli_cpath_window_missing("report", a->input, &a->cpath, s)) return OPSCOPE_EXIT_INPUT;
    return opscope_session_commit(s, on_done, (void *)a) ? OPSCOPE_EXIT_INPUT : OPSCOPE_EXIT_OK;
}

/* A folder or several traces: the job's own run (cli/job.c). */
static int run_job(const report_args *a) {
    opscope_cli_job_opts jo = {.inputs = a->inputs, .n_inputs = a->n_inputs, .json = a->json,
                               .threads = a->threads, .quiet = a->quiet};
    return opscope_cli_job(&jo);
}

/* PyTorch's memory timeline (export_memory_timeline's raw file): its peaks, --json and -q only. */
static int report_mem_timeline(const report_args *a) {
    const char *other = a->chrome ? "--chrome-trace" : a->html ? "--html-viewer" : a->text ? "--text"
                        : a->sqlite ? "--sqlite" : a->peak ? "--peak" : a->export_ops ? "--export-ops"
                        : opscope_cli_select_any(&a->select) ? "--batch/--graphs" : NULL;
    if (other) return usage_error("%s: not for a memory timeline (%s)", other, a->input);
    opscope_error err;
    if (!opscope_mem_timeline_report(a->input, a->json, a->quiet, &err)) return OPSCOPE_EXIT_OK;
    opscope_cli_print_error(NULL, &err);
    return OPSCOPE_EXIT_INPUT;
}

/* One profile or trace: the session of the outputs asked for. */
static int report_one(report_args *ap) {
    report_args a = *ap;
    int rc;
    if (opscope_mem_timeline_is(a.input)) return report_mem_timeline(&a);
    /* the peaks first: a bad peak file fails before the profile is read */
    opscope_peak peak;
    if (a.peak && (rc = opscope_cli_load_peak("report", a.peak, &peak))) return rc;
    opscope_report_opts ro = {.source = a.input, .top_ops = a.top_ops, .top_kernels = a.top_kernels,
                              .inefficiency = a.inefficiency, .by_shape = a.by_shape,
                              .peak = a.peak ? &peak : NULL};
    opscope_error err;
    memset(&err, 0, sizeof err);
    /* --batch: the batch of every graph first, from a pass of its own over the input */
    opscope_cli_selection sel;
    int status = OPSCOPE_EXIT_INPUT;
    if (opscope_cli_select_open(&a.select, a.input, &sel, &err)) {
        opscope_cli_print_error(NULL, &err);
        opscope_cli_select_close(&sel);
        return status;
    }
    bool filtered = opscope_cli_select_any(&a.select);
    opscope_session_opts so = {.stats = {.top_kernels = a.top_kernels ? a.top_kernels : 5,
                                         .by_shape = a.by_shape},
                               .graphs = true, .rpc = true, .kineto = true, .critical_path = true,
                               .cpath_annotation = a.cpath.annotation, .cpath_instance1 = a.cpath.instance + 1,
                               .hta_steps = a.hta_steps, .filter = filtered ? &sel.filter : NULL, .filter_desc = sel.desc};
    opscope_session_t *s = opscope_session_new(&so);
    if (!s || add_outputs(s, &a, &ro, &err)) {
        if (!s) err = (opscope_error){.code = OPSCOPE_ERROR_NOMEM, .msg = "out of memory"};
        opscope_cli_print_error(NULL, &err);
    } else {
        status = run(s, &a, filtered ? &sel : NULL);
    }
    opscope_session_free(s);
    opscope_cli_select_close(&sel);
    return status;
}

int opscope_cli_report(int argc, char **argv) {
    report_args a;
    a.inputs = malloc(REPORT_MAX_INPUTS * sizeof *a.inputs);
    if (!a.inputs) return OPSCOPE_EXIT_INPUT;
    int rc = parse_args(argc, argv, &a);
    if (rc == OPSCOPE_EXIT_OK) rc = is_job(&a) ? run_job(&a) : report_one(&a);
    free(a.inputs);
    return opscope_cli_exit_status(rc);
}
