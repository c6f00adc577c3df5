/*
 * sort_runs.h - a sort for input that is nearly sorted already (a trace's events in file
 * order): its ascending runs are merged pairwise, O(n log runs) with a temporary copy. A
 * template for one element type, the comparison inlined: for a trace's hot sorts, calling a
 * comparison through a pointer and copying elements by size cost more than the merge itself.
 *
 * OPSCOPE_SORT_RUNS_DEFINE(NAME, T, LESS, CMP) defines
 *   static void NAME(T *v, size_t n);
 * LESS(a, b): nonzero when *a sorts before *b (a and b are const T *); CMP: the qsort
 * comparison of the same order, for the fallback: more runs than n/8, or no memory for the
 * copy, go to qsort. Merged, equal elements keep their array order. Thread safe as LESS is.
 */
#ifndef OPSCOPE_UTIL_SORT_RUNS_H
#define OPSCOPE_UTIL_SORT_RUNS_H

#include <stdlib.h>
#include <string.h>

#define OPSCOPE_SORT_RUNS_DEFINE(NAME, T, LESS, CMP)                                                 \
    static void NAME##_merge(const T *a, size_t na, const T *b, size_t nb, T *out) {                \
        const T *ae = a + na, *be = b + nb;                                                          \
        while (a < ae && b < be) *out++ = LESS(b, a) ? *b++ : *a++;                                  \
        if (a < ae) memcpy(out, a, (size_t)(ae - a) * sizeof *a);                                    \
        else if (b < be) memcpy(out, b, (size_t)(be - b) * sizeof *b);                               \
    }                                                                                                \
    static void NAME(T *v, size_t n) {                                                               \
        size_t runs = 1;                                                                             \
        for (size_t i = 1; i < n; i++) runs += LESS(&v[i], &v[i - 1]) ? 1 : 0;                       \
        if (n < 2 || runs == 1) return;                                                              \
        size_t *start = runs <= n / 8 ? malloc((runs + 1) * sizeof *start) : NULL;                   \
        T *tmp = start ? malloc(n * sizeof *tmp) : NULL;                                             \
        if (!tmp) {                                                                                  \
            free(start);                                                                             \
            qsort(v, n, sizeof *v, CMP);                                                             \
            return;                                                                                  \
        }                                                                                            \
        size_t k = 0;                                                                                \
        start[k++] = 0;                                                                              \
        for (size_t i = 1; i < n; i++)                                                               \
            if (LESS(&v[i], &v[i - 1])) start[k++] = i;                                              \
        start[k] = n;                                                                                \
        T *src = v, *dst = tmp;                                                                      \
        while (k > 1) {                                                                              \
            size_t m = 0;                                                                            \
            for (size_t r = 0; r < k; r += 2) {                                                      \
                size_t s0 = start[r], s1 = start[r + 1 <= k ? r + 1 : k], s2 = start[r + 2 <= k ? r + 2 : k]; \
                if (r + 1 < k) NAME##_merge(src + s0, s1 - s0, src + s1, s2 - s1, dst + s0);        \
                else memcpy(dst + s0, src + s0, (s1 - s0) * sizeof *src);                            \
                start[m++] = s0;                                                                     \
            }                                                                                        \
            start[m] = n;                                                                            \
            k = m;                                                                                   \
            T *t_ = src;                                                                             \
            src = dst;                                                                               \
            dst = t_;                                                                                \
        }                                                                                            \
        if (src != v) memcpy(v, src, n * sizeof *v);                                                 \
        free(tmp);                                                                                   \
        free(start);                                                                                 \
    }

#endif /* OPSCOPE_UTIL_SORT_RUNS_H */
