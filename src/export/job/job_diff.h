/*
 * job_diff.h - two jobs side by side (internal; `opscope diff DIR_A DIR_B`, docs/job.md): what
 * bounds each, the median step, the stragglers, and per rank (matched by rank number) the step
 * time and the shares before and after, as console text or JSON ("job_diff").
 *
 * Ownership: the jobs and W are the caller's. Thread safety: one writer per W.
 */
#ifndef OPSCOPE_JOB_DIFF_H
#define OPSCOPE_JOB_DIFF_H

#include "analyze/job/job.h"
#include "util/out.h"

void opscope_job_diff_console(opscope_out_t *w, const opscope_job *base, const opscope_job *next);

void opscope_job_diff_json(opscope_out_t *w, const opscope_job *base, const opscope_job *next);

#endif /* OPSCOPE_JOB_DIFF_H */
