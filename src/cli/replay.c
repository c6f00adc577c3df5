/*
 * replay.c - `opscope replay PROFILE [-b BACKEND]...`: a profile's unique graph ops re-run in
 * isolation by test-backend-ops on each backend, joined back to what the model spent on them.
 *
 * The ops are exported as for `report --export-ops`, test-backend-ops runs the file once per
 * backend (replay_run.c), and each row (a line and the backend it ran on in the model) gets
 * its count, in-model time per call and isolated time per call on every backend. The
 * projection of a backend is the sum of count x isolated time; rows whose in-model time is
 * more than --flag times away from the isolated time on the same backend are flagged.
 */
#include "cli/args.h"
#include "cli/cli.h"
#include "cli/progress.h"
#include "cli/select.h"
#include "cli/replay_run.h"
#include "export/ops_export.h"
#include "util/out.h"
#include "util/sort.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_BACKENDS 16

typedef struct replay_args {
    const char *input, *tbo, *json, *export_ops, *mode;
    const char *backends[MAX_BACKENDS];
    int n_backends;
    double flag, timeout;
    bool quiet;
    opscope_cli_select select; /* --batch, --graphs */
} replay_args;

static void usage(FILE *f) {
    fputs("usage: opscope replay PROFILE [-b BACKEND]... [--test-backend-ops PATH] [--json FILE]\n"
          "\n"
          "Re-run every unique graph op of a ggml profile in isolation with llama.cpp's\n"
          "test-backend-ops (perf --test-file), once per backend, and join the isolated times\n"
          "back to the profile: per op and shape, the count, the in-model time per call and\n"
          "the isolated time per call on each backend; the projected total per backend (count\n"
          "x isolated time: this model's ops on that backend); and the rows whose in-model\n"
          "time is far from their isolated time on the same backend.\n"
          "\n"
          "Options:\n"
          "  -b, --backend NAME       a backend to replay on, as test-backend-ops names it\n"
          "                           (CPU, Vulkan0, CUDA0...); repeatable; default: the\n"
          "                           backends the profile's ops ran on\n"
          "  --test-backend-ops PATH  the test-backend-ops to run (default: PATH, then Debian's\n"
          "                           /usr/libexec/<arch>/llama.cpp-tests/ and .../ggml/)\n"
          "  --json FILE              the rows and the projection as JSON ('-' = stdout)\n"
          "  --export-ops FILE        also keep the exported graph-op file\n"
          "  --flag X                 flag rows whose in-model and isolated times per call\n"
          "                           differ by more than X times (default 2)\n"
          "  --mode perf|test         test-backend-ops mode (default perf; 'test' checks the\n"
          "                           results against the CPU and times nothing)\n"
          "  --timeout SECONDS        kill test-backend-ops when it prints nothing for that\n"
          "                           long (a hung op: marked failed, the rest still run;\n"
          "                           default 300, 0 = no limit)\n"
          "  --batch N|A-B|A-         only the ops of the graph computes of that batch (the\n"
          "                           widest MUL_MAT's rows: 1 = llama.cpp's generation\n"
          "                           steps; decode|prefill: by phase); reads PROFILE twice\n"
          "  --graphs N|A-B|A-        only the ops of the graph computes with those ids\n"
          "  -q, --quiet              no table on stdout\n"
          "  -h, --help               this help\n"
          "\n"
          "Each op runs for at least a second per backend (test-backend-ops' perf loop).\n"
          "Exit status: 0 ok, 1 usage error, 2 bad input, test-backend-ops missing or failing\n"
          "on a whole backend.\n",
          f);
}

#define usage_error(...) opscope_cli_usage_error("replay", __VA_ARGS__)

enum { OPT_BACKEND, OPT_TBO, OPT_JSON, OPT_EXPORT_OPS, OPT_FLAG, OPT_MODE, OPT_TIMEOUT, OPT_BATCH, OPT_GRAPHS };

