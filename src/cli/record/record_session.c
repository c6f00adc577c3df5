/*
 * record_session.c - the run directory of `opscope record` and what it tells (see record.h).
 *
 * The capture library of every process of the run finds the directory in OPSCOPE_RECORD_DIR:
 * the first ggml process creates DIR/owner and owns PATH, every other one writes PATH.PID,
 * and each keeps DIR/PID, its status (src/capture/life/cap_life.h): which program, where its
 * profile goes, whether it was written, how many records it dropped and why.
 */
#include "cli/record/record_end.h"
#include "cli/record/record_session.h"
#include "export/capture/end_patch.h"
#include "util/out.h"
#include "util/sort.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct proc_status {
    long pid;
    char program[64];
    char state[16];
    char path[PATH_MAX + 32];
    char instead_of[PATH_MAX + 32]; /* the stream PATH that failed; path is where it went */
    char error[400];
    unsigned long long start_ns, records, dropped, dropped_graphs, cap_mb;
    long long dropped_first, dropped_last;
    char cause[32];
    int written_before;
} proc_status;

struct opscope_rec_session {
    char dir[PATH_MAX];
    char outpath[PATH_MAX + 8]; /* "" with --format summary */
    struct timespec start;      /* real time, the clock of file times */
    proc_status *procs;
    size_t n, cap;
};

/* 0 when DIR has room for the status files (a full $TMPDIR takes the folder but not them:
 * record could then say nothing of the profiles), else the errno. */
static int room_for_status(const char *dir) {
    char p[PATH_MAX + 16];
    snprintf(p, sizeof p, "%s/probe", dir);
    int fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        return errno;
    }
    static const char block[4096];
    ssize_t n = write(fd, block, sizeof block); /* a status file is a few hundred bytes */
    int e = n == (ssize_t)sizeof block ? 0 : n < 0 ? errno : ENOSPC;
    if (close(fd) != 0 && !e) {
        e = errno;
    }
    unlink(p);
    return e;
}

opscope_rec_session_t *opscope_rec_session_new(const char *outpath) {
    opscope_rec_session_t *s = calloc(1, sizeof *s);
    if (!s) {
        fprintf(stderr, "opscope record: out of memory\n");
        return NULL;
    }
    snprintf(s->outpath, sizeof s->outpath, "%s", outpath ? outpath : "");
    /* $TMPDIR, /tmp, else beside the output (known to be writable) */
    char beside[PATH_MAX + 8];
    snprintf(beside, sizeof beside, "%s", s->outpath);
    char *slash = strrchr(beside, '/');
    if (slash) {
        slash[slash == beside ? 1 : 0] = '\0';
    }
    const char *env = getenv("TMPDIR");
    const char *cands[] = {env && env[0] == '/' ? env : NULL, "/tmp", slash ? beside : NULL};
    bool made = false;
    int err = 0;
    /* first where the status files fit; where none do (every candidate full), the first
     * folder made: the run goes on, record then says less (unreported_profile) */
    for (int pass = 0; pass < 2 && !made; pass++) {
        for (size_t i = 0; i < sizeof cands / sizeof cands[0] && !made; i++) {
            if (!cands[i]) {
                continue;
            }
            int n = snprintf(s->dir, sizeof s->dir, "%s/.opscope-record.XXXXXX", cands[i]);
            made = n > 0 && (size_t)n < sizeof s->dir && mkdtemp(s->dir);
            err = made ? 0 : errno;
            if (made && pass == 0 && room_for_status(s->dir) != 0) {
                rmdir(s->dir);
                made = false;
            }
        }
    }
    if (!made) {
        fprintf(stderr, "opscope record: cannot make the run's directory in $TMPDIR or /tmp: %s\n", strerror(err));
        free(s);
        return NULL;
    }
    clock_gettime(CLOCK_REALTIME_COARSE, &s->start);
    return s;
}

const char *opscope_rec_session_dir(const opscope_rec_session_t *s) {
    return s->dir;
}

static bool all_digits(const char *p) {
    return *p && strspn(p, "0123456789") == strlen(p);
}

