/*
 * job_hta.h - Holistic Trace Analysis' (HTA) straggler rule over a job's ranks
 * (get_potential_stragglers with its find_stragglers_with_late_start_comm_kernels), beside the
 * job analysis' own (job.h; docs/kineto.md, "HTA's stragglers"):
 *   1. over the chosen steps of every rank: t_min the earliest step start, the mean step time
 *      (the latest end of the steps' events - t_min) / the number of distinct steps;
 *   2. the NCCL kernels (ncclKernel..., on a stream above 0, in a step above 0) at least 1% of
 *      the mean step time long; of each (rank, stream, step, name) the last (latest start);
 *   3. per (stream, step, name) the sample standard deviation over the ranks of the durations
 *      over the mean step time; per (stream, name) its mean over the steps (those with two
 *      ranks or more); the (stream, name) of the largest mean is the metric's kernel;
 *   4. each rank's metric: that kernel's start since t_min over the mean step time; with one
 *      step, a rank is a straggler when its metric is among the NUM largest; with several, the
 *      count of the steps where it is; the ranks by that count, most first (a tie: the lower
 *      rank), NUM of them.
 * Inputs per rank come from analyze/kineto/kstrag.h (rank: the caller's index).
 *
 * Thread safety: a pure function (allocates scratch, frees it).
 */
#ifndef OPSCOPE_JOB_HTA_H
#define OPSCOPE_JOB_HTA_H

#include <stddef.h>
#include <stdint.h>

typedef struct opscope_hta_span {
    int64_t rank, step, start_ns, end_ns;
} opscope_hta_span;

typedef struct opscope_hta_comm {
    int64_t rank, step, stream, name, start_ns, dur_ns; /* name: one code per name over the ranks */
} opscope_hta_comm;

/* The stragglers of SPANS[0..N_SPANS) and COMMS[0..N_COMMS) (the chosen steps' only) by HTA's
 * rule, NUM of them (below 1: 1) into OUT[0..NUM) (ranks, most often first); *N_OUT how many
 * (fewer when fewer ranks have the metric's kernel). Returns 0; 1 when no kernel qualifies
 * (no NCCL kernel long enough, or none seen on two ranks: HTA fails there); -1 out of memory. */
int opscope_job_hta_stragglers(const opscope_hta_span *spans, size_t n_spans, const opscope_hta_comm *comms,
                               size_t n_comms, int num, int64_t *out, size_t *n_out);

#endif /* OPSCOPE_JOB_HTA_H */
