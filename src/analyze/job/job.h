/*
 * job.h - a distributed job as a whole (internal): its ranks' summaries (job_rank.h) side by
 * side, each rank's deviation from the median, the stragglers (the ranks the others wait for
 * in collectives, and why) and what bounds the job (rank, resource, step). Definitions in
 * docs/job.md.
 *
 * Ownership: the rows and their summaries are the caller's; opscope_job_analyze sorts ROWS by
 * rank and allocates JOB's stragglers (opscope_job_free). Thread safety: none needed (run once,
 * after the ranks were read).
 */
#ifndef OPSCOPE_JOB_H
#define OPSCOPE_JOB_H

#include "analyze/job/job_coll.h"
#include "analyze/job/job_rank.h"

#include <stddef.h>
#include <stdint.h>

/* One rank of the job, with its shares (percent of its span). */
typedef struct opscope_job_row {
    const char *path;                    /* the trace it came from (caller's) */
    opscope_job_rank_summary *s;
    double busy_pct, idle_pct, compute_pct, non_compute_pct, comm_pct, memory_pct, input_pct;
    double overlap_pct;                  /* of its communication time */
    double step_dev_pct;                 /* its median step vs the job's median (+: slower) */
} opscope_job_row;

typedef enum opscope_job_cause {
    OPSCOPE_JOB_CAUSE_UNKNOWN = 0,
    OPSCOPE_JOB_CAUSE_COMPUTE,           /* more compute time than the other ranks */
    OPSCOPE_JOB_CAUSE_INPUT,             /* more time in data loading */
    OPSCOPE_JOB_CAUSE_LAUNCH,            /* more GPU idle waiting for the host (host wait) */
} opscope_job_cause;

typedef struct opscope_job_straggler {
    size_t row;                          /* index in the (sorted) rows */
    int64_t rank;
    opscope_job_cause cause;
    int64_t wait_ns;                     /* the job's median communication time - the rank's */
    int64_t excess_ns;                   /* the cause's time over the other ranks' median */
} opscope_job_straggler;

/* One annotation name over the ranks that list it (each rank's top ranges, job_annot.h). */
typedef struct opscope_job_annot_row {
    const char *name;                    /* in a rank's summary */
    size_t ranks;                        /* ranks listing it */
    uint64_t kernels;                    /* over those ranks */
    int64_t median_ns, max_ns;           /* its time (GPU, or CPU for CPU ranks) over those ranks */
    int64_t max_rank;
} opscope_job_annot_row;

typedef struct opscope_job {
    size_t n;
    opscope_job_row *rows;
    bool gpu;                            /* any rank measured on a GPU */
    int64_t median_step_ns, median_comm_ns, median_span_ns;
    double median_compute_pct, median_exposed_comm_pct, median_memory_pct, median_input_pct,
        median_idle_pct, median_overlap_pct;
    size_t n_stragglers;
    opscope_job_straggler *stragglers;   /* worst (largest wait_ns) first */
    /* what bounds the job */
    size_t bound_row;
    const char *bound_resource;          /* static: "input", "compute", "communication"... */
    int64_t slowest_step_num, slowest_step_rank, slowest_step_ns;
    size_t n_annots, n_modules;
    opscope_job_annot_row *annots;       /* by max_ns, largest first */
    opscope_job_annot_row *modules;      /* the same over "nn.Module: X" python frames */
    opscope_job_colls colls;             /* collectives per type, bucket and rank (job_coll.h) */
} opscope_job;

/* The rank a trace's file name gives (the last number after "rank", else the last number of the
 * base name), or -1. */
int64_t opscope_job_rank_from_name(const char *path);

/* Fills JOB from ROWS[0..N) (paths and summaries set; ranks resolved). Returns 0, or -1 when out
 * of memory. */
int opscope_job_analyze(opscope_job *job, opscope_job_row *rows, size_t n);

void opscope_job_free(opscope_job *job);

/* "compute", "input", "launch", "unknown". */
const char *opscope_job_cause_name(opscope_job_cause c);

#endif /* OPSCOPE_JOB_H */
