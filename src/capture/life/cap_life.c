/* cap_life.c - start-up, export triggers, signals, fork/exec (see cap_life.h). */
#include "capture/life/cap_life.h"

#include "capture/store/cap_buf.h"
#include "capture/store/cap_clock.h"
#include "capture/life/cap_config.h"
#include "capture/life/cap_ctl.h"
#include "capture/life/cap_env.h"
#include "capture/store/cap_counters.h"
#include "capture/store/cap_decodes.h"
#include "capture/store/cap_heap.h"
#include "capture/store/cap_meta.h"
#include "capture/store/cap_run.h"
#include "capture/store/cap_drops.h"
#include "capture/store/cap_log.h"
#include "capture/store/cap_window.h"
#include "capture/life/cap_write.h"
#include "util/out.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

_Atomic bool opscope_cap_on;
bool opscope_cap_env_mode;

/* The signals that end a program by default and that a person or a supervisor sends to
 * stop it, and SIGPIPE (a peer that went away kills a program that left it at its default:
 * ggml-rpc-server when a client disconnects while it answers): the profile is written first,
 * then the process dies by the signal. (Not SIGKILL: it cannot be caught.) */
static const int k_sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE};
#define N_SIGS (sizeof k_sigs / sizeof k_sigs[0])

/* The capture's life, in one place. Threading contract, by group:
 *   start   written before main (claim_at_load: one thread), in init_once, or in
 *           first_capture before the watcher starts (each under its pthread_once); read-only
 *           after, from any thread
 *   fork    written in a fork child by at_fork_child (the only thread there), read after
 *   export  read and written under export_lock only (export_as), but path_warned, also set
 *           at start-up before any export, and ckpt_cost_ns, the watcher thread's own
 *   watch   atomics, and semaphores made before `watching` is set: any thread, and the
 *           signal handler (an atomic compare-exchange and sem_post, async-signal-safe)
 * Checkpoints: while the program runs the watcher appends what is new to the record log at
 * PATH every ckpt_ms (OPSCOPE_CHECKPOINT_MS, default 1000; 0: never; cap_log.h), so a crash
 * or SIGKILL loses only what came after the last one, and the buffers are freed as they are
 * written; at the end the profile (JSON or text) is made from the log and replaces it. With
 * OPSCOPE_STREAM=0 or OPSCOPE_GRAPH_LOG, records stay in memory and a checkpoint rewrites
 * the whole JSON profile. The period stretches to 20 times the
 * last write's CPU time, so the writes take at most about 5% of one core.
 * A stream output (util/out.h: a FIFO, a pipe, /dev/stdout, a socket, a device) is written
 * once, at the end, never at a checkpoint (a reader would get one document per checkpoint),
 * bounded (cap_write.h: a reader absent or stalled fails the write, the program never
 * waits for it); when that write fails, the profile goes to a file elsewhere, said. A
 * process that does not own a stream PATH writes such a file too (never PATH.PID beside
 * /dev/fd/63).
 * Inside `opscope record` (OPSCOPE_RECORD_DIR, a directory the command made for this run):
 * PATH goes to the first ggml process that claims it (creating DIR/owner), so programs run
 * one after another never overwrite each other's profile; every profiling process keeps a
 * status file DIR/PID (cap_life.h) from which record says where each profile went. */
typedef struct cap_life {
    /* start */
    pthread_once_t once;       /* init_once */
    opscope_cap_config cfg;    /* GGML_PROFILE, OPSCOPE_FORMAT; PATH.PID for a non-owner */
    long ckpt_ms;
    bool log_on;               /* records stream to a record log at PATH (cap_log.h) */
    uint64_t log_max;          /* its cap in bytes (OPSCOPE_MAX_MB) */
    bool atfork_set;           /* at_fork_child installed before main */
    char rec_dir[1024];        /* OPSCOPE_RECORD_DIR, "" outside a record run */
    bool not_owner;            /* another process of this run owns PATH: write PATH.PID */
    bool stream;               /* PATH is a stream (util/out.h): written once, at the end */
    uint64_t rec_start_ns;     /* CLOCK_MONOTONIC at the first compute */
    struct sigaction old_sa[N_SIGS]; /* what the program had before our handlers */
    pthread_once_t watch_once; /* first_capture */
    /* fork */
    bool child_of_fork;
    long fork_parent;
    /* export */
    pthread_mutex_t export_lock;
    uint64_t exported_records; /* records at the last export, UINT64_MAX: try again */
    bool stats;                /* OPSCOPE_STATS, until printed */
    bool paused;               /* OPSCOPE_PAUSED: started paused (store/cap_window.h) */
    bool warned_drops;
    bool warned_decodes;       /* llama_decode calls lost were said */
    bool last_was_ckpt;        /* the file's last write is a checkpoint: the final one must come */
    bool path_warned;          /* PATH's trouble was said (at start or at a write): once is enough */
    bool written_once;         /* an export of ours reached its file */
    bool note_ok;              /* the last export's outcome is in DIR/PID: record will say it */
    bool stream_tried;         /* the one write to a stream PATH was made: never a second */
    char instead[1100];        /* where the profile went when the stream PATH failed, "" none */
    uint64_t ckpt_cost_ns;     /* the last checkpoint's CPU time */
    /* watch */
    _Atomic bool disabled;
    _Atomic bool fork_noted;
    _Atomic bool watching;     /* the watcher thread runs */
    _Atomic int sig_pending;   /* the signal to export for, -1 the _exit hook, 0 none */
    sem_t sig_sem;             /* posted by the handler and the _exit hook */
    sem_t done_sem;            /* posted by the watcher when the _exit hook's export is done */
} cap_life;

