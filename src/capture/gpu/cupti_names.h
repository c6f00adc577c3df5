/*
 * cupti_names.h - names in the CUPTI source (internal; pure, unit-tested on the host): which
 * CUDA API calls launch device work, and kernel names as the records show them.
 */
#ifndef OPSCOPE_CUPTI_NAMES_H
#define OPSCOPE_CUPTI_NAMES_H

#include <stddef.h>

typedef enum opscope_cupti_role {
    OPSCOPE_CUPTI_ROLE_NONE = 0,
    OPSCOPE_CUPTI_ROLE_KERNEL, /* cudaLaunchKernel*, cuLaunchKernel*, cooperative launches */
    OPSCOPE_CUPTI_ROLE_COPY,   /* cudaMemcpy*, cuMemcpy* */
    OPSCOPE_CUPTI_ROLE_FILL,   /* cudaMemset*, cuMemset* */
    OPSCOPE_CUPTI_ROLE_GRAPH,  /* cudaGraphLaunch, cuGraphLaunch: first argument the exec */
    OPSCOPE_CUPTI_ROLE_CAPTURE_BEGIN, /* cudaStreamBeginCapture*, cuStreamBeginCapture* */
    OPSCOPE_CUPTI_ROLE_CAPTURE_END,   /* cudaStreamEndCapture, cuStreamEndCapture */
} opscope_cupti_role;

/* The role of runtime or driver API function NAME as cuptiGetCallbackName gives it (with or
 * without its "_v7000"/"_ptsz" suffixes). NULL gives NONE. Thread safety: reentrant. */
opscope_cupti_role opscope_cupti_api_role(const char *name);

/* C++'s __cxa_demangle, as the C++ runtime of a ggml-cuda program exports it. */
typedef char *(*opscope_cupti_demangle_fn)(const char *mangled, char *buf, size_t *len, int *status);

/* A kernel's name for records: MANGLED demangled (with DEMANGLE when given, else the
 * identifier alone), without return type and parameter list: "mul_mat_vec_q<(ggml_type)2, 1,
 * false, false, false>", "quantize_q8_1". Names that are not mangled are kept. Writes at most
 * SIZE bytes (truncated, NUL-terminated). Thread safety: reentrant. */
void opscope_cupti_kernel_name(const char *mangled, opscope_cupti_demangle_fn demangle, char *out, size_t size);

#endif
