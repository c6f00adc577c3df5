/*
 * view.c - `opscope view PROFILE [-o OUT.html] [--max-records N] [--format F]`: a session
 * (analyze/session/session.h) with one output, the HTML viewer (export/outputs/outputs.h), that writes one
 * self-contained HTML file (temp file + rename, so a bad input leaves nothing behind).
 */
#include "analyze/session/session.h"
#include "cli/args.h"
#include "cli/cli.h"
#include "cli/cpath_window.h"
#include "cli/job.h"
#include "cli/progress.h"
#include "cli/select.h"
#include "export/outputs/outputs.h"
#include "read/readers.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *f) {
    fputs("usage: opscope view PROFILE [-o OUT.html] [--max-records N] [--format F]\n"
          "       opscope view DIR | TRACE... [-o OUT.html] [--max-records N] [--threads N]\n"
          "\n"
          "Write a self-contained HTML timeline of PROFILE ('-' reads stdin): one file, no\n"
          "network access, opens from file:// in any current browser. A folder of traces or\n"
          "several traces are a distributed job: one group of lanes per rank on the traces'\n"
          "shared clock, with the job's per-rank table and stragglers (docs/viewer.md).\n"
          "\n"
          "Options:\n"
          "  -o, --output FILE     where to write (default: PROFILE with its extension replaced\n"
          "                        by .html; required when reading stdin; '-' = stdout)\n"
          "  --max-records N       keep at most N evenly spaced records (0 = all, the default;\n"
          "                        a job: per rank)\n"
          "  --format F            auto (default), ggml, kineto or chrome\n"
          "  --peak FILE|cache     draw the roofs of measured peaks in the roofline chart (a\n"
          "                        file of 'opscope peak --json', or 'cache': this machine's)\n"
          "  --batch N|A-B|A-      only the graph computes of that batch (the widest MUL_MAT's\n"
          "                        rows: 1 = llama.cpp's generation steps; decode|prefill: by\n"
          "                        phase); reads PROFILE twice\n"
          "  --graphs N|A-B|A-     only the graph computes with those graph ids\n"
          OPSCOPE_CLI_CPATH_WINDOW_HELP
          "  --threads N           a job: read N traces at once (default: one per core;\n"
          "                        memory: one rank per thread)\n"
          "  -h, --help            this help\n"
          "\n"
          "Exit status: 0 ok, 1 usage error, 2 bad input or failed output.\n",
          f);
}

#define usage_error(...) opscope_cli_usage_error("view", __VA_ARGS__)

enum { OPT_OUTPUT, OPT_MAX_RECORDS, OPT_PEAK, OPT_FORMAT, OPT_BATCH, OPT_GRAPHS, OPT_THREADS, OPT_CPATH };

static const opscope_cli_opt view_opts[] = {
    {"--output", "-o", OPT_OUTPUT, true},
    {"--max-records", NULL, OPT_MAX_RECORDS, true},
    {"--html-max-records", NULL, OPT_MAX_RECORDS, true}, /* report's name for it */
    {"--peak", NULL, OPT_PEAK, true},
    {"--format", NULL, OPT_FORMAT, true},
    {"--batch", NULL, OPT_BATCH, true},
    {"--graphs", NULL, OPT_GRAPHS, true},
    {"--threads", NULL, OPT_THREADS, true},
    {"--critical-path-annotation", NULL, OPT_CPATH, true},
    {"--critical-path-instance", NULL, OPT_CPATH, true},
};

#define VIEW_MAX_INPUTS 65536

typedef struct view_args {
    const char *input, *output, *peak;
    const char **inputs; /* every operand: several, or a folder, make a job (cli/job_view.c) */
    int n_inputs;
    bool format_set;
    int threads;                         /* --threads N (a job); 0: one per core */
    char *def; /* the default output's path (owned) */
    size_t max_records;
    bool quiet;
    opscope_format format;
    opscope_cli_select select;
    opscope_cli_cpath_window cpath;      /* --critical-path-annotation, --critical-path-instance */
} view_args;

