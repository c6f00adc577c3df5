/*
 * busy_runs.h - the exact length of the union of intervals that come as runs, each run sorted
 * by start: a device's streams in a trace (every activity of a stream, in start order).
 *
 * A k-way merge by start over the runs feeds a one-pass union, so the result is exact for any
 * number of intervals and any overlap between runs, in memory of one cursor per run (no copy
 * of the intervals, nothing sealed: unlike a window, busy.h). Time O(n log k) for n intervals
 * in k runs.
 *
 * Ownership: nothing is kept after the call. Thread safety: reentrant.
 */
#ifndef OPSCOPE_ANALYZE_BUSY_RUNS_H
#define OPSCOPE_ANALYZE_BUSY_RUNS_H

#include <stddef.h>
#include <stdint.h>

/* Intervals [begin, end) of the caller's sequence: one run. */
typedef struct opscope_busy_run {
    size_t begin, end;
} opscope_busy_run;

/* The interval at index I of the caller's sequence UD: [*START, *END). */
typedef void (*opscope_busy_get_fn)(const void *ud, size_t i, int64_t *start, int64_t *end);

/* Sets *TOTAL to the length of the union of every interval of the N_RUNS RUNS, each clipped to
 * [LO, HI) (empty ones dropped). Each run must be sorted by start (not checked: an unsorted
 * run over-counts). Returns 0, or -1 when out of memory (*TOTAL untouched). */
int opscope_busy_runs_total(const opscope_busy_run *runs, size_t n_runs, opscope_busy_get_fn get,
                            const void *ud, int64_t lo, int64_t hi, uint64_t *total);

#endif /* OPSCOPE_ANALYZE_BUSY_RUNS_H */
