/*
 * html_cpath.h - a trace's critical path (analyze/kineto/critical_path.h) in the HTML viewer's data:
 * each step's window and breakdown and the path's hops between a CPU thread and a GPU stream,
 * written as the page data's "cpath" member (docs/viewer.md, "Data format"), which the viewer
 * draws as arrows and lane segments (its Critical path button).
 * Thread safety: none needed (pure writes to the caller's W).
 */
#ifndef OPSCOPE_HTML_CPATH_H
#define OPSCOPE_HTML_CPATH_H

#include "analyze/kineto/critical_path.h"
#include "util/out.h"

#include <stdint.h>

/* Writes `,"cpath":{...}` with times in ns after T0; nothing when CP is NULL or has no step. */
void opscope_html_cpath_write(opscope_out_t *w, const opscope_cpath_t *cp, uint64_t t0);

#endif /* OPSCOPE_HTML_CPATH_H */
