/*
 * ctl.c - `opscope ctl start|stop|mark TEXT|status [--pid P | -o PATH]`: acts on a running
 * `opscope record` through its capture's control channel (ctl_client.h; the capture's side:
 * src/capture/life/cap_ctl.h). Which run: --pid (the program, or its record), -o (the run's
 * output), else the only record of this user running (cli/record/runs.h). Each command
 * returns when the capture has acted: start once the next graph compute is recorded, stop
 * once the computes begun in the window have ended.
 *
 * Exit status: 0 when every process of the run answered ok; 2 with one line when there is no
 * such run (none running, a wrong pid, another user's run, several: name one), when the run
 * has no channel, or when a process refused; 1 for usage errors.
 */
#include "cli/args.h"
#include "cli/cli.h"
#include "cli/record/ctl_client.h"
#include "cli/record/runs.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *g_action; /* the action named before --help, for its own help */

static void usage(FILE *f) {
    if (g_action && !strcmp(g_action, "start")) {
        fputs("usage: opscope ctl start [--pid P | -o PATH]\n\n"
              "Opens a capture window: the next graph compute of the running record (one started\n"
              "with --paused, or stopped) is recorded, and every one after it until ctl stop.\n"
              "Returns once the capture has acted.\n", f);
    } else if (g_action && !strcmp(g_action, "stop")) {
        fputs("usage: opscope ctl stop [--pid P | -o PATH]\n\n"
              "Closes the capture window: no graph compute begins recorded after it; returns once\n"
              "those begun in the window have ended (each is recorded whole). A run recorded from\n"
              "its start becomes windowed: its first window is from the start to now.\n", f);
    } else if (g_action && !strcmp(g_action, "mark")) {
        fputs("usage: opscope ctl mark [--pid P | -o PATH] TEXT...\n\n"
              "Marks this moment with TEXT (the words joined by spaces; at most 255 bytes kept,\n"
              "control characters as spaces; 1024 marks per run): an instant in the profile's\n"
              "capture.marks, the report, the Chrome trace and the viewer.\n", f);
    } else if (g_action && !strcmp(g_action, "status")) {
        fputs("usage: opscope ctl status [--pid P | -o PATH]\n\n"
              "Says, per process of the run: recording or paused, whether it is windowed, its\n"
              "windows and marks so far, its pid.\n", f);
    } else {
        fputs("usage: opscope ctl start|stop|mark TEXT|status [--pid P | -o PATH]\n"
              "\n"
              "Acts on a running opscope record (record --paused starts one recording nothing):\n"
              "  start        open a capture window: the next graph compute is recorded\n"
              "  stop         close it: returns once the computes begun in it have ended\n"
              "  mark TEXT    mark this moment with TEXT\n"
              "  status       whether it records, its windows and marks\n"
              "Each answers once the capture has acted. `opscope ctl ACTION --help`: more.\n"
              "\n"
              "Options:\n"
              "  --pid P         the run of process P (the program, or its opscope record)\n"
              "  -o, --output PATH  the run writing PATH (record's -o)\n"
              "  -h, --help      this help\n"
              "Without either: the only record of this user running.\n"
              "\n"
              "Exit status: 0 done; 2 no such run (none running, a wrong pid, another user's,\n"
              "several: name one), no control channel yet, or the capture refused; 1 usage.\n", f);
    }
}

#define usage_error(...) opscope_cli_usage_error("ctl", __VA_ARGS__)

enum { OPT_PID, OPT_OUTPUT };
static const opscope_cli_opt ctl_opts[] = {{"--pid", "-p", OPT_PID, true}, {"--output", "-o", OPT_OUTPUT, true}};

typedef struct ctl_args {
    long pid;
    const char *output;
} ctl_args;

static int on_option(void *ctx, const opscope_cli_arg *o) {
    ctl_args *a = ctx;
    size_t n;
    if (o->id == OPT_OUTPUT) {
        a->output = o->val;
        return 0;
    }
    if (!opscope_cli_parse_count(o->val, &n) || n == 0 || n > INT_MAX)
        return usage_error("--pid takes a process id, not '%s'", o->val);
    a->pid = (long)n;
    return 0;
}

/* One line "opscope ctl: ..." on stderr; returns OPSCOPE_EXIT_INPUT. */
static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("opscope ctl: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return OPSCOPE_EXIT_INPUT;
}

/* PID's record run folder into DIR: its own environment's, else one of its children's (PID is
 * the opscope record). A cli status. */
static int dir_of_pid(long pid, char *dir, size_t size) {
    char p[64];
    struct stat st;
    snprintf(p, sizeof p, "/proc/%ld", pid);
    if (stat(p, &st) != 0) return fail("no process %ld is running", pid);
    if (st.st_uid != getuid())
        return fail("process %ld is another user's: ctl acts on your own runs only", pid);
    if (opscope_runs_env_of(pid, "OPSCOPE_RECORD_DIR", dir, size) && dir[0]) return 0;
    opscope_found_run runs[4];
    size_t n = opscope_runs_find(pid, runs, 4);
    for (size_t i = 0; i < n && i < 4; i++)
        if (runs[i].dir[0]) return snprintf(dir, size, "%s", runs[i].dir), 0;
    return fail("process %ld runs no opscope record (none in its environment or its children's)", pid);
}

