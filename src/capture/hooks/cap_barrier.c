/* cap_barrier.c - publishing a compute's barrier table and reducing it (see cap_barrier.h). */
#include "capture/hooks/cap_barrier.h"

#include "capture/life/cap_env.h"
#include "capture/store/cap_clock.h"
#include "capture/store/cap_counters.h"
#include "capture/timing/cap_threads.h"

#include <sched.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

_Atomic(opscope_cap_thr_table *) opscope_cap_barrier_live;
_Thread_local opscope_cap_thr_table *opscope_cap_barrier_owner;
int (*_Atomic opscope_cap_barrier_team_num)(void);
_Atomic bool opscope_cap_barrier_tpool;

/* The threadpool rows of the published table: its compute's number (a thread's cached row is
 * good for that compute only), the next row to give, the threadpool its rows belong to. */
static _Atomic unsigned g_epoch;
static _Atomic int g_next_row;
static _Atomic(const void *) g_tp;
static _Thread_local unsigned t_epoch;
static _Thread_local int t_row;

static _Atomic int g_on = -1;           /* OPSCOPE_THREADS, read at the first compute: -1 not yet */
static _Atomic int g_rows = 0;          /* rows the next table gets: the most threads seen */
static _Atomic int g_per_node = 2;      /* barriers per node the next table has room for */
static _Atomic bool g_said;
static _Atomic bool g_seen;             /* a barrier of a timed compute was ever noted */
static _Atomic int g_probes;            /* computes measured for threads the hook never saw */
static _Atomic int g_hidden;            /* ... and found running on several CPUs at once */
static _Thread_local uint64_t t_cpu0, t_own0; /* the process's and this thread's CPU time when its
                                               * compute began (0: not measured) */

/* Computes of several steps whose CPU time is measured while no barrier was ever seen, and
 * those of them that must have run on several threads before the line is said. */
enum { PROBES_MAX = 256, HIDDEN_SAY = 3 };

/* The first table's rows: one per CPU, so that most programs never need a larger one. */
__attribute__((constructor)) static void size_rows(void) {
    long cpus = sysconf(_SC_NPROCESSORS_CONF);
    int rows = cpus < 2 ? 2 : cpus > OPSCOPE_CAP_THR_MAX ? OPSCOPE_CAP_THR_MAX : (int)cpus;
    atomic_store(&g_rows, rows);
}

/* OPSCOPE_THREADS, read at the first compute rather than at load: the capture reads no setting
 * while profiling is off. */
static bool threads_on(void) {
    int on = atomic_load_explicit(&g_on, memory_order_relaxed);
    if (on < 0) {
        on = opscope_cap_env_flag("OPSCOPE_THREADS", true);
        atomic_store_explicit(&g_on, on, memory_order_relaxed);
    }
    return on;
}