static void parse_status(FILE *f, proc_status *p) {
    memset(p, 0, sizeof *p);
    p->dropped_first = p->dropped_last = -1;
    char line[PATH_MAX + 512];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *eq = strchr(line, '=');
        if (!eq) {
            continue;
        }
        *eq = '\0';
        const char *k = line, *v = eq + 1;
#define STR(key, field) else if (!strcmp(k, key)) snprintf(p->field, sizeof p->field, "%s", v)
#define NUM(key, field) else if (!strcmp(k, key)) p->field = strtoull(v, NULL, 10)
        if (!strcmp(k, "pid")) p->pid = strtol(v, NULL, 10);
        STR("program", program);
        STR("state", state);
        STR("path", path);
        STR("instead_of", instead_of);
        STR("error", error);
        STR("cause", cause);
        NUM("start_ns", start_ns);
        NUM("records", records);
        NUM("dropped", dropped);
        NUM("dropped_graphs", dropped_graphs);
        NUM("cap_mb", cap_mb);
        else if (!strcmp(k, "dropped_first")) p->dropped_first = strtoll(v, NULL, 10);
        else if (!strcmp(k, "dropped_last")) p->dropped_last = strtoll(v, NULL, 10);
        else if (!strcmp(k, "written_before")) p->written_before = atoi(v);
#undef STR
#undef NUM
    }
}

/* Reads every DIR/PID status file into S->procs. */
static void load(opscope_rec_session_t *s) {
    s->n = 0;
    DIR *d = opendir(s->dir);
    for (struct dirent *e; d && (e = readdir(d));) {
        if (!all_digits(e->d_name)) {
            continue; /* "owner", temporary files of a status being replaced */
        }
        char p[PATH_MAX + 300];
        snprintf(p, sizeof p, "%s/%s", s->dir, e->d_name);
        FILE *f = fopen(p, "re");
        if (!f) {
            continue;
        }
        if (s->n == s->cap) {
            size_t nc = s->cap ? s->cap * 2 : 8;
            proc_status *np = realloc(s->procs, nc * sizeof *np);
            if (!np) {
                fclose(f);
                break;
            }
            s->procs = np;
            s->cap = nc;
        }
        parse_status(f, &s->procs[s->n]);
        fclose(f);
        if (s->procs[s->n].pid > 0) {
            s->n++;
        }
    }
    if (d) {
        closedir(d);
    }
}

/* A process that exists and is not a zombie. */
static bool alive(long pid) {
    if (kill((pid_t)pid, 0) != 0 && errno != EPERM) {
        return false;
    }
    char p[64], buf[512];
    snprintf(p, sizeof p, "/proc/%ld/stat", pid);
    FILE *f = fopen(p, "re");
    if (!f) {
        return true;
    }
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *end = strrchr(buf, ')');
    return !(end && end[1] == ' ' && (end[2] == 'Z' || end[2] == 'X'));
}

static bool busy(const proc_status *p) {
    return !strcmp(p->state, "exporting") || !strcmp(p->state, "recording") || !strcmp(p->state, "checkpoint");
}

/* Waits until no process of the run is writing its profile (at most 60 s: a capture of
 * 512 MiB takes seconds to write), and, after a death by a signal, briefly for the
 * command's descendants that got it too to start writing theirs. A signal sent to us ends
 * the wait. */
static void wait_for_writers(opscope_rec_session_t *s, bool signaled) {
    int grace_ms = signaled ? 500 : 0, waited_ms = 0;
    for (;;) {
        load(s);
        bool writing = false, running = false;
        for (size_t i = 0; i < s->n; i++) {
            const proc_status *p = &s->procs[i];
            if (busy(p) && alive(p->pid)) {
                if (!strcmp(p->state, "exporting")) {
                    writing = true;
                } else {
                    running = true;
                }
            }
        }
        if (!(writing && waited_ms < 60000) && !(running && waited_ms < grace_ms)) {
            return;
        }
        if (opscope_rec_exec_next_signal(20)) {
            return;
        }
        waited_ms += 20;
    }
}

