/*
 * html_cpu.h - a Kineto trace's CPU side for the HTML viewer (internal, used by html.c and
 * html_data.c): cpu_op slices, runtime calls, user annotations (record_function ranges,
 * ProfilerStep#) and Python functions per CPU thread, each at its nesting depth,
 * the profiler steps, and each GPU device's busy fraction over the steps' window. Written
 * as the page data's "cpu" member (docs/viewer.md, "Data format").
 *
 * Ownership: the sink owns it (opscope_html_cpu_free). Thread safety: none.
 */
#ifndef OPSCOPE_HTML_CPU_H
#define OPSCOPE_HTML_CPU_H

#include "analyze/kineto/kineto.h"
#include "util/out.h"

#include <stdint.h>

typedef struct opscope_html_cpu opscope_html_cpu_t;

/* NULL when out of memory. */
opscope_html_cpu_t *opscope_html_cpu_new(void);
void opscope_html_cpu_free(opscope_html_cpu_t *c);

/* The collector to read through: passes every event to NEXT and keeps the runtime calls,
 * user annotations and Python functions (owned by C; NULL for a NULL NEXT). */
opscope_kineto_collector *opscope_html_cpu_tee(opscope_html_cpu_t *c, opscope_kineto_collector *next);

/* The finished analysis K's cpu_op slices, steps and device busy time. 0, or -1 (memory). */
int opscope_html_cpu_add_kineto(opscope_html_cpu_t *c, const opscope_kineto_t *k);

/* Sets *FIRST to the earliest start of C's slices and steps (ns, the trace's clock) and
 * returns 1; 0 when C is NULL or holds none (the page's t0 of a trace without records). */
int opscope_html_cpu_first(const opscope_html_cpu_t *c, int64_t *first);

/* Writes `,"cpu":{...}` with times in ns after T0 (nothing when C is NULL or holds nothing);
 * orders C's slices in place. */
void opscope_html_cpu_write(opscope_out_t *w, opscope_html_cpu_t *c, uint64_t t0);

#endif /* OPSCOPE_HTML_CPU_H */
