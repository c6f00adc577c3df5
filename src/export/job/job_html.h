/*
 * job_html.h - `opscope view DIR` (or several traces): one viewer page (viewer/viewer.html)
 * holding a timeline data block per rank and the job's summary (docs/viewer.md, "A job").
 * The ranks' blocks are written one after the other while the page is written, so a caller can
 * read each trace, write its block and free it before reading the next: memory is one rank's.
 *
 * Ownership: W is the caller's (it commits or aborts it). Thread safety: one writer per W.
 */
#ifndef OPSCOPE_JOB_HTML_H
#define OPSCOPE_JOB_HTML_H

#include "analyze/job/job.h"
#include "export/html/html.h"
#include "export/job/job_report.h"
#include "util/out.h"

#include <stdio.h>

/* Writes the page's data: every rank's block (opscope_job_html_copy_block) then the job
 * (opscope_job_html_job). Returns 0, or -1 with ERR filled (the page is then abandoned). */
typedef int (*opscope_job_html_data_fn)(opscope_out_t *w, void *ctx, opscope_error *err);

/* Writes the viewer page to W, its data written by DATA(CTX). Returns 0, or -1 with ERR filled. */
int opscope_job_html_write(opscope_out_t *w, opscope_job_html_data_fn data, void *ctx, opscope_error *err);

/* One rank's block body: H's data (docs/viewer.md, "Data format"), written before the rank's
 * number is known (a rank is resolved once every trace was read). H stays the caller's.
 * Returns 0, or -1 with ERR filled. */
int opscope_job_html_rank_data(opscope_out_t *w, opscope_html_sink_t *h, opscope_error *err);

/* Copies a rank's block body written to F (by opscope_job_html_rank_data on a writer of F)
 * into W, from F's start, as the block of rank RANK, and closes F. Returns 0, or -1 when F
 * could not be read back. */
int opscope_job_html_copy_block(opscope_out_t *w, int64_t rank, FILE *f);

/* The job's block: summary.job as `report --json` writes it (the per-rank table, stragglers). */
void opscope_job_html_job(opscope_out_t *w, const opscope_job *job, const opscope_job_read_info *ri);

#endif /* OPSCOPE_JOB_HTML_H */
