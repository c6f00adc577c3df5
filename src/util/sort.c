/* sort.c - opscope_sort_r (sort.h) on glibc's qsort_r, which needs _GNU_SOURCE. */
#include "util/sort.h"

void opscope_sort_r(void *base, size_t n, size_t size,
                    int (*cmp)(const void *, const void *, void *), void *ctx) {
    if (n > 1) {
        qsort_r(base, n, size, cmp, ctx);
    }
}
