/*
 * diff_cpu_kernels.h - the kernels each CPU op of a trace launched, tallied by (CPU op, kernel
 * name): what a fusion difference is credited with (docs/diff.md, "Fusion differences").
 * Ownership: the tally owns its entries (opscope_diff_cpuk_free). Thread safety: none.
 */
#ifndef OPSCOPE_ANALYZE_DIFF_CPU_KERNELS_H
#define OPSCOPE_ANALYZE_DIFF_CPU_KERNELS_H

#include "util/hindex.h"

#include <stddef.h>
#include <stdint.h>

typedef struct opscope_diff_cpuk_ent {
    uint32_t op, name; /* the caller's ids (a CPU op slot, a kernel name id) */
    int cat;           /* the kernel's category (as given with its first add) */
    uint64_t count, total_ns;
} opscope_diff_cpuk_ent;

typedef struct opscope_diff_cpuk {
    opscope_diff_cpuk_ent *v;
    size_t n, cap;
    opscope_hindex ix; /* (op, name) -> v; made by the first add */
} opscope_diff_cpuk;

/* Adds one kernel of DUR_NS ns named NAME (of category CAT) to CPU op OP. Returns 0, or -1 when out of memory
 * (the tally stays valid). T zero-initialised to start. */
int opscope_diff_cpuk_add(opscope_diff_cpuk *t, uint32_t op, uint32_t name, int cat,
                          uint64_t dur_ns);
/* Sorts the entries by CPU op, then by total time, longest first (the index is dropped: no
 * add after this). */
void opscope_diff_cpuk_sort(opscope_diff_cpuk *t);
void opscope_diff_cpuk_free(opscope_diff_cpuk *t);

#endif /* OPSCOPE_ANALYZE_DIFF_CPU_KERNELS_H */
