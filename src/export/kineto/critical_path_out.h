/*
 * critical_path_out.h - the critical path of each profiler step (analyze/kineto/critical_path.h) in
 * the report: a console section and the JSON member summary.kineto.critical_path
 * (docs/critical_path.md). CP NULL: nothing is written. Thread safety: none needed.
 */
#ifndef OPSCOPE_CRITICAL_PATH_OUT_H
#define OPSCOPE_CRITICAL_PATH_OUT_H

#include "analyze/kineto/critical_path.h"
#include "util/out.h"

/* The section: per step, the path's length and its parts, and what bounds it. */
void opscope_critical_path_write_text(opscope_out_t *w, const opscope_cpath_t *cp);

/* `,\n"critical_path":{...}`, written into an open object: the totals over the steps and
 * "steps":[...] with each step's breakdown. */
void opscope_critical_path_write_json(opscope_out_t *w, const opscope_cpath_t *cp);

/* The part that bounds P most (the largest of CPU, launch, kernel, comm, queue, wait). */
int opscope_critical_path_bound(const opscope_critical_path *p);

#endif /* OPSCOPE_CRITICAL_PATH_OUT_H */
