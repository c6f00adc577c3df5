/*
 * py_mem.h - PyTorch's memory timeline (a `.raw.json.gz` of torch.profiler's
 * export_memory_timeline; read/mem_timeline.h) loaded for the Python package (internal to
 * src/py).
 *
 * Ownership: the result is the caller's (opscope_py_free). Thread safety: independent calls
 * may run concurrently.
 */
#ifndef OPSCOPE_PY_MEM_H
#define OPSCOPE_PY_MEM_H

#include "py/opscope_py.h"

/* Reads the timeline PATH and returns its result: the summary `opscope report PATH --json`
 * writes (`{"summary":{"memory_timeline":{...}}}`) and one table, "mem_timeline": per point
 * ts_ns, the bytes of each of torch's categories (columns "Parameter", "Optimizer state",
 * "Input", "Temporary", "Activation", "Gradient", "Autograd detail", "Unknown") and
 * total_bytes. NULL with ERR filled (the entry's byte offset for bad input). */
opscope_py_t *opscope_py_mem_load(const char *path, opscope_error *err);

#endif /* OPSCOPE_PY_MEM_H */
