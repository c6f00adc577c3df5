/*
 * kseries_report.h - a Kineto trace's queue length per stream and memory bandwidth per kind
 * (analyze/kineto/kqueue.h, kmembw.h) in `opscope report`: a text section and the JSON members
 * "queue_length" and "memory_bw" of the summary's "kineto" (keys: docs/kineto.md, "Queue
 * length and memory bandwidth over time").
 *
 * K must have been finished (opscope_kineto_finish). Thread safety: none needed (reads K only).
 */
#ifndef OPSCOPE_KSERIES_REPORT_H
#define OPSCOPE_KSERIES_REPORT_H

#include "analyze/kineto/kineto.h"
#include "util/out.h"

/* The text section: per stream the queue's summary counted out at start and at end, per
 * memory kind its bandwidth's; nothing when the trace has neither. */
void opscope_kseries_report_write(opscope_out_t *w, const opscope_kineto_t *k);

/* The members `,"queue_length":{...},"memory_bw":{...}` written into the open "kineto" object
 * of W. */
void opscope_kseries_report_write_json(opscope_out_t *w, const opscope_kineto_t *k);

#endif /* OPSCOPE_KSERIES_REPORT_H */
