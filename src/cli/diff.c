/*
 * diff.c - `opscope diff BASE NEW [options]`: the options, the outputs and the --html page's
 * timelines; both sides are read and compared by analyze/diff/diff_load.c (each input streamed
 * once into its side, read again only when its warm-up guess failed). The outputs are written
 * to temporary files and renamed only when both inputs were read, so a bad input leaves nothing.
 */
#include "cli/args.h"
#include "cli/cli.h"
#include "cli/job.h"
#include "cli/progress.h"
#include "cli/select.h"
#include "analyze/diff/diff_load.h"
#include "analyze/session/session.h"
#include "export/diff/diff_report.h"
#include "export/diff/diff_view.h"
#include "export/html/html.h"
#include "util/out.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DIFF_HTML_MAX_RECORDS 500000

typedef struct diff_args {
    const char *in[OPSCOPE_DIFF_MAX_INPUTS];
    const char *json, *text, *html;
    size_t top, html_max_records;
    bool quiet;
    opscope_diff_load_opts lo; /* the sides, --by, --per, --batch, --graphs, --steps... */
} diff_args;

static void usage(FILE *f) {
    fputs("usage: opscope diff BASE NEW [options]\n"
          "       opscope diff BASE1 BASE2... -- NEW1 NEW2... [options]\n"
          "       opscope diff JOB_DIR_A JOB_DIR_B [--json FILE] [-q]   (two distributed jobs:\n"
          "       folders of traces or job summaries, rank by rank; docs/job.md)\n"
          "\n"
          "Compare two profiles or traces (ggml profiles v2/v3, Kineto, Chrome; '.gz' read\n"
          "directly; '-' reads one of them from stdin): groups aligned by a key, sorted by the\n"
          "size of their change, each change tested against the noise. With several runs per\n"
          "side ('--' between them) the noise is the spread of the runs' totals; with one, it\n"
          "is estimated within each run (per-graph times).\n"
          "\n"
          "Options:\n"
          "  --by KEY[,KEY...]        op (default; on traces the CPU op and input dims that\n"
          "                           launched the kernels), kernel, shape, category,\n"
          "                           cpu-op, layer, phase; or test (llama-bench's tests)\n"
          "                           or request (llama requests) alone, side by side\n"
          "  --merge-backends         op/kernel/shape over all backends (automatic when the\n"
          "                           runs' backend names differ)\n"
          "  --per UNIT               auto (default), none, graph, token or iteration: compare\n"
          "                           runs of different length per unit (auto: the finest unit\n"
          "                           both runs have, when they differ in it)\n"
          "  --batch N|A-B|A-         only the graph computes of that batch on both sides (the\n"
          "                           widest MUL_MAT's rows: 1 = llama.cpp's generation\n"
          "                           steps; decode|prefill: by phase); reads each input twice\n"
          "  --graphs N|A-B|A-        only the graph computes with those ids on both sides\n"
          "  --steps N|A-B|A-         traces: the Trace ops section (count and time per name,\n"
          "                           CPU side and GPU side) over ProfilerStep#N of those N\n"
          "                           (default: every step)\n"
          "  --include-warmup         compare the warm-up too: by default the first compute of\n"
          "                           each graph topology, graphs over 10x their batch's median\n"
          "                           wall and the records before the first compute (load) are\n"
          "                           left out, found while each input is read\n"
          "  --top N                  console rows (default 30)\n"
          "  --min-share PCT          leave out groups under PCT% of the time on both sides\n"
          "                           (default 0.5; also the floor of the regression check)\n"
          "  --alpha P                significance level of the noise test (default 0.05)\n"
          "  --fail-on-regression PCT exit 3 when the total, or a group above --min-share,\n"
          "                           got slower by more than PCT% beyond the noise\n"
          "                           (one-sided test at --alpha)\n"
          "  --json FILE              the comparison as JSON\n"
          "  --text FILE              plain-text report (every group, full names)\n"
          "  --html FILE              self-contained page: both timelines and the table\n"
          "  --html-max-records N     records kept per timeline (default 500000, 0 = all)\n"
          "  -q, --quiet              no summary on stdout\n"
          "  -h, --help               this help\n"
          "\n"
          "FILE '-' writes to stdout (the summary is then left out).\n"
          "Exit status: 0 ok, 1 usage error, 2 bad input or failed output, 3 regression.\n",
          f);
}