/* The CPU time of CLOCK (every thread of the process, or the calling one), ns (0: unknown). */
static uint64_t cpu_ns(clockid_t clock) {
    struct timespec ts;
    if (clock_gettime(clock, &ts) != 0) return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A barrier the capture can see: an OpenMP runtime's, or ggml's threadpool's. */
static bool barrier_known(void) {
    return atomic_load_explicit(&opscope_cap_barrier_team_num, memory_order_acquire) ||
           atomic_load_explicit(&opscope_cap_barrier_tpool, memory_order_acquire);
}

void opscope_cap_barrier_arrive(opscope_cap_thr_table *tb, int row, opscope_cap_stream *st) {
    if (row >= 0 && row < tb->nt_cap && atomic_load_explicit(&tb->rows[row].n, memory_order_relaxed) == 0) {
        tb->rows[row].cpu = sched_getcpu();
    }
    if (row == 0 && st && st->bar_k >= 0 && st->bar_k < tb->cb_cap) {
        tb->cb_bar[st->bar_k] = atomic_load_explicit(&tb->rows[0].n, memory_order_relaxed);
    }
    opscope_cap_thr_note(tb, row, opscope_cap_now()); /* the release is the last arrival */
}

int opscope_cap_barrier_tpool_row(opscope_cap_thr_table *tb, const void *tp) {
    unsigned e = atomic_load_explicit(&g_epoch, memory_order_acquire);
    if (t_epoch == e) {
        return t_row;
    }
    const void *first = NULL;
    bool ours = atomic_compare_exchange_strong_explicit(&g_tp, &first, tp, memory_order_acq_rel,
                                                        memory_order_acquire) || first == tp;
    int row = -1;
    if (opscope_cap_barrier_owner == tb) {
        row = 0;
        if (!ours) {
            atomic_store_explicit(&tb->bad, 1, memory_order_relaxed); /* another pool's threads came first */
        }
    } else if (ours) {
        row = atomic_fetch_add_explicit(&g_next_row, 1, memory_order_relaxed);
    }
    t_epoch = e;
    t_row = row;
    return row;
}

bool opscope_cap_barrier_begin(opscope_cap_walk *w, int n) {
    w->st.nt = 0;
    w->st.thr_off = 0;
    if (!threads_on() || !barrier_known()) {
        return false;
    }
    /* a node meets one barrier at its end, a MUL_MAT one more inside: 2 per node, more after a
     * compute that needed them */
    int bars = atomic_load_explicit(&g_per_node, memory_order_relaxed) * n + 16;
    if (!opscope_cap_thr_reserve(&w->thr, atomic_load_explicit(&g_rows, memory_order_relaxed), bars, n + 1)) {
        return false;
    }
    opscope_cap_thr_clear(&w->thr);
    opscope_cap_thr_table *none = NULL;
    if (!atomic_compare_exchange_strong_explicit(&opscope_cap_barrier_live, &none, &w->thr,
                                                 memory_order_acq_rel, memory_order_relaxed)) {
        return false; /* another thread's compute is being timed */
    }
    opscope_cap_barrier_owner = &w->thr;
    /* the threadpool rows start again: row 0 is this thread's, the others' come as they arrive */
    atomic_store_explicit(&g_tp, NULL, memory_order_relaxed);
    atomic_store_explicit(&g_next_row, 1, memory_order_relaxed);
    unsigned e = atomic_load_explicit(&g_epoch, memory_order_relaxed) + 1;
    atomic_store_explicit(&g_epoch, e ? e : 1, memory_order_release); /* 0: a thread's cache is empty */
    t_cpu0 = 0;
    if (!atomic_load_explicit(&g_seen, memory_order_relaxed) &&
        atomic_load_explicit(&g_probes, memory_order_relaxed) < PROBES_MAX) {
        t_own0 = cpu_ns(CLOCK_THREAD_CPUTIME_ID); /* until a barrier is seen: did others work? */
        t_cpu0 = t_own0 ? cpu_ns(CLOCK_PROCESS_CPUTIME_ID) : 0;
    }
    return true;
}

static uint64_t ticks_ns(uint64_t t) {
    return opscope_cap_ticks_to_ns(t);
}

static void say_unavailable(void) {
    bool f = false;
    if (atomic_compare_exchange_strong(&g_said, &f, true)) {
        static const char line[] = "opscope: per-thread CPU timing unavailable: the CPU backend's "
                                   "barrier is not interposed (neither OpenMP's nor ggml's "
                                   "threadpool's, or the static library); everything else is "
                                   "recorded\n";
        ssize_t r = write(2, line, sizeof line - 1);
        (void)r;
    }
}

void opscope_cap_barrier_untimed(int n_cb) {
    if (threads_on() && n_cb > 1) {
        say_unavailable();
    }
}

/* A compute of several steps whose threads met no barrier the hook saw, while an OpenMP
 * runtime is loaded (so the runtime's absence cannot tell): its barriers are another kind
 * (ggml's own threadpool's, not interposed) when the process's other threads spent at least
 * half as much CPU time during it as this thread did (the compute's workers; with one thread
 * they spend about none). CPU times, not the wall: on a loaded machine a compute gets less than
 * a CPU per thread. Said after a few such computes, so that one burst of the program's other
 * threads does not say it. */
static void hidden_probe(void) {
    uint64_t own = cpu_ns(CLOCK_THREAD_CPUTIME_ID), all = cpu_ns(CLOCK_PROCESS_CPUTIME_ID);
    atomic_fetch_add_explicit(&g_probes, 1, memory_order_relaxed);
    if (own < t_own0 || all < t_cpu0) return;
    uint64_t mine = own - t_own0, total = all - t_cpu0, others = total > mine ? total - mine : 0;
    if (mine >= 50000 && others * 2 >= mine &&
        atomic_fetch_add_explicit(&g_hidden, 1, memory_order_relaxed) + 1 >= HIDDEN_SAY) {
        say_unavailable();
    }
}

void opscope_cap_barrier_end(opscope_cap_walk *w, uint64_t t0, uint64_t t1, bool begun) {
    int n_cb = w->st.n < w->st.cap ? w->st.n : w->st.cap;
    w->st.nt = 0;
    if (!begun) {
        /* an OpenMP ggml calls GOMP_barrier in every compute, even on one thread (the end of
         * its omp single), so the runtime is known after the first; none after a compute of
         * several steps: the barrier is not one the capture can see */
        if (threads_on() && n_cb > 1 && !barrier_known()) {
            say_unavailable();
        }
        return;
    }
    opscope_cap_thr_table *tb = &w->thr;
    atomic_store_explicit(&opscope_cap_barrier_live, NULL, memory_order_release);
    opscope_cap_barrier_owner = NULL;
    int nt = atomic_load_explicit(&tb->nt_seen, memory_order_acquire);
    if (nt > atomic_load_explicit(&g_rows, memory_order_relaxed)) {
        atomic_store_explicit(&g_rows, nt, memory_order_relaxed); /* the next table has room */
    }
    if (nt > 0) {
        atomic_store_explicit(&g_seen, true, memory_order_relaxed);
    } else if (t_cpu0 && n_cb > 1) {
        hidden_probe();
    }
    bool full = false;
    for (int i = 0; i < nt && i < tb->nt_cap; i++) {
        full |= atomic_load_explicit(&tb->rows[i].n, memory_order_relaxed) >= tb->bar_cap;
    }
    int per = atomic_load_explicit(&g_per_node, memory_order_relaxed);
    if (full && per < 16) {
        atomic_store_explicit(&g_per_node, per * 2, memory_order_relaxed); /* the next one has room */
    }
    if (atomic_load_explicit(&tb->bad, memory_order_acquire) || nt < 2 || n_cb < 1) {
        return; /* one thread has nothing to share; a bad table says nothing */
    }
    int32_t row_n[OPSCOPE_CAP_THR_MAX];
    for (int i = 0; i < nt; i++) {
        row_n[i] = atomic_load_explicit(&tb->rows[i].n, memory_order_acquire);
    }
    size_t need = (size_t)n_cb * (size_t)nt * 2 + (size_t)nt; /* the pairs, then each thread's CPU */
    if (w->thr_used + need > w->thr_cap) {
        size_t cap = w->thr_used + need < 8192 ? 8192 : (w->thr_used + need) * 2;
        uint32_t *p = realloc(w->thr_pool, cap * sizeof *p);
        if (!p) return;
        w->thr_pool = p;
        w->thr_cap = cap;
    }
    if (opscope_cap_thr_reduce(tb->t, row_n, nt, tb->bar_cap, tb->cb_bar, w->st.ts, n_cb, t0, t1, ticks_ns,
                               w->thr_pool + w->thr_used, tb->rel)) {
        for (int i = 0; i < nt; i++) {
            w->thr_pool[w->thr_used + need - (size_t)nt + (size_t)i] = (uint32_t)tb->rows[i].cpu;
        }
        w->st.nt = nt;
        w->st.thr_off = w->thr_used;
        w->thr_used += need;
        uint64_t bars = 0;
        for (int i = 0; i < nt; i++) {
            bars += (uint64_t)row_n[i];
        }
        atomic_fetch_add_explicit(&opscope_cap_stats.thr_barriers, bars, memory_order_relaxed);
    }
}