static int by_start(const void *a, const void *b) {
    const proc_status *x = a, *y = b;
    if ((x->start_ns == 0) != (y->start_ns == 0)) {
        return x->start_ns == 0 ? 1 : -1; /* never recorded (off, fork children): after the others */
    }
    if (x->start_ns != y->start_ns) {
        return x->start_ns < y->start_ns ? -1 : 1;
    }
    return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static long owner_pid(const opscope_rec_session_t *s) {
    char p[PATH_MAX + 8];
    snprintf(p, sizeof p, "%s/owner", s->dir);
    FILE *f = fopen(p, "re");
    long pid = -1;
    if (f) {
        if (fscanf(f, "%ld", &pid) != 1) {
            pid = -1;
        }
        fclose(f);
    }
    return pid;
}

/* PATH is the run's main profile: when no process wrote it (the first ggml program computed
 * nothing, or the one that claimed it is gone without a profile), the earliest profile
 * written becomes PATH. */
static void adopt(opscope_rec_session_t *s) {
    if (!s->outpath[0] || opscope_out_path_kind(s->outpath) == OPSCOPE_OUT_KIND_STREAM) {
        return; /* nothing is ever renamed over a stream (/dev/stdout would be replaced) */
    }
    proc_status *first = NULL;
    for (size_t i = 0; i < s->n; i++) {
        proc_status *p = &s->procs[i];
        if (!strcmp(p->path, s->outpath)) {
            return; /* its owner recorded: its file (or its failure) stands */
        }
        if (!first && !strcmp(p->state, "written")) {
            first = p;
        }
    }
    long owner = owner_pid(s);
    if (!first || (owner > 0 && alive(owner))) {
        return; /* nothing to adopt, or PATH's owner may still write it */
    }
    if (rename(first->path, s->outpath) == 0) {
        snprintf(first->path, sizeof first->path, "%s", s->outpath);
    }
}

static void say_drops(const proc_status *p) {
    fprintf(stderr, "opscope record: warning: %s (pid %ld) dropped %llu records: ", p->program, p->pid,
            p->dropped);
    bool cap = !strcmp(p->cause, "memory cap");
    if (cap) {
        fprintf(stderr, "the capture's memory cap was reached (OPSCOPE_MAX_MB=%llu)", p->cap_mb);
    } else if (!strcmp(p->cause, "log cap")) {
        fprintf(stderr, "the record log's size cap on disk was reached (OPSCOPE_MAX_MB=%llu)", p->cap_mb);
    } else if (!strcmp(p->cause, "out of memory")) {
        fprintf(stderr, "the capture ran out of memory");
    } else {
        fprintf(stderr, "device work a GPU timing source could not time");
    }
    if (p->dropped_graphs == 1) {
        fprintf(stderr, "; graph %lld lost records", p->dropped_first);
    } else if (p->dropped_graphs &&
               p->dropped_graphs == (unsigned long long)(p->dropped_last - p->dropped_first + 1)) {
        fprintf(stderr, "; graphs %lld-%lld (%llu graphs) lost records", p->dropped_first,
                p->dropped_last, p->dropped_graphs);
    } else if (p->dropped_graphs) {
        fprintf(stderr, "; %llu graphs between ids %lld and %lld lost records", p->dropped_graphs,
                p->dropped_first, p->dropped_last);
    }
    fprintf(stderr, "%s\n", cap ? "; raise OPSCOPE_MAX_MB to keep them" : "");
}

static bool on_console(const proc_status *p) {
    return !strcmp(p->path, "stderr") || !strcmp(p->path, "stdout");
}

/* Why PATH, a file a process wrote during the run, is not there now ("" when it is), so a
 * message never points at a profile that was removed (`rm -rf` of its folder mid-run). */
static const char *gone(const char *path) {
    struct stat st;
    if (stat(path, &st) == 0 || opscope_out_path_kind(path) == OPSCOPE_OUT_KIND_STREAM) {
        return "";
    }
    char dir[PATH_MAX + 32];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) {
        slash[slash == dir] = '\0';
    }
    return slash && stat(dir, &st) != 0 ? "its folder was removed during the run" : "it was removed during the run";
}

/* Files named PATH.PID written during the run by no process with a status (one that could
 * not reach the run directory): listed so that none goes unmentioned. */
