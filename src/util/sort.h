/*
 * sort.h - qsort for arrays that may be empty, and a sort with a context argument.
 *
 * qsort's base must not be NULL even for no elements (glibc declares it nonnull; UBSan
 * reports the call), and the growable vectors here stay NULL until their first element.
 * opscope_sort does nothing for fewer than two elements. Same contract as qsort otherwise.
 */
#ifndef OPSCOPE_UTIL_SORT_H
#define OPSCOPE_UTIL_SORT_H

#include <stdlib.h>

static inline void opscope_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *)) {
    if (n > 1) {
        qsort(base, n, size, cmp);
    }
}

/* opscope_sort with CTX handed to every CMP call (qsort_r's order of arguments): the
 * comparison's state travels as an argument, never in a global. Thread safe as CMP is. */
void opscope_sort_r(void *base, size_t n, size_t size,
                    int (*cmp)(const void *, const void *, void *), void *ctx);

/* For input that is nearly sorted already (a trace's events in file order), see sort_runs.h:
 * the ascending runs merged, with the comparison inlined for one element type. */

#endif /* OPSCOPE_UTIL_SORT_H */
