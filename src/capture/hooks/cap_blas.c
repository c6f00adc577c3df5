/*
 * cap_blas.c - the BLAS backend, timed by its cblas_sgemm calls: MUL_MAT makes one call per
 * ne12*ne13 broadcast slice (after converting a quantized src0 to f32), OUT_PROD one. The
 * library defines cblas_sgemm, forwards to the BLAS library's and notes each call's end.
 */
#include "capture/hooks/cap_blas.h"

#include "capture/timing/cap_attr.h"
#include "capture/store/cap_clock.h"
#include "capture/store/cap_counters.h"
#include "capture/life/cap_life.h"
#include "capture/timing/cap_record.h"
#include "capture/resolve/cap_resolve.h"
#include "capture/resolve/cap_sym.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

typedef void (*sgemm_t)(int, int, int, int, int, int, float, const float *, int, const float *,
                        int, float, float *, int);
static _Atomic(sgemm_t) g_real_sgemm;
void cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha, const float *a,
                 int lda, const float *b, int ldb, float beta, float *c, int ldc);
static _Thread_local opscope_cap_stream *t_blas_watch; /* set while a BLAS graph computes on this thread */

void opscope_cap_blas_watch(opscope_cap_stream *st) {
    t_blas_watch = st;
}

/* Sonames a cblas_sgemm may come from (Debian's libblas.so.3 alternatives, OpenBLAS). */
static const char *const k_blas[] = {"libblas.so.3", "libopenblas.so.0", "libcblas.so.3"};

/* The BLAS library's cblas_sgemm among what is loaded, loading nothing: the next definition,
 * a loaded BLAS by soname, else (SCAN) any loaded library's (the BLAS backend is dlopen'ed with
 * its libblas in a local scope, out of RTLD_NEXT's reach). */
static void *find_loaded(bool scan) {
    void *p = dlsym(RTLD_NEXT, "cblas_sgemm");
    for (size_t i = 0; !p && i < sizeof k_blas / sizeof k_blas[0]; i++) {
        void *h = dlopen(k_blas[i], RTLD_LAZY | RTLD_NOLOAD);
        if (h) {
            p = dlsym(h, "cblas_sgemm");
            dlclose(h);
        }
    }
    if ((!p || p == (void *)cblas_sgemm) && scan) {
        p = opscope_cap_sym_loaded("cblas_sgemm", (const void *)cblas_sgemm);
    }
    return p == (void *)cblas_sgemm ? NULL : p;
}

/* Start-up: a program linked with a BLAS has it loaded already; else the first call resolves. */
__attribute__((constructor)) static void resolve_at_load(void) {
    void *p = find_loaded(false);
    if (p) {
        atomic_store_explicit(&g_real_sgemm, (sgemm_t)p, memory_order_release);
    }
}

/* The first call without a known BLAS. Never returns without computing while a BLAS can be
 * had: when nothing loaded defines cblas_sgemm (a caller that found ours through the global
 * scope), the system's BLAS is loaded. Only when there is none does the capture turn off, with
 * one line on stderr; the call then has nothing to compute with. */
static sgemm_t real_sgemm_slow(void) {
    void *p = find_loaded(true);
    for (size_t i = 0; !p && i < sizeof k_blas / sizeof k_blas[0]; i++) {
        void *h = dlopen(k_blas[i], RTLD_NOW | RTLD_LOCAL); /* kept open: its sgemm is used */
        p = h ? dlsym(h, "cblas_sgemm") : NULL;
    }
    if (!p) {
        opscope_cap_life_disable("cblas_sgemm was called but no BLAS library defines it "
                                 "(the product could not be computed)");
        return NULL;
    }
    atomic_store_explicit(&g_real_sgemm, (sgemm_t)p, memory_order_release);
    return (sgemm_t)p;
}

OPSCOPE_EXPORT void cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha,
                        const float *a, int lda, const float *b, int ldb, float beta, float *c,
                        int ldc) {
    sgemm_t f = atomic_load_explicit(&g_real_sgemm, memory_order_acquire);
    if (!f) {
        f = real_sgemm_slow();
    }
    if (f) {
        f(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    }
    opscope_cap_stream *st = t_blas_watch;
    if (st) {
        if (st->n < st->cap) {
            st->ts[st->n] = opscope_cap_now();
        }
        st->n++;
    }
}

/* Records of one BLAS graph: nodes matched to the sgemm calls they made. */
bool opscope_cap_blas_emit(opscope_cap_walk *w, const opscope_cap_stream *st, const opscope_cap_compute *c) {
    const int n = c->n;
    int32_t *calls = malloc((size_t)n * sizeof *calls);
    if (!calls) {
        return false;
    }
    for (int i = 0; i < n; i++) {
        const struct ggml_tensor *t = opscope_cap_ggml.graph_node(c->g, i);
        calls[i] = 0;
        if (!(t->flags & GGML_TENSOR_FLAG_COMPUTE)) {
            continue;
        }
        if (t->op == GGML_OP_MUL_MAT && t->src[1]) {
            calls[i] = (int32_t)(t->src[1]->ne[2] * t->src[1]->ne[3]);
        } else if (t->op == GGML_OP_OUT_PROD) {
            calls[i] = 1;
        }
    }
    int n_ts = st->n < st->cap ? st->n : st->cap;
    int n_steps = 0;
    int attr = st->n > st->cap ? OPSCOPE_CAP_ATTR_INEXACT
                               : opscope_cap_attribute_calls(calls, n, st->ts, n_ts, c->t0, w->steps, &n_steps);
    free(calls);
    opscope_cap_close_last(w->steps, n_steps, attr, c->t1);
    if (attr != OPSCOPE_CAP_ATTR_EXACT) {
        atomic_fetch_add_explicit(&opscope_cap_stats.inexact_graphs, 1, memory_order_relaxed);
        return false;
    }
    int tid = opscope_cap_buf_thread_id();
    uint64_t op_ticks = 0;
    int written = 0;
    for (int k = 0; k < n_steps; k++) {
        const opscope_cap_step *s = &w->steps[k];
        if (opscope_cap_emit_event(c, s, 0, tid)) {
            op_ticks += s->t1 - s->t0;
            written++;
        }
    }
    opscope_cap_graph_rec_add(n_steps, OPSCOPE_CAP_ATTR_EXACT, 0);
    atomic_fetch_add_explicit(&opscope_cap_stats.op_ticks, op_ticks, memory_order_relaxed);
    atomic_fetch_add_explicit(&opscope_cap_stats.records, (uint64_t)written, memory_order_relaxed);
    return true;
}