static void other_files(const opscope_rec_session_t *s) {
    if (opscope_out_path_kind(s->outpath) == OPSCOPE_OUT_KIND_STREAM) {
        return; /* no process writes PATH.PID beside a stream */
    }
    char dir[PATH_MAX + 8];
    snprintf(dir, sizeof dir, "%s", s->outpath);
    char *slash = strrchr(dir, '/');
    if (!slash) {
        return;
    }
    *slash = '\0';
    const char *base = slash + 1;
    size_t blen = strlen(base);
    DIR *d = opendir(dir[0] ? dir : "/");
    for (struct dirent *e; d && (e = readdir(d));) {
        if (strncmp(e->d_name, base, blen) != 0 || e->d_name[blen] != '.' || !all_digits(e->d_name + blen + 1)) {
            continue;
        }
        char full[PATH_MAX + 300];
        snprintf(full, sizeof full, "%s/%s", dir, e->d_name);
        bool known = false;
        for (size_t i = 0; i < s->n && !known; i++) {
            known = !strcmp(s->procs[i].path, full);
        }
        struct stat st;
        if (known || stat(full, &st) != 0 || !S_ISREG(st.st_mode) ||
            st.st_mtim.tv_sec < s->start.tv_sec ||
            (st.st_mtim.tv_sec == s->start.tv_sec && st.st_mtim.tv_nsec < s->start.tv_nsec)) {
            continue;
        }
        fprintf(stderr, "opscope record: profile written to %s (process %s)\n", full, e->d_name + blen + 1);
    }
    if (d) {
        closedir(d);
    }
}

/* A process dead after a checkpoint (no final write): its file holds the records up to
 * then. The command's own death is known (its wait status) and written into the file.
 * Returns true when that file is not there (the profile is lost). */
static bool say_checkpoint(const proc_status *p, const opscope_rec_child *cmd, unsigned long long died_ns) {
    const char *sig = NULL;
    bool mine = p->pid == (long)cmd->pid; /* the command itself: its wait status is known */
    const char *how = mine ? opscope_rec_end_how(cmd->status, &sig) : NULL;
    char what[96];
    if (how && sig) {
        snprintf(what, sizeof what, "%s %s", !strcmp(how, "crash") ? "crashed with" : "was killed by", sig);
    } else if (how) {
        snprintf(what, sizeof what, "was killed by signal %d", WTERMSIG(cmd->status));
    } else if (mine && WIFEXITED(cmd->status)) {
        /* _exit(), or exit from a signal handler: the capture's end never ran */
        snprintf(what, sizeof what, "exited with status %d without its final write", WEXITSTATUS(cmd->status));
    } else {
        snprintf(what, sizeof what, "ended without exiting (killed by SIGKILL, a crash, or a signal it did not handle)");
    }
    const char *why_gone = on_console(p) ? "" : gone(p->path);
    if (how && !on_console(p) && !*why_gone) {
        opscope_end_patch(p->path, how, sig, died_ns);
    }
    if (*why_gone) {
        fprintf(stderr, "opscope record: %s (pid %ld) %s; its profile is lost: its last checkpoint, %s, is not "
                        "there (%s)\n", p->program, p->pid, what, p->path, why_gone);
        return true;
    }
    fprintf(stderr, "opscope record: %s (pid %ld) %s; its profile %s holds the %llu records of its last "
                    "checkpoint; later ones, if any, are missing\n",
            p->program, p->pid, what, p->path, p->records);
    return false;
}

/* A profile at a path counted for one process: its records, when the file is that process's. */
typedef struct own_count {
    long pid;
    bool mine;
    unsigned long long records;
} own_count;

static int own_meta(void *ud, const opscope_meta *m) {
    own_count *c = ud;
    c->mine = m->capture && m->capture->pid == c->pid;
    return c->mine ? 0 : 1; /* another process's (an earlier run's): stop */
}

static int own_record(void *ud, const opscope_record *r) {
    (void)r;
    ((own_count *)ud)->records++;
    return 0;
}

/* The records at PATH when the file there is PID's own profile: a record log grows by appends
 * and the status says "checkpoint" only after one, so a SIGKILL between the two leaves a
 * status that never said so over a log that holds records. 0 when none or not PID's. */
static unsigned long long own_records(const char *path, long pid) {
    own_count c = {pid, false, 0};
    opscope_sink sink = {&c, own_meta, NULL, own_record, NULL};
    opscope_error err = {0};
    (void)opscope_read_file(path, OPSCOPE_FORMAT_AUTO, &sink, &err); /* cut short: what is whole */
    return c.mine ? c.records : 0;
}

/* Whether process PID carries VAR (NAME=VALUE, NUL-terminated) in its environment. */
static bool has_env(long pid, const char *var, size_t len) {
    char p[64];
    snprintf(p, sizeof p, "/proc/%ld/environ", pid);
    FILE *f = fopen(p, "re");
    if (!f) {
        return false;
    }
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    for (size_t i = 0; i + len <= n; i += strlen(buf + i) + 1) {
        if (!memcmp(buf + i, var, len) && buf[i + len] == '\0') {
            return true;
        }
    }
    return false;
}

