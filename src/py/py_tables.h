/*
 * py_tables.h - the Python package's tables, each filled from the analysis the report ran
 * (internal to src/py): the values are the analyses' own, copied into columns; nothing here
 * computes a figure. A table whose source is absent (a ggml profile's kernels, a trace's
 * requests) has 0 rows and the same columns.
 *
 * Each call fills its tables in T, in the order named, initialising every one of them even
 * on failure, and returns 0, or -1 when out of memory (the caller frees them all).
 * Thread safety: none.
 */
#ifndef OPSCOPE_PY_TABLES_H
#define OPSCOPE_PY_TABLES_H

#include "analyze/session/session.h"
#include "py/py_table.h"

/* ggml's side (S, G: finished, may be NULL): "ops" (the stats' op groups; a trace's kernels
 * are grouped the same way), "requests" and "tests" (analyze/ggml/run_requests.h, run_tests.h). */
#define OPSCOPE_PY_GGML_TABLES 3
int opscope_py_ggml_tables(opscope_py_table *t, const opscope_stats_t *s, const opscope_graphs_t *g);

/* A trace's side (K: analyze/kineto/kineto.h, NULL when the input is no trace): "kernels" (each
 * GPU activity), "cpu_ops" (each CPU op record, nested as torch.profiler nests them), "steps",
 * "streams", "collectives" (by type and size), "kernel_stats" (per kernel name, HTA's kernel
 * breakdown) and "stream_stats" (HTA's queue and idle split per stream; analyze/kineto/kstats.h).
 * "cpu_ops" has rows only when CPU_OPS. */
#define OPSCOPE_PY_KINETO_TABLES 7
int opscope_py_kineto_tables(opscope_py_table *t, const opscope_kineto_t *k, bool cpu_ops);

/* A trace's series (K as above; rows only when the load kept them, opscope_py_load_opts'
 * series): "queue_series" (device, stream, ts_ns, queue_length: each change of a stream's
 * launch queue, counted out at the activity's start) and "membw_series" (name, device, ts_ns,
 * memory_bw_gbps: each change of a kind of copy's bandwidth; analyze/kineto/kmembw.h); and,
 * when LAUNCHES, "launches": per GPU activity in the "kernels" order, its launching call's
 * correlation, call (name), call_start_ns and call_dur_ns (-1: none). */
#define OPSCOPE_PY_SERIES_TABLES 3
int opscope_py_series_tables(opscope_py_table *t, const opscope_kineto_t *k, bool launches);

/* A trace's kernel sequences (K as above), one row per pattern in its analysis' order (most
 * calls first): "kernel_seqs" (analyze/kineto/kseq.h: each CPU op call's GPU activities; gpu_ns
 * their durations' sum, cpu_ns the calls') and "aten_kernels" (katen.h: each aten op call's
 * kernels; gpu_ns the sum of the first launch's runtime delays, cpu_ns of the op's delays to its
 * first launch). Columns: op, kernels (the names joined by "|", resp. " -> "), n_kernels,
 * count, gpu_ns, cpu_ns, first_ns (the first call's start). */
#define OPSCOPE_PY_SEQ_TABLES 2
int opscope_py_seq_tables(opscope_py_table *t, const opscope_kineto_t *k);

/* The kernels CUPTI's profiler measured (K as above; analyze/kineto/cupti.h), by start:
 * "cupti_kernels" (name, start_ns, dur_ns, top_op, bottom_op, op_stack: the cpu_ops around its
 * launch, outer first, joined by "|") and "cupti_values" (row, counter, value: every counter of
 * every kernel, 0 where it lacks one). */
#define OPSCOPE_PY_CUPTI_TABLES 2
int opscope_py_cupti_tables(opscope_py_table *t, const opscope_kineto_t *k);

/* A trace's GPU-side user annotations (K as above; analyze/kineto/kgann.h): "gpu_annotations"
 * (name, device, stream, start_ns, dur_ns: each gpu_user_annotation event in the trace's
 * order), "gpu_annotation_stats" (name, count, sum_ns, min_ns, max_ns, mean_ns, std_ns: per
 * name, largest sum first) and "kernel_annotations" (per GPU activity in the "kernels" order:
 * annotation, the row of its innermost annotation, -1 none, user_annotation, its name, and
 * both names shortened by HTA's rule; no rows when the trace has no GPU annotations). */
#define OPSCOPE_PY_ANNOT_TABLES 3
int opscope_py_annot_tables(opscope_py_table *t, const opscope_kineto_t *k);

/* What HTA's straggler rule reads of a trace (K as above; analyze/kineto/kstrag.h):
 * "step_spans" (step, start_ns, end_ns: per profiler step its start and its events' latest
 * end) and "comm_kernels" (step, stream, name, start_ns, dur_ns: the ncclKernel activities on
 * streams above 0 launched in a step). */
#define OPSCOPE_PY_STRAG_TABLES 2
int opscope_py_strag_tables(opscope_py_table *t, const opscope_kineto_t *k);

#endif /* OPSCOPE_PY_TABLES_H */
