/*
 * top.c - `opscope top [PATH | --pid PID] [--once]`: a live view of a running capture, like
 * top(1), refreshed from the record log the capture streams (read/oplog_tail.h: each refresh
 * reads only the chunks appended since the last), counted by analyze/live/live.h (per op group,
 * backend and second: memory bounded by the distinct groups), drawn by export/top/top_frame.h.
 * A finished or killed run's log is read the same way; a finished profile (JSON) is read once.
 *
 * Which run: a path; else the running captures found in /proc (cli/record/runs.h); `--pid`
 * takes the program's pid or its `opscope record`'s (then its child's environment). A run of
 * `opscope record` is asked, each refresh, whether its capture records or is paused and which
 * window it is in (the control channel's `status`, cli/record/ctl_client.h; docs/server.md).
 */
#include "analyze/live/live.h"
#include "cli/args.h"
#include "cli/cli.h"
#include "cli/record/ctl_client.h"
#include "cli/record/runs.h"
#include "export/top/top_frame.h"
#include "read/oplog_tail.h"
#include "util/oplog.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static void usage(FILE *f) {
    fputs("usage: opscope top [PATH | --pid PID] [--once] [-d SECS] [--window S] [--rows N]\n"
          "                   [--sort window|total|calls|name]\n"
          "\n"
          "A live view of a running capture, refreshed from the record log it streams to its\n"
          "output (opscope record -o PATH): libllama's tokens/s (prompt and generation),\n"
          "requests in flight, each backend's busy share, copies, and the op groups of the last\n"
          "seconds and since the start (time, share, calls). PATH may also be a finished or\n"
          "killed run's log, or a finished profile (one frame of the whole run). Without PATH or\n"
          "--pid: the only capture of this user running. Under opscope record, the first line\n"
          "also says whether the capture is paused or in a window (opscope ctl start|stop).\n"
          "\n"
          "Keys: q quit, s (or < >) next sort column, space pause, any other key redraws.\n"
          "\n"
          "Options:\n"
          "  --pid PID         the capture of that process (the program, or its opscope record)\n"
          "  --once            print one frame and exit (no terminal control codes when stdout\n"
          "                    is not a terminal)\n"
          "  -d, --delay SECS  seconds between refreshes (default 1; fractions allowed)\n"
          "  --window S        the last seconds the window columns cover (1-60, default 5)\n"
          "  --rows N          op rows at most (default: what the terminal holds; 30 elsewhere)\n"
          "  --sort COL        the first sort column: window (default), total, calls, name\n"
          "  -h, --help        this help\n"
          "\n"
          "Exit status: 0 ok, 1 usage error, 2 no such run (none, or several: name one), bad input.\n",
          f);
}

#define usage_error(...) opscope_cli_usage_error("top", __VA_ARGS__)

enum { OPT_PID, OPT_ONCE, OPT_DELAY, OPT_WINDOW, OPT_ROWS, OPT_SORT };

static const opscope_cli_opt top_opts[] = {
    {"--pid", "-p", OPT_PID, true},   {"--once", NULL, OPT_ONCE, false}, {"--delay", "-d", OPT_DELAY, true},
    {"--window", NULL, OPT_WINDOW, true}, {"--rows", NULL, OPT_ROWS, true}, {"--sort", NULL, OPT_SORT, true},
};

typedef struct top_args {
    const char *path;
    long pid;
    bool once;
    double delay;
    size_t window, rows;
    opscope_top_sort sort;
} top_args;

static int on_option(void *ctx, const opscope_cli_arg *o) {
    top_args *a = ctx;
    size_t n;
    char *end;
    switch (o->id) {
    case OPT_PID:
        if (!opscope_cli_parse_count(o->val, &n) || n == 0 || n > INT_MAX)
            return usage_error("--pid takes a process id, not '%s'", o->val);
        a->pid = (long)n;
        return 0;
    case OPT_ONCE: a->once = true; return 0;
    case OPT_DELAY:
        a->delay = strtod(o->val, &end);
        if (*end || !(a->delay >= 0.1 && a->delay <= 3600))
            return usage_error("--delay takes seconds from 0.1 to 3600, not '%s'", o->val);
        return 0;
    case OPT_WINDOW:
        if (!opscope_cli_parse_count(o->val, &a->window) || a->window < 1 || a->window > OPSCOPE_LIVE_MAX_WINDOW)
            return usage_error("--window takes seconds from 1 to %u, not '%s'", OPSCOPE_LIVE_MAX_WINDOW, o->val);
        return 0;
    case OPT_ROWS:
        if (!opscope_cli_parse_count(o->val, &a->rows)) return usage_error("--rows takes a count, not '%s'", o->val);
        return 0;
    default:
        for (int s = 0; s < OPSCOPE_TOP_SORT_COUNT; s++)
            if (!strcmp(o->val, opscope_top_sort_name((opscope_top_sort)s))) {
                a->sort = (opscope_top_sort)s;
                return 0;
            }
        return usage_error("--sort takes window, total, calls or name, not '%s'", o->val);
    }
}