static cap_life g_life = {
    .once = PTHREAD_ONCE_INIT,
    .ckpt_ms = 1000,
    .watch_once = PTHREAD_ONCE_INIT,
    .export_lock = PTHREAD_MUTEX_INITIALIZER,
    .exported_records = UINT64_MAX,
};

typedef enum end_kind { END_CHECKPOINT, END_EXIT, END_SIGNAL } end_kind;
static void export_as(end_kind kind, int sig);

/* A directory too long for rec_dir is no record run's (record makes a short one): said, and
 * the process writes as outside one. */
static void load_rec_dir(void) {
    const char *d = getenv("OPSCOPE_RECORD_DIR");
    if (d && *d && !g_life.rec_dir[0] && strlen(d) < sizeof g_life.rec_dir) {
        memcpy(g_life.rec_dir, d, strlen(d) + 1);
    } else if (d && strlen(d) >= sizeof g_life.rec_dir) {
        opscope_cap_env_warn("OPSCOPE_RECORD_DIR", d, "is longer than 1023 bytes",
                             "none (the profile is written as outside opscope record)");
    }
}

/* True when this process may own PATH: outside a record run always (the environment rule
 * decides), inside one only if it is the first to create DIR/owner. */
static bool claim_exclusive(void) {
    if (!g_life.rec_dir[0]) {
        return true;
    }
    char p[sizeof g_life.rec_dir + 8];
    snprintf(p, sizeof p, "%s/owner", g_life.rec_dir);
    int fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        return false; /* taken, or the run is over (its directory gone): never overwrite PATH */
    }
    char me[32];
    int n = snprintf(me, sizeof me, "%ld\n", (long)getpid());
    ssize_t wr = write(fd, me, (size_t)n);
    (void)wr;
    close(fd);
    return true;
}

/* Appends printf's FMT to BUF (SIZE bytes, N used); returns the new length (cut at SIZE). */
__attribute__((format(printf, 4, 5)))
static size_t note_put(char *buf, size_t size, size_t n, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int k = n < size ? vsnprintf(buf + n, size - n, fmt, ap) : 0;
    va_end(ap);
    n += k > 0 ? (size_t)k : 0;
    return n < size ? n : size - 1;
}

/* Replaces PATH with BUF's N bytes: a temporary file beside it, renamed over it (a reader
 * sees the old note or the new one, whole). Returns whether it was written. */
static bool note_write(const char *path, const char *buf, size_t n) {
    char tmp[PATH_MAX + 16];
    snprintf(tmp, sizeof tmp, "%s.tmp.XXXXXX", path);
    int fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0) {
        return false;
    }
    (void)fchmod(fd, 0644);
    size_t done = 0;
    while (done < n) {
        ssize_t w = write(fd, buf + done, n - done);
        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w <= 0) {
            break;
        }
        done += (size_t)w;
    }
    bool ok = close(fd) == 0 && done == n && rename(tmp, path) == 0;
    if (!ok) {
        unlink(tmp);
    }
    return ok;
}

/* Writes this process's status file DIR/PID (key=value lines, replaced atomically): STATE
 * (recording, exporting, written, failed, off), where the profile goes, what the last write
 * did (WI, may be NULL), the drops and ERROR (may be NULL). Returns false when there is no
 * record run or the file could not be written (the caller then speaks on stderr itself). */
static bool rec_note(const char *state, const opscope_cap_written *wi, const char *error) {
    bool unrecorded = !strcmp(state, "unrecorded");
    load_rec_dir(); /* "off" may come before init */
    if (!g_life.rec_dir[0] || (g_life.child_of_fork && !unrecorded)) {
        return false;
    }
    char p[sizeof g_life.rec_dir + 32];
    snprintf(p, sizeof p, "%s/%ld", g_life.rec_dir, (long)getpid());
    char prog[64];
    snprintf(prog, sizeof prog, "%s", program_invocation_short_name);
    for (char *c = prog; *c; c++) {
        if ((unsigned char)*c < 0x20) *c = '?';
    }
    opscope_meta m = {0};
    if (!unrecorded) {
        opscope_cap_drops_meta(&m); /* a fork child's counters are its parent's */
    }
    const char *where = g_life.cfg.dest == OPSCOPE_CAP_DEST_STDERR ? "stderr"
                      : g_life.cfg.dest == OPSCOPE_CAP_DEST_STDOUT ? "stdout"
                      : g_life.instead[0]                          ? g_life.instead : g_life.cfg.path;
    /* formatted on the stack and written with write(2): the watcher writes this at every
     * checkpoint and makes no heap call (a heap call gives it a malloc arena of its own) */
    char buf[3 * sizeof g_life.cfg.path + 1024];
    size_t n = 0;
    if (g_life.instead[0]) {
        n = note_put(buf, sizeof buf, n, "instead_of=%s\n", g_life.cfg.path);
    }
    n = note_put(buf, sizeof buf, n, "pid=%ld\nprogram=%s\nstate=%s\npath=%s\nstart_ns=%llu\nrecords=%llu\n"
                          "written_before=%d\ndropped=%llu\ndropped_graphs=%llu\ndropped_first=%lld\n"
                          "dropped_last=%lld\ncap_mb=%llu\ncause=%s\nerror=",
                       (long)getpid(), prog, state, where, (unsigned long long)g_life.rec_start_ns,
                       (unsigned long long)(wi ? wi->records : 0), g_life.written_once ? 1 : 0,
                       (unsigned long long)m.dropped_records, (unsigned long long)m.dropped_graphs,
                       (long long)m.dropped_first_graph, (long long)m.dropped_last_graph,
                       (unsigned long long)m.capture_cap_mb,
                       m.dropped_cause == OPSCOPE_DROP_OUT_OF_MEMORY ? "out of memory"
                       : m.dropped_cause == OPSCOPE_DROP_LOG_CAP     ? "log cap"
                       : m.dropped_cause == OPSCOPE_DROP_CAP         ? "memory cap"
                       : m.dropped_cause == OPSCOPE_DROP_DEVICE      ? "device timing lost" : "");
    for (const char *e = error ? error : wi ? wi->error : ""; *e && n + 2 < sizeof buf; e++) {
        buf[n++] = (unsigned char)*e < 0x20 ? ' ' : *e;
    }
    buf[n++] = '\n';
    return note_write(p, buf, n);
}

