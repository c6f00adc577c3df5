/*
 * cap_walk.h - the per-thread scratch of the CPU and BLAS walks (internal): step timestamps
 * (opscope_cap_stream), computes waiting for their records (opscope_cap_pend) and the
 * per-node arrays the walks fill (opscope_cap_walk). cap_walk.c allocates and frees the
 * arrays; the plan cache hung on a walk belongs to cap_cpu.c, which its owner clears first.
 * Thread safety: a walk belongs to one thread.
 */
#ifndef OPSCOPE_CAP_WALK_H
#define OPSCOPE_CAP_WALK_H

#include "capture/timing/cap_attr.h"
#include "capture/timing/cap_compute.h"
#include "capture/timing/cap_threads.h"
#include "capture/store/cap_buf.h"
#include "capture/store/cap_clock.h"
#include "capture/resolve/cap_resolve.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Step timestamps of one backend's compute, taken by the abort callback (cap_hooks.c's
 * on_step) on thread 0 after each computed step, and the barrier exits after them (cap_omp.c). */
typedef struct opscope_cap_stream {
    uint64_t *ts;  /* ts[k]: when callback k came */
    uint64_t *bar; /* bar[k]: when thread 0 left the barrier after callback k (0: none) */
    int n;         /* callbacks so far (may pass cap: counted, not stored) */
    int cap;
    int bar_k;     /* the callback whose barrier exit is awaited, -1: none */
    opscope_cap_abort_cb user_cb; /* the program's abort callback, chained */
    void *user_data;
    /* per-thread work and wait (cap_threads.h): NT threads per callback, then each thread's
     * CPU, at THR_OFF in the walk's thr_pool while the compute waits for its records, THR when
     * they are built; NT 0: none for this compute */
    int nt;
    size_t thr_off;
    const uint32_t *thr;
} opscope_cap_stream;

/* Thread 0 left a barrier: the first one after S's last callback ends that step. */
static inline void opscope_cap_stream_barrier(opscope_cap_stream *s) {
    if (s->bar_k >= 0) {
        s->bar[s->bar_k] = opscope_cap_now();
        s->bar_k = -1;
    }
}

/* A backend compute inside a scheduler compute whose records are built after the scheduler
 * compute returns (the split graphs stay valid until the next one), so the capture's own
 * work is never inside a backend's graph compute. */
enum { OPSCOPE_CAP_PEND_CPU, OPSCOPE_CAP_PEND_BLAS, OPSCOPE_CAP_PEND_SPLIT };
typedef struct opscope_cap_pend {
    opscope_cap_compute c;
    int kind, n_ts, cap; /* n_ts step timestamps (room for CAP) at OFF in the walk's pools */
    size_t off;
    uint64_t scope; /* the GPU source's scope of this compute (cap_gpu.h), 0 none */
    int nt;         /* threads timed at its barriers (0: none), their pairs at THR_OFF */
    size_t thr_off;
} opscope_cap_pend;

typedef struct opscope_cap_plan opscope_cap_plan; /* cap_cpu.c */

typedef struct opscope_cap_walk {
    opscope_cap_stream st; /* the current compute's callbacks (ts and bar point into pool) */
    uint64_t *pool;        /* timestamps of every compute of the current scheduler compute */
    uint64_t *bar_pool;    /* barrier exits, at the same offsets */
    size_t pool_used, pool_cap;
    opscope_cap_pend *pend;
    int n_pend, pend_cap;
    opscope_cap_node *nodes;
    opscope_cap_step *steps;
    struct ggml_tensor **ptrs; /* the graph's node pointers */
    opscope_cap_event *ev;     /* event templates of the compute being walked */
    int32_t *cand;             /* RMS_NORM nodes followed by a MUL */
    int nodes_cap;
    /* RMS_NORM use counts: open addressing on tensor pointers */
    const void **uk;
    int32_t *uv;
    int ucap;
    opscope_cap_plan *plans; /* cap_cpu.c's cache of step plans per split graph */
    opscope_cap_thr_table thr; /* the barrier table of the compute in progress */
    uint32_t *thr_pool;        /* per-thread work and wait of the computes waiting for records */
    size_t thr_used, thr_cap;  /* in uint32_t; emptied with pool_used */
} opscope_cap_walk;

/* Room in W's per-node arrays for a graph of N nodes. False: out of memory. */
bool opscope_cap_walk_grow(opscope_cap_walk *w, int n);
/* Frees W's arrays (W itself belongs to the caller; zero it to reuse it). Its plan cache is
 * cap_cpu.c's: clear it first (opscope_cap_cpu_plans_clear). */
void opscope_cap_walk_free(opscope_cap_walk *w);

#endif