/* ---- finding the run (cli/record/runs.h) ---- */

/* The path to show: A's, or the one run found. A cli status; exit 2 with one line when none or
 * several. */
static int pick_run(top_args *a, char *out, size_t size, char *dir, size_t dir_size) {
    static opscope_found_run runs[8]; /* 8 KiB of paths each: off the stack */
    size_t n;
    dir[0] = '\0';
    if (a->path) { /* a running record's output: its folder too */
        snprintf(out, size, "%s", a->path);
        char abs[PATH_MAX];
        n = realpath(a->path, abs) ? opscope_runs_find(0, runs, 8) : 0;
        for (size_t i = 0; i < n && i < 8; i++)
            if (!strcmp(runs[i].path, abs)) snprintf(dir, dir_size, "%s", runs[i].dir);
        return 0;
    }
    if (a->pid > 0 && opscope_runs_capture_of(a->pid, runs[0].path, sizeof runs[0].path)) {
        runs[0].pid = a->pid;
        if (!opscope_runs_env_of(a->pid, "OPSCOPE_RECORD_DIR", runs[0].dir, sizeof runs[0].dir)) runs[0].dir[0] = '\0';
        n = 1;
    } else {
        n = opscope_runs_find(a->pid, runs, 8);
    }
    if (n == 1) {
        snprintf(out, size, "%s", runs[0].path);
        snprintf(dir, dir_size, "%s", runs[0].dir);
        return 0;
    }
    if (n == 0 && a->pid > 0)
        fprintf(stderr, "opscope top: process %ld runs no capture of this user's writing a file (no GGML_PROFILE "
                        "in its environment or its children's): give the output's path\n", a->pid);
    else if (n == 0)
        fprintf(stderr, "opscope top: no capture of this user is running (opscope record -o PATH -- CMD): give a "
                        "PATH to open a finished or killed run's log\n");
    else {
        fprintf(stderr, "opscope top: %zu captures are running (", n);
        for (size_t i = 0; i < n && i < 8; i++) fprintf(stderr, "%spid %ld: %s", i ? ", " : "", runs[i].pid, runs[i].path);
        fprintf(stderr, "%s): give a PATH or --pid PID\n", n > 8 ? ", ..." : "");
    }
    return OPSCOPE_EXIT_INPUT;
}

/* ---- the view ---- */

typedef struct top_view {
    const char *path;
    opscope_live_t *live;
    opscope_oplog_tail_t *tail; /* NULL: a finished profile, read once */
    opscope_oplog_tail_status st;
    char program[256];
    long pid;
    int64_t clock_off;          /* this machine's monotonic clock - the log's, at least */
    bool have_off;
    bool live_run;              /* found running: a file at the path that is no log yet is an
                                   earlier run's profile, which the capture's log replaces */
    const char *dir;            /* its opscope record's folder ("": none), asked for the capture's state */
    char capture_state[128];    /* its last answer as the frame says it ("": none yet) */
} top_view;

static int tv_capture(void *ud, const opscope_capture_info *cap) {
    top_view *v = ud;
    snprintf(v->program, sizeof v->program, "%s", cap->program ? cap->program : "");
    v->pid = (cap->has & OPSCOPE_CAPTURE_HAS_PID) ? (long)cap->pid : 0;
    return 0;
}
static int tv_backend(void *ud, const opscope_backend *b) {
    return opscope_live_add_backend(((top_view *)ud)->live, b);
}
static int tv_record(void *ud, const opscope_record *r, uint32_t tmpl) {
    return opscope_live_add_record(((top_view *)ud)->live, r, tmpl);
}
static int tv_decode(void *ud, const opscope_run_decode *d) {
    return opscope_live_add_decode(((top_view *)ud)->live, d);
}

