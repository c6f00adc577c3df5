/*
 * diff.c - `opscope diff BASE NEW [options]`: each input is streamed once into its side of
 * the comparison (and, with --html, into a timeline sink); the outputs are written to
 * temporary files and renamed only when both inputs were read, so a bad input leaves nothing.
 */
#include "cli/args.h"
#include "cli/cli.h"
#include "cli/job.h"
#include "cli/select.h"
#include "analyze/diff/diff.h"
#include "analyze/diff/diff_apart.h"
#include "analyze/diff/trace_ops.h"
#include "export/diff/diff_report.h"
#include "export/html/html.h"
#include "read/readers.h"
#include "util/out.h"
#include "cli/progress.h"
#include "model/strtab.h"
#include "analyze/session/session.h"
#include "analyze/session/tee.h"
#include "cli/diff_kind.h"
#include "analyze/ggml/graphs.h"
#include "analyze/ggml/warm_apart.h"
#include "analyze/ggml/warm_defer.h"
#include "analyze/ggml/run_requests.h"
#include "analyze/ggml/run_tests.h"
#include "model/run_info.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DIFF_HTML_MAX_RECORDS 500000
#define DIFF_MAX_INPUTS 64
/* Records held back while a graph compute's warm-up is decided (warm_defer.h). */
#define DIFF_HOLD_BYTES (32u << 20)

typedef struct diff_args {
    const char *in[DIFF_MAX_INPUTS];
    size_t n_in[2];       /* runs per side: BASE is in[0 .. n_in[0]), NEW follows */
    unsigned keys;
    const char *by; /* --by as given */
    const char *json, *text, *html;
    size_t top, html_max_records;
    bool html_max_set, quiet, merge_backends, tests_only, requests_only;
    bool include_warmup, apart_stdin; /* --include-warmup; an input is stdin (read once) */
    double min_share, fail_pct, alpha;
    opscope_diff_norm norm;
    opscope_cli_select select; /* --batch, --graphs */
    opscope_trace_steps steps; /* --steps (all: every profiler step) */
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
            a->tests_only = true;
            a->by = val;
            break;
        }
        if (!strcmp(val, "request")) { /* llama requests side by side, alone */
            a->requests_only = true;
            a->by = val;
            break;
        }
        if (opscope_diff_keys_parse(val, &a->keys, &bad))
            return usage_error("--by: unknown key '%.*s' (op, kernel, shape, category, "
                               "cpu-op, layer, phase; or test or request alone)",
                               (int)strcspn(bad, ","), bad);
        a->by = val;
        break;
    case OPT_JSON: a->json = val; break;
    case OPT_TEXT: a->text = val; break;
    case OPT_HTML: a->html = val; break;
    case OPT_TOP:
        if (!opscope_cli_parse_count(val, &a->top) || a->top == 0)
            return usage_error("--top: expected a positive integer, got '%s'", val);
        break;
    case OPT_MIN_SHARE:
        if (!parse_pct(val, 0, 100, &a->min_share))
            return usage_error("--min-share: expected a percentage in 0..100, got '%s'", val);
        break;
    case OPT_FAIL:
        if (!parse_pct(val, 0, 1e9, &a->fail_pct))
            return usage_error("--fail-on-regression: expected a percentage >= 0, got '%s'",
                               val);
        break;
    case OPT_PER:
        if (!strcmp(val, "auto")) a->norm = OPSCOPE_DIFF_NORM_AUTO;
        else if (!strcmp(val, "none")) a->norm = OPSCOPE_DIFF_NORM_NONE;
        else if (!strcmp(val, "graph")) a->norm = OPSCOPE_DIFF_NORM_GRAPH;
        else if (!strcmp(val, "token")) a->norm = OPSCOPE_DIFF_NORM_TOKEN;
        else if (!strcmp(val, "iteration")) a->norm = OPSCOPE_DIFF_NORM_ITERATION;
        else
            return usage_error("--per: expected auto, none, graph, token or iteration, "
                               "got '%s'", val);
        break;
    case OPT_ALPHA:
        if (!parse_pct(val, 1e-12, 0.5, &a->alpha))
            return usage_error("--alpha: expected a number in (0, 0.5], got '%s'", val);
        break;
    case OPT_HTML_MAX:
        if (!opscope_cli_parse_count(val, &a->html_max_records))
            return usage_error("--html-max-records: expected an integer, got '%s'", val);
        break;
    case OPT_MERGE_BACKENDS: a->merge_backends = true; break;
    case OPT_WARMUP: a->include_warmup = true; break;
    case OPT_BATCH:
    case OPT_GRAPHS: return opscope_cli_select_option("diff", &a->select, o->name, val);
    case OPT_STEPS: {
        opscope_range r;
        if (!opscope_range_parse(val, &r)) return usage_error("--steps: expected N, A-B or A-, got '%s'", val);
        a->steps = (opscope_trace_steps){false, r.lo, r.hi};
        break;
    }
    }
    return OPSCOPE_EXIT_OK;
}

