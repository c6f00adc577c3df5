/*
 * tpcount.c - an independent count of the CPU backend's barriers for the capture tests (not
 * part of opscope). An LD_PRELOAD shim ahead of the capture library: around every
 * ggml_backend_graph_compute_async call it counts the barriers every thread of the compute
 * met and writes "seq barriers" to the file named by OPSCOPE_TEST_BARRIERS. A barrier is a
 * ggml_barrier call (ggml's threadpool barrier, which an OpenMP ggml turns into GOMP_barrier),
 * or a GOMP_barrier call made outside one (OpenMP's own, as the end of an `omp single`).
 * Each forwards to the next definition: the capture's, or without it the caller library's own
 * (ggml-cpu is loaded in a local scope) and libgomp's.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include <ggml-backend.h>

typedef enum ggml_status (*compute_fn)(ggml_backend_t, struct ggml_cgraph *);
typedef void (*tp_barrier_fn)(void *);
typedef void (*omp_barrier_fn)(void);

static atomic_long g_count;
static long g_seq;
static FILE *g_out;
static _Thread_local int t_inside;

void ggml_barrier(void *tp);
void GOMP_barrier(void);

/* The definition after ours, else the one in the library the call came from. */
static void *next(const char *name, void *ret, void *self) {
    void *p = dlsym(RTLD_NEXT, name);
    Dl_info info;
    if (!p && dladdr(ret, &info) && info.dli_fname) {
        void *h = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
        p = h ? dlsym(h, name) : NULL;
        if (h) dlclose(h);
    }
    return p == self ? NULL : p;
}

void ggml_barrier(void *tp) {
    static _Atomic(tp_barrier_fn) real;
    tp_barrier_fn f = atomic_load(&real);
    if (!f) {
        f = (tp_barrier_fn)next("ggml_barrier", __builtin_return_address(0), (void *)ggml_barrier);
        atomic_store(&real, f);
    }
    atomic_fetch_add_explicit(&g_count, 1, memory_order_relaxed);
    t_inside++;
    if (f) f(tp);
    t_inside--;
}

void GOMP_barrier(void) {
    static _Atomic(omp_barrier_fn) real;
    omp_barrier_fn f = atomic_load(&real);
    if (!f) {
        f = (omp_barrier_fn)dlsym(RTLD_NEXT, "GOMP_barrier");
        if (!f) {
            void *h = dlopen("libgomp.so.1", RTLD_LAZY | RTLD_NOLOAD);
            f = h ? (omp_barrier_fn)dlsym(h, "GOMP_barrier") : NULL;
        }
        atomic_store(&real, f);
    }
    if (!t_inside) atomic_fetch_add_explicit(&g_count, 1, memory_order_relaxed);
    if (f) f();
}

enum ggml_status ggml_backend_graph_compute_async(ggml_backend_t backend, struct ggml_cgraph *cgraph) {
    static compute_fn real;
    if (!real) real = (compute_fn)dlsym(RTLD_NEXT, "ggml_backend_graph_compute_async");
    long before = atomic_load(&g_count);
    enum ggml_status st = real(backend, cgraph);
    /* the CPU backend's compute returns once every thread passed its last barrier */
    long n = atomic_load(&g_count) - before;
    if (!g_out) {
        const char *p = getenv("OPSCOPE_TEST_BARRIERS");
        g_out = p ? fopen(p, "w") : NULL;
    }
    if (g_out) {
        fprintf(g_out, "%ld %ld\n", g_seq, n);
        fflush(g_out);
    }
    g_seq++;
    return st;
}
