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
 * fills a caller's opscope_job_rank_summary (read/job_summary.h: whose steps and streams arrays
 * the summary owns, opscope_job_rank_summary_free) and may be called once; opscope_job_rank_free releases the
 * handle (NULL is fine). Thread safety: one handle per thread; different handles are independent
 * (the job reads its ranks on several threads).
 */
#ifndef OPSCOPE_JOB_RANK_H
#define OPSCOPE_JOB_RANK_H

#include "read/job_summary.h"
#include "read/kineto_event.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct opscope_job_rank opscope_job_rank_t;

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

/* The collector that hands each event to NEXT, then to R: one read feeds both (`opscope view`
 * of a job: the page's analysis and the rank's figures). R then reads names through NEXT's
 * string table and the trace's facts (rank, counts) from NEXT's info, which must outlive
 * opscope_job_rank_finish. Valid while R lives; NULL when NEXT (or its names or info) is NULL. */
opscope_kineto_collector *opscope_job_rank_tee(opscope_job_rank_t *r, opscope_kineto_collector *next);

/* How many trace events the read handed over (0: the input was no Kineto or Chrome trace). */
uint64_t opscope_job_rank_events(const opscope_job_rank_t *r);

/* Computes the rank's figures into OUT (zeroed first). Returns 0, or -1 when out of memory
 * (OUT then holds nothing to free). Frees R's intervals as it goes. */
int opscope_job_rank_finish(opscope_job_rank_t *r, opscope_job_rank_summary *out);

#endif /* OPSCOPE_JOB_RANK_H */
