/*
 * kbreak.h - a Kineto trace's GPU time by kernel type as Holistic Trace Analysis (HTA)
 * measures it (internal; docs/kineto.md, "Kernel types by HTA's definitions"):
 *   - the events: every event with a stream (GPU activities, the runtime's cuda_sync events);
 *     in a trace of two profiler steps or more, only those whose correlation id is a runtime
 *     call's (HTA's filter of the GPU side, as it runs with include_last_profiler_step); typed by name
 *     as HTA's patterns do: COMMUNICATION ("nccl...", "hip...", "hccl...",
 *     "...ncclKernel..."), MEMORY ("Memcpy...", "Memset...", "dma..."), COMPUTATION (none of
 *     HTA's non-compute patterns: "...Sync", "Stream Wait Event", copies...), else OTHER;
 *   - HTA's temporal span: first start to last end over all of them (the sync events too),
 *     their union and the COMPUTATION events' union;
 *   - HTA's split of the types' overlaps: each type's events merged, then the time with each
 *     set of types running at once (COMPUTATION alone, "COMPUTATION overlapping
 *     COMMUNICATION", ...), with MEMORY among the types and without it; as HTA, times are the
 *     trace's microseconds as doubles (read from the JSON, then less the earliest event's
 *     start), each piece between two boundaries is cut to whole microseconds, and the
 *     boundaries of one instant fall in HTA's row order (numpy's sort, util/npsort.h).
 *
 * Ownership: a handle owns its events (opscope_kbreak_free; NULL is fine). Thread safety: one
 * handle per thread.
 */
#ifndef OPSCOPE_KBREAK_H
#define OPSCOPE_KBREAK_H

#include <stddef.h>
#include <stdint.h>

/* HTA's kernel types; a set of them running at once is a mask of their bits. */
enum { OPSCOPE_KBREAK_COMPUTATION = 1, OPSCOPE_KBREAK_COMMUNICATION = 2, OPSCOPE_KBREAK_MEMORY = 4,
       OPSCOPE_KBREAK_OTHER = 0, OPSCOPE_KBREAK_MASKS = 8 };

typedef struct opscope_kbreak opscope_kbreak_t;

/* A new handle; NULL when out of memory. */
opscope_kbreak_t *opscope_kbreak_new(void);
void opscope_kbreak_free(opscope_kbreak_t *b);

/* NS (a trace's time) as HTA reads it: the nearest double to the JSON's microseconds (at
 * 1.7e15 us a double holds a quarter of a microsecond). Pure. */
double opscope_kbreak_us(int64_t ns);

/* B - A in ns as HTA measures it, the difference of its two doubles (a multiple of 250 ns at
 * today's epoch times, the exact difference for small times). Pure. */
int64_t opscope_kbreak_delta_ns(int64_t a, int64_t b);

/* HTA's type of an event named NAME (OPSCOPE_KBREAK_*; NULL: OTHER). */
int opscope_kbreak_type_of(const char *name);

/* Counts one event with a stream of type TYPE (opscope_kbreak_type_of) over [START_NS,
 * START_NS + DUR_NS], launched by the call of correlation id CORR (-1: none). 0, or -1 out of
 * memory. */
int opscope_kbreak_add(opscope_kbreak_t *b, int type, int64_t start_ns, int64_t dur_ns, int64_t corr);

/* Keeps only the events for which KEEP(UD, their CORR) is non-zero (HTA's filter of the GPU
 * side by its launch calls); call before the finish. */
void opscope_kbreak_keep(opscope_kbreak_t *b, int (*keep)(const void *ud, int64_t corr), const void *ud);

/* Computes the results below and lets go of the events; ORIGIN_NS is the trace's earliest event
 * start (HTA's times are microseconds from it). 0, or -1 out of memory. */
int opscope_kbreak_finish(opscope_kbreak_t *b, int64_t origin_ns);

typedef struct opscope_kbreak_results {
    uint64_t events;                        /* counted events, sync events included */
    int64_t span_ns, busy_ns, compute_ns;   /* HTA's kernel_time, its union, COMPUTATION's */
    double span_us, busy_us, compute_us;    /* the same as HTA computes them: us doubles from the
                                               origin, a union as its ends' sum - starts' sum
                                               (each in numpy's order, util/fsum.h) */
    /* microseconds with exactly the types of the mask running (index 0 unused), over the
     * three types and over COMPUTATION and COMMUNICATION only */
    int64_t with_memory_us[OPSCOPE_KBREAK_MASKS];
    int64_t without_memory_us[OPSCOPE_KBREAK_MASKS];
    /* HTA's rows with the mask's types running (its edges at one instant in its order: a set
     * can run for 0 us, a row of 0 in HTA's table) */
    uint64_t with_memory_rows[OPSCOPE_KBREAK_MASKS];
    uint64_t without_memory_rows[OPSCOPE_KBREAK_MASKS];
} opscope_kbreak_results;

/* The results after the finish (zeros before it); never NULL for a live handle. */
const opscope_kbreak_results *opscope_kbreak_results_of(const opscope_kbreak_t *b);

#endif /* OPSCOPE_KBREAK_H */
