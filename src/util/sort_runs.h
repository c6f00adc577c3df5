/*
 * sort_runs.h - a sort for input that is nearly sorted already (a trace's events in file
 * order): its ascending runs are merged pairwise in place, O(n log runs), with a buffer of
 * half the array at most (the shorter run of each merge). A template for one element type,
 * the comparison inlined: for a trace's hot sorts, calling a comparison through a pointer and
 * copying elements by size cost more than the merge itself.
 *
 * OPSCOPE_SORT_RUNS_DEFINE(NAME, T, LESS, CMP) defines
 *   static void NAME(T *v, size_t n);
 * LESS(a, b): nonzero when *a sorts before *b (a and b are const T *); CMP: the qsort
 * comparison of the same order, for the fallback: more runs than n/8, or no memory for the
 * buffer, go to qsort. Merged, equal elements keep their array order. Thread safe as LESS is.
 */
#ifndef OPSCOPE_UTIL_SORT_RUNS_H
#define OPSCOPE_UTIL_SORT_RUNS_H

#include <stdlib.h>
#include <string.h>

#define OPSCOPE_SORT_RUNS_DEFINE(NAME, T, LESS, CMP)                                                 \
    /* merges the adjacent sorted A[0, na) and A[na, na + nb) in place, the shorter one copied to \
     * BUF: the copy is half the array at most (a sorted copy of the whole was its size again, \
     * at the report's peak memory) */                                                             \
    static void NAME##_merge(T *a, size_t na, size_t nb, T *buf) {                                   \
        T *b = a + na;                                                                               \
        if (!LESS(b, b - 1)) return; /* in order already */                                          \
        if (na <= nb) {                                                                              \
            memcpy(buf, a, na * sizeof *a);                                                          \
            const T *p = buf, *pe = buf + na, *q = b, *qe = b + nb;                                  \
            T *out = a;                                                                              \
            while (p < pe && q < qe) *out++ = LESS(q, p) ? *q++ : *p++;                              \
            if (p < pe) memcpy(out, p, (size_t)(pe - p) * sizeof *p);                                \
        } else {                                                                                     \
            memcpy(buf, b, nb * sizeof *b);                                                          \
            const T *p = b, *q = buf + nb;                                                           \
            T *out = b + nb;                                                                         \
            while (p > a && q > buf) *--out = LESS(q - 1, p - 1) ? *--p : *--q;                      \
            if (q > buf) memcpy(a, buf, (size_t)(q - buf) * sizeof *q);                              \
        }                                                                                            \
    }                                                                                                \
    static void NAME(T *v, size_t n) {                                                               \
        size_t runs = 1;                                                                             \
        for (size_t i = 1; i < n; i++) runs += LESS(&v[i], &v[i - 1]) ? 1 : 0;                       \
        if (n < 2 || runs == 1) return;                                                              \
        size_t *start = runs <= n / 8 ? malloc((runs + 1) * sizeof *start) : NULL;                   \
        T *tmp = start ? malloc((n / 2 + 1) * sizeof *tmp) : NULL;                                   \
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
        while (k > 1) {                                                                              \
            size_t m = 0;                                                                            \
            for (size_t r = 0; r < k; r += 2) {                                                      \
                size_t s0 = start[r], s1 = start[r + 1 <= k ? r + 1 : k], s2 = start[r + 2 <= k ? r + 2 : k]; \
                if (r + 1 < k) NAME##_merge(v + s0, s1 - s0, s2 - s1, tmp);                          \
                start[m++] = s0;                                                                     \
            }                                                                                        \
            start[m] = n;                                                                            \
            k = m;                                                                                   \
        }                                                                                            \
        free(tmp);                                                                                   \
        free(start);                                                                                 \
    }

#endif /* OPSCOPE_UTIL_SORT_RUNS_H */