/* Returns a cli status (cli/cli.h): 0 when A is ready. */
static int parse_args(int argc, char **argv, diff_args *a) {
    memset(a, 0, sizeof *a);
    a->steps.all = true;
    a->min_share = 0.5;
    a->fail_pct = -1;
    a->alpha = 0.05;
    a->html_max_records = DIFF_HTML_MAX_RECORDS;
    opscope_cli_parser p = {.cmd = "diff", .usage = usage, OPSCOPE_CLI_OPTS(diff_opts),
                            .inputs = a->in, .max_inputs = DIFF_MAX_INPUTS, .separator = true,
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
    a->n_in[0] = (size_t)p.sep;
    a->n_in[1] = (size_t)(n - p.sep);
    int n_stdin = 0;
    for (int i = 0; i < n; i++) n_stdin += !strcmp(a->in[i], "-");
    if (n_stdin > 1) return usage_error("only one input can be read from stdin");
    a->select.steady = !a->include_warmup && !n_stdin; /* found in a first pass */
    a->apart_stdin = !a->include_warmup && n_stdin;
    st = opscope_cli_select_check("diff", &a->select, a->in, n);
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

/* One input: its side of the diff, the Kineto analysis the trace reader fills, its timeline. */
typedef struct input {
    opscope_diff_side_t *side;
    opscope_strtab_t *names;
    opscope_kineto_t *kin;
    opscope_trace_ops_t *tops; /* the trace's events per name and step, fed before KIN */
    opscope_html_sink_t *html;
    opscope_cli_selection sel; /* --batch, --graphs: of the run being read */
    uint64_t kept, dropped;    /* the filter's counts over the side's runs */
    opscope_diff_kind kind;    /* ggml profile or trace, per run (a mix is refused) */
    opscope_graphs_t *graphs;  /* the first run's graphs and what ran: its llama-bench tests */
    opscope_run_t *run;
    opscope_run_test *tests;
    size_t n_tests;
    opscope_warm_apart *apart; /* per run: its warm-up and outlier graphs (found while read) */
    uint64_t apart_graphs[3], apart_records[3], apart_ns[3]; /* left out, over the runs */
    opscope_run_request *requests;
    size_t n_requests;
    opscope_warm_defer_t *defer; /* the run being read, when its warm-up is found in the read */
} input;

/* The first run's capture.run, copied (the reader's is gone after the read). */
static int catch_meta(void *ud, const opscope_meta *m) {
    input *in = ud;
    if (m->capture && m->capture->run && !in->run) {
        int failed = 0;
        in->run = opscope_run_copy(m->capture->run, &failed);
        if (failed) return -1;
    }
    return 0;
}

static void input_free(input *in) {
    opscope_warm_defer_free(in->defer);
    opscope_diff_side_free(in->side);
    opscope_trace_ops_free(in->tops);
    opscope_kineto_free(in->kin);
    opscope_strtab_free(in->names);
    opscope_html_sink_abort(in->html);
    opscope_cli_select_close(&in->sel);
    opscope_graphs_free(in->graphs);
    opscope_run_free(in->run);
    free(in->tests);
    for (size_t r = 0; in->apart && r < DIFF_MAX_INPUTS; r++) opscope_warm_apart_free(&in->apart[r]);
    free(in->apart);
    free(in->requests);
}

/* How a side's runs are read (read_side, read_input). */
typedef struct read_plan {
    const opscope_cli_select *sel; /* the graph computes read: --batch, --graphs, steady state */
    bool find_apart; /* each run's warm-up and outliers found in its own read (warm_defer.h, steady
                        state without --batch and --graphs only), else known (the side's apart
                        list, or none) before it */
    bool *held;      /* with FIND_APART: cleared when a read must be redone with the lists found */
} read_plan;

/* Reads PATH, run RUN of IN's side (the first one feeds its timeline), only the graph computes
 * PLAN's selection chooses; with its steady state, without the run's warm-up and outlier graphs
 * (IN->apart[RUN]) and the load (the graphs, for llama-bench's tests, still see them unless
 * --batch or --graphs filter too). With PLAN's FIND_APART, IN->apart[RUN] is not known yet but
 * found in this read. Returns 0, or -1 with ERR filled. */
static int read_input(const char *path, input *in, size_t run, const read_plan *plan, opscope_error *err) {
    bool first = run == 0;
    opscope_warm_apart *own = in->apart ? &in->apart[run] : NULL;
    const opscope_warm_apart *apart = plan->find_apart ? NULL : own;
    opscope_warm_apart *found = plan->find_apart ? own : NULL;
    opscope_cli_select one = *plan->sel;
    const opscope_cli_select *sel = &one;
    if (found) {
        memset(found, 0, sizeof *found);
        opscope_format fmt = opscope_detect_file_format(path);
        if (fmt == OPSCOPE_FORMAT_KINETO || fmt == OPSCOPE_FORMAT_CHROME) found = NULL; /* zeros */
        apart = found;
    }
    /* no graph computes (a trace): no warm-up to find, no load before them */
    if (!found && (!apart || !(apart->graphs[0] + apart->graphs[1] + apart->graphs[2]))) one.steady = false;
    opscope_cli_select_close(&in->sel);
    memset(&in->sel, 0, sizeof in->sel);
    if (opscope_cli_select_open(sel, path, &in->sel, err)) return -1;
    in->sel.filter.apart = apart;
    bool filtered = opscope_cli_select_filters(sel), only_steady = filtered && !opscope_cli_select_any(sel);
    opscope_tee tee, outer;
    opscope_tee_init(&tee);
    opscope_tee_init(&outer);
    opscope_tee *whole = only_steady ? &outer : &tee; /* what sees the warm-up too */
    opscope_tee_add(&tee, opscope_diff_side_sink(in->side));
    in->kind.reading = path;
    opscope_tee_add(&tee, opscope_diff_kind_sink(&in->kind));
    /* the page's timeline: the whole run, warm-up and load included (only --batch and --graphs
     * narrow it); its tables are the comparison's */
    if (in->html && first) opscope_tee_add(whole, opscope_html_sink(in->html));
    if (first && in->graphs) {
        opscope_tee_add(whole, opscope_graphs_sink(in->graphs));
        opscope_sink meta = {in, catch_meta, NULL, NULL, NULL};
        opscope_tee_add(whole, meta);
    }
    opscope_sink sink = opscope_tee_sink(&tee);
    if (filtered) {
        in->sel.filter.next = sink;
        sink = opscope_graph_filter_sink(&in->sel.filter);
    }
    opscope_warm_defer_free(in->defer);
    in->defer = NULL;
    if (found) { /* held back until decided, then the filter; PLAIN: no graph computes */
        /* the first run's graphs (fed before the defer, in OUTER) are the rule's */
        opscope_graphs_t *g = first && only_steady ? in->graphs : NULL;
        if (!(in->defer = opscope_warm_defer_new(sink, opscope_tee_sink(&tee), DIFF_HOLD_BYTES, g)))
            return set_nomem(err), -1;
        in->sel.filter.warm_of = opscope_warm_defer_verdict;
        in->sel.filter.warm_ctx = in->defer;
        sink = opscope_warm_defer_sink(in->defer);
    }
    if (only_steady) {
        opscope_tee_add(&outer, sink);
        sink = opscope_tee_sink(&outer);
    }
    opscope_read_options ro = {0};
    /* filled by Kineto and Chrome input only */
    ro.kineto = in->tops ? opscope_trace_ops_collector(in->tops) : opscope_kineto_collector_of(in->kin);
    int rc = opscope_progress_read(path, OPSCOPE_FORMAT_AUTO, &sink, &ro, err);
    if (rc) {
        if (err->code == OPSCOPE_ERROR_ABORTED) set_nomem(err);
        return -1;
    }
    if (in->kin && opscope_kineto_finish(in->kin)) {
        set_nomem(err);
        return -1;
    }
    if (in->defer) {
        bool ok = false;
        if (opscope_warm_defer_check(in->defer, found, &ok)) return set_nomem(err), -1;
        *plan->held &= ok;
    }
    opscope_cli_select_note("diff", sel, path, &in->sel);
    in->kept += in->sel.filter.kept;
    in->dropped += in->sel.filter.dropped;
    for (int k = 0; k < 3; k++) {
        in->apart_records[k] += in->sel.filter.apart_n[k];
        in->apart_ns[k] += in->sel.filter.apart_ns[k];
        if (k && sel->steady && apart) in->apart_graphs[k] += apart->graphs[k];
    }
    return 0;
}

/* The first passes of every input (PATHS, N_IN per side) into IN[s].apart; the steady state
 * is compared only when every input with graph computes has a steady one among those --batch
 * and --graphs choose, else *NO_STEADY names the first input without. Returns 0, or -1 with ERR filled. */
static int find_aparts(const diff_args *a, input in[2], const char *const *paths[2],
                       const char **no_steady, opscope_error *err) {
    *no_steady = NULL;
    opscope_graph_filter f; /* what --batch and --graphs choose, for chosen_steady */
    opscope_cli_select_filter_init(&a->select, &f);
    for (int s = 0; s < 2; s++) {
        in[s].apart = calloc(DIFF_MAX_INPUTS, sizeof *in[s].apart);
        if (!in[s].apart) return set_nomem(err), -1;
        for (size_t r = 0; r < a->n_in[s]; r++) {
            opscope_warm_apart *w = &in[s].apart[r];
            if (opscope_diff_apart_find(paths[s][r], &f, opscope_progress_read, w, err)) return -1;
            uint64_t all = w->graphs[0] + w->graphs[1] + w->graphs[2];
            if (all && !w->chosen_steady && !*no_steady) *no_steady = paths[s][r];
        }
    }
    return 0;
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

/* Reads side IN's runs (PATHS, N of them) as PLAN says (read_input). Returns 0, or -1 with ERR
 * filled. */
static int read_side(const diff_args *a, input *in, const char *const *paths, size_t n,
                     const read_plan *plan, opscope_error *err) {
    in->side = opscope_diff_side_new(a->keys);
    in->names = opscope_strtab_new();
    /* the trace analysis holds one trace: several runs are compared by their kernels */
    bool one = n == 1;
    in->kin = in->names && one ? opscope_kineto_new(in->names) : NULL;
    if (a->html) in->html = opscope_html_sink_new("-", paths[0], a->html_max_records, err);
    if (!in->side || !in->names || (one && !in->kin) || (a->html && !in->html)) return set_nomem(err), -1;
    if (in->kin) {
        opscope_kineto_keep_dims(in->kin); /* work pairs: CPU ops with their dims */
        /* CPU-op records are compared for CPU-only traces; with kernels, kernels are */
        opscope_kineto_cpu_ops_without_gpu_only(in->kin);
        /* the trace ops' tally wraps the collector as now set (it copies what it asks) */
        if (!(in->tops = opscope_trace_ops_new(opscope_kineto_collector_of(in->kin)))) return set_nomem(err), -1;
    }
    if (!(in->graphs = opscope_graphs_new())) return set_nomem(err), -1;
    opscope_diff_side_set_kineto(in->side, in->kin);
    for (size_t r = 0; r < n; r++)
        if (read_input(paths[r], in, r, plan, err)) return -1;
    opscope_warm_defer_free(in->defer); /* the last run's: its verdicts are no longer asked */
    in->defer = NULL;
    return 0;
}

/* IN emptied for another read, its runs' warm-up lists kept. */
static void input_reset(input *in) {
    opscope_warm_apart *apart = in->apart;
    in->apart = NULL;
    input_free(in);
    memset(in, 0, sizeof *in);
    in->apart = apart;
}

/* After side S's read (IN, its first run PATHS[0]): its graphs finished, its llama-bench tests
 * and requests, and the error of a --by test / request without them. Returns 0, or -1 with
 * ERR filled. */
static int finish_side(const diff_args *a, input *in, const char *const *paths, opscope_error *err) {
    if (opscope_graphs_finish(in->graphs) ||
        opscope_run_tests(opscope_run_view(in->run), in->graphs, &in->tests, &in->n_tests) ||
        opscope_run_requests(opscope_run_view(in->run), in->graphs, &in->requests, &in->n_requests, NULL))
        return set_nomem(err), -1;
    /* llama.cpp's warm-ups are no client's requests: left out of the pairing */
    in->n_requests = opscope_run_requests_clients_first(in->requests, in->n_requests);
    if (a->requests_only && !in->n_requests) {
        memset(err, 0, sizeof *err);
        err->code = OPSCOPE_ERROR_USAGE; /* no position: the whole profile lacks them */
        err->msg = "--by request: no llama requests in this profile (its capture saw no "
                   "libllama batches)";
        snprintf(err->file, sizeof err->file, "%s", paths[0]);
        return -1;
    }
    if (a->tests_only && !in->n_tests) {
        memset(err, 0, sizeof *err);
        err->code = OPSCOPE_ERROR_USAGE; /* no position: the whole profile lacks them */
        err->msg = "--by test: no llama-bench tests in this profile (its capture says no "
                   "llama contexts with a warm-up and repetitions)";
        snprintf(err->file, sizeof err->file, "%s", paths[0]);
        return -1;
    }
    return 0;
}

/* Reads each side's runs into IN (PATHS[s], A->n_in[s] of them). With the steady state alone
 * (no --batch, --graphs), each input is read once and its warm-up found in that read; read
 * again, with the lists then known, only when a guess made while reading failed (a stall, far
 * interleaved graphs) or an input has no steady graph. Returns 0, or -1 with ERR filled. */
static int read_sides(const diff_args *a, input in[2], const char *const *paths[2],
                      const char **no_steady, opscope_error *err) {
    opscope_cli_select sel = a->select;
    *no_steady = NULL;
    bool once = sel.steady && !opscope_cli_select_any(&sel), held = true;
    if (once) {
        for (int s = 0; s < 2; s++)
            if (!(in[s].apart = calloc(DIFF_MAX_INPUTS, sizeof *in[s].apart))) return set_nomem(err), -1;
    } else if (sel.steady && find_aparts(a, in, paths, no_steady, err)) {
        return -1;
    }
    if (*no_steady) sel.steady = false;
    read_plan plan = {.sel = &sel, .find_apart = once, .held = &held};
    for (int s = 0; s < 2; s++) /* without ONCE each side is done before the next is read */
        if (read_side(a, &in[s], paths[s], a->n_in[s], &plan, err) ||
            (!once && finish_side(a, &in[s], paths[s], err)))
            return -1;
    if (once) {
        for (int s = 0; s < 2; s++)
            for (size_t r = 0; r < a->n_in[s]; r++) {
                const opscope_warm_apart *w = &in[s].apart[r];
                uint64_t all = w->graphs[0] + w->graphs[1] + w->graphs[2];
                if (all && !w->chosen_steady && !*no_steady) *no_steady = paths[s][r];
            }
        if (*no_steady) sel.steady = false;
        plan.find_apart = false; /* the lists are known now */
        if (!held || *no_steady)
            for (int s = 0; s < 2; s++) {
                input_reset(&in[s]);
                if (read_side(a, &in[s], paths[s], a->n_in[s], &plan, err) ||
                    finish_side(a, &in[s], paths[s], err))
                    return -1;
            }
        else
            for (int s = 0; s < 2; s++)
                if (finish_side(a, &in[s], paths[s], err)) return -1;
    }
    return 0;
}

/* The diff of the two sides read into IN, with V's report options. NULL: *WHY says why, or
 * memory ran out (*WHY NULL). */
static opscope_diff_t *compute(const diff_args *a, input in[2], const char *const *paths[2],
                               const char *no_steady, opscope_diff_view *v, const char **why) {
    /* the key's default and the backend merge depend on what was read */
    unsigned keys = a->keys ? a->keys : OPSCOPE_DIFF_KEY_OP;
    bool merge = a->merge_backends || !opscope_diff_sides_same_backends(in[0].side, in[1].side);
    *why = NULL;
    for (int s = 0; s < 2; s++)
        if (opscope_diff_side_finish(in[s].side, merge)) return NULL;
    if (opscope_diff_sides_pair(in[0].side, in[1].side)) return NULL;
    opscope_diff_opts o = {.keys = keys, .norm = a->norm, .alpha = a->alpha,
                           .min_share = a->min_share, .fail_pct = a->fail_pct,
                           .merged_backends = merge, .by = a->by};
    opscope_diff_report_opts ro = {.base_path = paths[0][0], .new_path = paths[1][0], .top = a->top,
                                   .tests_only = a->tests_only, .requests_only = a->requests_only};
    for (int s = 0; s < 2; s++) {
        ro.paths[s] = paths[s];
        ro.n_paths[s] = a->n_in[s];
        ro.tests[s] = in[s].tests;
        ro.n_tests[s] = in[s].n_tests;
        ro.requests[s] = in[s].requests;
        ro.n_requests[s] = in[s].n_requests;
        v->html[s] = in[s].html;
    }
    if (opscope_cli_select_any(&a->select)) {
        ro.filter = in[0].sel.desc;
        for (int s = 0; s < 2; s++) {
            ro.filter_kept[s] = in[s].kept;
            ro.filter_records[s] = in[s].kept + in[s].dropped;
        }
    }
    ro.apart.on = a->select.steady && !no_steady;
    ro.apart.stdin_read = a->apart_stdin;
    ro.apart.no_steady = no_steady;
    bool graphs = false; /* any input with graph computes (first pass) */
    for (int s = 0; s < 2; s++)
        for (size_t r = 0; in[s].apart && r < a->n_in[s]; r++)
            graphs |= in[s].apart[r].graphs[0] + in[s].apart[r].graphs[1] + in[s].apart[r].graphs[2] > 0;
    ro.apart.no_graphs = a->select.steady && !graphs;
    ro.apart.on &= !ro.apart.no_graphs;
    for (int s = 0; s < 2; s++)
        for (int k = 0; k < 3; k++) {
            ro.apart.graphs[s][k] = in[s].apart_graphs[k];
            ro.apart.records[s][k] = in[s].apart_records[k];
            ro.apart.ns[s][k] = in[s].apart_ns[k];
        }
    v->ro = ro;
    return opscope_diff_new(in[0].side, in[1].side, &o, why);
}

/* Two traces' events per name over A's steps into *C (its section), when both sides are one
 * Kineto trace; --steps of inputs that are not is an error. Returns 0, or the exit status. */
static int trace_ops(const diff_args *a, input in[2], const char *const *paths[2], opscope_trace_ops_cmp *c) {
    bool traces = true;
    for (int s = 0; s < 2; s++) traces &= in[s].tops && opscope_kineto_get_info(in[s].kin)->is_kineto;
    if (!traces) {
        if (a->steps.all) return 0;
        fprintf(stderr, "opscope diff: --steps: for one PyTorch (Kineto) trace a side\n");
        return OPSCOPE_EXIT_INPUT;
    }
    for (int s = 0; s < 2; s++) {
        int64_t first, last;
        int rc = opscope_trace_ops_finish(in[s].tops, &a->steps, &first, &last);
        if (rc < 0) return fprintf(stderr, "opscope diff: out of memory\n"), OPSCOPE_EXIT_INPUT;
        if (rc && first < 0) fprintf(stderr, "opscope diff: --steps: %s has no ProfilerStep#N\n", paths[s][0]);
        else if (rc) fprintf(stderr, "opscope diff: --steps: %s has ProfilerStep#%" PRId64 " to #%" PRId64 ", none chosen\n",
                             paths[s][0], first, last);
        if (rc) return OPSCOPE_EXIT_INPUT;
    }
    if (opscope_trace_ops_compare(in[0].tops, in[1].tops, c))
        return fprintf(stderr, "opscope diff: out of memory\n"), OPSCOPE_EXIT_INPUT;
    c->chosen = !a->steps.all;
    return 0;
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
    if (a.n_in[0] == 1 && a.n_in[1] == 1 && opscope_cli_job_diff_wanted(a.in[0], a.in[1])) {
        if (a.text || a.html) return usage_error("%s: not for two jobs (only --json)", a.text ? "--text" : "--html");
        return opscope_cli_job_diff(a.in[0], a.in[1], a.json, a.quiet);
    }
    opscope_error err;
    memset(&err, 0, sizeof err);
    int status = OPSCOPE_EXIT_INPUT;
    input in[2];
    memset(in, 0, sizeof in);
    opscope_diff_t *d = NULL;
    opscope_trace_ops_cmp tcmp = {0};
    opscope_diff_view v;
    memset(&v, 0, sizeof v);
    /* a session of outputs only: each side's analysis is its diff side */
    opscope_session_opts so = {0};
    opscope_session_t *s = opscope_session_new(&so);
    const char *const *paths[2] = {a.in, a.in + a.n_in[0]};
    const char *why = NULL, *no_steady = NULL;
    if (!s) set_nomem(&err);
    if (!s || add_outputs(s, &a, &v, &err) || read_sides(&a, in, paths, &no_steady, &err)) goto fail_err;
    char refusal[1024];
    why = opscope_diff_kind_refusal(&in[0].kind, &in[1].kind, refusal, sizeof refusal);
    if (why) {
        fprintf(stderr, "opscope diff: %s\n", why);
        goto fail;
    }
    d = compute(&a, in, paths, no_steady, &v, &why);
    if (!d && why) {
        fprintf(stderr, "opscope diff: %s\n", why);
        goto fail;
    }
    if (!d) set_nomem(&err);
    if (d && trace_ops(&a, in, paths, &tcmp)) goto fail;
    v.ro.trace_ops = tcmp.cpu ? &tcmp : NULL;
    v.d = d;
    if (!d || opscope_session_finish(s, &err)) goto fail_err;
    status = opscope_session_commit(s, on_done, &a) ? OPSCOPE_EXIT_INPUT : OPSCOPE_EXIT_OK;
    if (status == OPSCOPE_EXIT_OK && opscope_diff_failed(d)) status = OPSCOPE_EXIT_REGRESSION;
    goto done;
fail_err:
    opscope_cli_print_error(NULL, &err);
fail:
    status = OPSCOPE_EXIT_INPUT;
done:
    opscope_session_free(s);
    opscope_diff_free(d);
    opscope_trace_ops_cmp_free(&tcmp);
    for (int i = 0; i < 2; i++) input_free(&in[i]);
    return status;
}