/* Processes the command started that still run and have said nothing (no status file: no
 * graph computed yet, or ggml not even loaded, as `sh -c 'prog &'` leaves them): found by
 * this run's OPSCOPE_RECORD_DIR in their environment, named, not waited for. Returns how
 * many. */
static size_t name_unseen(const opscope_rec_session_t *s) {
    char var[PATH_MAX + 32];
    int len = snprintf(var, sizeof var, "OPSCOPE_RECORD_DIR=%s", s->dir);
    DIR *d = opendir("/proc");
    size_t count = 0;
    for (struct dirent *e; d && len > 0 && (size_t)len < sizeof var && (e = readdir(d));) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (*end || pid <= 0 || pid == (long)getpid() || !alive(pid) || !has_env(pid, var, (size_t)len)) {
            continue;
        }
        bool known = false;
        for (size_t i = 0; i < s->n; i++) {
            known |= s->procs[i].pid == pid;
        }
        if (known) {
            continue;
        }
        char comm[64] = "?", p[64];
        snprintf(p, sizeof p, "/proc/%ld/comm", pid);
        FILE *f = fopen(p, "re");
        if (f) {
            if (fgets(comm, sizeof comm, f)) comm[strcspn(comm, "\n")] = '\0';
            fclose(f);
        }
        fprintf(stderr, "opscope record: %s (pid %ld), started by the command, is still running; if it computes "
                        "ggml graphs, it writes its profile when it ends, to %s or %s.%ld (record does not wait "
                        "for it)\n", comm, pid, s->outpath[0] ? s->outpath : "stderr",
                s->outpath[0] ? s->outpath : "stderr", pid);
        count++;
    }
    if (d) {
        closedir(d);
    }
    return count;
}

/* What the report found: profiles there, and profiles missing (could not be written, lost,
 * or written and then removed). */
typedef struct report_count {
    size_t profiles, missing;
} report_count;

/* Says on stderr, in one line, where P's profile went (or why it is not there); counts it in C. */
static void say_proc(const proc_status *p, const opscope_rec_child *cmd, unsigned long long died_ns,
                     report_count *c) {
    bool is_alive = alive(p->pid);
    const char *why_gone = on_console(p) ? "" : gone(p->path);
    unsigned long long own = 0;
    if (!strcmp(p->state, "written")) {
        c->profiles++;
        if (p->instead_of[0]) {
            fprintf(stderr, "opscope record: warning: cannot write the profile of %s (pid %ld) to %s: %s; it was "
                            "written to %s instead (%llu records)\n", p->program, p->pid, p->instead_of,
                    p->error, p->path, p->records);
        } else if (*why_gone) {
            c->missing++;
            fprintf(stderr, "opscope record: the profile of %s (pid %ld) was written to %s, but it is not there "
                            "now (%s)\n", p->program, p->pid, p->path, why_gone);
        } else if (!on_console(p)) {
            fprintf(stderr, "opscope record: profile written to %s (%s, pid %ld, %llu records)\n", p->path,
                    p->program, p->pid, p->records);
        }
        if (is_alive) {
            fprintf(stderr, "opscope record: %s (pid %ld) is still running; it will write %s again when "
                            "it ends\n", p->program, p->pid, on_console(p) ? "its summary" : p->path);
        }
    } else if (!strcmp(p->state, "failed")) {
        c->missing++;
        /* what is left at the path: the capture's error names a record log it left there */
        char left[96] = "";
        const char *log_note = strstr(p->error, " (the record log there holds");
        int err_len = (int)strlen(p->error);
        if (log_note && *why_gone) {
            err_len = (int)(log_note - p->error); /* no log is there now: say why instead */
            snprintf(left, sizeof left, " (nothing is left there: %s)", why_gone);
        } else if (p->written_before && !log_note) {
            snprintf(left, sizeof left, " (%s%s)", *why_gone ? "no earlier profile is left: " :
                     "an earlier, partial profile is there", why_gone);
        }
        fprintf(stderr, "opscope record: cannot write the profile of %s (pid %ld) to %s: %.*s%s\n", p->program,
                p->pid, p->path, err_len, p->error, left);
    } else if (!strcmp(p->state, "off")) {
        fprintf(stderr, "opscope record: profiling was off in %s (pid %ld): %s\n", p->program, p->pid, p->error);
    } else if (!strcmp(p->state, "unrecorded")) {
        fprintf(stderr, "opscope record: %s (pid %ld) computed ggml graphs that are not profiled: %s\n",
                p->program, p->pid, p->error);
    } else if (!strcmp(p->state, "checkpoint") && !is_alive) {
        c->profiles++;
        c->missing += say_checkpoint(p, cmd, died_ns);
    } else if (is_alive) {
        fprintf(stderr, "opscope record: %s (pid %ld) is still %s; its profile will go to %s\n", p->program,
                p->pid, !strcmp(p->state, "exporting") ? "writing its profile" : "running", p->path);
    } else if (!on_console(p) && !*why_gone && (own = own_records(p->path, p->pid)) > 0) {
        proc_status q = *p;
        q.records = own;
        c->profiles++;
        c->missing += say_checkpoint(&q, cmd, died_ns);
    } else {
        c->missing++;
        fprintf(stderr, "opscope record: %s (pid %ld) ran ggml graphs but its profile is lost: it ended "
                        "without exiting (killed by SIGKILL, a crash, or a signal it did not handle)%s\n",
                p->program, p->pid,
                p->written_before && !*why_gone ? "; an earlier, partial profile is at its path" : "");
    }
    if (p->dropped && strcmp(p->state, "off") && strcmp(p->state, "unrecorded")) {
        say_drops(p);
    }
}

