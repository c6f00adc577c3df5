/*
 * job_coll.h - a job's collectives (internal): each rank's collectives rows
 * (read/job_summary.h's opscope_job_coll, analyze/kineto/collectives.h) put together per collective
 * type, per size bucket and per rank, with the skew of the bus bandwidth across the ranks
 * (docs/job.md, "NCCL collectives").
 *
 * Ownership: opscope_job_colls_analyze fills a caller's opscope_job_colls, which owns its arrays
 * (opscope_job_colls_free; NULL is fine). Thread safety: independent calls are independent.
 */
#ifndef OPSCOPE_JOB_COLL_H
#define OPSCOPE_JOB_COLL_H

#include "read/job_summary.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One rank's total of one collective type. */
typedef struct opscope_job_coll_rank {
    int64_t rank;
    uint64_t count, bytes, bus_bytes;
    int64_t time_ns;
    double algbw_gbps, busbw_gbps;        /* bytes / time_ns, bus_bytes / time_ns */
} opscope_job_coll_rank;

/* One collective type over the job. */
typedef struct opscope_job_coll_type {
    opscope_job_coll tot;                 /* summed over the ranks (bucket -1) */
    double algbw_gbps, busbw_gbps;        /* of the sums */
    size_t n_ranks;
    opscope_job_coll_rank *ranks;         /* the ranks with this type, in the rows' order */
    double busbw_min_gbps, busbw_median_gbps, busbw_max_gbps; /* over those ranks */
    double skew_pct;                      /* (max - min) / median, in % (0 when median is 0) */
    int64_t slowest_rank;                 /* the rank of the lowest bus bandwidth */
    /* The rank the others wait for: every rank waits in a collective for the last to arrive,
     * so the late rank's collectives are the shortest (the highest bus bandwidth; the first
     * in row order on ties). LATE_WAIT_NS: the median rank's time in this type minus the late
     * rank's (0 when not above): what a typical rank waits for it. */
    int64_t late_rank;
    int64_t median_time_ns, late_wait_ns;
    /* The ranks' times in this type: shortest, longest, (max - min) / median time in %. Unsized
     * collectives (opscope_job_colls.unsized) have no bandwidth: their late rank is the one
     * with the shortest time (the first in row order on ties), the slowest the longest. */
    int64_t time_min_ns, time_max_ns;
    double time_skew_pct;
} opscope_job_coll_type;

typedef struct opscope_job_colls {
    bool on_kernels;                      /* some rank's collectives were timed on kernels */
    bool unsized;                         /* every rank's were gloo's annotations: no sizes, no buckets */
    size_t n_types;
    opscope_job_coll_type *types;         /* by type name */
    size_t n_buckets;
    opscope_job_coll *buckets;            /* summed over the ranks, by type then bucket */
} opscope_job_colls;

/* Fills OUT from the summaries RANKS[0..N) (in the job's row order). Returns 0, or -1 when out
 * of memory (OUT then holds nothing to free). */
int opscope_job_colls_analyze(opscope_job_colls *out, const opscope_job_rank_summary *const *ranks, size_t n);

void opscope_job_colls_free(opscope_job_colls *c);

/* The type whose late rank makes the others wait longest (largest late_wait_ns, the first on
 * ties), or NULL when no type has a wait (one rank, or none late). */
const opscope_job_coll_type *opscope_job_colls_worst_skew(const opscope_job_colls *c);

#endif /* OPSCOPE_JOB_COLL_H */
