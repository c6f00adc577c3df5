/*
 * kernel_name.h - a readable short form of long C++ kernel names (internal).
 *
 * GPU traces name kernels by their full C++ signature, often hundreds or thousands of bytes:
 *   void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>,
 *        at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, ...)
 * The short form, for console and text tables only (JSON and traces keep the full name):
 *   - a leading "void " (the return type of every kernel) is dropped;
 *   - "(anonymous namespace)::" is dropped;
 *   - a template argument list is kept when it is flat (no nested <> or ()) and at most
 *     OPSCOPE_KERNEL_NAME_MAX_TARGS bytes ("GammaBetaBackwardCUDAKernel<float, float>"), or
 *     one identifier of up to twice that ("cutlass::Kernel<cutlass_80_..._align4>"); else it
 *     becomes "<…HINT…>" with the most telling identifier of its first argument that is not
 *     a plain type or number: the function a lambda belongs to, else the innermost template
 *     ("vectorized_elementwise_kernel<…sigmoid_kernel_cuda…>", "<…MulFunctor…>"), or "<…>";
 *   - the parameter list, a "(" right after a name that closes at the very end, is dropped
 *     ("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, ...)" -> "ncclKernel_...float").
 * Names without these parts ("ampere_sgemm_128x64_nn", "Memcpy HtoD (Pageable -> Device)",
 * ggml op names) come back unchanged. Pure function of its input; thread safe.
 */
#ifndef OPSCOPE_KERNEL_NAME_H
#define OPSCOPE_KERNEL_NAME_H

#include <stddef.h>

#define OPSCOPE_KERNEL_NAME_MAX_TARGS 48

/* Writes the short form of NAME (not NULL) into BUF (at most SIZE bytes with the NUL; cut
 * when too small, never inside a UTF-8 sequence); returns the length of the whole short
 * form (snprintf style: a result >= SIZE means BUF was too small). */
size_t opscope_kernel_name_short(char *buf, size_t size, const char *name);

#endif /* OPSCOPE_KERNEL_NAME_H */