static uint64_t mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static bool pid_alive(long pid) {
    return pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
}

/* True when PATH starts with a record log's header. */
static bool is_log_file(const char *path) {
    unsigned char head[OPSCOPE_OPLOG_HEAD];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    ssize_t n = read(fd, head, sizeof head);
    close(fd);
    return n == (ssize_t)sizeof head && opscope_oplog_is_log(head, sizeof head);
}

/* The log read was an earlier run's and a new run's log took its path (a capture renames its
 * log over the output when its first records come): the view starts again on the new one.
 * 0, or -1 when out of memory. */
static int tv_restart_if_new_log(top_view *v) {
    if (!v->tail || v->st.state != OPSCOPE_OPLOG_TAIL_REPLACED || !is_log_file(v->path)) return 0;
    opscope_live_t *live = opscope_live_new(opscope_live_window(v->live));
    opscope_oplog_tail_t *tail = opscope_oplog_tail_new(v->path);
    if (!live || !tail) {
        opscope_live_free(live);
        opscope_oplog_tail_free(tail);
        return -1;
    }
    opscope_live_free(v->live);
    opscope_oplog_tail_free(v->tail);
    v->live = live;
    v->tail = tail;
    memset(&v->st, 0, sizeof v->st);
    v->program[0] = '\0';
    v->pid = 0;
    v->have_off = false;
    return 0;
}

/* The capture's state from its processes' `status` answers ("recording windowed=1
 * windows=3 marks=1 pid=42"): in a window, paused, or recording whole. Without an answer the
 * last one stays (a capture answers at its checkpoints; one slow refresh says nothing). */
static void tv_ask_capture(top_view *v) {
    opscope_ctl_answer ans[16];
    if (!v->dir || !v->dir[0]) return;
    size_t n = opscope_ctl_send(v->dir, "status", 300, ans, 16);
    size_t windows = 0, marks = 0, answered = 0;
    int windowed = 0;
    bool recording = false;
    for (size_t i = 0; i < n && i < 16; i++) {
        char state[16];
        int w;
        size_t nw, nm;
        if (!ans[i].ok || sscanf(ans[i].line, "%15s windowed=%d windows=%zu marks=%zu", state, &w, &nw, &nm) != 4)
            continue;
        answered++;
        recording |= !strcmp(state, "recording");
        windowed |= w;
        windows = nw > windows ? nw : windows;
        marks = nm > marks ? nm : marks;
    }
    if (!answered) return;
    char m[32] = "";
    if (marks) snprintf(m, sizeof m, ", %zu mark%s", marks, marks == 1 ? "" : "s");
    if (recording && windowed)
        snprintf(v->capture_state, sizeof v->capture_state, "capture: in window %zu%s", windows, m);
    else if (recording)
        snprintf(v->capture_state, sizeof v->capture_state, "capture: recording from its start%s", m);
    else
        snprintf(v->capture_state, sizeof v->capture_state, "capture: paused (%zu window%s so far%s)", windows,
                 windows == 1 ? "" : "s", m);
}

/* Reads what is new. A cli status (2 after printing the error). */
static int tv_poll(top_view *v) {
    opscope_error err;
    if (tv_restart_if_new_log(v)) {
        fprintf(stderr, "opscope top: out of memory\n");
        return OPSCOPE_EXIT_INPUT;
    }
    tv_ask_capture(v);
    if (!v->tail) return 0;
    opscope_oplog_tail_cb cb = {v, tv_capture, tv_backend, tv_record, tv_decode};
    uint64_t before = v->st.records;
    if (opscope_oplog_tail_poll(v->tail, &cb, &v->st, &err)) {
        opscope_cli_print_error("top", &err);
        return OPSCOPE_EXIT_INPUT;
    }
    if (v->st.state == OPSCOPE_OPLOG_TAIL_NOT_LOG && v->st.chunks == 0 && !v->live_run) {
        /* a finished profile at the path: read whole, once */
        opscope_oplog_tail_free(v->tail);
        v->tail = NULL;
        opscope_sink s = opscope_live_sink(v->live);
        if (opscope_read_file(v->path, OPSCOPE_FORMAT_AUTO, &s, &err)) {
            opscope_cli_print_error("top", &err);
            return OPSCOPE_EXIT_INPUT;
        }
        return 0;
    }
    /* the log's clock against this machine's: the smallest gap seen right after new records
     * (records reach the log a checkpoint late, never early) */
    opscope_live_view lv;
    opscope_live_get(v->live, &lv);
    uint64_t now = mono_ns();
    if (v->st.records > before && lv.now_ns) {
        int64_t off = (int64_t)(now - lv.now_ns);
        if (!v->have_off || off < v->clock_off) v->clock_off = off;
        v->have_off = true;
    }
    if (v->have_off && v->st.state == OPSCOPE_OPLOG_TAIL_GROWING && pid_alive(v->pid))
        opscope_live_set_now(v->live, (uint64_t)((int64_t)now - v->clock_off));
    return 0;
}

