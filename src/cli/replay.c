/*
 * replay.c - `opscope replay PROFILE [-b BACKEND]...`: a profile's unique graph ops re-run in
 * isolation by test-backend-ops on each backend, joined back to what the model spent on them.
 *
 * One session (analyze/session/session.h, as report's) reads the profile into replay's outputs
 * (export/replay/replay_out.h): the ops are exported as for `report --export-ops`, at the session's
 * finish test-backend-ops runs the file once per backend (replay_run.c), and each row (a line and the backend it ran on in the model) gets
 * its count, in-model time per call and isolated time per call on every backend. The
 * projection of a backend is the sum of count x isolated time; rows whose in-model time is
 * more than --flag times away from the isolated time on the same backend are flagged.
 */
#include "analyze/session/session.h"
#include "cli/args.h"
#include "cli/cli.h"
#include "cli/progress.h"
#include "cli/select.h"
#include "cli/replay_run.h"
#include "export/replay/ops_export.h"
#include "export/replay/replay_out.h"
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

#define MAX_BACKENDS OPSCOPE_REPLAY_MAX_BACKENDS

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

/* One option of the command line into the replay_args (CTX). Returns a cli status (cli/cli.h). */
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
    return OPSCOPE_EXIT_OK;
}

/* Returns a cli status (cli/cli.h): 0 when A is ready. */
static int parse_args(int argc, char **argv, replay_args *a) {
    memset(a, 0, sizeof *a);
    a->flag = 2.0;
    a->timeout = 300;
    a->mode = "perf";
    opscope_cli_parser p = {.cmd = "replay", .usage = usage, .version = true, OPSCOPE_CLI_OPTS(replay_opts),
                            .inputs = &a->input, .max_inputs = 1, .argc = argc, .argv = argv};
    int st = opscope_cli_parse(&p, on_option, a);
    if (st) return st;
    a->quiet = p.quiet;
    if (!a->input) return usage_error("missing PROFILE");
    st = opscope_cli_select_check("replay", &a->select, &a->input, 1);
    if (st) return st;
    if (a->json && a->export_ops && !strcmp(a->json, a->export_ops) && strcmp(a->json, "-"))
        return usage_error("--json and --export-ops write the same file '%s'", a->json);
    return OPSCOPE_EXIT_OK;
}

/* One row: a line and the (captured backend, fused group) its records ran as. */

static int row_cmp(const void *pa, const void *pb) {
    const opscope_replay_row *a = pa, *b = pb;
    if (a->u->total_ns != b->u->total_ns) return a->u->total_ns > b->u->total_ns ? -1 : 1;
    return a->line < b->line ? -1 : a->line > b->line;
}

static int nomem(void) {
    fprintf(stderr, "opscope replay: out of memory\n");
    return OPSCOPE_EXIT_INPUT;
}

/* R's rows (each use of each line), longest in the model first, and its backends: A's, else
 * those the ops ran on. Returns a cli status (cli/cli.h): 0, or the exit status after a message. */
static int build_rows(opscope_replay_table *r, const replay_args *a) {
    size_t n_lines = opscope_ops_export_n_lines(r->x);
    for (size_t i = 0; i < n_lines; i++) r->n_rows += opscope_ops_export_line(r->x, i)->n_uses;
    r->rows = calloc(r->n_rows, sizeof *r->rows);
    if (!r->rows) return nomem();
    size_t k = 0;
    for (size_t i = 0; i < n_lines; i++) {
        const opscope_ops_line *l = opscope_ops_export_line(r->x, i);
        for (size_t u = 0; u < l->n_uses; u++) {
            r->rows[k++] = (opscope_replay_row){i, l, &l->uses[u]};
            if (!a->n_backends && strcmp(l->uses[u].backend, "?") &&
                opscope_replay_backend_index(r, l->uses[u].backend) < 0 && r->n_b < MAX_BACKENDS)
                r->backends[r->n_b++] = l->uses[u].backend;
        }
    }
    opscope_sort(r->rows, r->n_rows, sizeof *r->rows, row_cmp);
    if (a->n_backends) {
        memcpy(r->backends, a->backends, sizeof a->backends);
        r->n_b = a->n_backends;
    }
    if (!r->n_b) {
        fprintf(stderr, "opscope replay: %s names no backend; give one with -b\n", a->input);
        return OPSCOPE_EXIT_USAGE;
    }
    return OPSCOPE_EXIT_OK;
}

