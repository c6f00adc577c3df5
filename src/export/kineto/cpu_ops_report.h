/*
 * cpu_ops_report.h - the CPU-op section of `opscope report` for a Kineto trace (internal):
 * the CPU-op records of analyze/kineto/cpu_ops.h by self time (count, self, inclusive, avg, min,
 * max, shape; by name, or by name and shape), per profiler step, per thread and per phase,
 * as text and as JSON members of the summary's "kineto" object.
 *
 * K must have been finished (opscope_kineto_finish). Nothing is written for a trace without
 * CPU slices. Thread safety: none needed (reads K only).
 */
#ifndef OPSCOPE_CPU_OPS_REPORT_H
#define OPSCOPE_CPU_OPS_REPORT_H

#include "analyze/kineto/kineto.h"
#include "util/out.h"

#include <stdbool.h>
#include <stddef.h>

/* Whether K's trace has CPU-op records and no GPU activity (its report leads with them). */
bool opscope_cpu_ops_report_cpu_only(const opscope_kineto_t *k);

/* The text section: the TOP groups by self time (0: 30), by name and shape when BY_SHAPE. */
void opscope_cpu_ops_report_write(opscope_out_t *w, const opscope_kineto_t *k, size_t top, bool by_shape);

/* JSON members (each with a leading comma): "cpu_ops" (every name: name, kind, count,
 * self_ns, total_ns, min_ns, max_ns, gpu_kernels, gpu_ns, dims, types), "cpu_ops_by_shape",
 * "cpu_threads", "cpu_steps", "cpu_phases", "cpu_self_ns". Keys: docs/kineto.md. */
void opscope_cpu_ops_report_write_json(opscope_out_t *w, const opscope_kineto_t *k);

#endif /* OPSCOPE_CPU_OPS_REPORT_H */
