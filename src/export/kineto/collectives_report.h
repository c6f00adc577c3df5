/*
 * collectives_report.h - collectives' message sizes and bandwidths in the console and JSON
 * (internal): a trace's (summary.kineto.collectives), a rank's rows in a job summary
 * (ranks[].collectives) and a job's (summary.job.collectives). docs/job.md, "NCCL collectives".
 *
 * Thread safety: none needed (writes to the caller's W). NULL rows / collectors write an empty
 * section (JSON) or nothing (console).
 */
#ifndef OPSCOPE_COLLECTIVES_REPORT_H
#define OPSCOPE_COLLECTIVES_REPORT_H

#include "analyze/kineto/collectives.h"
#include "analyze/job/job_coll.h"
#include "util/out.h"

/* A trace's collectives: per type, then per size bucket (console section; nothing when none). */
void opscope_colls_report_console(opscope_out_t *w, const opscope_colls_t *c);

/* ,"collectives":{"on":..., "types":[...], "buckets":[...]} of a trace. */
void opscope_colls_report_json(opscope_out_t *w, const opscope_colls_t *c);

/* ,"collectives_on":...,"collectives":[rows] of a rank's summary (read back by job_summary.c). */
void opscope_colls_report_rank_json(opscope_out_t *w, const opscope_job_rank_summary *s);

/* The job's collectives: per type with each rank's bus bandwidth and the skew, per bucket. */
void opscope_job_colls_console(opscope_out_t *w, const opscope_job_colls *c);

/* ,"collectives":{"on":..., "types":[... "ranks":[...]], "buckets":[...]} of a job. */
void opscope_job_colls_json(opscope_out_t *w, const opscope_job_colls *c);

#endif /* OPSCOPE_COLLECTIVES_REPORT_H */