static const opscope_cli_opt replay_opts[] = {
    {"--backend", "-b", OPT_BACKEND, true},
    {"--test-backend-ops", NULL, OPT_TBO, true},
    {"--json", NULL, OPT_JSON, true},
    {"--export-ops", NULL, OPT_EXPORT_OPS, true},
    {"--flag", NULL, OPT_FLAG, true},
    {"--mode", NULL, OPT_MODE, true},
    {"--timeout", NULL, OPT_TIMEOUT, true},
    {"--batch", NULL, OPT_BATCH, true},
    {"--graphs", NULL, OPT_GRAPHS, true},
};

/* One option of the command line into the replay_args (CTX). Returns -1, or the exit status. */
static int on_option(void *ctx, const opscope_cli_arg *o) {
    replay_args *a = ctx;
    const char *val = o->val;
    switch (o->id) {
    case OPT_BACKEND:
        if (a->n_backends == MAX_BACKENDS)
            return usage_error("at most %d backends", MAX_BACKENDS);
        for (int k = 0; k < a->n_backends; k++)
            if (!strcmp(a->backends[k], val))
                return usage_error("backend '%s' given twice", val);
        a->backends[a->n_backends++] = val;
        break;
    case OPT_TBO: a->tbo = val; break;
    case OPT_JSON: a->json = val; break;
    case OPT_EXPORT_OPS: a->export_ops = val; break;
    case OPT_FLAG: {
        char *end;
        a->flag = strtod(val, &end);
        if (*end || !(a->flag > 1.0) || !isfinite(a->flag))
            return usage_error("--flag: expected a number above 1, got '%s'", val);
        break;
    }
    case OPT_TIMEOUT: {
        char *end;
        a->timeout = strtod(val, &end);
        if (*end || !(a->timeout >= 0) || !isfinite(a->timeout) || a->timeout > 86400)
            return usage_error("--timeout: expected seconds from 0 to 86400, got '%s'", val);
        break;
    }
    case OPT_MODE:
        if (strcmp(val, "perf") && strcmp(val, "test"))
            return usage_error("--mode: expected perf or test, got '%s'", val);
        a->mode = val;
        break;
    case OPT_BATCH:
    case OPT_GRAPHS: return opscope_cli_select_option("replay", &a->select, o->name, val);
    }
    return -1;
}

static int parse_args(int argc, char **argv, replay_args *a) {
    memset(a, 0, sizeof *a);
    a->flag = 2.0;
    a->timeout = 300;
    a->mode = "perf";
    opscope_cli_parser p = {.cmd = "replay", .usage = usage, .version = true, OPSCOPE_CLI_OPTS(replay_opts),
                            .inputs = &a->input, .max_inputs = 1, .argc = argc, .argv = argv};
    int st = opscope_cli_parse(&p, on_option, a);
    if (st >= 0) return st;
    a->quiet = p.quiet;
    if (!a->input) return usage_error("missing PROFILE");
    st = opscope_cli_select_check("replay", &a->select, &a->input, 1);
    if (st >= 0) return st;
    if (a->json && a->export_ops && !strcmp(a->json, a->export_ops) && strcmp(a->json, "-"))
        return usage_error("--json and --export-ops write the same file '%s'", a->json);
    return -1;
}

/* One row: a line and the (captured backend, fused group) its records ran as. */
typedef struct row {
    size_t line;
    const opscope_ops_line *l;
    const opscope_ops_use *u;
} row;

static int row_cmp(const void *pa, const void *pb) {
    const row *a = pa, *b = pb;
    if (a->u->total_ns != b->u->total_ns) return a->u->total_ns > b->u->total_ns ? -1 : 1;
    return a->line < b->line ? -1 : a->line > b->line;
}

typedef struct replay {
    replay_args *a;
    const opscope_ops_export_t *x;
    const char *backends[MAX_BACKENDS];
    int n_b;
    replay_result *res[MAX_BACKENDS]; /* [backend][line] */
    bool failed[MAX_BACKENDS];        /* test-backend-ops ran nothing there */
    row *rows;
    size_t n_rows;
} replay;

static int backend_index(const replay *r, const char *name) {
    for (int b = 0; b < r->n_b; b++)
        if (!strcmp(r->backends[b], name)) return b;
    return -1;
}

