/* replay_run.c - test-backend-ops over an exported graph-op file, one backend at a time. */
#include "cli/replay_run.h"

#include "read/tbo_result.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static bool executable(const char *p) {
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0;
}

bool replay_find_tbo(const char *given, char *buf, size_t size) {
    if (given) {
        if (!executable(given)) {
            fprintf(stderr, "opscope replay: --test-backend-ops %s: not an executable file\n",
                    given);
            return false;
        }
        snprintf(buf, size, "%s", given);
        return true;
    }
    const char *path = getenv("PATH");
    while (path && *path) {
        size_t n = strcspn(path, ":");
        if (n && (size_t)snprintf(buf, size, "%.*s/test-backend-ops", (int)n, path) < size &&
            executable(buf))
            return true;
        path += n + (path[n] == ':');
    }
    /* Debian: llama.cpp-tests and libggml0 install it outside PATH */
    static const char *const pats[] = {"/usr/libexec/*/llama.cpp-tests/test-backend-ops",
                                       "/usr/libexec/*/ggml/test-backend-ops"};
    for (size_t i = 0; i < sizeof pats / sizeof *pats; i++) {
        glob_t g;
        if (glob(pats[i], 0, NULL, &g) == 0) {
            for (size_t k = 0; k < g.gl_pathc; k++)
                if (executable(g.gl_pathv[k])) {
                    snprintf(buf, size, "%s", g.gl_pathv[k]);
                    globfree(&g);
                    return true;
                }
            globfree(&g);
        }
    }
    fprintf(stderr, "opscope replay: test-backend-ops not found in PATH nor in "
                    "/usr/libexec/*/llama.cpp-tests/ or /usr/libexec/*/ggml/ (Debian: apt "
                    "install llama.cpp-tests); give it with --test-backend-ops PATH\n");
    return false;
}

/* Lines FROM.. of X, each named L<index>_<name>. Returns 0 or -1. */
static int write_file(const char *path, const opscope_ops_export_t *x, size_t from) {
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    size_t n = opscope_ops_export_n_lines(x);
    for (size_t i = from; i < n; i++) {
        const opscope_ops_line *l = opscope_ops_export_line(x, i);
        /* ',' would end the name in the vars test-backend-ops echoes */
        char name[64];
        snprintf(name, sizeof name, "%s", l->name);
        for (char *c = name; *c; c++)
            if (*c == ',' || *c == '=') *c = '_';
        fprintf(f, "%s L%zu_%s\n", l->text, i, name);
    }
    return fclose(f) ? -1 : 0;
}

/* The last non-empty line of a file, for messages. */
static void last_line(const char *path, char *buf, size_t size) {
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f) return;
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, f)) > 0) {
        while (n && (line[n - 1] == '\n' || line[n - 1] == '\r')) line[--n] = '\0';
        if (n) snprintf(buf, size, "%s", line);
    }
    free(line);
    fclose(f);
}

/* test-backend-ops' stdout, line by line, waiting at most a given time for each line. */
typedef struct line_reader {
    int fd;
    char *buf;
    size_t len, off, cap;
    bool eof;
} line_reader;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The next line (NUL-terminated, without its newline, valid until the next call) in *LINE.
 * Returns 1, 0 at the end of the output, -1 when TIMEOUT_S (> 0) passed without a line or
 * on a read error (errno says which; ETIMEDOUT for the time). */
