/*
 * cap_static_omp.c - barrier exits for libopscope-ggml-static.a, what cap_omp.c does for the
 * shared library. An OpenMP ggml-cpu ends each computed node with `#pragma omp barrier`, a
 * call of libgomp's GOMP_barrier from ggml-cpu's own object file, which a static link can wrap.
 * After a step's abort callback, thread 0 of a recorded compute notes when it leaves that
 * barrier, so the step ends when every thread has finished it.
 *
 * Opt-in, for programs whose ggml-cpu uses OpenMP: lib/opscope-ggml-static-openmp.ldflags
 * adds -Wl,--wrap=GOMP_barrier,-u,__wrap_GOMP_barrier (-u pulls this archive member in before
 * libggml-cpu.a is scanned). The original is a strong reference on purpose: with a static
 * libgomp a weak one would not pull the barrier in, and a missing barrier corrupts results.
 */
#include "capture/hooks/cap_hooks.h"

void __real_GOMP_barrier(void);
void __wrap_GOMP_barrier(void);

void __wrap_GOMP_barrier(void) {
    __real_GOMP_barrier();
    opscope_cap_stream *st = opscope_cap_hooks_watch; /* one thread-local load on every other call */
    if (st) {
        opscope_cap_stream_barrier(st);
    }
}
