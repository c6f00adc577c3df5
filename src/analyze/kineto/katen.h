/*
 * katen.h - each aten op call's kernels and launch delays (internal; docs/kineto.md, "Kernel and
 * launch statistics"), HTA's get_aten_op_kernels_and_delay: every kernel launch call
 * (cudaLaunchKernel*, cuLaunchKernel*, runFunction*) belongs to the aten op (a CPU op named
 * "aten::...") that started last among those whose interval holds the whole call, on any
 * thread (of ops starting together, the first in the trace, as HTA picks); an op call's kernels are those of its calls in call order, with the delay from the
 * op's start to its first call and from that call to its kernel's start. Op calls with the same
 * name and kernels are one pattern (analyze/kineto/kseq.h's rows: GPU_NS the sum of the first
 * runtime delays, CPU_NS the sum of the first aten op delays, COUNT the op calls).
 *
 * Ownership: the caller's arrays are sorted in place and not kept; the result is the caller's
 * (opscope_kseq_free). Thread safety: pure apart from those arrays.
 */
#ifndef OPSCOPE_KATEN_H
#define OPSCOPE_KATEN_H

#include "analyze/kineto/kseq.h"

#include <stddef.h>
#include <stdint.h>

/* An aten op call; SEQ its place in the trace (of ops starting together holding a call, the
 * one with the least SEQ takes it). */
typedef struct opscope_katen_op {
    int64_t start, end;
    uint32_t name, seq;
} opscope_katen_op;

/* A kernel launch call [CALL, CALL_END] and its kernel's start and name id. */
typedef struct opscope_katen_launch {
    int64_t call, call_end, start;
    uint32_t name;
} opscope_katen_launch;

/* The patterns of OPS[0..N_OPS) over L[0..N_L); NULL when out of memory. */
opscope_kseq_t *opscope_katen_make(opscope_katen_op *ops, size_t n_ops, opscope_katen_launch *l, size_t n_l);

#endif /* OPSCOPE_KATEN_H */
