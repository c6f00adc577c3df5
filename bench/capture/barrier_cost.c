/*
 * barrier_cost.c - what per-thread timing adds to one barrier and to one compute, measured on
 * one thread without the barrier itself (which the program pays anyway): the hook's work on
 * every call (its team number, a timestamp, the note in the thread's row: cap_omp.c's
 * timed_barrier and cap_threads.h) against the call without a table published (one atomic
 * load), and thread 0's reduction of a compute's table after it returns
 * (opscope_cap_thr_reduce) for NT threads and BARS barriers. Prints the medians over ROUNDS
 * rounds. Multiplied by a decode's barriers per token (a record's nodes plus the MUL_MATs'
 * inner barriers, per thread), the per-barrier figure is the hook's share of a token's time
 * whatever else runs on the machine, which decode tokens/s on a shared 2-core machine cannot
 * resolve. Run: barrier_cost [ROUNDS] [NT] [BARS]
 */
#include "capture/store/cap_clock.h"
#include "capture/timing/cap_threads.h"

#include "bench_time.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CALLS = 1 << 20 };

static _Atomic(opscope_cap_thr_table *) g_live;
static int team_num(void) {
    return 0;
}
static int (*volatile g_num)(void) = team_num;

static uint64_t ident(uint64_t t) {
    return t;
}

/* ns per call of CALLS hook calls with TB published (or none when TB is NULL). */
static double hook_ns(opscope_cap_thr_table *tb) {
    atomic_store(&g_live, tb);
    double t0 = bench_now_ns();
    for (int c = 0; c < CALLS; c++) {
        opscope_cap_thr_table *t = atomic_load_explicit(&g_live, memory_order_acquire);
        if (!t) continue;
        int row = g_num();
        if (atomic_load_explicit(&t->rows[row].n, memory_order_relaxed) >= t->bar_cap) {
            atomic_store_explicit(&t->rows[row].n, 0, memory_order_relaxed); /* a new compute */
        }
        opscope_cap_thr_note(t, row, opscope_cap_now());
    }
    return (bench_now_ns() - t0) / CALLS;
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
    return v[n / 2];
}

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 9;
    int nt = argc > 2 ? atoi(argv[2]) : 2;
    int bars = argc > 3 ? atoi(argv[3]) : 100;
    if (rounds < 1 || nt < 1 || nt > OPSCOPE_CAP_THR_MAX || bars < 2) {
        fprintf(stderr, "usage: barrier_cost [ROUNDS] [NT <= %d] [BARS >= 2]\n", OPSCOPE_CAP_THR_MAX);
        return 2;
    }
    opscope_cap_clock_init(NULL);
    opscope_cap_thr_table tb;
    memset(&tb, 0, sizeof tb);
    if (!opscope_cap_thr_reserve(&tb, nt, 4096, bars)) return 1;
    opscope_cap_thr_clear(&tb);
    double *off = malloc((size_t)rounds * sizeof *off), *on = malloc((size_t)rounds * sizeof *on);
    double *red = malloc((size_t)rounds * sizeof *red);
    uint64_t *t = malloc((size_t)nt * (size_t)bars * sizeof *t), *rel = malloc((size_t)bars * sizeof *rel);
    int32_t *row_n = malloc((size_t)nt * sizeof *row_n), *cb = malloc((size_t)bars * sizeof *cb);
    uint64_t *cb_ts = malloc((size_t)bars * sizeof *cb_ts);
    uint32_t *out = malloc((size_t)bars * (size_t)nt * 2 * sizeof *out);
    if (!off || !on || !red || !t || !rel || !row_n || !cb || !cb_ts || !out) return 1;
    for (int i = 0; i < nt; i++) {
        row_n[i] = bars;
        for (int b = 0; b < bars; b++) t[(size_t)i * (size_t)bars + (size_t)b] = 1000u * (uint64_t)b + 500u + (uint64_t)i;
    }
    for (int b = 0; b < bars; b++) { /* one barrier per step, its callback just before thread 0 arrives */
        cb[b] = b;
        cb_ts[b] = 1000u * (uint64_t)b + 400u;
    }
    for (int r = 0; r < rounds; r++) { /* rotated: the order swaps every round */
        if (r % 2) {
            on[r] = hook_ns(&tb);
            off[r] = hook_ns(NULL);
        } else {
            off[r] = hook_ns(NULL);
            on[r] = hook_ns(&tb);
        }
        double t0 = bench_now_ns();
        for (int k = 0; k < 1000; k++) {
            if (!opscope_cap_thr_reduce(t, row_n, nt, bars, cb, cb_ts, bars, 0, 1000u * (uint64_t)bars, ident, out, rel)) return 1;
        }
        red[r] = (bench_now_ns() - t0) / 1000;
    }
    double m_off = median(off, rounds), m_on = median(on, rounds), m_red = median(red, rounds);
    printf("barrier hook: %.1f ns per call with a table, %.1f ns without (%.1f ns added per barrier per thread)\n",
           m_on, m_off, m_on - m_off);
    printf("reduction of a compute (%d threads, %d barriers): %.0f ns (%.1f ns per barrier and thread)\n", nt, bars,
           m_red, m_red / ((double)nt * bars));
    opscope_cap_thr_free(&tb);
    free(off), free(on), free(red), free(t), free(rel), free(row_n), free(cb), free(cb_ts), free(out);
    return 0;
}