static double model_avg_ns(const row *w) {
    return w->u->count ? (double)w->u->total_ns / (double)w->u->count : 0.0;
}

/* In-model (the median call: a few calls a loaded machine stalled must not decide it) over
 * isolated time per call on the row's own backend, 0 when not replayed. */
static double fidelity(const replay *r, const row *w) {
    int b = backend_index(r, w->u->backend);
    if (b < 0 || r->res[b][w->line].status != REPLAY_OK || r->res[b][w->line].time_us <= 0)
        return 0.0;
    return (double)w->u->median_ns / (r->res[b][w->line].time_us * 1e3);
}

static bool flagged(const replay *r, const row *w) {
    double f = fidelity(r, w);
    return f > 0 && (f > r->a->flag || f < 1.0 / r->a->flag);
}

static void op_label(const row *w, char *buf, size_t size) {
    const opscope_ops_line *l = w->l;
    int n = snprintf(buf, size, "%s", l->op);
    if (l->sub_op && n >= 0 && (size_t)n < size) n += snprintf(buf + n, size - (size_t)n, "(%s)", l->sub_op);
    if (w->u->fused && n >= 0 && (size_t)n < size)
        snprintf(buf + n, size - (size_t)n, " [fused: %s]", w->u->fused);
}

/* Sums of one replay backend over every row. */
typedef struct projection {
    double projected_ns;      /* count x isolated per call, rows with a time */
    uint64_t model_ns;        /* in-model time of those same rows */
    size_t rows_timed, lines_timed, lines_unsupported, lines_failed;
} projection;

static projection project(const replay *r, int b) {
    projection p = {0};
    for (size_t i = 0; i < r->n_rows; i++) {
        const replay_result *s = &r->res[b][r->rows[i].line];
        if (s->status != REPLAY_OK) continue;
        p.projected_ns += (double)r->rows[i].u->count * s->time_us * 1e3;
        p.model_ns += r->rows[i].u->total_ns;
        p.rows_timed++;
    }
    size_t n = opscope_ops_export_n_lines(r->x);
    for (size_t i = 0; i < n; i++) {
        replay_status st = r->res[b][i].status;
        p.lines_timed += st == REPLAY_OK;
        p.lines_unsupported += st == REPLAY_UNSUPPORTED;
        p.lines_failed += st == REPLAY_FAILED || st == REPLAY_MISMATCH || st == REPLAY_NONE;
    }
    return p;
}

static void print_us(FILE *f, double ns, int width) {
    if (ns <= 0) fprintf(f, " %*s", width, "-");
    else fprintf(f, " %*.2f", width, ns / 1e3);
}