static const char *tv_state(const top_view *v, char *buf, size_t size) {
    if (!v->tail) return "finished profile";
    switch (v->st.state) {
    case OPSCOPE_OPLOG_TAIL_WAITING: return "waiting for the first records";
    case OPSCOPE_OPLOG_TAIL_REPLACED: return "ended: the profile replaced the log";
    case OPSCOPE_OPLOG_TAIL_NOT_LOG: return "the log was replaced";
    default: break;
    }
    if (!strcmp(v->st.end, "exit") || !strcmp(v->st.end, "signal")) {
        snprintf(buf, size, "ended (%s)", v->st.end);
        return buf;
    }
    if (pid_alive(v->pid)) return "running";
    return v->pid > 0 ? "not running (killed or crashed: the log up to its last checkpoint)" : "log";
}

/* Draws one frame on stdout (CLEAR: over the terminal's last frame). 0 or -1 (memory). */
static int tv_draw(top_view *v, const top_args *a, opscope_top_sort sort, bool paused, size_t rows, bool clear) {
    opscope_live_view lv;
    opscope_live_get(v->live, &lv);
    char sb[128], state[300];
    const char *st = tv_state(v, sb, sizeof sb);
    if (v->capture_state[0]) snprintf(state, sizeof state, "%s; %s", st, v->capture_state);
    else snprintf(state, sizeof state, "%s", st);
    opscope_top_frame_opts o = {v->path, v->program[0] ? v->program : NULL, v->pid, state,
                                (unsigned)a->window, sort, rows, paused, (double)lv.idle_ns / 1e9};
    opscope_strbuf out = OPSCOPE_STRBUF_INIT;
    int rc = opscope_top_frame(&out, &lv, &o);
    if (rc == 0 && clear) {
        /* drawn over the last frame from the top, each line's rest and the rows below cleared:
         * no blank screen between frames, and an unchanged line is never redrawn blank */
        fputs("\033[H", stdout);
        for (const char *p = opscope_strbuf_cstr(&out); *p;) {
            const char *nl = strchr(p, '\n');
            size_t n = nl ? (size_t)(nl - p) : strlen(p);
            fwrite(p, 1, n, stdout);
            fputs(nl ? "\033[K\n" : "\033[K", stdout);
            p += n + (nl ? 1 : 0);
        }
        fputs("\033[J", stdout);
    } else if (rc == 0) {
        fwrite(opscope_strbuf_cstr(&out), 1, out.len, stdout);
    }
    fflush(stdout);
    opscope_strbuf_free(&out);
    return rc;
}

static bool tv_over(const top_view *v) {
    if (v->live_run && v->st.chunks == 0) return false;
    return !v->tail || (v->st.state == OPSCOPE_OPLOG_TAIL_REPLACED && !is_log_file(v->path)) ||
           v->st.state == OPSCOPE_OPLOG_TAIL_NOT_LOG ||
           (v->st.state == OPSCOPE_OPLOG_TAIL_GROWING && !pid_alive(v->pid) && v->pid > 0);
}

static volatile sig_atomic_t g_stop;
static void on_signal(int sig) {
    (void)sig;
    g_stop = 1;
}

/* The op rows a terminal of this height holds (the frame's other lines: 10). */
static size_t term_rows(void) {
    struct winsize ws;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 12) return (size_t)ws.ws_row - 11;
    return 10;
}

/* The refreshes in a terminal, with keys; or, stdout elsewhere, a frame per refresh until the
 * run ends. A cli status. */