/* Records dropped are said once on stderr at exit, unless a record run's status file says
 * it (record prints it then). */
static void warn_drops(void) {
    opscope_meta m = {0};
    opscope_cap_drops_meta(&m);
    if (!m.dropped_records || g_life.warned_drops) {
        return;
    }
    g_life.warned_drops = true;
    bool cap = m.dropped_cause == OPSCOPE_DROP_CAP || m.dropped_cause == OPSCOPE_DROP_LOG_CAP;
    /* One line, one write: the program's own threads may be printing at exit too. */
    char line[512];
    size_t n = 0;
    n += (size_t)snprintf(line + n, sizeof line - n, "opscope: %llu records dropped (",
                          (unsigned long long)m.dropped_records);
    if (n < sizeof line && m.dropped_cause == OPSCOPE_DROP_LOG_CAP) {
        n += (size_t)snprintf(line + n, sizeof line - n, "the record log's size cap on disk reached: OPSCOPE_MAX_MB=%llu)",
                              (unsigned long long)m.capture_cap_mb);
    } else if (n < sizeof line && cap) {
        n += (size_t)snprintf(line + n, sizeof line - n, "memory cap reached: OPSCOPE_MAX_MB=%llu)",
                              (unsigned long long)m.capture_cap_mb);
    } else if (n < sizeof line) {
        n += (size_t)snprintf(line + n, sizeof line - n, "%s)",
                              m.dropped_cause == OPSCOPE_DROP_OUT_OF_MEMORY ? "out of memory"
                              : "device work a GPU timing source could not time");
    }
    if (n < sizeof line && m.dropped_graphs) {
        n += (size_t)snprintf(line + n, sizeof line - n, "; %llu graph%s between ids %lld and %lld lost records",
                              (unsigned long long)m.dropped_graphs, m.dropped_graphs == 1 ? "" : "s",
                              (long long)m.dropped_first_graph, (long long)m.dropped_last_graph);
    }
    if (n < sizeof line)
        snprintf(line + n, sizeof line - n, "%s\n", cap ? "; raise OPSCOPE_MAX_MB to keep them" : "");
    fputs(line, stderr);
}

/* llama_decode calls the capture's table had no room for are said once on stderr at exit
 * (the profile says them too: capture.run.decodes_lost, the requests' summary). With the
 * record log only a stall of its checkpoints loses any (docs/capture.md, "Requests"). */
static void warn_decodes(bool log) {
    char line[320];
    if (g_life.warned_decodes || !opscope_cap_decodes_lost_line(line, sizeof line, log)) {
        return;
    }
    g_life.warned_decodes = true;
    fprintf(stderr, "%s\n", line);
}

/* Signal watcher: the handler only posts a semaphore; the watcher thread exports (which
 * may allocate) and then re-raises the signal with the disposition it had before us. */

