/*
 * kineto_filter.h - the profiler-step filter HTA (Holistic Trace Analysis) applies to a trace
 * when it loads it, so that a trace read through it gives HTA's figures (internal).
 *
 * HTA splits a trace's slices (X events with a duration) in two: GPU-side ones (args.stream >= 0
 * and args.correlation >= 0, or named "Event Sync" / "Context Sync") and the rest, "CPU-side"
 * (CPU ops, runtime calls, annotations, python functions, GPU activities without a stream or a
 * correlation...). With the trace's ProfilerStep#N slices among the CPU-side ones, it keeps:
 *   - OPSCOPE_KINETO_STEPS_DROP_LAST (HTA's include_last_profiler_step=False, its default): the
 *     CPU-side slices that start before the last step's start (the greatest step start);
 *   - OPSCOPE_KINETO_STEPS_KEEP_LAST (True): those whose start, counted from the trace's first
 *     slice start (HTA moves starts to that origin), is at or before the last step's end (the
 *     greatest step end, which HTA leaves in the trace's own clock: with a trace's usual
 *     epoch timestamps every CPU-side slice passes);
 * and in both the GPU-side slices whose correlation is that of a kept CPU-side slice. Without
 * CPU-side steps the bounds are the CPU-side slices' first start and last end; with fewer than
 * two distinct step names (or no CPU-side slice) it keeps everything. Flow starts follow their
 * correlation like GPU-side slices.
 *
 * It takes two reads: the first (scan) sees every slice through opscope_kineto_filter_see, then
 * opscope_kineto_filter_ready fixes what is kept, and the second read asks
 * opscope_kineto_filter_keeps for each one (read.c runs both for a read option).
 *
 * Memory: 16 bytes per CPU-side slice with a correlation during the scan, 8 per kept
 * correlation after it; a checked read also 8 per GPU-side correlation. Ownership: the caller frees the filter. Thread safety: none while
 * scanning; keeps may be called from several threads once ready.
 */
#ifndef OPSCOPE_KINETO_FILTER_H
#define OPSCOPE_KINETO_FILTER_H

#include <stddef.h>
#include <stdint.h>

typedef enum opscope_kineto_steps {
    OPSCOPE_KINETO_STEPS_ALL = 0,   /* no filter: every event */
    OPSCOPE_KINETO_STEPS_DROP_LAST, /* HTA's include_last_profiler_step=False */
    OPSCOPE_KINETO_STEPS_KEEP_LAST, /* HTA's include_last_profiler_step=True */
} opscope_kineto_steps;

typedef struct opscope_kineto_filter opscope_kineto_filter_t;

/* A new filter for MODE (not ALL), scanning; NULL when out of memory. */
opscope_kineto_filter_t *opscope_kineto_filter_new(opscope_kineto_steps mode);

/* Frees F. NULL is a no-op. */
void opscope_kineto_filter_free(opscope_kineto_filter_t *f);

/* Whether a slice is GPU-side in HTA's sense: its args.stream STREAM and args.correlation CORR
 * (-1 when absent), its NAME (NAME_LEN bytes, need not be NUL-terminated). */
int opscope_kineto_filter_gpu_side(int64_t stream, int64_t corr, const char *name, size_t name_len);

/* Scan: one slice (GPU_SIDE from opscope_kineto_filter_gpu_side; START_NS, END_NS its times;
 * CORR its correlation, -1 when none). Returns 0, or -1 when out of memory. */
int opscope_kineto_filter_see(opscope_kineto_filter_t *f, int gpu_side, int64_t corr, int64_t start_ns,
                              int64_t end_ns, const char *name, size_t name_len);

/* Ends the scan: fixes the bounds and the kept correlations. Call once. */
void opscope_kineto_filter_ready(opscope_kineto_filter_t *f);

/* After ready: whether a slice (as for see) is kept. A flow start is asked as a GPU-side
 * slice of its id. F NULL keeps everything. */
int opscope_kineto_filter_keeps(const opscope_kineto_filter_t *f, int gpu_side, int64_t corr, int64_t start_ns);

/* After ready: whether F drops anything at all (0: fewer than two step names, or no CPU-side
 * slice), and the bound it applied (the last step's start for DROP_LAST, its end for
 * KEEP_LAST; ns). */
int opscope_kineto_filter_active(const opscope_kineto_filter_t *f, int64_t *bound_ns);

/* Checking instead of scanning: the one read feeds every event while the filter sees the
 * slices (as the scan does) and notes, with opscope_kineto_filter_note, each GPU-side
 * correlation asked of it and each slice it would drop whatever the bounds; after ready,
 * opscope_kineto_filter_drops says whether the filtered read would have differed. Call before
 * the read. */
void opscope_kineto_filter_check(opscope_kineto_filter_t *f);

/* Check: a GPU-side correlation the filtered read would ask keeps about (a flow start's id; -1:
 * a GPU-side slice without one). Returns 0, or -1 when out of memory. */
int opscope_kineto_filter_note(opscope_kineto_filter_t *f, int64_t corr);

/* Check: a slice the filtered read drops whatever the bounds (one without "dur"). */
void opscope_kineto_filter_note_dropped(opscope_kineto_filter_t *f);

/* After ready, on a checked read: 1 when the filtered read would have dropped some slice or
 * flow that the read fed, else 0. */
int opscope_kineto_filter_drops(const opscope_kineto_filter_t *f);

#endif /* OPSCOPE_KINETO_FILTER_H */
