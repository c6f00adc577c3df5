/*
 * cap_barrier.h - every thread's arrival at the barriers of a CPU compute
 * (internal; cap_threads.h has the table and its reduction). Thread 0 publishes the table of
 * its compute before the compute runs (opscope_cap_barrier_begin) and takes it back once the
 * compute returned (opscope_cap_barrier_end); in between, the barrier hook (cap_omp.c) of every
 * thread of the compute writes its own row. One compute at a time is timed per process: a
 * second one computing at the same moment on another thread runs without per-thread timing.
 * OPSCOPE_THREADS=0 (read with getenv once) turns it off. Thread safety: as stated per function.
 */
#ifndef OPSCOPE_CAP_BARRIER_H
#define OPSCOPE_CAP_BARRIER_H

#include "capture/timing/cap_walk.h"

#include <stdatomic.h>
#include <stdbool.h>

/* The table of the compute being timed (NULL: none): read by the barrier hook on every call. */
extern _Atomic(opscope_cap_thr_table *) opscope_cap_barrier_live;
/* The table this thread published (thread 0 of the timed compute), else NULL. */
extern _Thread_local opscope_cap_thr_table *opscope_cap_barrier_owner;

/* The calling thread's number in its OpenMP team (omp_get_thread_num of the runtime the
 * program loaded), -1 when no runtime is known. Set once by cap_omp.c. */
extern int (*_Atomic opscope_cap_barrier_team_num)(void);

/* Whether ggml's own threadpool barrier was met (cap_tpool.c resolved a ggml_barrier that is
 * not OpenMP's): its computes can be timed without an OpenMP runtime. */
extern _Atomic bool opscope_cap_barrier_tpool;

/* The calling thread, ROW of the compute whose table TB is published, arrives at a barrier
 * (just before the real one, so that nothing of the hook runs after it): its CPU at its first,
 * on thread 0 (ST: its stream, NULL none) the barrier that follows the callback awaited, and
 * the arrival tick. ROW -1 (a thread 0 of another team) marks TB bad. */
void opscope_cap_barrier_arrive(opscope_cap_thr_table *tb, int row, opscope_cap_stream *st);

/* The calling thread's row at a threadpool barrier of TP while TB is published: 0 on the thread
 * that published TB (ggml's thread 0 runs on the caller of the compute), then 1, 2, ... in the
 * order the other threads first arrive in this compute (ggml_barrier does not say a thread's
 * number); -1 for a thread of another threadpool, which notes nothing (when thread 0's own
 * threadpool is not the first one met, TB is marked bad). Lock-free; thread-local cache. */
int opscope_cap_barrier_tpool_row(opscope_cap_thr_table *tb, const void *tp);

/* Thread 0, before W's compute of N nodes runs: sizes W's table for the threads seen so far
 * (at least the CPUs configured) and publishes it. False: not timed (off, busy, no memory). */
bool opscope_cap_barrier_begin(opscope_cap_walk *w, int n);
/* Thread 0, once the compute that began at tick T0 returned at T1 (BEGUN: what
 * opscope_cap_barrier_begin returned): takes the table back and, when its data hold,
 * appends each callback's per-thread work and wait, then each thread's CPU (int32_t, -1
 * unknown), to W's thr_pool, setting W->st.nt and thr_off (nt 0 otherwise). Says once on
 * stderr that per-thread timing is unavailable when a compute of several steps ran and no
 * barrier of an OpenMP runtime was ever called, or, with a runtime loaded, when a few such
 * computes met no barrier the hook saw while other threads of the process worked during them
 * (their CPU time, measured until a barrier is first seen). */
void opscope_cap_barrier_end(opscope_cap_walk *w, uint64_t t0, uint64_t t1, bool begun);

/* A CPU compute of N_CB steps ran without per-thread timing because this library cannot
 * time its threads (the static library): says so once on stderr when N_CB > 1. */
void opscope_cap_barrier_untimed(int n_cb);

#endif
