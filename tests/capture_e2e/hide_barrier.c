/*
 * hide_barrier.c - preloaded ahead of the capture library, takes GOMP_barrier from it: ggml's
 * barriers then run (through libgomp's real one) where the capture cannot see them, as a ggml
 * whose barrier is not interposed would (its own threadpool's, or one inlined), while the
 * OpenMP runtime stays loaded. t_threads.py checks that the capture then says per-thread
 * timing is unavailable and records everything else.
 */
#define _GNU_SOURCE
#include <dlfcn.h>

void GOMP_barrier(void);
void GOMP_barrier(void) {
    static void (*real)(void);
    void (*f)(void) = __atomic_load_n(&real, __ATOMIC_ACQUIRE);
    if (!f) {
        void *h = dlopen("libgomp.so.1", RTLD_LAZY | RTLD_NOLOAD);
        f = h ? (void (*)(void))dlvsym(h, "GOMP_barrier", "GOMP_1.0") : 0;
        __atomic_store_n(&real, f, __ATOMIC_RELEASE);
    }
    if (f) f();
}
