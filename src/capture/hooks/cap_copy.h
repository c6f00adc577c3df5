/*
 * cap_copy.h - COPY records (internal). The interposed ggml_backend_tensor_copy/_set/_get/
 * _set_async/_get_async record what they move (cap_copy.c); the scheduler's input copies that
 * go through a backend's cpy_tensor_async vtable entry (not interposable) are inferred here
 * from the split graphs that read them.
 */
#ifndef OPSCOPE_CAP_COPY_H
#define OPSCOPE_CAP_COPY_H

#include "capture/timing/cap_compute.h"

#include "ggml-backend.h"
#include "ggml.h"

#include <stdint.h>

/* Infers the input copies of split compute C (its graph, backend, scheduler, graph id, split;
 * started at tick c->t0) that no interposed copy function wrote during this
 * scheduler compute: the scheduler names its copy of input X for backend B "B#X#N" and points
 * the split's nodes at it; a copy that neither ggml_backend_tensor_copy nor
 * ggml_backend_tensor_set_async wrote went through cpy_tensor_async. One COPY record each
 * (api "cpy_tensor_async", bytes = ggml_nbytes, zero duration at c->t0: the real time is unknown),
 * its direction from the buffers of the copy and of its source when the source is a node of an
 * earlier split of this compute ("copy" when not found). Call it for every split of a
 * scheduler compute, in split order, while the split graphs are valid (after the scheduler
 * compute or right after the split's compute). CPU and BLAS splits return at once (those
 * backends have no cpy_tensor_async). Thread safety: per thread (the computing thread). */
void opscope_cap_copy_infer(const opscope_cap_compute *c);

#endif
