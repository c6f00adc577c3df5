/*
 * cupti.h - the kernels CUPTI's profiler measured in a Kineto trace (internal): each
 * `cuda_profiler_range` event is one kernel run with its counters (the event's numeric args,
 * "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"...), attributed to the CPU ops that
 * launched it as Holistic Trace Analysis does (get_cupti_counter_data_with_operators): the
 * ranges sorted by start pair one to one with the cudaLaunchKernel calls sorted by start
 * (the profiler serialises kernels, and its ranges carry no correlation id); a range's
 * operator stack is the cpu_op records around its launch on the launching thread, the
 * outermost the top-level op, the innermost the bottom-level op. When the counts differ no
 * range is attributed (HTA gives no table then).
 *
 * Ownership: a handle owns its rows (opscope_cupti_free; NULL is fine). Thread safety: one
 * handle per read.
 */
#ifndef OPSCOPE_CUPTI_H
#define OPSCOPE_CUPTI_H

#include "analyze/kineto/cpu_ops.h"
#include "model/strtab.h"
#include "read/kineto_event.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct opscope_cupti opscope_cupti_t;

/* One measured kernel (after finish). Name ids are in the trace's string table; UINT32_MAX
 * for none. Its counter values are results.values[row * n_counters + column]. */
typedef struct opscope_cupti_row {
    uint32_t kernel;
    int64_t start_ns, dur_ns;
    uint32_t top_op, bottom_op;  /* outermost and innermost cpu_op around its launch */
    uint32_t stack, n_stack;     /* its operator stack: results.stack[stack..], outer first */
    uint32_t group;              /* index into results.groups, UINT32_MAX when unattributed */
} opscope_cupti_row;

/* The kernels of one (top-level op, bottom-level op) pair, their counters summed. */
typedef struct opscope_cupti_group {
    uint32_t top_op, bottom_op;
    uint64_t kernels;
    uint32_t sums;               /* results.sums[sums..sums + n_counters] */
    double flops;                /* HTA's FLOPs of the SASS counters (opscope_cupti_flop_weight) */
    uint32_t first_row;          /* its first row (by start) */
} opscope_cupti_group;

typedef struct opscope_cupti_results {
    opscope_cupti_row *rows; size_t n_rows;      /* by start */
    uint32_t *counters; size_t n_counters;       /* counter name ids, by name */
    double *values;                              /* n_rows x n_counters; 0 where a row lacks one */
    double *totals;                              /* per counter, over every row */
    uint32_t *stack; size_t n_stack;
    opscope_cupti_group *groups; size_t n_groups; /* by kernels, then FLOPs, then first row */
    double *sums;                                /* n_groups x n_counters */
    size_t n_launches;                           /* cudaLaunchKernel* calls of the trace */
    bool attributed;                             /* launches and rows paired one to one */
    bool has_flops;                              /* some counter is one of HTA's SASS FLOP counters */
    double flops;                                /* their weighted sum over every row */
} opscope_cupti_results;

/* A new handle; NULL when out of memory. */
opscope_cupti_t *opscope_cupti_new(void);
void opscope_cupti_free(opscope_cupti_t *c);

/* Keeps EV when it is a COUNTERS event (others are ignored). 0, or -1 when out of memory. */
int opscope_cupti_add(opscope_cupti_t *c, const opscope_kineto_event *ev);

/* Attributes the rows with the CPU-op records CPU (NULL or without records: none is) and
 * computes the results; NAMES gives the counter names' order. Call once. 0, or -1 (memory). */
int opscope_cupti_finish(opscope_cupti_t *c, const opscope_cpu_ops_results *cpu,
                         const opscope_strtab_t *names);

/* Valid after finish, until free; NULL for a NULL handle. */
const opscope_cupti_results *opscope_cupti_results_get(const opscope_cupti_t *c);

/* The FLOPs one instruction of counter NAME stands for in HTA's table
 * (CUDA_SASS_INSTRUCTION_COUNTER_FLOPS: the fadd/fmul/ffma, h*, d* thread-instruction counters,
 * 2 for an fma, else 1), 0 for any other counter. Pure. */
double opscope_cupti_flop_weight(const char *name);

#endif /* OPSCOPE_CUPTI_H */
