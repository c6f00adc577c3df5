/*
 * cap_tpool.c - ggml's own threadpool barrier. A ggml built without OpenMP (GGML_OPENMP=OFF:
 * macOS builds, many self-built ones) ends each computed node with ggml_barrier(threadpool),
 * ggml's spin barrier, which libggml-cpu calls through its PLT (an exported symbol: `objdump -R`
 * lists it among the jump slots), so the library's definition is the one the CPU backend
 * calls. Each thread notes its arrival as the GOMP_barrier hook does (cap_barrier.h: the same
 * table, the same rows of steps); thread 0 notes its exit after a callback.
 *
 * The real ggml_barrier is the caller's: the CPU backend module is dlopen'ed by ggml's backend
 * loader in a local scope, out of RTLD_NEXT's reach, so the hook finds the library its return
 * address lies in (dladdr), looks the name up in that library (dlopen RTLD_NOLOAD, dlsym) and
 * caches the answer per call site (a ggml-cpu has a few). No lock is held across the real call.
 *
 * In an OpenMP ggml, ggml_barrier is `#pragma omp barrier`, a GOMP_barrier call that cap_omp.c
 * times: a call site whose library reaches GOMP_barrier (its libgomp) is only forwarded, so
 * each barrier is counted once.
 */
#include "capture/hooks/cap_barrier.h"
#include "capture/hooks/cap_hooks.h"
#include "capture/life/cap_life.h"
#include "capture/resolve/cap_sym.h"

#include <dlfcn.h>
#include <link.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct ggml_threadpool;
typedef void (*tpool_barrier_fn)(struct ggml_threadpool *);

OPSCOPE_EXPORT void ggml_barrier(struct ggml_threadpool *tp);
/* This library's ggml_barrier: `ggml_barrier` named here is the process's first definition,
 * an interposer loaded ahead of ours when there is one. */
extern __typeof__(ggml_barrier) opscope_cap_tpool_self __attribute__((alias("ggml_barrier"), visibility("hidden")));

/* Call sites seen: the return address, then the real barrier with bit 0 set when that library
 * is OpenMP's (forwarded only). Open addressing; a full table resolves each call anew. */
enum { SITES = 64 };
static struct {
    _Atomic uintptr_t ret;
    _Atomic uintptr_t fn;
} g_sites[SITES];
static _Atomic bool g_said;

/* The real ggml_barrier for a call from RET, and whether its library uses OpenMP; 0 when
 * none is loaded. The caller's library first; an interposer of ggml_barrier ahead of ours
 * (its own definition is the caller) is skipped for any other loaded definition. */
static uintptr_t resolve(uintptr_t ret) {
    void *p = NULL, *caller = NULL;
    bool omp = false;
    Dl_info info;
    const ElfW(Sym) *sym = NULL;
    if (dladdr1((void *)ret, &info, (void **)&sym, RTLD_DL_SYMENT) && info.dli_fname && info.dli_fname[0]) {
        void *h = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
        if (h) {
            p = dlsym(h, "ggml_barrier");
            omp = dlsym(h, "GOMP_barrier") != NULL;
            dlclose(h);
        }
        /* the call comes from inside that library's own ggml_barrier (its dynamic symbol's
         * extent: a static caller of the real one may lie past the nearest exported symbol) */
        if (p && p == info.dli_saddr && sym && ret - (uintptr_t)p < (uintptr_t)sym->st_size) {
            caller = p;
            p = NULL;
        }
    }
    if (!p || p == (void *)opscope_cap_tpool_self) {
        p = opscope_cap_sym_loaded_except("ggml_barrier", (const void *)opscope_cap_tpool_self, caller);
        if (p && dladdr(p, &info) && info.dli_fname && info.dli_fname[0]) {
            void *h = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
            omp = h && dlsym(h, "GOMP_barrier") != NULL;
            if (h) dlclose(h);
        }
    }
    if (!p || p == (void *)opscope_cap_tpool_self) {
        return 0;
    }
    if (!omp) {
        atomic_store_explicit(&opscope_cap_barrier_tpool, true, memory_order_release);
    }
    return (uintptr_t)p | (omp ? 1u : 0u);
}

/* A call site not in the table from slot I0 on: resolved, and kept in the first free slot. */
__attribute__((noinline, cold)) static uintptr_t site_miss(uintptr_t ret, size_t i0) {
    uintptr_t f = resolve(ret);
    for (size_t k = 0; f && k < SITES; k++) {
        size_t i = (i0 + k) % SITES;
        uintptr_t none = 0;
        if (atomic_compare_exchange_strong_explicit(&g_sites[i].ret, &none, ret, memory_order_acq_rel,
                                                    memory_order_relaxed)) {
            atomic_store_explicit(&g_sites[i].fn, f, memory_order_release);
            break;
        }
        if (none == ret) {
            break; /* another thread keeps it */
        }
    }
    return f;
}

/* The real barrier for call site RET (see g_sites): one slot read on a hit. */
static inline uintptr_t site_fn(uintptr_t ret) {
    size_t i0 = (size_t)((ret >> 4) * 0x9E3779B97F4A7C15ull >> 58); /* 64 slots */
    for (size_t k = 0; k < SITES; k++) {
        size_t i = (i0 + k) % SITES;
        uintptr_t r = atomic_load_explicit(&g_sites[i].ret, memory_order_acquire);
        if (r == ret) {
            uintptr_t f = atomic_load_explicit(&g_sites[i].fn, memory_order_acquire);
            if (f) {
                return f;
            }
            break; /* being filled in by another thread */
        }
        if (r == 0) {
            break;
        }
    }
    return site_miss(ret, i0);
}

OPSCOPE_EXPORT void ggml_barrier(struct ggml_threadpool *tp) {
    uintptr_t f = site_fn((uintptr_t)__builtin_extract_return_addr(__builtin_return_address(0)));
    tpool_barrier_fn real = (tpool_barrier_fn)(f & ~(uintptr_t)1);
    if (!real) {
        bool no = false;
        if (atomic_compare_exchange_strong(&g_said, &no, true)) {
            opscope_cap_life_disable("ggml_barrier was called but no loaded library defines it "
                                     "(the barrier could not run)");
        }
        return;
    }
    if (f & 1) {
        real(tp); /* OpenMP's: GOMP_barrier's hook notes it */
        return;
    }
    opscope_cap_stream *st = opscope_cap_hooks_watch; /* one thread-local load on every other call */
    opscope_cap_thr_table *tb = atomic_load_explicit(&opscope_cap_barrier_live, memory_order_acquire);
    if (tb) {
        int row = opscope_cap_barrier_tpool_row(tb, tp);
        if (row >= 0) {
            opscope_cap_barrier_arrive(tb, row, st);
        }
    }
    real(tp);
    if (st) {
        opscope_cap_stream_barrier(st);
    }
}
