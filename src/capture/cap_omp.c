/*
 * cap_omp.c - when every thread has finished a CPU step. ggml-cpu built with OpenMP (as
 * Debian's is) ends each computed node with `#pragma omp barrier`, a call of libgomp's
 * GOMP_barrier: thread 0 leaves it once all threads finished the node. The library defines
 * GOMP_barrier, forwards to the real one and, on the thread whose compute is being recorded,
 * notes when it returned after an abort callback. Steps then end there instead of at thread
 * 0's callback (cap_attr.h, opscope_cap_close_steps), so a node's time holds its own load
 * imbalance rather than its predecessor's. Every other call (other threads, other OpenMP
 * code in the program) costs one thread-local load.
 */
#include "cap_ggml.h"

#include "cap_clock.h"
#include "cap_sym.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stddef.h>

typedef void (*barrier_fn)(void);

static _Atomic(barrier_fn) g_real;
static _Thread_local opscope_cap_walk *t_watch;

void opscope_cap_omp_watch(opscope_cap_walk *w) {
    t_watch = w;
}

OPSCOPE_EXPORT void GOMP_barrier(void);

/* libgomp is loaded in the local scope of the ggml-cpu module that needs it (out of
 * RTLD_NEXT's reach), so look for it by name, then in every loaded object: whoever calls
 * GOMP_barrier has loaded a library that defines it. */
static barrier_fn real_barrier(void) {
    barrier_fn f = atomic_load_explicit(&g_real, memory_order_acquire);
    if (f) {
        return f;
    }
    void *p = NULL;
    void *h = dlopen("libgomp.so.1", RTLD_LAZY | RTLD_NOLOAD);
    if (h) {
        p = dlvsym(h, "GOMP_barrier", "GOMP_1.0");
        if (!p) {
            p = dlsym(h, "GOMP_barrier");
        }
        dlclose(h);
    }
    if (!p) {
        p = dlsym(RTLD_NEXT, "GOMP_barrier");
    }
    if (!p || p == (void *)GOMP_barrier) {
        p = opscope_cap_sym_loaded("GOMP_barrier", (const void *)GOMP_barrier);
    }
    f = (barrier_fn)p;
    if (f) {
        atomic_store_explicit(&g_real, f, memory_order_release);
    }
    return f;
}

OPSCOPE_EXPORT void GOMP_barrier(void) {
    barrier_fn f = real_barrier();
    if (f) {
        f();
    }
    opscope_cap_walk *w = t_watch;
    if (w && w->bar_k >= 0) {
        w->bar[w->bar_k] = opscope_cap_now();
        w->bar_k = -1;
    }
}
