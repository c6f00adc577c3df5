/*
 * job_report.h - the job's outputs (internal): the console report (what bounds the job first,
 * then the per-rank, per-step, launch and stream tables) and the JSON summary
 * (summary.job: ranks[], stragglers[], steps, streams, launches). Definitions in docs/job.md.
 *
 * Ownership: JOB and W are the caller's; these only write (W's commit is the caller's).
 * Thread safety: one writer per W.
 */
#ifndef OPSCOPE_JOB_REPORT_H
#define OPSCOPE_JOB_REPORT_H

#include "analyze/job/job.h"
#include "util/out.h"

/* How the job was read, for the report's first line. */
typedef struct opscope_job_read_info {
    int threads;                         /* reading threads */
    double wall_s;                       /* the read's wall time */
} opscope_job_read_info;

void opscope_job_report_console(opscope_out_t *w, const opscope_job *job,
                                const opscope_job_read_info *ri);

void opscope_job_report_json(opscope_out_t *w, const opscope_job *job,
                             const opscope_job_read_info *ri);

#endif /* OPSCOPE_JOB_REPORT_H */
