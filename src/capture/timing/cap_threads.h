/*
 * cap_threads.h - every CPU thread's work and wait at ggml's barriers, per step (internal).
 *
 * ggml-cpu ends each computed step (a node, or a fused group) with a barrier that every thread
 * of the compute passes, and some ops meet at barriers inside their node (MUL_MAT after
 * converting src1). The barrier hook (hooks/cap_omp.c) notes, on every thread, when it arrived
 * at each barrier of the compute in a table sized before the compute
 * (opscope_cap_thr_table): a thread writes only its own row, so no lock is taken and nothing
 * is allocated on the program's threads. On thread 0 the hook also notes which barrier follows
 * each abort callback (cb_bar): barriers are collective, so barrier b is the same barrier on
 * every thread, and the barrier after callback k ends step k on all of them.
 *
 * A barrier lets the threads go when the last one arrives (release[b], the latest arrival at
 * b), so its wait is known without a second timestamp. opscope_cap_thr_reduce turns the table
 * into two numbers per step per thread:
 *   work = sum over the step's barriers b of (arrival[b] - release[b - 1])
 *   wait = sum over the step's barriers b of (release[b] - arrival[b])
 * where step k holds the barriers after step k - 1's end barrier up to and including its own
 * (step 0 also the barriers before its callback, the last step any after its callback), and
 * release[-1] is the compute's start on thread 0 (the time the runtime takes to wake the
 * threads is the next step's work). The time from the last release to the compute's return on
 * thread 0 is the last step's wait too: the threads then meet at the
 * end of the parallel region (OpenMP's join, no call the capture sees), and on thread 0 it is
 * the step's tail, as the op records count it (cap_attr.h). So for every thread, work + wait
 * over the steps is the compute's span on thread 0, as the op records' durations are.
 * Thread safety: the reduction is pure; a table is filled by the compute's threads (each its
 * own row) and read by thread 0 once the compute returned.
 */
#ifndef OPSCOPE_CAP_THREADS_H
#define OPSCOPE_CAP_THREADS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Threads of one compute timed at most (rows of a table; a CALL record holds them all). */
#define OPSCOPE_CAP_THR_MAX 64

/* One thread's row: its barriers so far, written by that thread only; a cache line each so
 * that no two threads write one line. */
typedef struct opscope_cap_thr_row {
    _Atomic int32_t n; /* barriers arrived at (their ticks stored) */
    int32_t cpu;       /* sched_getcpu() at its first barrier, -1 unknown */
    char pad_[56];
} opscope_cap_thr_row;

/* One compute's barrier table. Owned by thread 0's walk (cap_walk.h); T holds the arrival
 * tick of row r at barrier b at t[r * bar_cap + b]. */
typedef struct opscope_cap_thr_table {
    opscope_cap_thr_row *rows; /* nt_cap rows */
    uint64_t *t;
    int32_t *cb_bar;           /* cb_bar[k]: index of the barrier thread 0 met after callback k */
    uint64_t *rel;             /* the reduction's scratch: bar_cap releases */
    int nt_cap, bar_cap, cb_cap;
    _Atomic int nt_seen;       /* highest row written + 1 */
    _Atomic int bad;           /* a row or barrier past the table, or a foreign team: no data */
} opscope_cap_thr_table;

/* Room in TB for NT threads, BARS barriers each and CB callbacks (NT <= OPSCOPE_CAP_THR_MAX).
 * Grows only; called on thread 0 before the compute. False: out of memory (TB unchanged in
 * what it had). */
bool opscope_cap_thr_reserve(opscope_cap_thr_table *tb, int nt, int bars, int cb);
/* Empties TB's rows for the next compute (thread 0, before it starts). */
void opscope_cap_thr_clear(opscope_cap_thr_table *tb);
/* Frees TB's arrays (TB itself is the caller's). */
void opscope_cap_thr_free(opscope_cap_thr_table *tb);

/* Thread ROW arrived at a barrier at tick A. Called on that thread only. */
static inline void opscope_cap_thr_note(opscope_cap_thr_table *tb, int row, uint64_t a) {
    if (row < 0 || row >= tb->nt_cap) {
        atomic_store_explicit(&tb->bad, 1, memory_order_relaxed);
        return;
    }
    opscope_cap_thr_row *r = &tb->rows[row];
    int32_t b = atomic_load_explicit(&r->n, memory_order_relaxed);
    if (b >= tb->bar_cap) {
        atomic_store_explicit(&tb->bad, 1, memory_order_relaxed);
        return;
    }
    tb->t[(size_t)row * (size_t)tb->bar_cap + (size_t)b] = a;
    atomic_store_explicit(&r->n, b + 1, memory_order_release);
    int seen = atomic_load_explicit(&tb->nt_seen, memory_order_relaxed);
    while (seen <= row && !atomic_compare_exchange_weak_explicit(&tb->nt_seen, &seen, row + 1,
                                                                  memory_order_relaxed, memory_order_relaxed)) {
    }
}

/*
 * The reduction. T, ROW_N: NT rows of BAR_CAP barriers (arrival ticks) and each row's count;
 * CB_BAR[0..N_CB): the barrier after each of thread 0's callbacks; CB_TS (NULL: none): the
 * tick of each callback; T_START, T_END: the compute's start and its return on thread 0
 * (ticks; an end before the last release adds nothing); TO_NS: ticks to nanoseconds (applied
 * to every timestamp, so a linear clock conversion is exact); REL: scratch for ROW_N[0]
 * releases. OUT (room for N_CB * NT * 2): work and wait in ns of step k, thread i at
 * OUT[(k * NT + i) * 2] and [+1], saturated at UINT32_MAX. Thread 0's work on step k ends at
 * CB_TS[k] when that comes before its arrival at CB_BAR[k]: what runs between them is the
 * capture's (the callback, the barrier hook before its timestamp) and the program's abort
 * callback, not the node's, and counts as thread 0's wait, so that the capture's own time never
 * makes thread 0 look slow. Returns true when the data hold: every row met the same number of
 * barriers, the callbacks' barriers rise strictly and exist, and no row's arrivals run
 * backwards. False: OUT is undefined. An arrival before the previous release (clocks of two
 * CPUs a few ticks apart) counts as no work. Either way work + wait of barrier b is
 * max(arrival, release) - the previous one, so the steps tile the compute on every thread.
 */
bool opscope_cap_thr_reduce(const uint64_t *t, const int32_t *row_n, int nt, int bar_cap,
                            const int32_t *cb_bar, const uint64_t *cb_ts, int n_cb, uint64_t t_start,
                            uint64_t t_end, uint64_t (*to_ns)(uint64_t), uint32_t *out, uint64_t *rel);

#endif
