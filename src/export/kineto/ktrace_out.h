/*
 * ktrace_out.h - `report TRACE --counters-trace FILE`: the input trace written back with
 * counter tracks ("ph": "C" events), as Holistic Trace Analysis' generate_trace_with_counters
 * writes it: "Queue Length" per GPU stream (its id the stream; the queue counted out at the
 * activity's start), "Queue Length (out at end)" beside it, and the memory bandwidth of each
 * memory kind ("Memcpy HtoD", "Memset"...: args "Memcpy BW" in GB/s) (analyze/kineto/kqueue.h,
 * kmembw.h; docs/kineto.md, "Counter tracks").
 *
 * The trace is read a second time at the finish and copied byte for byte (gzip decompressed)
 * to a temporary file beside FILE, with the counter events put at the end of its event
 * array; FILE named *.gz is written compressed. Nothing of it is held in memory but a read
 * buffer; the file is renamed into place at commit, so a failed run leaves nothing.
 *
 * Thread safety: none; the output belongs to one session.
 */
#ifndef OPSCOPE_KTRACE_OUT_H
#define OPSCOPE_KTRACE_OUT_H

#include "analyze/session/session.h"

/* The output into PATH (opened here: an unwritable path fails before the read) of the trace
 * file SOURCE (borrowed until the session ends; not stdin: it is read twice). Returns 0, or
 * -1 with ERR filled. */
int opscope_output_counters_trace(opscope_output *o, const char *path, const char *source, opscope_error *err);

/* `report TRACE --critical-path-trace FILE`: the trace written back the same way with its
 * critical path overlaid, as HTA's overlay_critical_path_analysis: every X event on a
 * computed path (each profiler step's, or each window's of --critical-path-annotation) gets
 * "critical": 1 in its args, and each edge of a path between two lanes (a launch, a
 * synchronization) is a flow ("ph" "s" and "f", cat and name "critical_path", args type and
 * weight_ns). Same arguments and rules as opscope_output_counters_trace. */
int opscope_output_cpath_trace(opscope_output *o, const char *path, const char *source, opscope_error *err);

/* Makes O (from opscope_output_cpath_trace, not yet run) write only what HTA's
 * only_show_critical_events keeps: every event that is not an X slice, the X slices of
 * user_annotation and python_function, and the slices on the path, then the flows. */
void opscope_output_cpath_trace_only_critical(opscope_output *o);

#endif /* OPSCOPE_KTRACE_OUT_H */
