/*
 * diff_kind.h - what kind of profile each run of a diff is (ggml profile, Kineto trace,
 * generic Chrome trace), from the reader's meta, so that `opscope diff` refuses to compare a
 * ggml profile with a Kineto trace: their ops share no names (ggml ops and PyTorch kernels or
 * CPU ops), so every group would be on one side only, an all-zero table.
 *
 * Internal to analyze/diff (diff_load.c). Ownership: the caller owns the struct (zeroed = nothing read).
 * Thread safety: none.
 */
#ifndef OPSCOPE_DIFF_KIND_H
#define OPSCOPE_DIFF_KIND_H

#include "opscope.h"

#include <stddef.h>

typedef struct opscope_diff_kind {
    unsigned seen;      /* bits of opscope_diff_kind_bit, over the side's runs */
    const char *path[3]; /* the first run of each kind (borrowed) */
    const char *reading; /* the run being read (set by the caller before each read) */
} opscope_diff_kind;

/* A sink that only notes the kind of the run being read (on its meta); K must outlive it. */
opscope_sink opscope_diff_kind_sink(opscope_diff_kind *k);

/* NULL when BASE's and NEW's runs can be compared; else why not, written in BUF (SIZE bytes),
 * naming a run of each kind. */
const char *opscope_diff_kind_refusal(const opscope_diff_kind *base, const opscope_diff_kind *new_side,
                                      char *buf, size_t size);

#endif /* OPSCOPE_DIFF_KIND_H */
