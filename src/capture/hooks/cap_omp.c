/*
 * cap_omp.c - when every thread has finished a CPU step. ggml-cpu built with OpenMP (as
 * Debian's is) ends each computed node with `#pragma omp barrier`, a call of libgomp's
 * GOMP_barrier: thread 0 leaves it once all threads finished the node. The library defines
 * GOMP_barrier, forwards to the real one and, on the thread whose compute is being recorded,
 * notes when it returned after an abort callback. Steps then end there instead of at thread
 * 0's callback (cap_attr.h, opscope_cap_close_steps), so a node's time holds its own load
 * imbalance rather than its predecessor's. While a compute's barrier table is published
 * (cap_barrier.h), every thread of its team also notes its arrival in its own
 * row (its number in the team, omp_get_thread_num, is its row: one timestamp, before the real
 * barrier, so nothing of the hook runs after it), and thread 0 which barrier
 * follows each callback. Every other call (other OpenMP code in the program, no compute being
 * timed) costs one atomic load and one thread-local load.
 */
#include "capture/hooks/cap_barrier.h"
#include "capture/store/cap_clock.h"
#include "capture/hooks/cap_hooks.h"
#include "capture/life/cap_life.h"
#include "capture/resolve/cap_resolve.h"
#include "capture/resolve/cap_sym.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

typedef void (*barrier_fn)(void);

static _Atomic(barrier_fn) g_real;
OPSCOPE_EXPORT void GOMP_barrier(void);

static void *gomp_sym(void *h) {
    void *p = dlvsym(h, "GOMP_barrier", "GOMP_1.0");
    return p ? p : dlsym(h, "GOMP_barrier");
}

/* The real GOMP_barrier among what is loaded, loading nothing. libgomp is loaded in the local
 * scope of the ggml-cpu module that needs it (out of RTLD_NEXT's reach), so look for it by
 * name, then in every loaded object (SCAN): whoever calls GOMP_barrier has loaded a library
 * that defines it (libgomp, or another runtime's GOMP_ entry points). */
static void *find_loaded(bool scan) {
    void *p = NULL;
    void *h = dlopen("libgomp.so.1", RTLD_LAZY | RTLD_NOLOAD);
    if (h) {
        p = gomp_sym(h);
        dlclose(h);
    }
    if (!p) {
        p = dlsym(RTLD_NEXT, "GOMP_barrier");
    }
    if ((!p || p == (void *)GOMP_barrier) && scan) {
        p = opscope_cap_sym_loaded("GOMP_barrier", (const void *)GOMP_barrier);
    }
    return p == (void *)GOMP_barrier ? NULL : p;
}

/* The runtime's omp_get_thread_num, beside the GOMP_barrier found at P. */
static void find_team_num(void *p) {
    void *f = NULL;
    Dl_info info;
    if (dladdr(p, &info) && info.dli_fname) {
        void *h = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
        if (h) {
            f = dlsym(h, "omp_get_thread_num");
            dlclose(h);
        }
    }
    if (f) {
        atomic_store_explicit(&opscope_cap_barrier_team_num, (int (*)(void))f, memory_order_release);
    }
}

/* Start-up: a program linked with OpenMP has its runtime loaded already. Otherwise the first
 * call resolves (ggml-cpu's module, and its libgomp, are loaded later). */
__attribute__((constructor)) static void resolve_at_load(void) {
    void *p = find_loaded(false);
    if (p) {
        find_team_num(p);
        atomic_store_explicit(&g_real, (barrier_fn)p, memory_order_release);
    }
}

/* The first call without a known runtime. Never skips the barrier while one can be had: when
 * nothing loaded defines it (a caller that found ours through the global scope), libgomp is
 * loaded, as the dynamic linker would have had to. Only when there is none does the capture
 * turn off, with one line on stderr; the call then has nothing to run. */
static barrier_fn real_barrier_slow(void) {
    void *p = find_loaded(true);
    if (!p) {
        void *h = dlopen("libgomp.so.1", RTLD_NOW | RTLD_LOCAL); /* kept open: its barrier is used */
        p = h ? gomp_sym(h) : NULL;
    }
    if (!p) {
        opscope_cap_life_disable("GOMP_barrier was called but no OpenMP runtime defines it "
                                 "(the barrier could not run)");
        return NULL;
    }
    find_team_num(p);
    atomic_store_explicit(&g_real, (barrier_fn)p, memory_order_release);
    return (barrier_fn)p;
}

/* A barrier of the compute whose table TB is published: this thread's row (thread 0 must be
 * the thread that published it: a thread 0 of another team means another team's barrier, and
 * the table says nothing). */
static void timed_barrier(barrier_fn f, opscope_cap_thr_table *tb, opscope_cap_stream *st) {
    int (*num)(void) = atomic_load_explicit(&opscope_cap_barrier_team_num, memory_order_relaxed);
    int row = num ? num() : -1;
    if (row == 0 && opscope_cap_barrier_owner != tb) {
        row = -1;
    }
    opscope_cap_barrier_arrive(tb, row, st);
    f();
}

OPSCOPE_EXPORT void GOMP_barrier(void) {
    barrier_fn f = atomic_load_explicit(&g_real, memory_order_acquire);
    if (!f) {
        f = real_barrier_slow();
    }
    opscope_cap_stream *st = opscope_cap_hooks_watch; /* one thread-local load on every other call */
    opscope_cap_thr_table *tb = atomic_load_explicit(&opscope_cap_barrier_live, memory_order_acquire);
    if (f && tb) {
        timed_barrier(f, tb, st);
    } else if (f) {
        f();
    }
    if (st) {
        opscope_cap_stream_barrier(st);
    }
}