static void print_console(const replay *r) {
    FILE *f = stdout;
    size_t n_lines = opscope_ops_export_n_lines(r->x);
    uint64_t total = 0;
    for (size_t i = 0; i < r->n_rows; i++) total += r->rows[i].u->total_ns;
    fprintf(f, "Replay of %s: %zu unique ops (%" PRIu64 " of %" PRIu64 " op records), "
               "test-backend-ops %s on",
            r->a->input, n_lines, opscope_ops_export_records_exported(r->x),
            opscope_ops_export_records(r->x), r->a->mode);
    for (int b = 0; b < r->n_b; b++) fprintf(f, " %s", r->backends[b]);
    /* whose time each column is: the profile's calls, or test-backend-ops's runs */
    fprintf(f, "\n  model mean us, model median us: the op's calls in the profile; BACKEND us: "
               "test-backend-ops's time per run in isolation\n");
    fprintf(f, "\n  %4s %-34s %-9s %7s %11s %11s", "line", "op", "ran on", "count", "model mean",
            "model med");
    for (int b = 0; b < r->n_b; b++) {
        char h[40];
        snprintf(h, sizeof h, "%s us", r->backends[b]);
        fprintf(f, " %11s", h);
    }
    fprintf(f, " %9s  shape\n", "model/iso");
    for (size_t i = 0; i < r->n_rows; i++) {
        const row *w = &r->rows[i];
        char label[160];
        op_label(w, label, sizeof label);
        fprintf(f, "  %4zu %-34.34s %-9.9s %7" PRIu64, w->line + 1, label, w->u->backend,
                w->u->count);
        print_us(f, model_avg_ns(w), 11);
        print_us(f, (double)w->u->median_ns, 11);
        for (int b = 0; b < r->n_b; b++) {
            const replay_result *s = &r->res[b][w->line];
            if (s->status == REPLAY_OK) print_us(f, s->time_us * 1e3, 11);
            else fprintf(f, " %11s", s->status == REPLAY_UNSUPPORTED ? "unsupported"
                                     : r->failed[b]                 ? "-"
                                                                    : "failed");
        }
        double fi = fidelity(r, w);
        if (fi > 0) fprintf(f, " %8.2fx%s", fi, flagged(r, w) ? "!" : " ");
        else fprintf(f, " %9s ", "-");
        fprintf(f, " %s\n", w->l->shape);
    }

    fprintf(f, "\nThis model on each backend (count x isolated time per call, summed over the "
               "rows; in-model op time of the same rows %.3f ms):\n",
            (double)total / 1e6);
    for (int b = 0; b < r->n_b; b++) {
        if (r->failed[b]) {
            fprintf(f, "  %-10s no result (test-backend-ops ran nothing there)\n", r->backends[b]);
            continue;
        }
        projection p = project(r, b);
        fprintf(f, "  %-10s %10.3f ms projected, %zu/%zu ops timed", r->backends[b],
                p.projected_ns / 1e6, p.lines_timed, n_lines);
        if (p.lines_unsupported) fprintf(f, ", %zu not supported", p.lines_unsupported);
        if (p.lines_failed) fprintf(f, ", %zu failed", p.lines_failed);
        if (p.model_ns && p.rows_timed < r->n_rows)
            fprintf(f, " (those rows took %.3f ms in the model)", (double)p.model_ns / 1e6);
        fputc('\n', f);
    }

    size_t n_flag = 0;
    for (size_t i = 0; i < r->n_rows; i++) n_flag += flagged(r, &r->rows[i]);
    if (n_flag) {
        fprintf(f, "\nFidelity: %zu row%s whose median in-model call is more than %gx away from "
                   "the isolated time per call on the same backend (marked '!'; see "
                   "docs/replay.md: cache state, dispatch, thread wake-up, fused groups, memory "
                   "placement):\n",
                n_flag, n_flag == 1 ? "" : "s", r->a->flag);
        for (size_t i = 0; i < r->n_rows; i++) {
            const row *w = &r->rows[i];
            if (!flagged(r, w)) continue;
            char label[160];
            op_label(w, label, sizeof label);
            double fi = fidelity(r, w);
            fprintf(f, "  line %zu %s on %s: %.2fx %s in the model (%s)\n", w->line + 1, label,
                    w->u->backend, fi >= 1 ? fi : 1 / fi, fi >= 1 ? "slower" : "faster", w->l->shape);
        }
    }
    /* lines without a time and why, once per line and backend */
    bool header = false;
    for (int b = 0; b < r->n_b; b++) {
        if (r->failed[b]) continue;
        for (size_t i = 0; i < n_lines; i++) {
            const replay_result *s = &r->res[b][i];
            if (s->status == REPLAY_OK || s->status == REPLAY_UNSUPPORTED) continue;
            if (!header) fprintf(f, "\nOps without a result:\n");
            header = true;
            const opscope_ops_line *l = opscope_ops_export_line(r->x, i);
            fprintf(f, "  line %zu %s on %s: %s\n", i + 1, l->op, r->backends[b], s->note);
        }
    }
}

static void json_num(opscope_out_t *w, double v) {
    if (v > 0 && isfinite(v)) opscope_out_fixed(w, v, 1);
    else opscope_out_str(w, "null");
}

static const char *status_name(replay_status s) {
    switch (s) {
    case REPLAY_OK: return "ok";
    case REPLAY_UNSUPPORTED: return "not supported";
    case REPLAY_FAILED: return "failed";
    case REPLAY_MISMATCH: return "op mismatch";
    case REPLAY_NONE: break;
    }
    return "no result";
}

