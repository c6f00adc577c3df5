/*
 * threads_out.h - every CPU thread's work and wait (analyze/threads/threads.h) as text and
 * JSON: the first screen's one line, the per-thread and per-op tables, `summary.cpu_threads[]`
 * and an op group's `threads` member (docs/metrics.md, "CPU threads"). Internal.
 * T may be NULL or empty everywhere: then nothing is written. Thread safety: none.
 */
#ifndef OPSCOPE_THREADS_OUT_H
#define OPSCOPE_THREADS_OUT_H

#include "analyze/ggml/graphs.h"
#include "analyze/threads/threads.h"
#include "export/fmt/json_fmt.h"
#include "util/out.h"

/* The first screen's line (" Threads:       ...\n"), when the finding matters: one per phase
 * of GRAPHS (finished; prefill, then decode) whose threads wait at least a tenth of their time,
 * or one for the whole profile when no graph has a phase (GRAPHS NULL: none has). */
void opscope_threads_write_finding(opscope_out_t *w, opscope_threads_t *t, const opscope_graphs_t *graphs);
/* The section's body: one row per thread, then per op group (at most MAX_GROUPS, by max work). */
void opscope_threads_write_text(opscope_out_t *w, opscope_threads_t *t, size_t max_groups);
/* `,"cpu_threads":[...]` after other members on W. */
void opscope_threads_write_json(opscope_out_t *w, opscope_threads_t *t);
/* An op group's `"threads":{...}` member on J, when DISPLAY on BACKEND has per-thread times. */
void opscope_threads_write_group_json(opscope_jw *j, opscope_threads_t *t, const char *display, int32_t backend);

#endif
