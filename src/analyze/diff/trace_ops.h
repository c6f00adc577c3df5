/*
 * trace_ops.h - two Kineto traces' events compared per name over chosen profiler steps, CPU
 * side and GPU side, as Holistic Trace Analysis' TraceDiff.compare_traces does (internal to
 * `opscope diff`; docs/diff.md, "Trace ops by step").
 *
 * Each side's tally wraps the trace reader's collector (every event goes on to the Kineto
 * analysis unchanged) and keeps 24 bytes per CPU slice (cpu_op, user_annotation,
 * python_function, runtime call), 16 per runtime call with a correlation id and 24 per GPU
 * activity. At the finish, as HTA's add_iteration: a CPU slice belongs to the step
 * ProfilerStep#N (a user_annotation) whose [start, end) holds its start; a GPU activity
 * (kernel, memcpy, memset) to the step of the runtime call with its correlation id. The
 * chosen steps (every step of the trace by default; the whole trace when it has none) give
 * per name the count and the summed duration, CPU and GPU apart; the two sides pair by name
 * (a name one side lacks counts 0 there).
 *
 * Ownership: a tally owns its events and rows (opscope_trace_ops_free; NULL is fine); the
 * inner collector and the names are borrowed and must outlive it. A comparison owns its rows
 * and borrows the two tallies' names. Thread safety: one tally per read.
 */
#ifndef OPSCOPE_TRACE_OPS_H
#define OPSCOPE_TRACE_OPS_H

#include "model/strtab.h"
#include "read/kineto_event.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct opscope_trace_ops opscope_trace_ops_t;

/* The steps chosen: ProfilerStep#N with LO <= N <= HI; ALL: every step. */
typedef struct opscope_trace_steps {
    bool all;
    int64_t lo, hi;
} opscope_trace_steps;

/* One name's events over the chosen steps. */
typedef struct opscope_trace_op {
    const char *name;            /* the trace's string (borrowed from its names) */
    uint64_t count, ns;
} opscope_trace_op;

/* A new tally forwarding every event to INNER (borrowed; NULL: none), with INNER's info,
 * names and wishes (want_links, want_dims) as they are now: set them on INNER first. NULL when
 * out of memory. */
opscope_trace_ops_t *opscope_trace_ops_new(const opscope_kineto_collector *inner);
void opscope_trace_ops_free(opscope_trace_ops_t *t);

/* The collector to hand the reader (owned by T). */
opscope_kineto_collector *opscope_trace_ops_collector(opscope_trace_ops_t *t);

/* The rows over STEPS (0), or 1 when the trace has steps but none of STEPS (*FIRST, *LAST:
 * the numbers it has), or -1 when out of memory. Call once after the read. */
int opscope_trace_ops_finish(opscope_trace_ops_t *t, const opscope_trace_steps *steps, int64_t *first,
                             int64_t *last);

/* After finish: the steps kept (their numbers, by start; none for a trace without steps) and
 * the CPU and GPU rows (by name). */
const int64_t *opscope_trace_ops_steps(const opscope_trace_ops_t *t, size_t *n);
const opscope_trace_op *opscope_trace_ops_rows(const opscope_trace_ops_t *t, bool gpu, size_t *n);

/* One name of the comparison: BASE and NEW's count and time (0 where a side lacks it). */
typedef struct opscope_trace_op_pair {
    const char *name;
    uint64_t count[2], ns[2];
} opscope_trace_op_pair;

typedef struct opscope_trace_ops_cmp {
    opscope_trace_op_pair *cpu, *gpu; /* by |NEW - BASE| time, largest first, then name */
    size_t n_cpu, n_gpu;
    const int64_t *steps[2];          /* each side's steps kept (borrowed from its tally) */
    size_t n_steps[2];
    bool chosen;                      /* --steps was given (else every step) */
} opscope_trace_ops_cmp;

/* The finished tallies BASE and NEW paired by name into OUT (freed with
 * opscope_trace_ops_cmp_free). 0, or -1 when out of memory. */
int opscope_trace_ops_compare(const opscope_trace_ops_t *base, const opscope_trace_ops_t *newer,
                              opscope_trace_ops_cmp *out);
void opscope_trace_ops_cmp_free(opscope_trace_ops_cmp *c);

#endif /* OPSCOPE_TRACE_OPS_H */