static int next_line(line_reader *r, char **line, double timeout_s) {
    double deadline = timeout_s > 0 ? now_s() + timeout_s : 0;
    for (;;) {
        char *nl = r->off < r->len ? memchr(r->buf + r->off, '\n', r->len - r->off) : NULL;
        if (nl || (r->eof && r->off < r->len)) {
            char *l = r->buf + r->off;
            if (nl) {
                *nl = '\0';
                r->off = (size_t)(nl - r->buf) + 1;
            } else {
                r->buf[r->len] = '\0';
                r->off = r->len;
            }
            *line = l;
            return 1;
        }
        if (r->eof) return 0;
        if (r->off) { /* keep the partial line at the start */
            memmove(r->buf, r->buf + r->off, r->len - r->off);
            r->len -= r->off;
            r->off = 0;
        }
        if (r->len + 4096 + 1 > r->cap) {
            size_t nc = r->cap ? r->cap * 2 : 65536;
            char *nb = realloc(r->buf, nc);
            if (!nb) return -1;
            r->buf = nb;
            r->cap = nc;
        }
        int wait_ms = -1;
        if (deadline) {
            double left = deadline - now_s();
            if (left <= 0) {
                errno = ETIMEDOUT;
                return -1;
            }
            wait_ms = (int)(left * 1000) + 1;
        }
        struct pollfd pf = {r->fd, POLLIN, 0};
        int pr = poll(&pf, 1, wait_ms);
        if (pr < 0 && errno == EINTR) continue;
        if (pr < 0) return -1;
        if (pr == 0) continue; /* the deadline check above ends it */
        ssize_t got = read(r->fd, r->buf + r->len, r->cap - r->len - 1);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) return -1;
        if (got == 0) r->eof = true;
        r->len += (size_t)got;
    }
}

/* The op test-backend-ops names (ggml_op_desc): the unary/GLU function for those ops. */
static const char *expected_op(const opscope_ops_line *l) { return l->sub_op ? l->sub_op : l->op; }

/* Starts TBO on FILE for BACKEND, stdout into a pipe, stderr appended to ERRPATH. Returns the
 * pipe's read end (*PID the process), or -1 after a message. */
static int spawn_tbo(const char *tbo, const char *mode, const char *file, const char *backend,
                     const char *errpath, pid_t *pid) {
    int pfd[2];
    if (pipe(pfd)) return -1;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, pfd[1], 1);
    posix_spawn_file_actions_addclose(&fa, pfd[0]);
    posix_spawn_file_actions_addclose(&fa, pfd[1]);
    posix_spawn_file_actions_addopen(&fa, 2, errpath, O_WRONLY | O_CREAT | O_APPEND, 0600);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    char *argv[] = {(char *)tbo, (char *)mode, "--test-file", (char *)file, "-b", (char *)backend,
                    "--output", "sql", NULL};
    int src = posix_spawn(pid, tbo, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(pfd[1]);
    if (src) {
        close(pfd[0]);
        fprintf(stderr, "opscope replay: cannot run %s: %s\n", tbo, strerror(src));
        return -1;
    }
    return pfd[0];
}

/* One result R of line L into O. */
static void take_result(const opscope_tbo_result *r, const opscope_ops_line *l, const char *mode,
                        const char *backend, opscope_replay_result *o) {
    if (strcmp(r->op, expected_op(l))) {
        o->status = OPSCOPE_REPLAY_MISMATCH;
        snprintf(o->note, sizeof o->note, "test-backend-ops built %s, not %s", r->op, expected_op(l));
    } else if (!r->supported) {
        o->status = OPSCOPE_REPLAY_UNSUPPORTED;
        snprintf(o->note, sizeof o->note, "not supported on %s", backend);
    } else if (!strcmp(mode, "perf") ? r->n_runs > 0 : r->passed) {
        o->status = OPSCOPE_REPLAY_OK;
        o->time_us = r->time_us;
        o->n_runs = r->n_runs;
    } else {
        o->status = OPSCOPE_REPLAY_FAILED;
        snprintf(o->note, sizeof o->note, "%s", r->error[0] ? r->error : "failed");
    }
}

/* One run's state: the lines from START, the highest with a result, what else it printed. */
typedef struct tbo_run {
    size_t start, n, got_any;
    long last;
    bool timed_out;
    char stdout_last[160];
} tbo_run;