#define usage_error(...) opscope_cli_usage_error("diff", __VA_ARGS__)

static bool parse_pct(const char *s, double lo, double hi, double *out) {
    if (!s || !*s) return false;
    char *e;
    errno = 0;
    double v = strtod(s, &e);
    if (*e == '%') e++;
    if (*e || errno || !isfinite(v) || v < lo || v > hi) return false;
    *out = v;
    return true;
}

enum {
    OPT_BY, OPT_JSON, OPT_TEXT, OPT_HTML, OPT_TOP, OPT_MIN_SHARE, OPT_FAIL, OPT_PER, OPT_ALPHA,
    OPT_HTML_MAX, OPT_MERGE_BACKENDS, OPT_BATCH, OPT_GRAPHS, OPT_WARMUP, OPT_STEPS
};

static const opscope_cli_opt diff_opts[] = {
    {"--by", NULL, OPT_BY, true},
    {"--json", NULL, OPT_JSON, true},
    {"--text", NULL, OPT_TEXT, true},
    {"--html", NULL, OPT_HTML, true},
    {"--top", NULL, OPT_TOP, true},
    {"--min-share", NULL, OPT_MIN_SHARE, true},
    {"--fail-on-regression", NULL, OPT_FAIL, true},
    {"--per", NULL, OPT_PER, true},
    {"--alpha", NULL, OPT_ALPHA, true},
    {"--html-max-records", NULL, OPT_HTML_MAX, true},
    {"--merge-backends", NULL, OPT_MERGE_BACKENDS, false},
    {"--batch", NULL, OPT_BATCH, true},
    {"--graphs", NULL, OPT_GRAPHS, true},
    {"--include-warmup", NULL, OPT_WARMUP, false},
    {"--steps", NULL, OPT_STEPS, true},
};

/* One option of the command line into the diff_args (CTX). Returns a cli status (cli/cli.h). */
static int on_option(void *ctx, const opscope_cli_arg *o) {
    diff_args *a = ctx;
    const char *val = o->val, *bad = NULL;
    switch (o->id) {
    case OPT_BY:
        if (!strcmp(val, "test")) { /* llama-bench's tests side by side, alone */
            a->lo.tests_only = true;
            a->lo.by = val;
            break;
        }
        if (!strcmp(val, "request")) { /* llama requests side by side, alone */
            a->lo.requests_only = true;
            a->lo.by = val;
            break;
        }
        if (opscope_diff_keys_parse(val, &a->lo.keys, &bad))
            return usage_error("--by: unknown key '%.*s' (op, kernel, shape, category, "
                               "cpu-op, layer, phase; or test or request alone)",
                               (int)strcspn(bad, ","), bad);
        a->lo.by = val;
        break;
    case OPT_JSON: a->json = val; break;
    case OPT_TEXT: a->text = val; break;
    case OPT_HTML: a->html = val; break;
    case OPT_TOP:
        if (!opscope_cli_parse_count(val, &a->top) || a->top == 0)
            return usage_error("--top: expected a positive integer, got '%s'", val);
        break;
    case OPT_MIN_SHARE:
        if (!parse_pct(val, 0, 100, &a->lo.min_share))
            return usage_error("--min-share: expected a percentage in 0..100, got '%s'", val);
        break;
    case OPT_FAIL:
        if (!parse_pct(val, 0, 1e9, &a->lo.fail_pct))
            return usage_error("--fail-on-regression: expected a percentage >= 0, got '%s'",
                               val);
        break;
    case OPT_PER:
        if (opscope_diff_norm_parse(val, &a->lo.norm))
            return usage_error("--per: expected auto, none, graph, token or iteration, "
                               "got '%s'", val);
        break;
    case OPT_ALPHA:
        if (!parse_pct(val, 1e-12, 0.5, &a->lo.alpha))
            return usage_error("--alpha: expected a number in (0, 0.5], got '%s'", val);
        break;
    case OPT_HTML_MAX:
        if (!opscope_cli_parse_count(val, &a->html_max_records))
            return usage_error("--html-max-records: expected an integer, got '%s'", val);
        break;
    case OPT_MERGE_BACKENDS: a->lo.merge_backends = true; break;
    case OPT_WARMUP: a->lo.include_warmup = true; break;
    case OPT_BATCH:
    case OPT_GRAPHS: return opscope_cli_select_option("diff", &a->lo.select, o->name, val);
    case OPT_STEPS: {
        opscope_range r;
        if (!opscope_range_parse(val, &r)) return usage_error("--steps: expected N, A-B or A-, got '%s'", val);
        a->lo.steps = (opscope_trace_steps){false, r.lo, r.hi};
        break;
    }
    }
    return OPSCOPE_EXIT_OK;
}