static void write_json(const replay *r, const char *tbo, opscope_out_t *w) {
    opscope_out_str(w, "{\"profile\":");
    opscope_out_json_str(w, r->a->input);
    opscope_out_str(w, ",\"test_backend_ops\":");
    opscope_out_json_str(w, tbo);
    opscope_out_str(w, ",\"mode\":");
    opscope_out_json_str(w, r->a->mode);
    opscope_out_str(w, ",\"flag_factor\":");
    opscope_out_double(w, r->a->flag);
    opscope_out_str(w, ",\"backends\":[");
    for (int b = 0; b < r->n_b; b++) {
        if (b) opscope_out_char(w, ',');
        opscope_out_json_str(w, r->backends[b]);
    }
    opscope_out_str(w, "],\n\"rows\":[");
    for (size_t i = 0; i < r->n_rows; i++) {
        const row *rw = &r->rows[i];
        char label[160];
        op_label(rw, label, sizeof label);
        opscope_out_str(w, i ? ",\n{" : "\n{");
        opscope_out_printf(w, "\"line\":%zu,\"name\":", rw->line + 1);
        opscope_out_json_str(w, label);
        opscope_out_str(w, ",\"op\":");
        opscope_out_json_str(w, rw->l->op);
        /* as in the records and the report's JSON: ggml's enum value, its name beside it */
        opscope_out_printf(w, ",\"sub_op\":%" PRId32 ",\"sub_op_name\":", rw->l->sub_op_value);
        if (rw->l->sub_op) opscope_out_json_str(w, rw->l->sub_op);
        else opscope_out_str(w, "null");
        opscope_out_str(w, ",\"fused\":");
        if (rw->u->fused) opscope_out_json_str(w, rw->u->fused);
        else opscope_out_str(w, "null");
        opscope_out_str(w, ",\"tensor\":");
        opscope_out_json_str(w, rw->l->name);
        opscope_out_str(w, ",\"shape\":");
        opscope_out_json_str(w, rw->l->shape);
        opscope_out_str(w, ",\"backend\":");
        opscope_out_json_str(w, rw->u->backend);
        opscope_out_printf(w, ",\"count\":%" PRIu64 ",\"model_total_ns\":%" PRIu64
                              ",\"model_avg_ns\":",
                           rw->u->count, rw->u->total_ns);
        json_num(w, model_avg_ns(rw));
        opscope_out_printf(w, ",\"model_median_ns\":%" PRIu64 ",\"model_min_ns\":%" PRIu64
                              ",\"model_max_ns\":%" PRIu64,
                           rw->u->median_ns, rw->u->min_ns, rw->u->max_ns);
        opscope_out_str(w, ",\"isolated_avg_ns\":{");
        for (int b = 0; b < r->n_b; b++) {
            if (b) opscope_out_char(w, ',');
            opscope_out_json_str(w, r->backends[b]);
            opscope_out_char(w, ':');
            const replay_result *s = &r->res[b][rw->line];
            json_num(w, s->status == REPLAY_OK ? s->time_us * 1e3 : 0);
        }
        opscope_out_str(w, "},\"projected_ns\":{");
        for (int b = 0; b < r->n_b; b++) {
            if (b) opscope_out_char(w, ',');
            opscope_out_json_str(w, r->backends[b]);
            opscope_out_char(w, ':');
            const replay_result *s = &r->res[b][rw->line];
            json_num(w, s->status == REPLAY_OK ? (double)rw->u->count * s->time_us * 1e3 : 0);
        }
        opscope_out_str(w, "},\"status\":{");
        for (int b = 0; b < r->n_b; b++) {
            if (b) opscope_out_char(w, ',');
            opscope_out_json_str(w, r->backends[b]);
            opscope_out_char(w, ':');
            const replay_result *s = &r->res[b][rw->line];
            opscope_out_json_str(w, r->failed[b] ? "no result" : status_name(s->status));
        }
        opscope_out_str(w, "},\"model_over_isolated\":");
        double fi = fidelity(r, rw);
        if (fi > 0) opscope_out_fixed(w, fi, 4);
        else opscope_out_str(w, "null");
        opscope_out_str(w, ",\"flagged\":");
        opscope_out_str(w, flagged(r, rw) ? "true" : "false");
        opscope_out_char(w, '}');
    }
    opscope_out_str(w, "],\n\"summary\":{");
    for (int b = 0; b < r->n_b; b++) {
        projection p = project(r, b);
        if (b) opscope_out_char(w, ',');
        opscope_out_json_str(w, r->backends[b]);
        opscope_out_str(w, ":{\"projected_ns\":");
        opscope_out_fixed(w, p.projected_ns, 1);
        opscope_out_printf(w, ",\"model_ns_of_timed_rows\":%" PRIu64 ",\"rows_timed\":%zu,"
                              "\"ops_timed\":%zu,\"ops_not_supported\":%zu,\"ops_failed\":%zu,"
                              "\"ran\":%s}",
                           p.model_ns, p.rows_timed, p.lines_timed, p.lines_unsupported,
                           p.lines_failed, r->failed[b] ? "false" : "true");
    }
    opscope_out_str(w, "},\n\"skipped\":[");
    for (size_t i = 0; i < opscope_ops_export_n_skipped(r->x); i++) {
        const opscope_ops_skip *s = opscope_ops_export_skipped(r->x, i);
        opscope_out_str(w, i ? ",{\"what\":" : "{\"what\":");
        opscope_out_json_str(w, s->what);
        opscope_out_printf(w, ",\"count\":%" PRIu64 ",\"total_ns\":%" PRIu64 ",\"reason\":", s->count,
                           s->total_ns);
        opscope_out_json_str(w, opscope_ops_skip_reason_text(s->reason));
        opscope_out_char(w, '}');
    }
    opscope_out_str(w, "]}\n");
}