/* No process said anything, yet FILE was written during the run: the capture could not write
 * its status into the run directory (a full $TMPDIR). Returns true after saying so. */
static bool unreported_profile(const opscope_rec_session_t *s) {
    struct stat st;
    if (!s->outpath[0] || opscope_out_path_kind(s->outpath) == OPSCOPE_OUT_KIND_STREAM ||
        stat(s->outpath, &st) != 0 || !S_ISREG(st.st_mode) || st.st_mtim.tv_sec < s->start.tv_sec ||
        (st.st_mtim.tv_sec == s->start.tv_sec && st.st_mtim.tv_nsec < s->start.tv_nsec)) {
        return false;
    }
    fprintf(stderr, "opscope record: profile written to %s (record cannot say by which process, nor whether it "
                    "is whole: the capture could not write its status into %s)\n", s->outpath, s->dir);
    return true;
}

int opscope_rec_session_report(opscope_rec_session_t *s, const opscope_rec_child *cmd) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    unsigned long long died_ns = (unsigned long long)now.tv_sec * 1000000000ull + (unsigned long long)now.tv_nsec;
    bool signaled = WIFSIGNALED(cmd->status);
    wait_for_writers(s, signaled);
    opscope_rec_fresh_line(); /* our lines never glued to the command's unfinished one */
    load(s);
    if (s->n > 1) {
        opscope_sort(s->procs, s->n, sizeof *s->procs, by_start);
    }
    adopt(s);
    report_count c = {0, 0};
    for (size_t i = 0; i < s->n; i++) {
        say_proc(&s->procs[i], cmd, died_ns, &c);
    }
    if (s->outpath[0]) {
        other_files(s);
    }
    size_t left = name_unseen(s);
    if (s->n == 0 && unreported_profile(s)) {
        return 0;
    }
    if (s->n == 0 && left) {
        fprintf(stderr, "opscope record: no profile written yet\n");
    } else if (s->n == 0) {
        fprintf(stderr, "opscope record: no profile written (no ggml graph was computed)\n");
    } else if (c.profiles == 0 && !c.missing) {
        fprintf(stderr, "opscope record: no profile written\n");
    }
    /* a run that left no profile at all is one missing, whatever the reason */
    return (int)(c.missing ? c.missing : c.profiles == 0);
}

void opscope_rec_session_free(opscope_rec_session_t *s) {
    if (!s) {
        return;
    }
    DIR *d = opendir(s->dir);
    for (struct dirent *e; d && (e = readdir(d));) {
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            char p[PATH_MAX + 300];
            snprintf(p, sizeof p, "%s/%s", s->dir, e->d_name);
            unlink(p);
        }
    }
    if (d) {
        closedir(d);
    }
    rmdir(s->dir);
    free(s->procs);
    free(s);
}
