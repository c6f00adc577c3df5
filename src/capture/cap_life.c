/* cap_life.c - start-up, export triggers, signals, fork/exec (see cap_life.h). */
#include "capture/cap_life.h"

#include "capture/cap_buf.h"
#include "capture/cap_clock.h"
#include "capture/cap_config.h"
#include "capture/cap_counters.h"
#include "capture/cap_meta.h"
#include "capture/cap_write.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

_Atomic bool opscope_cap_on;
bool opscope_cap_env_mode;

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static opscope_cap_config g_cfg;
static _Atomic bool g_disabled;
static pthread_mutex_t g_export_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t g_exported_records = UINT64_MAX; /* records at the last export */
static bool g_stats;
static bool g_child_of_fork;
static bool g_atfork_set;

/* Signal watcher: the handler only posts a semaphore; the watcher thread exports (which
 * may allocate) and then re-raises the signal with the disposition it had before us. */
static sem_t g_sig_sem;
static _Atomic int g_sig_pending;
static struct sigaction g_old_int, g_old_term, g_old_pipe;
static bool g_have_int, g_have_term, g_have_pipe;
static pthread_once_t g_watch_once = PTHREAD_ONCE_INIT;
static _Atomic bool g_watching;

static void on_signal(int sig) {
    if (!atomic_load(&g_watching)) {
        /* No watcher yet (nothing recorded): behave as if we were never here. */
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    int expected = 0;
    if (atomic_compare_exchange_strong(&g_sig_pending, &expected, sig)) {
        sem_post(&g_sig_sem);
    }
}

static sem_t g_done_sem;

static void *watcher(void *arg) {
    (void)arg;
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    while (sem_wait(&g_sig_sem) != 0 && errno == EINTR) {
    }
    int sig = atomic_load(&g_sig_pending);
    opscope_cap_life_export(true);
    if (sig == -1) { /* _exit hook: the caller waits for us, then exits */
        sem_post(&g_done_sem);
        return NULL;
    }
    sigaction(sig, sig == SIGINT ? &g_old_int : sig == SIGPIPE ? &g_old_pipe : &g_old_term, NULL);
    kill(getpid(), sig);
    return NULL;
}

void opscope_cap_life_exit_hook(void) {
    /* _exit skips atexit: programs call it from their own SIGINT handlers (llama-completion
     * does). The export runs on the watcher thread, which holds none of the caller's locks;
     * we wait at most 10 s for it, so an exit is never held up for long. */
    if (g_child_of_fork || !atomic_load(&g_watching)) {
        return;
    }
    int expected = 0;
    if (!atomic_compare_exchange_strong(&g_sig_pending, &expected, -1)) {
        return;
    }
    sem_post(&g_sig_sem);
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 10;
    while (sem_timedwait(&g_done_sem, &until) != 0 && errno == EINTR) {
    }
}

static void start_watcher(void) {
    if (sem_init(&g_sig_sem, 0, 0) != 0 || sem_init(&g_done_sem, 0, 0) != 0) {
        return;
    }
    pthread_t th;
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&at, 256 * 1024);
    if (pthread_create(&th, &at, watcher, NULL) == 0) {
        atomic_store(&g_watching, true);
    }
    pthread_attr_destroy(&at);
}

static void first_capture(void) {
    /* Only for programs that load ggml after start-up (claim_at_load found no ggml): the
     * claim then comes late, and a child started before this point may own PATH too. */
    if (opscope_cap_env_mode && !getenv("OPSCOPE_OWNER_PID")) {
        char me[32];
        snprintf(me, sizeof me, "%ld", (long)getpid());
        setenv("OPSCOPE_OWNER_PID", me, 1);
    }
    start_watcher();
}

void opscope_cap_life_started(void) {
    if (!g_child_of_fork) {
        pthread_once(&g_watch_once, first_capture);
    }
}

static void install_signal(int sig, struct sigaction *old, bool *have) {
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
    if (sigaction(sig, &sa, old) == 0) {
        *have = true;
    }
}

static void at_fork_child(void) {
    /* The child of a plain fork: its copy of the records belongs to the parent's profile.
     * Capture stays off here; an exec re-initialises with OPSCOPE_OWNER_PID set. */
    g_child_of_fork = true;
    atomic_store(&opscope_cap_on, false);
    atomic_store(&g_watching, false);
    pthread_mutex_init(&g_export_lock, NULL);
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
    g_atfork_set = pthread_atfork(NULL, NULL, at_fork_child) == 0;
    const char *owner = getenv("OPSCOPE_OWNER_PID");
    if (!owner || !*owner) {
        char me[32];
        snprintf(me, sizeof me, "%ld", (long)getpid());
        setenv("OPSCOPE_OWNER_PID", me, 1);
    }
}

static void at_exit_export(void) {
    opscope_cap_life_export(true);
}

