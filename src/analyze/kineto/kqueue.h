/*
 * kqueue.h - the launch queue of every GPU stream over time (internal): the series of its
 * changes and their summary by Holistic Trace Analysis' (HTA) definitions
 * (get_queue_length_time_series, get_queue_length_summary; docs/kineto.md, "Queue length and
 * memory bandwidth over time"). A queue grows by 1 at each launch call's start and shrinks by
 * 1 when its activity leaves: at the activity's start (HTA's count) or at its end (opscope's).
 *
 * The kernel statistics (kstats.c) hand each stream's changes over once, sorted; the summary
 * is made from them at once (a histogram of the lengths: exact percentiles in memory of the
 * longest queue), and the changes themselves are kept only when asked (the counter tracks of
 * `report --counters-trace`: 8 bytes per change).
 *
 * Ownership: a handle owns what it keeps (opscope_kqueue_free; NULL is fine). Thread safety:
 * one handle per thread.
 */
#ifndef OPSCOPE_KQUEUE_H
#define OPSCOPE_KQUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct opscope_kqueue opscope_kqueue_t;

/* When an activity leaves its stream's queue. */
typedef enum opscope_kqueue_out {
    OPSCOPE_KQUEUE_OUT_START = 0, /* at its start (HTA) */
    OPSCOPE_KQUEUE_OUT_END,       /* at its end (opscope's job analysis) */
    OPSCOPE_KQUEUE_OUT_START_HTA, /* at its start, the times as HTA reads them (a quarter of a
                                     microsecond apart at today's epoch), the changes of one
                                     instant in HTA's row order: HTA's own figures */
    OPSCOPE_KQUEUE_OUT_COUNT
} opscope_kqueue_out;

/* pandas' describe() of a series: its points' count, mean, sample standard deviation (n - 1;
 * 0 for one point), extremes and quartiles (linear interpolation, numpy's default). All 0 for
 * no point. */
typedef struct opscope_kdescribe {
    uint64_t count;
    double mean, std, min, p25, p50, p75, max;
} opscope_kdescribe;

/* One change of a queue as kstats keys it: the time doubled, plus 1 for a launch (so that, at
 * one instant, an activity counted out sorts before a launch). */
static inline int64_t opscope_kqueue_key_time(int64_t key) { return key >= 0 ? key / 2 : -((1 - key) / 2); }
static inline int opscope_kqueue_key_up(int64_t key) { return (int)(key & 1); }

typedef struct opscope_kqueue_stream {
    int64_t device, stream;
    opscope_kdescribe len[OPSCOPE_KQUEUE_OUT_COUNT]; /* the length after each change */
    const int64_t *keys[OPSCOPE_KQUEUE_OUT_COUNT];   /* the changes in time order, ties as
                                                        handed over (kept only with
                                                        KEEP_SERIES; else NULL) */
    size_t n_keys[OPSCOPE_KQUEUE_OUT_COUNT];
} opscope_kqueue_stream;

/* A new handle; KEEP_SERIES keeps every change (opscope_kqueue_streams' keys). NULL when out
 * of memory. */
opscope_kqueue_t *opscope_kqueue_new(bool keep_series);
void opscope_kqueue_free(opscope_kqueue_t *q);

/* The changes KEYS[0..M) (in time order, opscope_kqueue_key_*) of stream (DEVICE, STREAM) counted out
 * by OUT; a stream's calls come one after another, each OUT once. KEYS is copied when kept.
 * Returns 0, or -1 when out of memory. */
int opscope_kqueue_add(opscope_kqueue_t *q, int64_t device, int64_t stream, opscope_kqueue_out out,
                       const int64_t *keys, size_t m);

/* The streams in the order they were added (kstats: by device, then stream); valid until
 * free. */
const opscope_kqueue_stream *opscope_kqueue_streams(const opscope_kqueue_t *q, size_t *n);

/* The linear-interpolated quantile P (0..1) of sorted V[0..N) as numpy computes it (0 for
 * N = 0). */
double opscope_kdescribe_quantile(const double *v, size_t n, double p);

#endif /* OPSCOPE_KQUEUE_H */
