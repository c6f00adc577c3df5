/*
 * threads.h - every CPU thread's work and wait at ggml's barriers, over a profile (internal).
 *
 * A sink of the session (behind the stats, whose group display it keys by) that reads the
 * per-thread times of CPU nodes (opscope_record.threads: work and wait per thread, in ns) and
 * sums them per thread and per op group:
 *   per thread: work_ns, wait_ns, nodes (records it took part in), slowest_nodes (of those,
 *     the ones where its work was the largest; ties go to the lower thread), its CPU;
 *   per group (the stats' display and backend): n (records), work_min/mean/max_ns (the sums
 *     over its records of the smallest, mean and largest thread's work), wait_ns (every
 *     thread's wait), imbalance (work_max_ns / work_mean_ns), slowest_thread (the thread
 *     slowest in most of its records) and slowest_share (in how many of them, 0..1);
 *   the whole: wait share (wait over work + wait of every thread and node).
 * Records without per-thread times are not counted. docs/metrics.md, "CPU threads".
 * Ownership: the analysis owns its groups; the display strings are the stats' (borrowed: the
 * stats must outlive it). Thread safety: none.
 */
#ifndef OPSCOPE_ANALYZE_THREADS_H
#define OPSCOPE_ANALYZE_THREADS_H

#include "analyze/record/derived.h"
#include "opscope.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct opscope_threads opscope_threads_t;

typedef struct opscope_thread_sum {
    int32_t thread;
    uint64_t work_ns, wait_ns, nodes, slowest_nodes;
    int32_t cpu; /* the CPU it ran on in every record that says (sched_getcpu at each compute's
                  * first barrier); -1: unknown, or it moved between CPUs (MOVED) */
    bool moved;
} opscope_thread_sum;

typedef struct opscope_thread_group {
    const char *display; /* the stats' group display (borrowed), or the record's name */
    int32_t backend_id;
    uint64_t n, work_min_ns, work_mean_ns, work_max_ns, wait_ns;
    double imbalance;     /* work_max_ns / work_mean_ns, 0 when no work */
    int32_t slowest_thread;
    double slowest_share; /* of n */
    uint64_t slowest[OPSCOPE_MAX_THREADS]; /* records in which each thread was the slowest */
} opscope_thread_group;

/* A new analysis, or NULL when out of memory. Free with opscope_threads_free (NULL: no-op). */
opscope_threads_t *opscope_threads_new(void);
void opscope_threads_free(opscope_threads_t *t);

/* Adds REC (DV: its derived values; the display set by the stats, else the record's name is
 * used). Returns 0, or -1 when out of memory (the analysis then stays as it was). */
int opscope_threads_add(opscope_threads_t *t, const opscope_record *rec, const opscope_derived *dv);
/* The analysis as a sink's on_derived (UD: the analysis). */
int opscope_threads_add_derived(void *ud, const opscope_record *rec, opscope_derived *dv);
/* A sink whose on_record adds records without derived values (display: the record's name). */
opscope_sink opscope_threads_sink(opscope_threads_t *t);

/* Threads seen (0: no record had per-thread times) and thread I's sums (I < n). */
int opscope_threads_n(const opscope_threads_t *t);
const opscope_thread_sum *opscope_threads_thread(const opscope_threads_t *t, int i);
/* Groups (in first-seen order) and the group of DISPLAY on BACKEND (NULL when none). Derived
 * members (imbalance, slowest) are computed on each call. */
size_t opscope_threads_n_groups(const opscope_threads_t *t);
const opscope_thread_group *opscope_threads_group(opscope_threads_t *t, size_t i);
const opscope_thread_group *opscope_threads_find(opscope_threads_t *t, const char *display, int32_t backend_id);
/* Work and wait of every thread over every node. */
void opscope_threads_totals(const opscope_threads_t *t, uint64_t *work_ns, uint64_t *wait_ns);
/* The group with the most max work (the op that costs the threads most), or NULL. */
const opscope_thread_group *opscope_threads_heaviest(opscope_threads_t *t);

/* The first screen's one line into BUF ("CPU threads wait at barriers for 31% of their time;
 * thread 1 is the slowest in 92% of MUL_MAT nodes"), when it matters: the wait share is at
 * least 10%. Returns whether a line was written. */
bool opscope_threads_finding(opscope_threads_t *t, char *buf, size_t size);

#endif