/* Returns a cli status (cli/cli.h): 0 when A is ready. */
static int parse_args(int argc, char **argv, diff_args *a) {
    memset(a, 0, sizeof *a);
    opscope_diff_load_opts_init(&a->lo, opscope_progress_read);
    a->lo.msg = stderr;
    a->html_max_records = DIFF_HTML_MAX_RECORDS;
    opscope_cli_parser p = {.cmd = "diff", .usage = usage, OPSCOPE_CLI_OPTS(diff_opts),
                            .inputs = a->in, .max_inputs = OPSCOPE_DIFF_MAX_INPUTS, .separator = true,
                            .argc = argc, .argv = argv};
    int st = opscope_cli_parse(&p, on_option, a);
    if (st) return st;
    a->quiet = p.quiet;
    int n = p.n_inputs;
    if (p.sep < 0) {
        if (n > 2)
            return usage_error("more than two inputs: put '--' between the BASE runs and "
                               "the NEW runs");
        if (n < 2) return usage_error(n ? "missing NEW" : "missing BASE and NEW");
        p.sep = 1;
    }
    if (p.sep == 0 || p.sep == n)
        return usage_error(p.sep ? "no NEW run after '--'" : "no BASE run before '--'");
    a->lo.n_in[0] = (size_t)p.sep;
    a->lo.n_in[1] = (size_t)(n - p.sep);
    a->lo.paths[0] = a->in;
    a->lo.paths[1] = a->in + p.sep;
    int n_stdin = 0;
    for (int i = 0; i < n; i++) n_stdin += !strcmp(a->in[i], "-");
    if (n_stdin > 1) return usage_error("only one input can be read from stdin");
    st = opscope_cli_select_check("diff", &a->lo.select, a->in, n);
    if (st) return st;
    const char *outs[] = {a->json, a->text, a->html};
    st = opscope_cli_check_outputs("diff", "outputs", outs, 3);
    if (st) return st;
    int to_stdout = 0;
    for (int i = 0; i < 3; i++)
        if (outs[i] && !strcmp(outs[i], "-")) to_stdout++;
    if (to_stdout > 1) return usage_error("only one output can go to stdout");
    return opscope_cli_check_not_input("diff", outs, 3, a->in, (size_t)n);
}

static void set_nomem(opscope_error *err) {
    memset(err, 0, sizeof *err);
    err->code = OPSCOPE_ERROR_NOMEM;
    err->msg = "out of memory";
}

/* The outputs A asks for, opened before any reading (an unwritable path fails first), in the
 * order they commit; the console last, unless quiet or an output goes to stdout. Each writes
 * V at finish. Returns 0, or -1 with ERR filled. */
