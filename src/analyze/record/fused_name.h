/*
 * fused_name.h - one vocabulary for fused node groups across backends (internal): ggml op
 * names joined by '+', as the CPU backend's records name them ("RMS_NORM+MUL"), so that a
 * CPU run and a Vulkan run (whose records follow ggml-vulkan's perf logger: "RMS_NORM_MUL",
 * "MULTI_ADD") align in `opscope diff`, fusion section included.
 */
#ifndef OPSCOPE_FUSED_NAME_H
#define OPSCOPE_FUSED_NAME_H

#include <stddef.h>
#include <stdint.h>

/* EXTRA (a record's fused name; NULL: none) of a record of N_FUSED nodes, in the '+' form:
 * op names joined by '_' (each one a ggml op, longest first) become joined by '+', and
 * "MULTI_ADD" becomes N_FUSED times "ADD". Returns BUF (SIZE bytes) holding the rewritten name,
 * or EXTRA itself when it is already in that form or is no such name (a note, a kernel's
 * own name such as "TOPK_MOE_LATE_SOFTMAX"). Pure; thread safe. */
const char *opscope_fused_name_canonical(const char *extra, int32_t n_fused, char *buf, size_t size);

#endif /* OPSCOPE_FUSED_NAME_H */