/* Removes DIR and the run's files in it (the op files, test-backend-ops' stderr). */
static void remove_dir(const char *dir) {
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[4096];
    while (d && (e = readdir(d)))
        if (e->d_name[0] != '.' && (size_t)snprintf(path, sizeof path, "%s/%s", dir, e->d_name) < sizeof path)
            unlink(path);
    if (d) closedir(d);
    rmdir(dir);
}

/* Runs TBO on every backend of R, in a temporary folder. Returns the backends that ran, or
 * -1 after a message. */
static int run_backends(opscope_replay_table *r, const replay_args *a, const char *tbo) {
    const char *tmp = getenv("TMPDIR"); /* as mkstemp(3)'s users do: a job's own scratch place */
    char dir[4096];
    if ((size_t)snprintf(dir, sizeof dir, "%s/opscope-replay-XXXXXX", tmp && *tmp ? tmp : "/tmp") >= sizeof dir ||
        !mkdtemp(dir)) {
        fprintf(stderr, "opscope replay: cannot make a temporary folder in %s: %s\n", tmp && *tmp ? tmp : "/tmp",
                strerror(errno));
        return -1;
    }
    size_t n_lines = opscope_ops_export_n_lines(r->x);
    bool progress = isatty(2) != 0;
    int n_ran = 0;
    for (int b = 0; b < r->n_b && n_ran >= 0; b++) {
        r->res[b] = calloc(n_lines, sizeof *r->res[b]);
        if (!r->res[b]) {
            n_ran = -1;
            nomem();
            break;
        }
        if (replay_run_backend(tbo, a->mode, dir, r->x, r->backends[b], r->res[b], a->timeout, progress)) {
            r->failed[b] = true;
            continue;
        }
        n_ran++;
        size_t mism = 0;
        for (size_t i = 0; i < n_lines; i++) mism += r->res[b][i].status == OPSCOPE_REPLAY_MISMATCH;
        if (mism)
            fprintf(stderr, "opscope replay: %s: test-backend-ops built another op than exported "
                            "for %zu line%s: its ggml numbers ops differently from ggml 0.27, "
                            "whose table opscope writes\n",
                    r->backends[b], mism, mism == 1 ? "" : "s");
    }
    remove_dir(dir);
    return n_ran;
}

/* ------------------------------------------------------------------------------------------ */
/* The run: one session (analyze/session/session.h) with replay's outputs (export/replay/replay_out.h).      */

typedef struct replay_ctx {
    const replay_args *a;
    const char *tbo;
    int status; /* -1 until the runs, then the exit status (the outputs still written) */
} replay_ctx;

/* The session's replay hook, after the read (R->x finished): the notes, the rows and
 * test-backend-ops on every backend. Returns 0, or -1 after a message, C's status set. */
static int run_table(void *ud, opscope_replay_table *r, opscope_error *err) {
    replay_ctx *c = ud;
    *err = (opscope_error){.code = OPSCOPE_ERROR_ABORTED, .msg = "replay stopped"}; /* said */
    /* --json holds every skipped group and row (its fused groups, notes) */
    const char *json = c->a->json && strcmp(c->a->json, "-") ? c->a->json : NULL;
    opscope_ops_export_print_notes(r->x, stderr, "opscope replay: ", json);
    c->status = OPSCOPE_EXIT_INPUT;
    if (!opscope_ops_export_n_lines(r->x)) {
        fprintf(stderr, "opscope replay: %s: no op of the profile can be rebuilt (see above)\n",
                c->a->input);
        return -1;
    }
    int st = build_rows(r, c->a);
    if (st) {
        c->status = st;
        return -1;
    }
    int n_ran = run_backends(r, c->a, c->tbo);
    if (n_ran <= 0) return -1;
    c->status = n_ran == r->n_b ? OPSCOPE_EXIT_OK : OPSCOPE_EXIT_INPUT;
    return 0;
}