static void on_signal(int sig) {
    if (!atomic_load(&g_life.watching)) {
        /* No watcher yet (nothing recorded): behave as if we were never here. */
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    int expected = 0;
    if (atomic_compare_exchange_strong(&g_life.sig_pending, &expected, sig)) {
        sem_post(&g_life.sig_sem);
        opscope_cap_ctl_wake();
    }
}


static uint64_t cpu_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Until the semaphore is posted (true) or the deadline UNTIL (CLOCK_REALTIME; NULL: none)
 * passes (false, errno ETIMEDOUT; other errno: the wait failed), answering the control
 * channel's peers meanwhile (cap_ctl.h): the signal handler and the _exit hook write the
 * wake pipe after their post. Slices of at most 200 ms, so a wake that found the pipe
 * missing is late by no more. */
static bool wait_serving(const struct timespec *until) {
    int fd = opscope_cap_ctl_fd(), wake = opscope_cap_ctl_wake_fd();
    if (fd < 0) {
        int rc = until ? sem_timedwait(&g_life.sig_sem, until) : sem_wait(&g_life.sig_sem);
        return rc == 0;
    }
    for (;;) {
        if (sem_trywait(&g_life.sig_sem) == 0) return true;
        long ms = 200;
        if (until) {
            struct timespec now;
            clock_gettime(CLOCK_REALTIME, &now);
            int64_t left = (int64_t)(until->tv_sec - now.tv_sec) * 1000 + (until->tv_nsec - now.tv_nsec) / 1000000;
            if (left <= 0) {
                errno = ETIMEDOUT;
                return false;
            }
            ms = left < ms ? (long)left : ms;
        }
        struct pollfd p[2] = {{.fd = fd, .events = POLLIN}, {.fd = wake, .events = POLLIN}};
        int r = poll(p, wake >= 0 ? 2 : 1, (int)ms);
        if (r > 0 && (p[1].revents & POLLIN)) opscope_cap_ctl_drain();
        if (r > 0 && (p[0].revents & POLLIN)) opscope_cap_ctl_serve();
    }
}

/* Until a signal (or the _exit hook) posts: a checkpoint each period, when the profile is a
 * JSON file. */
static void wait_checkpointing(void) {
    bool ckpt = g_life.ckpt_ms > 0 && g_life.cfg.path[0] && !g_life.stream &&
                (g_life.cfg.dest == OPSCOPE_CAP_DEST_JSON || g_life.log_on);
    for (;;) {
        if (!ckpt) {
            if (wait_serving(NULL)) return;
            continue; /* EINTR */
        }
        uint64_t period = (uint64_t)g_life.ckpt_ms * 1000000u;
        if (period < 20 * g_life.ckpt_cost_ns) period = 20 * g_life.ckpt_cost_ns;
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        uint64_t ns = (uint64_t)until.tv_nsec + period;
        until.tv_sec += (time_t)(ns / 1000000000u);
        until.tv_nsec = (long)(ns % 1000000000u);
        if (wait_serving(&until)) return;
        if (errno == ETIMEDOUT) {
            uint64_t t0 = cpu_ns();
            opscope_cap_heap_mapped(true); /* the checkpoint's heap calls: cap_heap.h */
            export_as(END_CHECKPOINT, 0);
            opscope_cap_heap_mapped(false);
            g_life.ckpt_cost_ns = cpu_ns() - t0; /* CPU time: what the program loses, not the wait for a core */
        } else if (errno != EINTR) {
            ckpt = false; /* cannot time the wait: signals only, as without checkpoints */
        }
    }
}

static void *watcher(void *arg) {
    (void)arg;
    /* named for top -H and for the tests' heap-call shim (it must precede any heap call) */
    pthread_setname_np(pthread_self(), "opscope-watch");
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    wait_checkpointing();
    int sig = atomic_load(&g_life.sig_pending);
    export_as(sig == -1 ? END_EXIT : END_SIGNAL, sig);
    if (sig == -1) { /* _exit hook: the caller waits for us, then exits */
        sem_post(&g_life.done_sem);
        return NULL;
    }
    for (size_t i = 0; i < N_SIGS; i++) {
        if (k_sigs[i] == sig) {
            sigaction(sig, &g_life.old_sa[i], NULL);
        }
    }
    kill(getpid(), sig);
    return NULL;
}

void opscope_cap_life_exit_hook(void) {
    /* _exit skips atexit: programs call it from their own SIGINT handlers (llama-completion
     * does). The export runs on the watcher thread, which holds none of the caller's locks;
     * we wait at most 10 s for it, so an exit is never held up for long. */
    if (g_life.child_of_fork || !atomic_load(&g_life.watching)) {
        return;
    }
    int expected = 0;
    if (!atomic_compare_exchange_strong(&g_life.sig_pending, &expected, -1)) {
        return;
    }
    sem_post(&g_life.sig_sem);
    opscope_cap_ctl_wake();
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 10;
    while (sem_timedwait(&g_life.done_sem, &until) != 0 && errno == EINTR) {
    }
}

static void start_watcher(void) {
    if (sem_init(&g_life.sig_sem, 0, 0) != 0 || sem_init(&g_life.done_sem, 0, 0) != 0) {
        return;
    }
    pthread_t th;
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&at, 256 * 1024);
    if (pthread_create(&th, &at, watcher, NULL) == 0) {
        atomic_store(&g_life.watching, true);
    }
    pthread_attr_destroy(&at);
}

/* A file for the profile when the stream PATH cannot take it: $TMPDIR (absolute) or /tmp,
 * named by pid, into OUT. */
static void elsewhere(char *out, size_t size) {
    const char *t = getenv("TMPDIR");
    snprintf(out, size, "%s/opscope-profile.%ld.%s", t && t[0] == '/' ? t : "/tmp", (long)getpid(),
             g_life.cfg.dest == OPSCOPE_CAP_DEST_TEXT ? "txt" : "json");
}

/* This process does not own PATH: PATH.PID, or, beside a stream, a file elsewhere. */
static void not_owner_path(void) {
    if (g_life.stream) {
        g_life.stream = false;
        elsewhere(g_life.cfg.path, sizeof g_life.cfg.path);
    } else if (!opscope_cap_config_child(&g_life.cfg, (long)getpid())) {
        opscope_cap_life_disable("GGML_PROFILE.PID is longer than a path may be");
    }
}

/* Under an address-space limit (ulimit -v) the program must keep the room it needs after its
 * first compute: the threads it starts there (libgomp's pool: 8 MiB of stack each) and, on
 * top, what the capture takes from then on (record chunks, the writer's 256 KiB stack and
 * buffers, the final profile's conversion; the writer's checkpoints make no heap call, so
 * glibc gives it no arena of its own: store/cap_heap.h). With less than CAP_AS_NEED_MB left
 * at the first compute the capture turns itself off, said once, and the program runs as it would
 * without it (but for the library's own mapping and its first record chunk, a few MiB taken
 * before: figures in docs/capture.md, "Output paths"). Returns false then. */
#define CAP_AS_NEED_MB 16
static bool check_address_space(void) {
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) {
        return true;
    }
    char buf[64] = {0};
    int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
    if (fd >= 0) {
        close(fd);
    }
    uint64_t used = n > 0 ? strtoull(buf, NULL, 10) * (uint64_t)sysconf(_SC_PAGESIZE) : 0;
    uint64_t left = rl.rlim_cur > used ? (uint64_t)rl.rlim_cur - used : 0;
    if (!used || left >= (uint64_t)CAP_AS_NEED_MB << 20) {
        return true;
    }
    char why[200];
    snprintf(why, sizeof why, "only %llu MiB of address space is left under the limit (ulimit -v %llu), the "
                              "capture needs %d MiB: it turned itself off to leave the program room",
             (unsigned long long)(left >> 20), (unsigned long long)(rl.rlim_cur >> 10), CAP_AS_NEED_MB);
    opscope_cap_life_disable(why);
    return false;
}

