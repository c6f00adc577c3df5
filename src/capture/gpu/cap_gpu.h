/*
 * cap_gpu.h - device timing of GPU backends through a GPU source (internal; see cap_gpu.c
 * and capture/gpu/gpu_source.h). Thread safety: every function may be called from any thread.
 */
#ifndef OPSCOPE_CAP_GPU_H
#define OPSCOPE_CAP_GPU_H

#include "capture/gpu/gpu_source.h"
#include "capture/timing/cap_compute.h"
#include "ggml.h"

#include <stdbool.h>
#include <stdint.h>

/* Whether this thread's compute of graph G (N nodes) about to run gets device timing: per
 * topology, the first occurrences and then one in N (capture/gpu/gpu_sample.h), or every one
 * under OPSCOPE_GPU_TIMING=all. Called for the outermost compute only (a scheduler's, or a
 * backend compute outside any scheduler): its splits follow its decision. Until opscope_cap_gpu_decided, the scopes this thread opens are timed or
 * untimed (OPSCOPE_GPU_SCOPE_UNTIMED) accordingly. True when no source is attached. */
bool opscope_cap_gpu_decide(struct ggml_cgraph *g, int n);
/* The decided compute is over (call it whenever opscope_cap_gpu_decide was called). */
void opscope_cap_gpu_decided(void);

/* Opens a scope on this thread for the compute about to run and returns it (0: no source is
 * attached, nothing to do; OPSCOPE_GPU_SCOPE_UNTIMED: the compute is not timed, its records
 * are host-timed). Close with opscope_cap_gpu_close(previous scope). */
uint64_t opscope_cap_gpu_open(void);
void opscope_cap_gpu_close(uint64_t prev);
/* This thread's open scope, 0 none. */
uint64_t opscope_cap_gpu_current(void);

/* The compute C of scope SCOPE is over: describes its graph's nodes (valid only during this
 * call) and ends the scope. Returns false when the source recorded nothing under it (the
 * caller then writes the host-timed split record); true when the device times will become
 * the compute's records, now or when they arrive. */
bool opscope_cap_gpu_graph(uint64_t scope, const opscope_cap_compute *c);

/* A split of BACKEND was timed on the host as a whole: one warning for the process when it is
 * a Vulkan backend (the layer did not load, or timed nothing). */
void opscope_cap_gpu_note_untimed(const char *backend);

/* Ends SCOPE (a copy call's) and returns how many device items it recorded. */
uint64_t opscope_cap_gpu_end(uint64_t scope);
/* The copy call of SCOPE, whose description DESC (a DESC-kind COPY record: api >= 0) is written,
 * waits for its EXPECTED device items; they become one device-timed COPY record. T0, T1: the
 * call's host ticks. False: not registered (the caller writes the host-timed record). */
struct opscope_cap_rec;
bool opscope_cap_gpu_copy(uint64_t scope, uint64_t expected, const struct opscope_cap_rec *desc, uint64_t t0,
                          uint64_t t1);

/* Asks the attached source for what it has completed (before an export). */
void opscope_cap_gpu_poll(void);
/* For a source that has handed in everything it will ever have (CUPTI after a forced flush):
 * computes still waiting for items get the records of those they have (the source counted
 * the missing ones through lost()). */
void opscope_cap_gpu_settle(void);
/* Whether a source attached (the Vulkan layer is loaded and talking to us). */
bool opscope_cap_gpu_attached(void);
/* Device items lost so far (never timed, or given up). */
uint64_t opscope_cap_gpu_lost(void);

#endif