/* One option of the command line into the view_args (CTX). Returns a cli status (cli/cli.h). */
static int on_option(void *ctx, const opscope_cli_arg *o) {
    view_args *a = ctx;
    const char *val = o->val;
    switch (o->id) {
    case OPT_OUTPUT: a->output = val; break;
    case OPT_MAX_RECORDS:
        if (!opscope_cli_parse_count(val, &a->max_records))
            return usage_error("%s: expected a non-negative integer, got '%s'", o->name, val);
        break;
    case OPT_PEAK: a->peak = val; break;
    case OPT_THREADS: {
        size_t t;
        if (!opscope_cli_parse_count(val, &t) || t == 0 || t > 64)
            return usage_error("--threads: expected an integer in 1..64, got '%s'", val);
        a->threads = (int)t;
        break;
    }
    case OPT_FORMAT:
        a->format_set = true;
        if (!strcmp(val, "auto")) a->format = OPSCOPE_FORMAT_AUTO;
        else if (!strcmp(val, "ggml")) a->format = OPSCOPE_FORMAT_GGML;
        else if (!strcmp(val, "kineto")) a->format = OPSCOPE_FORMAT_KINETO;
        else if (!strcmp(val, "chrome")) a->format = OPSCOPE_FORMAT_CHROME;
        else return usage_error("--format: unknown format '%s' (auto, ggml, kineto or chrome)", val);
        break;
    case OPT_BATCH:
    case OPT_GRAPHS: return opscope_cli_select_option("view", &a->select, o->name, val);
    case OPT_CPATH: return opscope_cli_cpath_window_option("view", &a->cpath, o->name, val);
    }
    return OPSCOPE_EXIT_OK;
}

/* PROFILE.json -> PROFILE.html (a trailing .gz is dropped first). Caller frees. */
static char *default_output(const char *in) {
    size_t n = strlen(in);
    char *out = malloc(n + 6);
    if (!out) return NULL;
    memcpy(out, in, n + 1);
    if (n > 3 && !strcmp(out + n - 3, ".gz")) out[n -= 3] = 0;
    char *slash = strrchr(out, '/');
    char *dot = strrchr(out, '.');
    if (dot && (!slash || dot > slash + 1)) *dot = 0;
    strcat(out, ".html");
    return out;
}

/* DIR (trailing slashes dropped) + ".html". Caller frees. */
static char *dir_output(const char *dir) {
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/') n--;
    char *out = malloc(n + 6);
    if (out) snprintf(out, n + 6, "%.*s.html", (int)n, dir);
    return out;
}

/* A job (several traces, or a folder): -o (required for a list), --max-records and -q only.
 * Returns a cli status (cli/cli.h): 0 when valid, else the exit status of the error. */
static int check_job_args(view_args *a) {
    const char *other = a->peak ? "--peak" : a->format_set ? "--format"
                        : opscope_cli_select_any(&a->select) ? "--batch/--graphs"
                        : a->cpath.annotation || a->cpath.instance_set ? "--critical-path-annotation" : NULL;
    if (other) return usage_error("%s: not for a job (a folder or several traces)", other);
    for (int i = 0; i < a->n_inputs; i++)
        if (!strcmp(a->inputs[i], "-")) return usage_error("'-' (stdin) cannot be one rank of a job");
    if (!a->output && a->n_inputs > 1) return usage_error("-o is required for several traces");
    if (!a->output) {
        a->output = a->def = dir_output(a->input);
        if (!a->def) {
            fprintf(stderr, "opscope view: out of memory\n");
            return OPSCOPE_EXIT_INPUT;
        }
    }
    return opscope_cli_check_not_input("view", &a->output, 1, a->inputs, (size_t)a->n_inputs);
}

static bool is_job(const view_args *a) {
    return a->n_inputs > 1 || opscope_cli_job_is_dir(a->input);
}

/* Returns a cli status (cli/cli.h): 0 when A is ready. A->output is the page's path then
 * (A->def: the default one, freed by the caller). */
static int parse_args(int argc, char **argv, view_args *a) {
    const char **inputs = a->inputs;
    memset(a, 0, sizeof *a);
    a->inputs = inputs;
    a->format = OPSCOPE_FORMAT_AUTO;
    opscope_cli_parser p = {.cmd = "view", .usage = usage, OPSCOPE_CLI_OPTS(view_opts), .inputs = a->inputs,
                            .max_inputs = VIEW_MAX_INPUTS, .argc = argc, .argv = argv};
    int st = opscope_cli_parse_profile(&p, on_option, a, &a->quiet, &a->n_inputs, &a->input);
    if (st) return st;
    if (is_job(a)) return check_job_args(a);
    if (a->threads) return usage_error("--threads: only for a job (a folder or several traces)");
    st = opscope_cli_cpath_window_check("view", &a->cpath);
    if (st) return st;
    if (a->cpath.annotation && opscope_cli_select_any(&a->select))
        return usage_error("--critical-path-annotation: not with --batch/--graphs (a trace's option)");
    st = opscope_cli_select_check("view", &a->select, &a->input, 1);
    if (st) return st;
    if (!a->output) {
        if (!strcmp(a->input, "-")) return usage_error("-o is required when reading stdin");
        a->output = a->def = default_output(a->input);
        if (!a->def) {
            fprintf(stderr, "opscope view: out of memory\n");
            return OPSCOPE_EXIT_INPUT;
        }
    }
    return opscope_cli_check_not_input("view", &a->output, 1, &a->input, 1);
}