/* The control channel (cap_ctl.h), in a record run's folder: opscope ctl's way in. A paused
 * capture without one could never start: said. */
static void open_ctl(void) {
    if (!g_life.rec_dir[0]) {
        if (!atomic_load(&opscope_cap_window_on)) {
            fprintf(stderr, "opscope: OPSCOPE_PAUSED=1 outside opscope record: no control channel, nothing will be "
                            "recorded (use opscope record --paused)\n");
        }
        return;
    }
    char why[256];
    if (opscope_cap_ctl_open(g_life.rec_dir, why, sizeof why) != 0) {
        fprintf(stderr, "opscope: no control channel for opscope ctl (%s)%s\n", why,
                atomic_load(&opscope_cap_window_on) ? "" : "; the capture stays paused");
    }
}

static void first_capture(void) {
    /* Only for programs that load ggml after start-up (claim_at_load found no ggml): the
     * claim then comes late, and a child started before this point may own PATH too. */
    if (opscope_cap_env_mode && !g_life.not_owner && !getenv("OPSCOPE_OWNER_PID")) {
        if (claim_exclusive()) {
            char me[32];
            snprintf(me, sizeof me, "%ld", (long)getpid());
            setenv("OPSCOPE_OWNER_PID", me, 1);
        } else {
            g_life.not_owner = true;
            not_owner_path();
        }
    }
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    g_life.rec_start_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    if (opscope_cap_env_mode) {
        rec_note("recording", NULL, NULL);
    }
    /* the process's facts (boot id, host), read with stdio: here, so the watcher's
     * checkpoints find them filled and make no heap call for them */
    opscope_cap_meta_facts();
    opscope_cap_run_get_base(); /* built (models' headers read) here too: see cap_run.h */
    if (check_address_space()) {
        open_ctl();
        start_watcher();
    }
}

void opscope_cap_life_started(void) {
    if (!g_life.child_of_fork) {
        pthread_once(&g_life.watch_once, first_capture);
    }
}