static void print_error(const opscope_error *err) {
    char line[512];
    opscope_error_format(err, line, sizeof line);
    fprintf(stderr, "%s\n", line);
}

int opscope_cli_replay(int argc, char **argv) {
    replay_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0) return rc;

    char tbo[4096];
    if (!replay_find_tbo(a.tbo, tbo, sizeof tbo)) return OPSCOPE_EXIT_INPUT;

    int status = OPSCOPE_EXIT_INPUT;
    opscope_error err;
    memset(&err, 0, sizeof err);
    replay r;
    memset(&r, 0, sizeof r);
    r.a = &a;
    char dir[] = "/tmp/opscope-replay-XXXXXX";
    bool have_dir = false;
    opscope_out_t *json = NULL, *keep = NULL;

    opscope_cli_selection sel;
    memset(&sel, 0, sizeof sel);
    opscope_ops_export_t *x = opscope_ops_export_new();
    if (!x) goto nomem;
    r.x = x;
    opscope_sink sink = opscope_ops_export_sink(x);
    if (opscope_cli_select_open(&a.select, a.input, &sel, &err)) {
        print_error(&err);
        goto done;
    }
    if (opscope_cli_select_any(&a.select)) {
        sel.filter.next = sink;
        sink = opscope_graph_filter_sink(&sel.filter);
    }
    if (opscope_progress_read(a.input, OPSCOPE_FORMAT_AUTO, &sink, NULL, &err)) {
        if (err.code == OPSCOPE_ERROR_ABORTED) goto nomem;
        print_error(&err);
        goto done;
    }
    opscope_cli_select_note("replay", &a.select, a.input, &sel);
    if (opscope_ops_export_finish(x, &err)) {
        fprintf(stderr, "opscope replay: %s: %s\n", a.input, err.msg);
        goto done;
    }
    opscope_ops_export_print_notes(x, stderr, "opscope replay: ");
    size_t n_lines = opscope_ops_export_n_lines(x);
    if (!n_lines) {
        fprintf(stderr, "opscope replay: %s: no op of the profile can be rebuilt (see above)\n",
                a.input);
        goto done;
    }

    /* rows, and the default backends: those the ops ran on */
    for (size_t i = 0; i < n_lines; i++) r.n_rows += opscope_ops_export_line(x, i)->n_uses;
    r.rows = calloc(r.n_rows, sizeof *r.rows);
    if (!r.rows) goto nomem;
    size_t k = 0;
    for (size_t i = 0; i < n_lines; i++) {
        const opscope_ops_line *l = opscope_ops_export_line(x, i);
        for (size_t u = 0; u < l->n_uses; u++) {
            r.rows[k].line = i;
            r.rows[k].l = l;
            r.rows[k].u = &l->uses[u];
            k++;
            if (!a.n_backends && strcmp(l->uses[u].backend, "?") &&
                backend_index(&r, l->uses[u].backend) < 0 && r.n_b < MAX_BACKENDS)
                r.backends[r.n_b++] = l->uses[u].backend;
        }
    }
    opscope_sort(r.rows, r.n_rows, sizeof *r.rows, row_cmp);
    if (a.n_backends) {
        memcpy(r.backends, a.backends, sizeof a.backends);
        r.n_b = a.n_backends;
    }
    if (!r.n_b) {
        fprintf(stderr, "opscope replay: %s names no backend; give one with -b\n", a.input);
        status = OPSCOPE_EXIT_USAGE;
        goto done;
    }

    /* outputs opened first: an unwritable path fails before minutes of runs */
    if (a.json && !(json = opscope_out_open(a.json, &err))) {
        print_error(&err);
        goto done;
    }
    if (a.export_ops && !(keep = opscope_out_open(a.export_ops, &err))) {
        print_error(&err);
        goto done;
    }
    if (!mkdtemp(dir)) {
        fprintf(stderr, "opscope replay: cannot make a temporary folder: %s\n", strerror(errno));
        goto done;
    }
    have_dir = true;

    bool progress = isatty(2) != 0;
    int n_ran = 0;
    for (int b = 0; b < r.n_b; b++) {
        r.res[b] = calloc(n_lines, sizeof *r.res[b]);
        if (!r.res[b]) goto nomem;
        if (replay_run_backend(tbo, a.mode, dir, x, r.backends[b], r.res[b], a.timeout, progress)) {
            r.failed[b] = true;
            continue;
        }
        n_ran++;
        size_t mism = 0;
        for (size_t i = 0; i < n_lines; i++) mism += r.res[b][i].status == REPLAY_MISMATCH;
        if (mism)
            fprintf(stderr, "opscope replay: %s: test-backend-ops built another op than exported "
                            "for %zu line%s: its ggml numbers ops differently from ggml 0.27, "
                            "whose table opscope writes\n",
                    r.backends[b], mism, mism == 1 ? "" : "s");
    }
    if (!n_ran) goto done;

    if (!a.quiet && !(json && !strcmp(a.json, "-"))) print_console(&r);
    if (json) {
        write_json(&r, tbo, json);
        int jrc = opscope_out_commit(json, &err);
        json = NULL;
        if (jrc) {
            print_error(&err);
            goto done;
        }
    }
    if (keep) {
        opscope_ops_export_write(x, keep);
        int krc = opscope_out_commit(keep, &err);
        keep = NULL;
        if (krc) {
            print_error(&err);
            goto done;
        }
    }
    status = n_ran == r.n_b ? OPSCOPE_EXIT_OK : OPSCOPE_EXIT_INPUT;
    goto done;

nomem:
    fprintf(stderr, "opscope replay: out of memory\n");
done:
    opscope_out_abort(json);
    opscope_out_abort(keep);
    if (have_dir) {
        /* the run's files: the op files and test-backend-ops' stderr */
        DIR *d = opendir(dir);
        struct dirent *e;
        char path[4096];
        while (d && (e = readdir(d)))
            if (e->d_name[0] != '.' && (size_t)snprintf(path, sizeof path, "%s/%s", dir, e->d_name) < sizeof path)
                unlink(path);
        if (d) closedir(d);
        rmdir(dir);
    }
    for (int b = 0; b < MAX_BACKENDS; b++) free(r.res[b]);
    free(r.rows);
    opscope_ops_export_free(x);
    opscope_cli_select_close(&sel);
    return status;
}
