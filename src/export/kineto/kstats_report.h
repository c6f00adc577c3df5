/*
 * kstats_report.h - the kernel and launch statistics of a Kineto trace (analyze/kineto/kstats.h)
 * in `opscope report`: a text section and the JSON member "kernel_stats" of the summary's
 * "kineto" (keys: docs/kineto.md, "Kernel and launch statistics").
 *
 * K must have been finished (opscope_kineto_finish); nothing is written for a trace without
 * GPU activity. Thread safety: none needed (reads K only).
 */
#ifndef OPSCOPE_KSTATS_REPORT_H
#define OPSCOPE_KSTATS_REPORT_H

#include "analyze/kineto/kineto.h"
#include "util/out.h"

/* The text section: the TOP kernel names by time, the launches, the streams' queue and idle
 * split. */
void opscope_kstats_report_write(opscope_out_t *w, const opscope_kineto_t *k, size_t top);

/* The member `,"kernel_stats":{...}` written into the open "kineto" object of W. */
void opscope_kstats_report_write_json(opscope_out_t *w, const opscope_kineto_t *k);

#endif /* OPSCOPE_KSTATS_REPORT_H */
