/*
 * cap_blas.c - the BLAS backend, timed by its cblas_sgemm calls: MUL_MAT makes one call per
 * ne12*ne13 broadcast slice (after converting a quantized src0 to f32), OUT_PROD one. The
 * library defines cblas_sgemm, forwards to the BLAS library's and notes each call's end.
 */
#include "cap_ggml.h"

#include "cap_clock.h"
#include "cap_sym.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

typedef void (*sgemm_t)(int, int, int, int, int, int, float, const float *, int, const float *,
                        int, float, float *, int);
static _Atomic(sgemm_t) g_real_sgemm;
void cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha, const float *a,
                 int lda, const float *b, int ldb, float beta, float *c, int ldc);
static _Thread_local opscope_cap_walk *t_blas_walk; /* set while a BLAS graph computes on this thread */

void opscope_cap_blas_watch(opscope_cap_walk *w) {
    t_blas_walk = w;
}

/* The BLAS library's cblas_sgemm: the next definition, else any loaded library's (the BLAS
 * backend is dlopen'ed with its libblas in a local scope, out of RTLD_NEXT's reach). */
static sgemm_t real_sgemm(void) {
    sgemm_t f = atomic_load_explicit(&g_real_sgemm, memory_order_acquire);
    if (f) {
        return f;
    }
    void *p = dlsym(RTLD_NEXT, "cblas_sgemm");
    if (!p) {
        p = opscope_cap_sym_loaded("cblas_sgemm", (const void *)cblas_sgemm);
    }
    f = (sgemm_t)p;
    if (f) {
        atomic_store_explicit(&g_real_sgemm, f, memory_order_release);
    }
    return f;
}

OPSCOPE_EXPORT void cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha,
                        const float *a, int lda, const float *b, int ldb, float beta, float *c,
                        int ldc) {
    sgemm_t f = real_sgemm();
    if (!f) {
        static _Atomic bool said;
        if (!atomic_exchange(&said, true)) {
            fprintf(stderr, "opscope: cblas_sgemm not found in any loaded library\n");
        }
        return;
    }
    f(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    opscope_cap_walk *w = t_blas_walk;
    if (w) {
        if (w->n_ts < w->cap) {
            w->ts[w->n_ts] = opscope_cap_now();
        }
        w->n_ts++;
    }
}

/* Records of one BLAS graph: nodes matched to the sgemm calls they made. */
bool opscope_cap_blas_emit(opscope_cap_walk *w, struct ggml_cgraph *g, int n, int bi, int sched,
                           int64_t gid, int split, uint64_t t0, uint64_t t1) {
    int32_t *calls = malloc((size_t)n * sizeof *calls);
    if (!calls) {
        return false;
    }
    for (int i = 0; i < n; i++) {
        const struct ggml_tensor *t = G.graph_node(g, i);
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
    int n_ts = w->n_ts < w->cap ? w->n_ts : w->cap;
    int n_steps = 0;
    int attr = w->n_ts > w->cap ? OPSCOPE_CAP_ATTR_INEXACT
                                : opscope_cap_attribute_calls(calls, n, w->ts, n_ts, t0, w->steps, &n_steps);
    free(calls);
    opscope_cap_close_last(w->steps, n_steps, attr, t1);
    if (attr != OPSCOPE_CAP_ATTR_EXACT) {
        atomic_fetch_add_explicit(&opscope_cap_stats.inexact_graphs, 1, memory_order_relaxed);
        return false;
    }
    int tid = opscope_cap_buf_thread_id();
    uint64_t op_ticks = 0;
    int written = 0;
    for (int k = 0; k < n_steps; k++) {
        const opscope_cap_step *s = &w->steps[k];
        if (opscope_cap_emit_event(g, s, 0, bi, sched, tid, gid, split)) {
            op_ticks += s->t1 - s->t0;
            written++;
        }
    }
    opscope_cap_graph_rec_add(n_steps, OPSCOPE_CAP_ATTR_EXACT, 0);
    atomic_fetch_add_explicit(&opscope_cap_stats.op_ticks, op_ticks, memory_order_relaxed);
    atomic_fetch_add_explicit(&opscope_cap_stats.records, (uint64_t)written, memory_order_relaxed);
    return true;
}
