/*
 * job_gpu.h - a GPU rank's streams and launches (internal, job_rank.c's second half): per
 * stream the idle split (host wait, kernel wait, other) and the queue of launched, unfinished
 * activities; the launch statistics (CPU launch time, launch delay, outliers per kernel).
 * Definitions in docs/job.md.
 *
 * Ownership: the inputs are the caller's; opscope_job_gpu_measure sorts ACTS and CALLS in place
 * and allocates OUT->streams. Thread safety: pure apart from those arrays.
 */
#ifndef OPSCOPE_JOB_GPU_H
#define OPSCOPE_JOB_GPU_H

#include "read/job_summary.h"
#include "model/strtab.h"

/* The classes of time a rank is measured in. */
enum { OPSCOPE_JOB_CLS_COMPUTE = 0, OPSCOPE_JOB_CLS_COMM, OPSCOPE_JOB_CLS_MEMORY, OPSCOPE_JOB_CLS_INPUT };

/* One GPU activity (kernel, memcpy, memset) of a rank. */
typedef struct opscope_job_act {
    int64_t s, e, corr;                   /* corr: args.correlation, -1 when absent */
    int64_t device, stream;
    uint32_t name;                        /* id in the rank's string table */
    uint8_t cls;                          /* OPSCOPE_JOB_CLS_COMPUTE, _COMM or _MEMORY */
} opscope_job_act;

/* One runtime call with a correlation id (cudaLaunchKernel, cudaMemcpyAsync...). */
typedef struct opscope_job_call {
    int64_t corr, s, dur;
    uint64_t thread;                      /* the CPU thread that made it */
} opscope_job_call;

/* The earliest call of correlation CORR in C[0..N) sorted by correlation (as
 * opscope_job_gpu_measure leaves them), or NULL. */
const opscope_job_call *opscope_job_call_find(const opscope_job_call *c, size_t n, int64_t corr);

typedef struct opscope_job_gpu_in {
    opscope_job_act *acts;
    size_t n_acts;
    opscope_job_call *calls;
    size_t n_calls;
    const opscope_strtab_t *names;
    int64_t delay_cutoff_ns, cpu_cutoff_ns;
} opscope_job_gpu_in;

/* Fills OUT's streams, idle split sums and launch statistics. Returns 0, or -1 when out of
 * memory (OUT->streams then NULL). */
int opscope_job_gpu_measure(const opscope_job_gpu_in *in, opscope_job_rank_summary *out);

#endif /* OPSCOPE_JOB_GPU_H */
