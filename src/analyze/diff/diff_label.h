/*
 * diff_label.h - the final groups of one side of `opscope diff`: the labels of each atom's
 * key (op display, backend, shape, category, CPU op, layer, phase) joined into a canonical
 * key (the alignment key) and a display name, and the atoms of one canonical key merged
 * (internal to analyze/diff).
 *
 * The public side of it (diff.h): opscope_diff_sides_pair, the backend names, the --by keys'
 * names. Thread safety: none (one side per thread).
 */
#ifndef OPSCOPE_DIFF_LABEL_H
#define OPSCOPE_DIFF_LABEL_H

#include "analyze/diff/diff.h"
#include "model/strtab.h"

#include <stdint.h>

/* The last (CPU op, input dims) pair and its label id: calls of one op come in runs. Start
 * it as {NONE32, NONE32, NONE32} (diff_side_state.h). */
typedef struct work_cache {
    uint32_t cpu, dims, id;
} work_cache;

/* The work label "aten::mm [4096,768]x[768,50257]" of CPU op CPU_SID (an id of S's strings)
 * with input dims DIMS (an id of NAMES, the trace's table; NONE32 or empty: the CPU op
 * alone), interned in S's strings: its id, or NONE32 when out of memory. C caches the last. */
uint32_t opscope_diff_work_label(opscope_diff_side_t *s, work_cache *c, uint32_t cpu_sid, uint32_t dims,
                                 const opscope_strtab_t *names);

/* Builds S's final groups from its atoms (the groups the read and the attribution made),
 * merged by canonical key, with their per-run totals and, for work pairs, their kernels.
 * Replaces earlier finals (their pointers are invalid). Returns 0, or -1 when out of memory. */
int opscope_diff_finals_build(opscope_diff_side_t *s);

#endif /* OPSCOPE_DIFF_LABEL_H */