/* Replay's outputs in S, opened before the read (an unwritable path fails before minutes of
 * runs): the ops, runs and console table, then --json, then --export-ops. Returns 0, or -1
 * with ERR filled. */
static int add_outputs(opscope_session_t *s, replay_ctx *c, opscope_replay_table *r,
                       opscope_ops_export_t *x, opscope_error *err) {
    const replay_args *a = c->a;
    bool json_stdout = a->json && !strcmp(a->json, "-");
    opscope_replay_output_opts ro = {.ops = x, .table = r, .run = run_table, .run_ud = c,
                                     .console = a->quiet || json_stdout ? NULL : stdout};
    opscope_output o;
    if (opscope_output_replay(&o, &ro, err) || opscope_session_add(s, &o)) return -1;
    opscope_out_t *w;
    if (a->json && (!(w = opscope_out_open(a->json, err)) ||
                    opscope_output_replay_json(&o, w, r, c->tbo, err) || opscope_session_add(s, &o)))
        return -1;
    if (a->export_ops && (!(w = opscope_out_open(a->export_ops, err)) ||
                          opscope_output_replay_ops(&o, w, r, err) || opscope_session_add(s, &o)))
        return -1;
    return 0;
}

/* A failed commit says why. */
static void on_done(void *ud, const opscope_output *o, const opscope_error *err) {
    (void)ud;
    (void)o;
    if (err) opscope_cli_print_error(NULL, err);
}

/* Reads C's profile into S, finishes (the runs) and commits. Returns the exit status. */
static int run(opscope_session_t *s, replay_ctx *c, opscope_cli_selection *sel) {
    const replay_args *a = c->a;
    opscope_error err;
    memset(&err, 0, sizeof err);
    opscope_sink sink = opscope_session_sink(s);
    opscope_read_options ro = {0};
    opscope_session_read_options(s, &ro);
    if (opscope_progress_read(a->input, OPSCOPE_FORMAT_AUTO, &sink, &ro, &err)) {
        if (err.code == OPSCOPE_ERROR_ABORTED) return nomem();
        opscope_cli_print_error(NULL, &err);
        return OPSCOPE_EXIT_INPUT;
    }
    opscope_cli_select_note("replay", &a->select, a->input, sel);
    if (opscope_session_finish(s, &err)) {
        if (c->status >= 0) return c->status; /* the runs said why */
        fprintf(stderr, "opscope replay: %s: %s\n", a->input, err.msg);
        return OPSCOPE_EXIT_INPUT;
    }
    if (opscope_session_commit(s, on_done, NULL)) return OPSCOPE_EXIT_INPUT;
    return c->status;
}

int opscope_cli_replay(int argc, char **argv) {
    replay_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc) return opscope_cli_exit_status(rc);
    char tbo[4096];
    if (!replay_find_tbo(a.tbo, tbo, sizeof tbo)) return OPSCOPE_EXIT_INPUT;
    replay_ctx c = {.a = &a, .tbo = tbo, .status = -1};
    opscope_replay_table r = {.input = a.input, .mode = a.mode, .flag = a.flag};
    opscope_ops_export_t *x = opscope_ops_export_new();
    if (!x) return nomem();
    r.x = x;
    opscope_error err;
    memset(&err, 0, sizeof err);
    opscope_cli_selection sel;
    opscope_session_t *s = NULL;
    int status = OPSCOPE_EXIT_INPUT;
    if (!opscope_cli_select_open(&a.select, a.input, &sel, &err)) {
        bool filtered = opscope_cli_select_any(&a.select);
        opscope_session_opts so = {.no_stats = true, .filter = filtered ? &sel.filter : NULL,
                                   .filter_desc = sel.desc};
        s = opscope_session_new(&so);
        if (!s) status = nomem();
        else if (add_outputs(s, &c, &r, x, &err)) opscope_cli_print_error(NULL, &err);
        else status = run(s, &c, &sel);
    } else {
        opscope_cli_print_error(NULL, &err);
    }
    opscope_session_free(s);
    opscope_cli_select_close(&sel);
    for (int b = 0; b < MAX_BACKENDS; b++) free(r.res[b]);
    free(r.rows);
    opscope_ops_export_free(x);
    return status;
}