/* The run writing PATH. A cli status. */
static int dir_of_output(const char *path, char *dir, size_t size) {
    char want[PATH_MAX], cwd[PATH_MAX];
    if (path[0] == '/' || !getcwd(cwd, sizeof cwd)) snprintf(want, sizeof want, "%s", path);
    else if (snprintf(want, sizeof want, "%s/%s", cwd, path) >= (int)sizeof want) return fail("%s: path too long", path);
    char real_want[PATH_MAX];
    bool has_real = realpath(want, real_want) != NULL;
    opscope_found_run runs[32];
    size_t n = opscope_runs_find(0, runs, 32);
    for (size_t i = 0; i < n && i < 32; i++) {
        char r[PATH_MAX];
        bool same = !strcmp(runs[i].path, want) || (has_real && realpath(runs[i].path, r) && !strcmp(r, real_want));
        if (same && runs[i].dir[0]) return snprintf(dir, size, "%s", runs[i].dir), 0;
    }
    /* record's lock beside the output (record_lock.h) tells another user's run */
    char lock[PATH_MAX + 32];
    const char *slash = strrchr(want, '/');
    snprintf(lock, sizeof lock, "%.*s.%s.opscope-lock", (int)(slash ? slash - want + 1 : 0), want, slash ? slash + 1 : want);
    struct stat st;
    if (stat(lock, &st) == 0 && st.st_uid != getuid())
        return fail("%s is written by another user's run: ctl acts on your own runs only", path);
    return fail("no opscope record of this user is writing %s", path);
}

/* The only record run of this user. A cli status. */
static int dir_of_only(char *dir, size_t size) {
    opscope_found_run runs[32];
    size_t n = opscope_runs_find(0, runs, 32), k = 0;
    const char *first = NULL;
    char list[512] = "";
    for (size_t i = 0; i < n && i < 32; i++) {
        if (!runs[i].dir[0] || (first && !strcmp(first, runs[i].dir))) continue;
        if (!first) first = runs[i].dir;
        size_t l = strlen(list);
        snprintf(list + l, sizeof list - l, "%spid %ld: %s", k ? ", " : "", runs[i].pid, runs[i].path);
        k++;
    }
    if (k == 1) return snprintf(dir, size, "%s", first), 0;
    if (k == 0) return fail("no opscope record of this user is running");
    fprintf(stderr, "opscope ctl: %zu records are running (%s): give --pid P or -o PATH\n", k, list);
    return OPSCOPE_EXIT_INPUT;
}

/* The command line of ACTION and its words WORDS (N of them) into OUT. A cli status. */
static int command_line(const char *action, const char **words, int n, char *out, size_t size) {
    bool mark = !strcmp(action, "mark");
    if (strcmp(action, "start") && strcmp(action, "stop") && strcmp(action, "status") && !mark)
        return usage_error("unknown action '%s' (start, stop, mark TEXT, status)", action);
    if (!mark && n) return usage_error("%s takes no text ('%s')", action, words[0]);
    if (mark && !n) return usage_error("mark needs a TEXT");
    size_t len = (size_t)snprintf(out, size, "%s", action);
    for (int i = 0; i < n && len < size; i++) {
        for (const char *c = words[i]; *c; c++)
            if (*c == '\n' || *c == '\r') return usage_error("a mark's text is one line");
        len += (size_t)snprintf(out + len, size - len, "%s%s", i ? " " : " ", words[i]);
    }
    return len < size ? 0 : usage_error("the mark's text is too long (at most 255 bytes are kept)");
}

int opscope_cli_ctl(int argc, char **argv) {
    g_action = argc > 1 && argv[1][0] != '-' ? argv[1] : NULL;
    const char *inputs[64];
    opscope_cli_parser p = {.cmd = "ctl", .usage = usage, OPSCOPE_CLI_OPTS(ctl_opts), .inputs = inputs,
                            .max_inputs = 64, .argc = argc, .argv = argv};
    ctl_args a = {0};
    int st = opscope_cli_parse(&p, on_option, &a);
    if (st) return opscope_cli_exit_status(st);
    if (p.n_inputs == 0) return usage_error("no action given (start, stop, mark TEXT, status)");
    if (a.pid && a.output) return usage_error("give --pid or -o, not both");
    char cmd[1024], dir[PATH_MAX];
    st = command_line(inputs[0], inputs + 1, p.n_inputs - 1, cmd, sizeof cmd);
    if (!st) st = a.pid ? dir_of_pid(a.pid, dir, sizeof dir) : a.output ? dir_of_output(a.output, dir, sizeof dir)
                                                               : dir_of_only(dir, sizeof dir);
    if (st) return st;
    opscope_ctl_answer ans[16];
    size_t n = opscope_ctl_send(dir, cmd, 40000, ans, 16);
    if (n == 0)
        return fail("the run has no control channel yet: its program has not loaded ggml (record --paused), or "
                    "has not computed a graph (a record without --paused)");
    int rc = 0;
    for (size_t i = 0; i < n && i < 16; i++) {
        if (!ans[i].ok) rc = OPSCOPE_EXIT_INPUT;
        fprintf(ans[i].ok ? stdout : stderr, "%spid %ld: %s\n", ans[i].ok ? "" : "opscope ctl: ", ans[i].pid,
                ans[i].line);
    }
    return rc;
}