static int tv_loop(top_view *v, const top_args *a) {
    bool tty = isatty(STDOUT_FILENO), keys = tty && isatty(STDIN_FILENO), paused = false;
    struct termios saved, raw;
    if (keys && tcgetattr(STDIN_FILENO, &saved) == 0) {
        raw = saved;
        raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
        raw.c_cc[VMIN] = 0;
        raw.c_cc[VTIME] = 0;
        tcsetattr(STDIN_FILENO, TCSANOW, &raw);
    } else {
        keys = false;
    }
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    static char frame_buf[1 << 16]; /* a frame leaves in one write at its flush, not line by line */
    if (tty) setvbuf(stdout, frame_buf, _IOFBF, sizeof frame_buf);
    if (tty) fputs("\033[?1049h\033[?25l", stdout); /* the alternate screen, no cursor */
    opscope_top_sort sort = a->sort;
    int rc = 0;
    while (!g_stop && rc == 0) {
        if (!paused) rc = tv_poll(v);
        if (rc == 0 && tv_draw(v, a, sort, paused, a->rows ? a->rows : tty ? term_rows() : 30, tty)) rc = 2;
        if (!tty && tv_over(v)) break;
        if (!tty) fputc('\n', stdout);
        struct pollfd p = {STDIN_FILENO, POLLIN, 0};
        if (poll(&p, keys ? 1 : 0, (int)(a->delay * 1000)) > 0 && keys) {
            char c;
            while (read(STDIN_FILENO, &c, 1) == 1) {
                if (c == 'q' || c == 'Q') g_stop = 1;
                else if (c == 's' || c == '>') sort = (opscope_top_sort)((sort + 1) % OPSCOPE_TOP_SORT_COUNT);
                else if (c == '<') sort = (opscope_top_sort)((sort + OPSCOPE_TOP_SORT_COUNT - 1) % OPSCOPE_TOP_SORT_COUNT);
                else if (c == ' ') paused = !paused;
            }
        }
    }
    if (tty) fputs("\033[?25h\033[?1049l", stdout);
    fflush(stdout);
    if (keys) tcsetattr(STDIN_FILENO, TCSANOW, &saved);
    return rc;
}

/* A log that no process writes any more and whose chunks end before the file does (a chunk
 * cut short or damaged): one warning, as report's, for --once. */
static void warn_cut(const top_view *v) {
    struct stat sb;
    if (!v->tail || v->st.state != OPSCOPE_OPLOG_TAIL_GROWING || pid_alive(v->pid)) return;
    if (stat(v->path, &sb) != 0 || (uint64_t)sb.st_size <= v->st.offset) return;
    fprintf(stderr, "opscope top: warning: %s is cut short at byte %llu (a chunk cut short or damaged); the frame "
                    "counts the %llu records before it\n", v->path, (unsigned long long)v->st.offset,
            (unsigned long long)v->st.records);
}

int opscope_cli_top(int argc, char **argv) {
    top_args a = {.delay = 1.0, .window = 5};
    const char *inputs[1];
    opscope_cli_parser p = {.cmd = "top", .usage = usage, OPSCOPE_CLI_OPTS(top_opts), .inputs = inputs,
                            .max_inputs = 1, .argc = argc, .argv = argv};
    int st = opscope_cli_parse(&p, on_option, &a);
    if (st) return opscope_cli_exit_status(st);
    if (p.n_inputs) a.path = inputs[0];
    if (a.path && a.pid) return usage_error("give a PATH or --pid, not both");
    static char path[PATH_MAX], dir[PATH_MAX];
    if ((st = pick_run(&a, path, sizeof path, dir, sizeof dir))) return st;
    top_view v = {.path = path, .live = opscope_live_new((unsigned)a.window), .tail = opscope_oplog_tail_new(path),
                  .live_run = !a.path, .dir = dir};
    if (!v.live || !v.tail) {
        fprintf(stderr, "opscope top: out of memory\n");
        st = OPSCOPE_EXIT_INPUT;
    } else if (a.once) {
        st = tv_poll(&v);
        if (st == 0 && v.tail && v.st.state == OPSCOPE_OPLOG_TAIL_WAITING && access(path, F_OK) != 0) {
            fprintf(stderr, "opscope top: %s: no such file (a capture makes it with its first records)\n", path);
            st = OPSCOPE_EXIT_INPUT;
        }
        if (st == 0) warn_cut(&v);
        if (st == 0 && tv_draw(&v, &a, a.sort, false, a.rows ? a.rows : 30, false)) st = OPSCOPE_EXIT_INPUT;
    } else {
        st = tv_loop(&v, &a);
    }
    opscope_oplog_tail_free(v.tail);
    opscope_live_free(v.live);
    return st;
}
