/*
 * job_rank.h - one rank of a distributed job (internal): a Kineto collector that keeps the
 * few intervals the job's figures need, and the small summary it leaves behind once the trace
 * was read (docs/job.md has every definition).
 *
 * A GPU rank (the trace has kernels, memcpys or memsets) is measured on its GPU activities, with
 * HTA's classes: communication kernels (kernel_rules.def), memory (memcpy, memset), compute (the
 * rest). A CPU rank (none) is measured on its CPU side: collective ops (`gloo:`, `nccl:`,
 * `c10d::` names) are communication, DataLoader iterations input, other cpu_ops compute.
 *
 * Ownership: opscope_job_rank_new's handle owns its intervals and names; opscope_job_rank_finish
 * fills a caller's opscope_job_rank_summary (whose steps, streams and outliers arrays the summary
 * owns: opscope_job_rank_summary_free) and may be called once; opscope_job_rank_free releases the
 * handle (NULL is fine). Thread safety: one handle per thread; different handles are independent
 * (the job reads its ranks on several threads).
 */
#ifndef OPSCOPE_JOB_RANK_H
#define OPSCOPE_JOB_RANK_H

#include "read/kineto_event.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct opscope_job_rank opscope_job_rank_t;

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
} opscope_job_rank_summary;

typedef struct opscope_job_rank_opts {
    int64_t delay_cutoff_ns;              /* launch delay outlier: over this (0: 100 us) */
    int64_t cpu_cutoff_ns;                /* runtime call outlier: over this (0: 50 us) */
} opscope_job_rank_opts;

/* A rank's analysis; NULL when out of memory. OPTS may be NULL (defaults). */
opscope_job_rank_t *opscope_job_rank_new(const opscope_job_rank_opts *opts);
void opscope_job_rank_free(opscope_job_rank_t *r);

/* The collector to hand to the read (readers.h's opscope_read_options.kineto); valid while R
 * lives. */
opscope_kineto_collector *opscope_job_rank_collector(opscope_job_rank_t *r);

/* Computes the rank's figures into OUT (zeroed first). Returns 0, or -1 when out of memory
 * (OUT then holds nothing to free). Frees R's intervals as it goes. */
int opscope_job_rank_finish(opscope_job_rank_t *r, opscope_job_rank_summary *out);

void opscope_job_rank_summary_free(opscope_job_rank_summary *s);

#endif /* OPSCOPE_JOB_RANK_H */
