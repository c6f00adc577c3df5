/*
 * job_summary.h - one rank's summary in a distributed job (internal): the record the job's
 * analysis makes of a trace (analyze/job/job_rank.h) and the job summary reader reads back from a
 * `report --json` file of a job (summary.job.ranks[]), so summaries made where the traces are
 * combine exactly into the job they would have made together (docs/job.md).
 *
 * Ownership: a summary owns its steps, streams and colls arrays (opscope_job_rank_summary_free; NULL
 * is fine); opscope_job_summary_read hands the caller its summaries and trace names.
 * Thread safety: independent calls may run concurrently.
 */
#ifndef OPSCOPE_JOB_SUMMARY_H
#define OPSCOPE_JOB_SUMMARY_H

#include "opscope.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One profiler step (ProfilerStep#N) of a rank, with the rank's figures inside it. */
typedef struct opscope_job_step {
    int64_t num;                          /* N of ProfilerStep#N */
    int64_t start_ns, dur_ns;
    int64_t busy_ns, compute_ns, comm_ns, overlap_ns, input_ns;
} opscope_job_step;

/* One GPU stream: why it idles, and its queue of launched, unfinished activities. */
typedef struct opscope_job_stream {
    int64_t device, stream;
    uint64_t activities;
    int64_t span_ns, busy_ns, idle_ns;    /* first start to last end; union; span - union */
    int64_t host_wait_ns, kernel_wait_ns, other_wait_ns; /* the idle split (sums to idle) */
    int64_t queue_max;                    /* most activities launched and not yet finished */
    double queue_mean;                    /* time-weighted over the queue's span */
    int64_t queue_at_max_ns;              /* time spent at queue_max */
} opscope_job_stream;

/* A kernel name with launch outliers (launch delay over the cutoff). */
typedef struct opscope_job_outlier {
    char name[160];                       /* cut to fit */
    uint64_t count, launches;             /* launches over the cutoff, of all its launches */
    int64_t max_delay_ns;
} opscope_job_outlier;

#define OPSCOPE_JOB_OUTLIERS 5

/* Launch statistics over the GPU activities linked to their runtime call. Percentiles are
 * nearest-rank on the sorted values: p = v[floor((n - 1) * q)]. */
typedef struct opscope_job_launch {
    uint64_t launches;                    /* activities with a runtime call of their correlation */
    int64_t delay_p50_ns, delay_p90_ns, delay_p99_ns, delay_max_ns; /* kernel start - call start */
    int64_t cpu_p50_ns, cpu_p90_ns, cpu_max_ns;                    /* the call's duration */
    uint64_t delay_outliers, cpu_outliers; /* over opscope_job_rank_opts' cutoffs */
    int n_outliers;
    opscope_job_outlier outliers[OPSCOPE_JOB_OUTLIERS]; /* most delay outliers first */
} opscope_job_launch;

/* Time per user annotation (record_function ranges, nested: a kernel counts in every range
 * around its launch on the launching thread, and in the innermost one as its self time). */
typedef struct opscope_job_annot {
    char name[160];                       /* cut to fit */
    uint64_t count, kernels;              /* ranges of that name; GPU activities launched in them */
    int64_t cpu_ns;                       /* sum of the ranges' durations */
    int64_t gpu_ns, self_gpu_ns;          /* the activities' durations, inclusive and innermost */
} opscope_job_annot;

#define OPSCOPE_JOB_ANNOTS 10

/* One collective type and message size bucket of a rank: collectives with their args
 * (analyze/kineto/collectives.h; docs/job.md, "NCCL collectives"). Message size S = max(In, Out msg
 * nelems) x the dtype's size; bus bytes = S x NCCL's bus factor for the type and group size. */
typedef struct opscope_job_coll {
    char type[24];                        /* allreduce, allgather, reducescatter, alltoall... */
    int64_t bucket;                       /* floor(log2(S)) of its messages; -1: S = 0 or unknown */
    int64_t group_size;                   /* the largest "Group size" seen */
    uint64_t count, bytes, bus_bytes;     /* collectives; sum of S; sum of bus bytes */
    int64_t time_ns;                      /* sum of their durations */
} opscope_job_coll;

/* What the job keeps of one rank once its trace was read. */
typedef struct opscope_job_rank_summary {
    int64_t rank, world_size;             /* distributedInfo (-1 when absent) */
    char backend[16];
    bool gpu;                             /* measured on GPU activities (else the CPU side) */
    uint64_t gpu_activities, cpu_ops;
    int64_t span_ns;                      /* GPU: first activity to last end; CPU: the steps */
    int64_t busy_ns, idle_ns, compute_ns, comm_ns, memory_ns, input_ns, overlap_ns;
    int64_t host_wait_ns, kernel_wait_ns, other_wait_ns; /* sums over the streams */
    size_t n_steps;
    opscope_job_step *steps;
    int64_t step_median_ns;               /* nearest-rank median of the steps' durations */
    size_t n_streams;
    opscope_job_stream *streams;
    opscope_job_launch launch;
    int n_annots;                         /* by gpu_ns (GPU rank) or cpu_ns, largest first */
    opscope_job_annot annots[OPSCOPE_JOB_ANNOTS];
    int n_modules;                        /* the same over "nn.Module: X" python frames */
    opscope_job_annot modules[OPSCOPE_JOB_ANNOTS];
    bool colls_on_kernels;                /* collectives timed on their kernels (else CPU ops) */
    bool colls_unsized;                   /* timed on gloo's annotations: no sizes (bytes 0) */
    size_t n_colls;
    opscope_job_coll *colls;              /* by type, then bucket */
} opscope_job_rank_summary;

void opscope_job_rank_summary_free(opscope_job_rank_summary *s);

/* True when the first SIZE bytes of a file, PREFIX, begin a job summary written by opscope
 * (`{"summary":{"job":`). */
bool opscope_job_summary_sniff(const void *prefix, size_t size);

/* One rank read back from a job summary, with the trace it was made from (malloc'd). */
typedef struct opscope_job_summary_rank {
    opscope_job_rank_summary sum;
    char *trace;
} opscope_job_summary_rank;

/*
 * Reads the job summary PATH (summary.job.ranks[] of a `report --json` of a job; every other
 * member skipped) into *OUT (malloc'd, *N ranks; free each with opscope_job_rank_summary_free
 * and free(trace), then free(*OUT)). Returns 0, or -1 with ERR filled (file, line:column).
 */
int opscope_job_summary_read(const char *path, opscope_job_summary_rank **out, size_t *n,
                             opscope_error *err);

/* The same over the memory DATA[0..SIZE); NAME names it in errors. */
int opscope_job_summary_read_buffer(const void *data, size_t size, const char *name,
                                    opscope_job_summary_rank **out, size_t *n, opscope_error *err);

#endif /* OPSCOPE_JOB_SUMMARY_H */