typedef struct view_done {
    const view_args *a;
    opscope_error *err; /* a failed commit's reason */
} view_done;

/* After the page's commit: why it failed, else its name, the command's result, said also
 * when stderr is no terminal. */
static void on_done(void *ud, const opscope_output *o, const opscope_error *err) {
    view_done *d = ud;
    const view_args *a = d->a;
    if (err) *d->err = *err;
    if (err || a->quiet || !strcmp(a->output, "-")) return;
    uint64_t seen, kept;
    opscope_output_html_counts(o, &seen, &kept);
    fprintf(stderr, "opscope view: wrote %s (%llu of %llu records); open it in a browser\n",
            a->output, (unsigned long long)kept, (unsigned long long)seen);
}

/* Reads A's input into S (a progress line for big files), finishes and commits. Returns 0,
 * -1 with ERR filled, or -2 when the critical path's window asked for is not in the trace
 * (said on stderr; no page). */
static int run(opscope_session_t *s, const view_args *a, opscope_cli_selection *sel, opscope_error *err) {
    opscope_sink sink = opscope_session_sink(s);
    opscope_read_options ro = {0};
    opscope_session_read_options(s, &ro);
    if (opscope_progress_read(a->input, a->format, &sink, &ro, err) != 0) {
        if (err->code == OPSCOPE_ERROR_ABORTED) opscope_session_stopped(s, err);
        return -1;
    }
    opscope_cli_select_note("view", &a->select, a->input, sel);
    if (opscope_session_finish(s, err)) return -1;
    if (opscope_cli_cpath_window_missing("view", a->input, &a->cpath, s)) return -2; /* said: no page */
    view_done d = {a, err};
    return opscope_session_commit(s, on_done, &d);
}

/* One session: the HTML output alone, no stats; a trace's analysis for its CPU side (none
 * under a filter: a trace has no graph ids). */
static int view_one(view_args *a);

int opscope_cli_view(int argc, char **argv) {
    view_args a = {.inputs = malloc(VIEW_MAX_INPUTS * sizeof(const char *))};
    if (!a.inputs) return OPSCOPE_EXIT_INPUT;
    int st = parse_args(argc, argv, &a);
    if (st == OPSCOPE_EXIT_OK && is_job(&a)) {
        opscope_cli_job_view_opts jo = {.inputs = a.inputs, .n_inputs = a.n_inputs, .output = a.output,
                                        .max_records = a.max_records, .threads = a.threads, .quiet = a.quiet};
        st = opscope_cli_job_view(&jo);
    } else if (st == OPSCOPE_EXIT_OK) {
        st = view_one(&a);
    }
    free(a.def);
    free(a.inputs);
    return opscope_cli_exit_status(st);
}

static int view_one(view_args *ap) {
    view_args a = *ap;
    int st;
    opscope_peak peak;
    if (a.peak && (st = opscope_cli_load_peak("view", a.peak, &peak))) return st;
    opscope_error err;
    memset(&err, 0, sizeof err);
    opscope_cli_selection sel;
    opscope_session_t *s = NULL;
    int rc = OPSCOPE_EXIT_INPUT;
    bool said = false; /* the reason is on stderr already */
    if (!opscope_cli_select_open(&a.select, a.input, &sel, &err)) {
        bool filtered = opscope_cli_select_any(&a.select);
        opscope_session_opts so = {.no_stats = true, .kineto = !filtered, .critical_path = !filtered,
                                   .cpath_annotation = a.cpath.annotation, .cpath_instance1 = a.cpath.instance + 1,
                                   .filter = filtered ? &sel.filter : NULL, .filter_desc = sel.desc};
        opscope_output o;
        int r = -1;
        if (!(s = opscope_session_new(&so))) err = (opscope_error){.code = OPSCOPE_ERROR_NOMEM, .msg = "out of memory"};
        else if (!opscope_output_html(&o, a.output, a.input, a.max_records, a.peak ? &peak : NULL, &err) &&
                 !opscope_session_add(s, &o))
            r = run(s, &a, &sel, &err);
        if (!r) rc = OPSCOPE_EXIT_OK;
        said = r == -2;
    }
    if (rc != OPSCOPE_EXIT_OK && !said) opscope_cli_print_error("view", &err);
    opscope_session_free(s);
    opscope_cli_select_close(&sel);
    return rc;
}
