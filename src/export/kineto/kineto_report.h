/*
 * kineto_report.h - the Kineto section of `opscope report` (internal).
 *
 * Prints, as plain text (and as a JSON member for the summary of `--json`), what
 * analyze/kineto/kineto.h computed: platform and devices, event
 * counts and input quirks, kernel categories, launch links and the top CPU ops by GPU time,
 * phases, layers, the per-stream breakdown and the largest idle gaps.
 * K must have been finished (opscope_kineto_finish). Nothing is printed for a trace without
 * any Kineto content. Thread safety: none needed (reads K only).
 */
#ifndef OPSCOPE_KINETO_REPORT_H
#define OPSCOPE_KINETO_REPORT_H

#include "analyze/kineto/critical_path.h"
#include "analyze/kineto/kineto.h"
#include "export/fmt/json_fmt.h"
#include "util/out.h"

void opscope_kineto_report_write(opscope_out_t *w, const opscope_kineto_t *k);

/* The same analysis as a JSON member `,\n"kineto":{...}` (keys: docs/kineto.md, "JSON"),
 * written into an open object; nothing for a trace without Kineto content. CP (may be NULL)
 * adds its "critical_path" member (docs/critical_path.md). */
void opscope_kineto_report_write_json(opscope_out_t *w, const opscope_kineto_t *k, const opscope_cpath_t *cp);

/* The CPU side of finished results R as JSON members written through J (a comma before the
 * first as J's state says): "steps" (number, start_ns, dur_ns), "window_start_ns",
 * "window_ns", "gpu_busy" (device, busy_ns, idle_ns), "cpu_top_level_ns", "cpu_bound". Used
 * by the report's summary and by the diff's sides. */
void opscope_kineto_write_cpu_side(opscope_jw *j, const opscope_kineto_results *r);

/* The analysis itself lives in a session (analyze/session/session.h: opscope_session_kineto). */

#endif /* OPSCOPE_KINETO_REPORT_H */