static void install_signal(int sig, struct sigaction *old) {
    struct sigaction cur;
    if (sigaction(sig, NULL, &cur) != 0 || cur.sa_handler != SIG_DFL ||
        (cur.sa_flags & SA_SIGINFO)) {
        return; /* the program (or its parent) chose something: leave it alone */
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(sig, &sa, old);
}

void opscope_cap_life_unrecorded(void) {
    if (!g_life.child_of_fork || g_life.cfg.dest == OPSCOPE_CAP_DEST_NONE || atomic_exchange(&g_life.fork_noted, true)) {
        return;
    }
    char why[112];
    snprintf(why, sizeof why, "it is a child of pid %ld made by fork without exec (only exec'd processes are)",
             g_life.fork_parent);
    if (!rec_note("unrecorded", NULL, why)) {
        fprintf(stderr, "opscope: pid %ld computes ggml graphs that are not profiled (%s)\n", (long)getpid(),
                why);
    }
}

static void at_fork_child(void) {
    /* The child of a plain fork: its copy of the records belongs to the parent's profile.
     * Capture stays off here (ggml's OpenMP pool does not survive a fork anyway; a child
     * that computes is said, opscope_cap_life_unrecorded); an exec re-initialises with
     * OPSCOPE_OWNER_PID set. */
    g_life.child_of_fork = true;
    g_life.fork_parent = (long)getppid();
    atomic_store(&opscope_cap_on, false);
    atomic_store(&g_life.watching, false);
    pthread_mutex_init(&g_life.export_lock, NULL);
}

/* Who owns PATH, decided at load time: before main (one thread, so setenv races with no
 * reader) and so before the program can start any child. A process that has ggml loaded
 * when the library initialises and finds no owner in its environment claims PATH by
 * exporting OPSCOPE_OWNER_PID=its pid; every ggml process it starts later (fork+exec,
 * posix_spawn, system) inherits that and writes PATH.PID, whichever computes first. A
 * process without ggml (a shell started by `opscope record -- sh -c ...`) never claims, so
 * the first ggml program below it does. The fork handler is installed here too, so that the
 * child of a plain fork made before the first intercepted call also stays silent. */
__attribute__((constructor)) static void claim_at_load(void) {
    const char *v = getenv("GGML_PROFILE");
    if (!v) {
        return;
    }
    opscope_cap_config cfg;
    opscope_cap_config_parse(v, &cfg);
    if (cfg.dest != OPSCOPE_CAP_DEST_JSON && cfg.dest != OPSCOPE_CAP_DEST_TEXT) {
        return; /* console output: no file to own */
    }
    /* ggml_init is ggml's, never ours: found only when libggml-base is loaded. */
    if (!dlsym(RTLD_DEFAULT, "ggml_init")) {
        return;
    }
    g_life.atfork_set = pthread_atfork(NULL, NULL, at_fork_child) == 0;
    load_rec_dir();
    const char *owner = getenv("OPSCOPE_OWNER_PID");
    if (!owner || !*owner) {
        if (claim_exclusive()) {
            char me[32];
            snprintf(me, sizeof me, "%ld", (long)getpid());
            setenv("OPSCOPE_OWNER_PID", me, 1);
        } else {
            g_life.not_owner = true; /* an earlier program of this record run has PATH */
        }
    }
}

/* Says at once, not after the run, when PATH's folder cannot take the profile (missing, not
 * writable): the program runs on, and the writes try again (the folder may come later).
 * In a record run record says it, once, at the end (one line per profile). */
static void check_path(void) {
    if ((g_life.cfg.dest != OPSCOPE_CAP_DEST_JSON && g_life.cfg.dest != OPSCOPE_CAP_DEST_TEXT) || !g_life.cfg.path[0] ||
        g_life.stream) {
        return; /* a stream is never opened before its one write: a FIFO's reader would see its end */
    }
    char dir[sizeof g_life.cfg.path];
    snprintf(dir, sizeof dir, "%s", g_life.cfg.path);
    char *slash = strrchr(dir, '/');
    if (!slash) {
        snprintf(dir, sizeof dir, ".");
    } else {
        slash[slash == dir] = '\0'; /* "/x.json": the root */
    }
    if (access(dir, W_OK | X_OK) == 0 || g_life.rec_dir[0]) {
        return;
    }
    fprintf(stderr, "opscope: cannot write the profile to %s: %s: %s (checked at start; the program runs on "
                    "and the profile is written if that becomes possible)\n", g_life.cfg.path, dir, strerror(errno));
    g_life.path_warned = true;
}

/* Streams to a record log when PATH is a regular file or absent (the log is made beside
 * it and renamed over it), OPSCOPE_STREAM is not 0 and no OPSCOPE_GRAPH_LOG asks for every
 * compute at the end: the buffers then hold a window of records (STREAM_WINDOW) and
 * OPSCOPE_MAX_MB caps the log on disk, default STREAM_DISK_MB. Elsewhere the buffers hold
 * every record, capped by OPSCOPE_MAX_MB in memory (default MEMORY_MB). A bad OPSCOPE_MAX_MB
 * gets the default of the mode chosen. */
#define STREAM_WINDOW (256ull << 20)
#define STREAM_DISK_MB 4096ull
#define MEMORY_MB 512ull
#define MAX_MB_MAX 1048576ull /* 1 TiB: more than any disk or memory a capture is given */
static void choose_log(void) {
    bool stream = opscope_cap_env_flag("OPSCOPE_STREAM", true);
    const char *glog = getenv("OPSCOPE_GRAPH_LOG");
    struct stat st;
    bool file = (g_life.cfg.dest == OPSCOPE_CAP_DEST_JSON || g_life.cfg.dest == OPSCOPE_CAP_DEST_TEXT) &&
                g_life.cfg.path[0] && (stat(g_life.cfg.path, &st) != 0 ? errno == ENOENT : S_ISREG(st.st_mode));
    /* the graph log (a diagnostic) lists every compute at the end: those records must stay */
    g_life.log_on = file && stream && !(glog && *glog);
    uint64_t mb = opscope_cap_env_uint("OPSCOPE_MAX_MB", 1, MAX_MB_MAX, g_life.log_on ? STREAM_DISK_MB : MEMORY_MB,
                                       "MiB");
    if (!g_life.log_on) {
        opscope_cap_buf_set_limit(mb << 20);
        return;
    }
    g_life.log_max = mb << 20;
    opscope_cap_buf_set_limit(STREAM_WINDOW);
    opscope_cap_drops_set_cap_mb(mb);
}

static void at_exit_export(void) {
    opscope_cap_life_export(true);
}

/* OPSCOPE_CHECKPOINT_MS's range: 0 (never) up to a day between checkpoints (a crash loses at
 * most one period; past a day, 0 says what is meant). */
#define CKPT_MS_MAX 86400000ull

/* The settings init_once reads (cap_env.h: each checked, a bad one said with the default used).
 * `opscope record --format` may force the format whatever the file name says (summary: the
 * console summary, GGML_PROFILE=stderr then). OPSCOPE_CLOCK is handed on as a word of its
 * table or not at all (the clock's own default). */
static void read_settings(void) {
    static const char *const k_formats[] = {"json", "txt", "summary", NULL};
    int fmt = opscope_cap_env_word("OPSCOPE_FORMAT", k_formats, -1, "the profile's file name's format");
    if (g_life.cfg.dest == OPSCOPE_CAP_DEST_JSON || g_life.cfg.dest == OPSCOPE_CAP_DEST_TEXT) {
        if (fmt == 1) {
            g_life.cfg.dest = OPSCOPE_CAP_DEST_TEXT;
        } else if (fmt == 0) {
            g_life.cfg.dest = OPSCOPE_CAP_DEST_JSON;
        }
    }
    g_life.ckpt_ms = (long)opscope_cap_env_uint("OPSCOPE_CHECKPOINT_MS", 0, CKPT_MS_MAX, 1000, "ms");
    g_life.stats = opscope_cap_env_flag("OPSCOPE_STATS", false);
    g_life.paused = opscope_cap_env_flag("OPSCOPE_PAUSED", false);
    opscope_cap_window_init(g_life.paused);
    static const char *const k_clocks[] = {"auto", "tsc", "monotonic", NULL};
    int clock = opscope_cap_env_word("OPSCOPE_CLOCK", k_clocks, 0, NULL);
    opscope_cap_clock_init(k_clocks[clock]);
    /* set by this library in the process that owns PATH: a value that is no pid is still
     * another process's claim (never overwrite PATH), said */
    uint64_t pid;
    const char *owner = getenv("OPSCOPE_OWNER_PID");
    if (owner && *owner && !opscope_cap_env_parse_uint(owner, 1, 2147483647u, &pid)) {
        opscope_cap_env_warn("OPSCOPE_OWNER_PID", owner, "is not a process id",
                             "it as another process's claim (this one writes PATH.PID)");
    }
}

static void init_once(void) {
    const char *v = getenv("GGML_PROFILE");
    opscope_cap_config_parse(v, &g_life.cfg);
    if (g_life.cfg.too_long) {
        fprintf(stderr, "opscope: GGML_PROFILE is longer than a path may be (%zu bytes); profiling off\n",
                sizeof g_life.cfg.path - 1);
    }
    read_settings();
    opscope_cap_meta_init();
    choose_log();
    if (!g_life.atfork_set) {
        pthread_atfork(NULL, NULL, at_fork_child);
    }
    if (g_life.cfg.dest == OPSCOPE_CAP_DEST_NONE || g_life.child_of_fork) {
        return; /* a plain fork child: the parent's profile only */
    }
    /* Exec'd children inherit LD_PRELOAD and GGML_PROFILE: never clobber the parent's file.
     * The owner of PATH claimed it at load time (claim_at_load) or, where ggml came later,
     * at its first compute (first_capture); a process that finds another owner in its
     * environment writes PATH.PID. */
    load_rec_dir();
    char me[32];
    snprintf(me, sizeof me, "%ld", (long)getpid());
    const char *owner = getenv("OPSCOPE_OWNER_PID");
    g_life.stream = g_life.cfg.path[0] && opscope_out_path_kind(g_life.cfg.path) == OPSCOPE_OUT_KIND_STREAM;
    if ((owner && *owner && strcmp(owner, me) != 0) || g_life.not_owner) {
        not_owner_path();
    }
    opscope_cap_env_mode = true;
    check_path();
    atexit(at_exit_export);
    for (size_t i = 0; i < N_SIGS; i++) {
        install_signal(k_sigs[i], &g_life.old_sa[i]);
    }
    if (!atomic_load(&g_life.disabled)) {
        atomic_store(&opscope_cap_on, true);
    }
    if (g_life.paused) {
        opscope_cap_life_started(); /* the watcher and its control channel now: ctl may come before any compute */
    }
}

bool opscope_cap_life_init(void) {
    pthread_once(&g_life.once, init_once);
    return atomic_load_explicit(&opscope_cap_on, memory_order_relaxed);
}

void opscope_cap_life_enable_api(void) {
    opscope_cap_life_init();
    if (!atomic_load(&g_life.disabled) && !g_life.child_of_fork) {
        atomic_store(&opscope_cap_on, true);
    }
}

void opscope_cap_life_disable(const char *why) {
    bool was = atomic_exchange(&g_life.disabled, true);
    atomic_store(&opscope_cap_on, false);
    if (!was) {
        fprintf(stderr, "opscope: %s; profiling off\n", why);
        rec_note("off", NULL, why);
    }
}

static void print_stats(void) {
    opscope_cap_counters *c = &opscope_cap_stats;
    double npt = opscope_cap_ns_per_tick();
    uint64_t recs = atomic_load(&c->records), cbs = atomic_load(&c->callbacks);
    uint64_t gt = atomic_load(&c->graph_ticks), ot = atomic_load(&c->op_ticks);
    fprintf(stderr,
            "opscope: stats: graphs=%llu records=%llu dropped=%llu callbacks=%llu "
            "graph_ms=%.3f op_ms=%.3f op/graph=%.4f walk_ns_per_record=%.1f "
            "inexact_graphs=%llu nofusion_graphs=%llu split_only=%llu planned_graphs=%llu descs=%llu gpu_lost=%llu thr_barriers=%llu buffer_mb=%.1f clock=%s\n",
            (unsigned long long)atomic_load(&c->graphs), (unsigned long long)recs,
            (unsigned long long)opscope_cap_buf_dropped(), (unsigned long long)cbs,
            (double)gt * npt / 1e6, (double)ot * npt / 1e6, gt ? (double)ot / (double)gt : 0.0,
            recs ? (double)atomic_load(&c->walk_ticks) * npt / (double)recs : 0.0,
            (unsigned long long)atomic_load(&c->inexact_graphs),
            (unsigned long long)atomic_load(&c->nofusion_graphs),
            (unsigned long long)atomic_load(&c->split_only),
            (unsigned long long)atomic_load(&c->planned_graphs),
            (unsigned long long)atomic_load(&c->descs),
            (unsigned long long)atomic_load(&c->gpu_lost),
            (unsigned long long)atomic_load(&c->thr_barriers),
            (double)opscope_cap_buf_bytes() / 1048576.0,
            opscope_cap_clock_use_tsc ? "tsc" : "monotonic");
}

/* OPSCOPE_STATS=1: what the capture holds in memory, one line on stderr after a checkpoint
 * at most every 10 s (one write: the program may print too), so a long run shows which of
 * its structures grows (bench/capture/memgrowth.py). Under the export lock. */
static void print_usage(void) {
    static uint64_t last_ns;
    uint64_t now = opscope_cap_mono_ns();
    if (last_ns && now - last_ns < 10000000000ull) {
        return;
    }
    last_ns = now;
    char line[768];
    if (opscope_cap_log_usage_line(line, sizeof line)) {
        fputs(line, stderr);
    }
}

static const char *sig_name(int sig) {
    switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    case SIGQUIT: return "SIGQUIT";
    case SIGPIPE: return "SIGPIPE";
    default: return NULL;
    }
}

