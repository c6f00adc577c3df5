/*
 * cap_blas.h - records of BLAS graphs (internal): the interposed cblas_sgemm notes when each
 * call ends, and the calls are matched to the graph's nodes. Thread safety: per thread.
 */
#ifndef OPSCOPE_CAP_BLAS_H
#define OPSCOPE_CAP_BLAS_H

#include "capture/timing/cap_walk.h"

#include "ggml.h"

#include <stdbool.h>
#include <stdint.h>

/* While set (non-NULL), cblas_sgemm calls on this thread append their end tick to ST. */
void opscope_cap_blas_watch(opscope_cap_stream *st);
/* Records of the BLAS compute C from the call ends in ST (W: scratch); false when the calls
 * did not match the graph. */
bool opscope_cap_blas_emit(opscope_cap_walk *w, const opscope_cap_stream *st, const opscope_cap_compute *c);

#endif