static int add_outputs(opscope_session_t *s, const diff_args *a, const opscope_diff_view *v,
                       opscope_error *err) {
    const struct {
        const char *path;
        opscope_diff_out_kind kind;
    } want[] = {{a->json, OPSCOPE_DIFF_OUT_JSON}, {a->text, OPSCOPE_DIFF_OUT_TEXT},
                {a->html, OPSCOPE_DIFF_OUT_HTML}};
    bool taken = false;
    opscope_output o;
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        if (!want[i].path) continue;
        taken |= !strcmp(want[i].path, "-");
        opscope_out_t *w = opscope_out_open(want[i].path, err);
        if (!w || opscope_output_diff(&o, w, want[i].kind, v, err)) return -1;
        o.path = want[i].path;
        if (opscope_session_add(s, &o)) return set_nomem(err), -1;
    }
    if (a->quiet || taken) return 0;
    opscope_out_t *con = opscope_out_from_file(stdout, err);
    if (!con) return 0; /* no summary, as before any output */
    if (opscope_output_diff(&o, con, OPSCOPE_DIFF_OUT_CONSOLE, v, err)) return -1;
    return opscope_session_add(s, &o) ? (set_nomem(err), -1) : 0;
}

/* The --html page's timelines: each side's first run, fed during the load's reads. */
typedef struct timelines {
    opscope_html_sink_t *html[2];
    size_t max_records;
} timelines;

static int timeline_open(void *ud, int side, const char *first, opscope_sink *sink) {
    timelines *t = ud;
    opscope_error err;
    t->html[side] = opscope_html_sink_new("-", first, t->max_records, &err);
    if (!t->html[side]) return -1;
    *sink = opscope_html_sink(t->html[side]);
    return 0;
}

static void timeline_drop(void *ud, int side) {
    timelines *t = ud;
    opscope_html_sink_abort(t->html[side]);
    t->html[side] = NULL;
}

/* After each commit: the file it wrote, or why not (the console says nothing). */
static void on_done(void *ud, const opscope_output *o, const opscope_error *err) {
    const diff_args *a = ud;
    if (err && o->path) opscope_cli_print_error(NULL, err);
    else if (!err && o->path) opscope_cli_wrote("diff", o->path, o->name + 2, a->quiet);
}

int opscope_cli_diff(int argc, char **argv) {
    diff_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc) return opscope_cli_exit_status(rc);
    if (a.lo.n_in[0] == 1 && a.lo.n_in[1] == 1 && opscope_cli_job_diff_wanted(a.in[0], a.in[1])) {
        if (a.text || a.html) return usage_error("%s: not for two jobs (only --json)", a.text ? "--text" : "--html");
        return opscope_cli_job_diff(a.in[0], a.in[1], a.json, a.quiet);
    }
    opscope_error err;
    memset(&err, 0, sizeof err);
    int status = OPSCOPE_EXIT_INPUT;
    opscope_diff_load_t *l = NULL;
    opscope_diff_view v;
    memset(&v, 0, sizeof v);
    timelines tl = {.max_records = a.html_max_records};
    opscope_diff_timeline tlo = {timeline_open, timeline_drop, &tl};
    if (a.html) a.lo.timeline = &tlo;
    /* a session of outputs only: each side's analysis is its diff side */
    opscope_session_opts so = {0};
    opscope_session_t *s = opscope_session_new(&so);
    char why[8192]; /* a refusal names paths */
    if (!s) set_nomem(&err);
    if (!s || add_outputs(s, &a, &v, &err)) goto fail_err;
    rc = opscope_diff_load(&a.lo, &l, &err, why, sizeof why);
    if (rc > 0) {
        fprintf(stderr, "opscope diff: %s\n", why);
        goto fail;
    }
    if (rc) goto fail_err;
    opscope_diff_view_fill(&v, l, &a.lo, a.top);
    v.html[0] = tl.html[0];
    v.html[1] = tl.html[1];
    if (opscope_session_finish(s, &err)) goto fail_err;
    status = opscope_session_commit(s, on_done, &a) ? OPSCOPE_EXIT_INPUT : OPSCOPE_EXIT_OK;
    if (status == OPSCOPE_EXIT_OK && opscope_diff_failed(v.d)) status = OPSCOPE_EXIT_REGRESSION;
    goto done;
fail_err:
    opscope_cli_print_error(NULL, &err);
fail:
    status = OPSCOPE_EXIT_INPUT;
done:
    opscope_session_free(s);
    opscope_diff_load_free(l);
    return status;
}