/* Reads the run's output from FD into RES until it ends (killed when it hangs). */
static void read_results(tbo_run *run, int fd, pid_t pid, const opscope_ops_export_t *x, const char *mode,
                         const char *backend, opscope_replay_result *res, double timeout_s, bool progress) {
    line_reader rd = {.fd = fd};
    char *line = NULL;
    int got_line;
    while ((got_line = next_line(&rd, &line, timeout_s)) != 0) {
        if (got_line < 0) {
            /* a hung test: no output for the whole time (or a broken pipe) */
            run->timed_out = errno == ETIMEDOUT;
            kill(pid, SIGKILL);
            break;
        }
        size_t len = strlen(line);
        while (len && line[len - 1] == '\r') line[--len] = '\0';
        opscope_tbo_result r;
        char name[80];
        if (opscope_tbo_parse_sql_line(line, &r) != 0) {
            if (len && strncmp(line, "CREATE", 6) && strncmp(line, "  ", 2) && line[0] != ')')
                snprintf(run->stdout_last, sizeof run->stdout_last, "%s", line);
            continue;
        }
        if (!opscope_tbo_var(r.params, "name", name, sizeof name) || name[0] != 'L') continue;
        char *end;
        long idx = strtol(name + 1, &end, 10);
        if (*end != '_' || idx < (long)run->start || idx >= (long)run->n) continue;
        run->got_any++;
        if (idx > run->last) run->last = idx;
        take_result(&r, opscope_ops_export_line(x, (size_t)idx), mode, backend, &res[idx]);
        if (progress)
            fprintf(stderr, "\ropscope replay: %s: %zu/%zu ops", backend,
                    (size_t)run->last + 1 < run->n ? (size_t)run->last + 1 : run->n, run->n);
    }
    free(rd.buf);
}

/* The run ended early with status ST: the line after its last result is marked failed, with
 * why (ERRPATH's last line). Returns where the next run starts. */
static size_t mark_death(const tbo_run *run, int st, const char *errpath, double timeout_s,
                         opscope_replay_result *res) {
    size_t bad = run->last >= (long)run->start ? (size_t)run->last + 1 : run->start;
    char why[120];
    last_line(errpath, why, sizeof why);
    res[bad].status = OPSCOPE_REPLAY_FAILED;
    if (run->timed_out)
        snprintf(res[bad].note, sizeof res[bad].note,
                 "test-backend-ops gave no result for %.0f s (--timeout): killed", timeout_s);
    else if (WIFSIGNALED(st))
        snprintf(res[bad].note, sizeof res[bad].note, "test-backend-ops died (signal %d): %s",
                 WTERMSIG(st), why);
    else
        snprintf(res[bad].note, sizeof res[bad].note, "test-backend-ops exited with status %d: %s",
                 WEXITSTATUS(st), why);
    return bad + 1;
}

int replay_run_backend(const char *tbo, const char *mode, const char *dir,
                       const opscope_ops_export_t *x, const char *backend, opscope_replay_result *res,
                       double timeout_s, bool progress) {
    tbo_run run = {.n = opscope_ops_export_n_lines(x)};
    char file[4096], errpath[4096];
    snprintf(errpath, sizeof errpath, "%s/stderr-%s.txt", dir, backend);
    while (run.start < run.n) {
        snprintf(file, sizeof file, "%s/ops-%s-%zu.txt", dir, backend, run.start);
        if (write_file(file, x, run.start)) {
            fprintf(stderr, "opscope replay: cannot write %s: %s\n", file, strerror(errno));
            return -1;
        }
        pid_t pid;
        int fd = spawn_tbo(tbo, mode, file, backend, errpath, &pid);
        if (fd < 0) return -1;
        run.last = -1; /* highest line index with a result in this run */
        run.timed_out = false;
        read_results(&run, fd, pid, x, mode, backend, res, timeout_s, progress);
        close(fd);
        int st = 0;
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
        }
        bool clean = WIFEXITED(st) && (WEXITSTATUS(st) == 0 || !strcmp(mode, "test"));
        if (clean || (size_t)(run.last + 1) >= run.n) break;
        /* it died on the line after the last result: mark it, go on after it */
        run.start = mark_death(&run, st, errpath, timeout_s, res);
    }
    if (progress) fputc('\n', stderr);
    if (!run.got_any && run.n) {
        char why[160];
        last_line(errpath, why, sizeof why);
        fprintf(stderr, "opscope replay: test-backend-ops gave no result on backend '%s' (no "
                        "device of that name? for Vulkan on a CPU device such as lavapipe set "
                        "GGML_VK_VISIBLE_DEVICES=0)%s%s\n",
                backend, why[0] ? "; its last message: " : "", why);
        return -1;
    }
    for (size_t i = 0; i < run.n; i++)
        if (res[i].status == OPSCOPE_REPLAY_NONE)
            snprintf(res[i].note, sizeof res[i].note, "no result%s%s",
                     run.stdout_last[0] ? "; test-backend-ops printed: " : "", run.stdout_last);
    return 0;
}
