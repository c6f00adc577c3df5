/* sort_runs.c - opscope_sort_runs (sort.h): merges the ascending runs that nearly sorted input
 * (a trace's events in file order) is made of, O(n log runs). */
#include "util/sort.h"

#include <string.h>

/* One element: in 8-byte words when it is made of them (inlined, unlike memcpy of a size
 * known only at run time). */
static inline void copy_one(char *dst, const char *src, size_t size) {
    if (size % 8) {
        memcpy(dst, src, size);
        return;
    }
    for (size_t k = 0; k < size; k += 8) memcpy(dst + k, src + k, 8);
}

/* Merges [a, a+na) and [b, b+nb) (adjacent in the source) into OUT. */
static void merge(const char *a, size_t na, const char *b, size_t nb, char *out, size_t size,
                  int (*cmp)(const void *, const void *)) {
    const char *ae = a + na * size, *be = b + nb * size;
    while (a < ae && b < be) {
        const char **take = cmp(b, a) < 0 ? &b : &a;
        copy_one(out, *take, size);
        *take += size;
        out += size;
    }
    if (a < ae) memcpy(out, a, (size_t)(ae - a));
    else if (b < be) memcpy(out, b, (size_t)(be - b));
}

void opscope_sort_runs(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *)) {
    char *v = base;
    size_t runs = 1;
    for (size_t i = 1; i < n; i++) runs += cmp(v + (i - 1) * size, v + i * size) > 0;
    if (n < 2 || runs == 1) return;
    size_t *start = runs <= n / 8 ? malloc((runs + 1) * sizeof *start) : NULL;
    char *tmp = start ? malloc(n * size) : NULL;
    if (!tmp) { /* many runs, or no memory for the merge: the library's sort */
        free(start);
        qsort(base, n, size, cmp);
        return;
    }
    size_t k = 0;
    start[k++] = 0;
    for (size_t i = 1; i < n; i++)
        if (cmp(v + (i - 1) * size, v + i * size) > 0) start[k++] = i;
    start[k] = n;
    char *src = v, *dst = tmp;
    while (k > 1) { /* merge runs pairwise, src -> dst, until one is left */
        size_t m = 0;
        for (size_t r = 0; r < k; r += 2) {
            size_t s0 = start[r], s1 = start[r + 1 <= k ? r + 1 : k], s2 = start[r + 2 <= k ? r + 2 : k];
            if (r + 1 < k) merge(src + s0 * size, s1 - s0, src + s1 * size, s2 - s1, dst + s0 * size, size, cmp);
            else memcpy(dst + s0 * size, src + s0 * size, (s1 - s0) * size);
            start[m++] = s0;
        }
        start[m] = n;
        k = m;
        char *t = src;
        src = dst;
        dst = t;
    }
    if (src != v) memcpy(v, src, n * size);
    free(tmp);
    free(start);
}
