/*
 * py_tables.h - the Python package's tables, each filled from the analysis the report ran
 * (internal to src/py): the values are the analyses' own, copied into columns; nothing here
 * computes a figure. Each builder makes its table with 0 rows when its source is NULL or
 * empty (the columns are the same), and returns 0, or -1 when out of memory (T failed, to
 * be freed by the caller). Thread safety: none.
 */
#ifndef OPSCOPE_PY_TABLES_H
#define OPSCOPE_PY_TABLES_H

#include "analyze/session/session.h"
#include "py/py_table.h"

/* ggml's side: the op groups of the stats (a trace's kernels grouped the same way), the
 * requests and the llama-bench tests of the run (analyze/ggml/run_requests.h, run_tests.h). */
int opscope_py_ops(opscope_py_table *t, const opscope_stats_t *s);
int opscope_py_requests(opscope_py_table *t, const opscope_stats_t *s, const opscope_graphs_t *g);
int opscope_py_tests(opscope_py_table *t, const opscope_stats_t *s, const opscope_graphs_t *g);

/* A trace's side (analyze/kineto/kineto.h; K NULL: not a trace): each GPU activity, each CPU
 * op record (nested as torch.profiler nests them), the profiler steps, the streams, the
 * collectives by type and size. */
int opscope_py_kernels(opscope_py_table *t, const opscope_kineto_t *k);
int opscope_py_cpu_ops(opscope_py_table *t, const opscope_kineto_t *k);
int opscope_py_steps(opscope_py_table *t, const opscope_kineto_t *k);
int opscope_py_streams(opscope_py_table *t, const opscope_kineto_t *k);
int opscope_py_collectives(opscope_py_table *t, const opscope_kineto_t *k);

#endif /* OPSCOPE_PY_TABLES_H */