static void init_once(void) {
    const char *v = getenv("GGML_PROFILE");
    opscope_cap_config_parse(v, &g_cfg);
    /* `opscope record --format` may force the format whatever the file name says. */
    const char *fmt = getenv("OPSCOPE_FORMAT");
    if (fmt && (g_cfg.dest == OPSCOPE_CAP_DEST_JSON || g_cfg.dest == OPSCOPE_CAP_DEST_TEXT)) {
        if (strcmp(fmt, "txt") == 0) {
            g_cfg.dest = OPSCOPE_CAP_DEST_TEXT;
        } else if (strcmp(fmt, "json") == 0) {
            g_cfg.dest = OPSCOPE_CAP_DEST_JSON;
        }
    }
    const char *stats = getenv("OPSCOPE_STATS");
    g_stats = stats && strcmp(stats, "1") == 0;
    opscope_cap_clock_init(getenv("OPSCOPE_CLOCK"));
    opscope_cap_meta_init();
    const char *mb = getenv("OPSCOPE_MAX_MB");
    uint64_t limit = 512;
    if (mb && *mb) {
        char *end = NULL;
        unsigned long long x = strtoull(mb, &end, 10);
        if (end && *end == '\0' && x > 0) {
            limit = x;
        }
    }
    opscope_cap_buf_set_limit(limit << 20);
    if (!g_atfork_set) {
        pthread_atfork(NULL, NULL, at_fork_child);
    }
    if (g_cfg.dest == OPSCOPE_CAP_DEST_NONE || g_child_of_fork) {
        return; /* a plain fork child: the parent's profile only */
    }
    /* Exec'd children inherit LD_PRELOAD and GGML_PROFILE: never clobber the parent's file.
     * The owner of PATH claimed it at load time (claim_at_load) or, where ggml came later,
     * at its first compute (first_capture); a process that finds another owner in its
     * environment writes PATH.PID. */
    char me[32];
    snprintf(me, sizeof me, "%ld", (long)getpid());
    const char *owner = getenv("OPSCOPE_OWNER_PID");
    if (owner && *owner && strcmp(owner, me) != 0) {
        opscope_cap_config_child(&g_cfg, (long)getpid());
    }
    opscope_cap_env_mode = true;
    atexit(at_exit_export);
    install_signal(SIGINT, &g_old_int, &g_have_int);
    install_signal(SIGTERM, &g_old_term, &g_have_term);
    /* A peer that went away kills a program that left SIGPIPE at its default (ggml-rpc-server
     * when a client disconnects while it answers): it still dies by SIGPIPE, after writing
     * its profile. */
    install_signal(SIGPIPE, &g_old_pipe, &g_have_pipe);
    if (!atomic_load(&g_disabled)) {
        atomic_store(&opscope_cap_on, true);
    }
}

bool opscope_cap_life_init(void) {
    pthread_once(&g_once, init_once);
    return atomic_load_explicit(&opscope_cap_on, memory_order_relaxed);
}

void opscope_cap_life_enable_api(void) {
    opscope_cap_life_init();
    if (!atomic_load(&g_disabled) && !g_child_of_fork) {
        atomic_store(&opscope_cap_on, true);
    }
}

void opscope_cap_life_disable(const char *why) {
    bool was = atomic_exchange(&g_disabled, true);
    atomic_store(&opscope_cap_on, false);
    if (!was) {
        fprintf(stderr, "opscope: %s; profiling off\n", why);
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
            "inexact_graphs=%llu nofusion_graphs=%llu split_only=%llu planned_graphs=%llu descs=%llu gpu_lost=%llu buffer_mb=%.1f clock=%s\n",
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
            (double)opscope_cap_buf_bytes() / 1048576.0,
            opscope_cap_clock_use_tsc ? "tsc" : "monotonic");
}

void opscope_cap_life_export(bool at_exit) {
    if (g_child_of_fork || g_cfg.dest == OPSCOPE_CAP_DEST_NONE) {
        return;
    }
    if (!at_exit && (g_cfg.dest == OPSCOPE_CAP_DEST_STDOUT || g_cfg.dest == OPSCOPE_CAP_DEST_STDERR)) {
        return;
    }
    if (pthread_mutex_trylock(&g_export_lock) != 0) {
        return; /* an export is running (signal during exit, or two schedulers freed) */
    }
    uint64_t n = atomic_load(&opscope_cap_stats.records) + opscope_cap_buf_dropped();
    if (n != g_exported_records && n > 0) {
        g_exported_records = n;
        FILE *fp = g_cfg.dest == OPSCOPE_CAP_DEST_STDERR ? stderr : stdout;
        opscope_cap_write(g_cfg.dest, g_cfg.path[0] ? g_cfg.path : NULL, fp, -2);
        const char *glog = getenv("OPSCOPE_GRAPH_LOG");
        if (glog && *glog) {
            opscope_cap_write_graphs(glog);
        }
    }
    if (at_exit && g_stats && n > 0) {
        print_stats();
        g_stats = false;
    }
    pthread_mutex_unlock(&g_export_lock);
}