/* A final write (exit, signal) waits for a checkpoint in progress, at most 30 s, rather
 * than leave the file saying the program still ran. */
static bool lock_export(bool final) {
    if (!final) {
        return pthread_mutex_trylock(&g_life.export_lock) == 0;
    }
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 30;
    int rc;
    while ((rc = pthread_mutex_timedlock(&g_life.export_lock, &until)) == EINTR) {
    }
    return rc == 0;
}

/* A checkpoint appends what is new to the record log at PATH; the final export appends the
 * rest, then makes the profile from the log, which it replaces (a failed write leaves the
 * log, readable by every reader, and says so). */
static int log_export(end_kind kind, int sig, const char *path, opscope_cap_written *wi) {
    if (!opscope_cap_log_on()) {
        opscope_cap_log_start(path, g_life.log_max); /* PATH is final by now (first_capture) */
    }
    const char *how = kind == END_EXIT ? "exit" : kind == END_SIGNAL ? "signal" : "checkpoint";
    wi->records = 0;
    wi->error[0] = '\0';
    int frc = opscope_cap_log_flush(how, kind == END_SIGNAL ? sig_name(sig) : NULL, wi->error, sizeof wi->error);
    if (kind == END_CHECKPOINT) {
        wi->records = opscope_cap_log_records();
        return frc;
    }
    if (frc != 0 && !opscope_cap_log_exists()) {
        /* the log could never be made: every record is still in memory */
        return opscope_cap_write_info(g_life.cfg.dest, path, NULL, -2, wi);
    }
    int rc = opscope_cap_write_info(g_life.cfg.dest, path, NULL, -2, wi);
    if (rc == 0) {
        opscope_cap_log_close();
        return frc;
    }
    size_t len = strlen(wi->error);
    snprintf(wi->error + len, sizeof wi->error - len, " (the record log there holds %llu records)",
             (unsigned long long)opscope_cap_log_records());
    return rc;
}

