/*
 * cupti_report.h - the kernels CUPTI's profiler measured (analyze/kineto/cupti.h) in
 * `opscope report`: a text section (per top-level and bottom-level op: kernels, HTA's SASS
 * FLOPs, the counters' sums; then each counter's total) and the member "cupti_counters" of
 * the summary's "kineto" (keys: docs/kineto.md, "CUPTI counters per operator").
 *
 * K must have been finished (opscope_kineto_finish); nothing is written for a trace without
 * cuda_profiler_range events. Thread safety: none needed (reads K only).
 */
#ifndef OPSCOPE_CUPTI_REPORT_H
#define OPSCOPE_CUPTI_REPORT_H

#include "analyze/kineto/kineto.h"
#include "util/out.h"

/* The text section, at most TOP groups. */
void opscope_cupti_report_write(opscope_out_t *w, const opscope_kineto_t *k, size_t top);

/* The member `,"cupti_counters":{...}` written into the open "kineto" object of W. */
void opscope_cupti_report_write_json(opscope_out_t *w, const opscope_kineto_t *k);

#endif /* OPSCOPE_CUPTI_REPORT_H */
