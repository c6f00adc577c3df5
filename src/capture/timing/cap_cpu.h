/*
 * cap_cpu.h - records of CPU graphs (internal): ggml-cpu's skip and fusion rules pair the
 * abort-callback timestamps with nodes; a split graph seen again gets its cached step plan.
 * Thread safety: per thread, except opscope_cap_cpu_sched_changed.
 */
#ifndef OPSCOPE_CAP_CPU_H
#define OPSCOPE_CAP_CPU_H

#include "capture/timing/cap_walk.h"

#include "ggml.h"

#include <stdbool.h>
#include <stdint.h>

/* Records of the CPU compute C from the step timestamps in ST, with W's arrays as scratch.
 * LASTING: C's graph is a scheduler's split graph that lives until the scheduler splits
 * again, so its step plan may be cached by its address (not a graph computed from a program's
 * eval callback, nor a view on the scheduler's stack). */
void opscope_cap_cpu_emit(opscope_cap_walk *w, const opscope_cap_stream *st, const opscope_cap_compute *c,
                          bool lasting);
/* Drops every cached plan of W (and frees them with FREE_ALL). */
void opscope_cap_cpu_plans_clear(opscope_cap_walk *w, bool free_all);
/* Scheduler SCHED may have new split graphs (split_graph, reset, alloc): plans made before
 * are stale. Thread safety: any thread. */
void opscope_cap_cpu_sched_changed(int sched);

#endif
