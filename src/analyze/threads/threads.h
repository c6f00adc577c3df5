/*
 * threads.h - every CPU thread's work and wait at ggml's barriers, over a profile (internal).
 *
 * A sink of the session (behind the stats, whose group display it keys by) that reads the
 * per-thread times of CPU nodes (opscope_record.threads: work and wait per thread, in ns). At
 * each node the slowest thread is the one with the most work (ties: the lower thread), and:
 *   held: the wait it caused, sum over the other threads of (its work - theirs): with one
 *     barrier per node, exactly the others' wait there;
 *   clear: it is the slowest by a real margin, its work at least OPSCOPE_THREADS_MARGIN more
 *     than every other thread's (a tenth: below that, the lag is the granularity of ggml's
 *     chunking and the clock, not a thread that holds the others back).
 * Sums per thread: work_ns, wait_ns, nodes (records it took part in), slowest_nodes (clear
 * ones), held_ns, its CPU. Per op group (the stats' display and backend): n (records),
 * work_min/mean/max_ns (the sums over its records of the smallest, mean and largest thread's
 * work), wait_ns (every thread's wait), imbalance (work_max_ns / work_mean_ns), per thread
 * held and clear counts; slowest_thread is the thread that held the others back longest,
 * held_share its part of the group's held time, slowest_share the share of the group's
 * records in which it was the slowest by the margin. Per graph id (records without one under
 * -1): work, wait, each thread's held time and its clear MUL_MAT nodes, so the first screen
 * can say it per phase (opscope_threads_phase_sum). Records without per-thread times are not
 * counted. docs/metrics.md, "CPU threads".
 * Memory: per op group 1 KiB; per graph id 40 bytes and 16 per thread (a graph's records come
 * in runs: the last graph is found without a lookup).
 * Ownership: the analysis owns its groups and graphs; the display strings are copied. Thread
 * safety: none.
 */
#ifndef OPSCOPE_ANALYZE_THREADS_H
#define OPSCOPE_ANALYZE_THREADS_H

#include "analyze/record/derived.h"
#include "opscope.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The slowest thread of a node holds the others back when its work exceeds every other's by
 * at least this share of its own. */
#define OPSCOPE_THREADS_MARGIN 0.10

typedef struct opscope_threads opscope_threads_t;

typedef struct opscope_thread_sum {
    int32_t thread;
    uint64_t work_ns, wait_ns, nodes;
    uint64_t slowest_nodes; /* nodes in which it was the slowest by the margin */
    uint64_t held_ns;       /* the wait it caused the other threads (see above) */
    int32_t cpu; /* the CPU it ran on in every record that says (sched_getcpu at each compute's
                  * first barrier); -1: unknown, or it moved between CPUs (MOVED) */
    bool moved;
} opscope_thread_sum;

typedef struct opscope_thread_group {
    const char *display; /* the stats' group display (a copy), or the record's name */
    int32_t backend_id;
    uint64_t n, work_min_ns, work_mean_ns, work_max_ns, wait_ns;
    double imbalance;     /* work_max_ns / work_mean_ns, 0 when no work */
    int32_t slowest_thread; /* the most held time (ties: the lower thread) */
    double held_share;    /* its held time over every thread's, 0 when none */
    double slowest_share; /* of n: the records in which it was the slowest by the margin */
    uint64_t slowest[OPSCOPE_MAX_THREADS]; /* records in which each thread was, by the margin */
    uint64_t held[OPSCOPE_MAX_THREADS];    /* the wait each thread caused */
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

/* The sums of some graphs: every thread's work and wait, each thread's held time, the MUL_MAT
 * records and in how many each thread was the slowest by the margin. */
typedef struct opscope_threads_phase {
    int nt;
    uint64_t work_ns, wait_ns, mm_n;
    uint64_t held[OPSCOPE_MAX_THREADS], mm_slowest[OPSCOPE_MAX_THREADS];
} opscope_threads_phase;

/* Which of the caller's phases graph ID is in (-1 for the records without a graph id). */
typedef int (*opscope_threads_phase_fn)(void *ud, int64_t graph_id);

/* Sums the graphs for which PHASE_OF(UD, id) is PHASE into *OUT (PHASE_OF NULL: every graph).
 * Returns the number of graphs summed. */
size_t opscope_threads_phase_sum(const opscope_threads_t *t, opscope_threads_phase_fn phase_of, void *ud, int phase,
                                 opscope_threads_phase *out);

/* The first screen's one line for P into BUF, when it matters (the wait is at least a tenth of
 * the threads' time): "decode loses 31% of its CPU time waiting at barriers; thread 1 causes
 * 92% of that wait and is the slowest in 85% of MUL_MAT nodes" (NAME: the phase, "decode";
 * NULL: "CPU threads lose ... their time"). The thread named is the one with the most held
 * time; the MUL_MAT part is left out without MUL_MAT records. Returns whether it wrote one. */
bool opscope_threads_phase_line(const opscope_threads_phase *p, const char *name, char *buf, size_t size);

#endif