void opscope_cap_life_export(bool at_exit) {
    export_as(at_exit ? END_EXIT : END_CHECKPOINT, 0);
}

/* The stream PATH failed (WI says why): the profile goes to a file elsewhere, said on
 * stderr outside a record run (record says it from the status file). Returns 0 when written
 * there; WI then holds that write's records and keeps the stream's error. */
static int write_elsewhere(opscope_cap_written *wi) {
    char why[sizeof wi->error];
    snprintf(why, sizeof why, "%s", wi->error);
    elsewhere(g_life.instead, sizeof g_life.instead);
    if (opscope_cap_write_info(g_life.cfg.dest, g_life.instead, NULL, -2, wi) != 0) {
        g_life.instead[0] = '\0';
        return -1;
    }
    snprintf(wi->error, sizeof wi->error, "%s", why);
    if (!g_life.rec_dir[0]) {
        fprintf(stderr, "opscope: cannot write the profile to %s: %s; it is in %s instead\n", g_life.cfg.path, why,
                g_life.instead);
    }
    return 0;
}

static void export_as(end_kind kind, int sig) {
    bool at_exit = kind != END_CHECKPOINT;
    if (at_exit) {
        opscope_cap_ctl_unlink(); /* no ctl finds a process that is ending */
    }
    if (g_life.child_of_fork || g_life.cfg.dest == OPSCOPE_CAP_DEST_NONE) {
        return;
    }
    if (!at_exit && (g_life.cfg.dest == OPSCOPE_CAP_DEST_STDOUT || g_life.cfg.dest == OPSCOPE_CAP_DEST_STDERR)) {
        return;
    }
    /* a stream: once, at the end (also when it became one after start) */
    const char *path = g_life.cfg.path[0] ? g_life.cfg.path : NULL;
    bool stream = path && (g_life.stream || opscope_out_path_kind(path) == OPSCOPE_OUT_KIND_STREAM);
    if (stream && (!at_exit || g_life.stream_tried)) {
        return;
    }
    if (!lock_export(at_exit)) {
        return; /* an export is running (two schedulers freed), or one hangs */
    }
    uint64_t n = atomic_load(&opscope_cap_stats.records) + opscope_cap_buf_dropped();
    if (opscope_cap_window_windowed()) {
        n += opscope_cap_window_gen(); /* a window or a mark is news too, records or not */
    }
    if (n > 0 && (n != g_life.exported_records || (at_exit && g_life.last_was_ckpt))) {
        g_life.exported_records = n;
        FILE *fp = g_life.cfg.dest == OPSCOPE_CAP_DEST_STDERR ? stderr : stdout;
        opscope_cap_written wi;
        opscope_cap_meta_set_end(kind == END_EXIT ? "exit" : kind == END_SIGNAL ? "signal" : "checkpoint",
                                 kind == END_SIGNAL ? sig_name(sig) : NULL);
        if (at_exit) {
            /* a checkpoint leaves the status at its last one: the file at the path stays that
             * one until the new write replaces it, so a SIGKILL during the write is still a
             * death after a checkpoint, not a lost profile */
            rec_note("exporting", NULL, NULL);
        }
        int rc;
        if (g_life.log_on && path && !stream) {
            rc = log_export(kind, sig, path, &wi);
        } else {
            rc = opscope_cap_write_info(g_life.cfg.dest, path, fp, -2, &wi);
            g_life.stream_tried = stream;
            if (rc != 0 && stream) {
                rc = write_elsewhere(&wi);
            }
        }
        if (rc == 0) {
            g_life.written_once = true;
            g_life.last_was_ckpt = !at_exit;
        } else {
            g_life.exported_records = UINT64_MAX; /* the next trigger tries again */
        }
        bool noted = rec_note(rc != 0 ? "failed" : at_exit ? "written" : "checkpoint", &wi, NULL);
        g_life.note_ok = noted;
        if (rc != 0 && !noted && !g_life.path_warned) {
            fprintf(stderr, "opscope: cannot write %s: %s\n", path ? path : "the profile", wi.error);
            g_life.path_warned = true; /* once: a checkpoint tries again every period */
        }
        const char *glog = getenv("OPSCOPE_GRAPH_LOG");
        if (glog && *glog && (at_exit || opscope_out_path_kind(glog) != OPSCOPE_OUT_KIND_STREAM)) {
            opscope_cap_write_graphs(glog);
        }
    }
    if (at_exit && n > 0 && !g_life.note_ok) {
        warn_drops();
    }
    if (at_exit) {
        warn_decodes(g_life.log_on && path && !stream);
    }
    if (!at_exit && g_life.stats) {
        print_usage();
    }
    if (at_exit && g_life.stats && n > 0) {
        print_stats();
        g_life.stats = false;
    }
    pthread_mutex_unlock(&g_life.export_lock);
}
