/*
 * npsort.h - the order numpy's default argsort (kind "quicksort", numpy 1.24's introsort)
 * gives an array of int64 keys, equal keys included, so that a table HTA sorts with pandas'
 * sort_values comes out in HTA's row order where keys tie (its queue length series).
 *
 * The algorithm, as numpy runs it without AVX-512 dispatch (numpy before 1.25, or a CPU
 * without AVX-512): partitions around the median of the first, middle and last key while a
 * run is longer than 16, the larger part stacked, the smaller one next; runs of 16 or fewer by
 * insertion; a run reached after 2 floor(log2 n) partitions by heapsort. numpy 1.25 and later
 * dispatch to another sort on AVX-512 CPUs, whose ties fall elsewhere (docs/kineto.md).
 *
 * Thread safety: none needed (no state). Time O(n log n), no allocation.
 */
#ifndef OPSCOPE_UTIL_NPSORT_H
#define OPSCOPE_UTIL_NPSORT_H

#include <stddef.h>
#include <stdint.h>

/* Sets IDX[0..N) to the positions of V[0..N) in numpy's argsort order of V. Both arrays are
 * the caller's; V is not changed. N must be below 2^32. */
void opscope_npsort_argsort(const int64_t *v, uint32_t *idx, size_t n);

#endif /* OPSCOPE_UTIL_NPSORT_H */
