/*
 * job_annot.h - a rank's time per user annotation (internal): record_function ranges by name,
 * with the GPU activities launched inside them, nested ranges each counted (docs/job.md).
 *
 * Ownership: the arrays are the caller's; ANNOTS is sorted in place. Thread safety: pure apart
 * from that.
 */
#ifndef OPSCOPE_JOB_ANNOT_H
#define OPSCOPE_JOB_ANNOT_H

#include "analyze/job/job_gpu.h"

/* One user annotation range on a CPU thread. */
typedef struct opscope_job_range {
    uint64_t thread;
    int64_t s, e;
    uint32_t name;                        /* id in the rank's string table */
} opscope_job_range;

typedef struct opscope_job_annot_in {
    opscope_job_range *ranges;
    size_t n_ranges;
    const opscope_job_act *acts;          /* GPU activities (may be none) */
    size_t n_acts;
    const opscope_job_call *calls;        /* sorted by correlation (opscope_job_call_find) */
    size_t n_calls;
    const opscope_strtab_t *names;
} opscope_job_annot_in;

/* Fills OUT[0..*N_OUT) (room for OPSCOPE_JOB_ANNOTS): the names with the most GPU time (or,
 * with no GPU activity, CPU time). Returns 0, or -1 when out of memory (*N_OUT then 0). */
int opscope_job_annot_measure(const opscope_job_annot_in *in, opscope_job_annot *out, int *n_out);

#endif /* OPSCOPE_JOB_ANNOT_H */
