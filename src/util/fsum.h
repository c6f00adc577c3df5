/*
 * fsum.h - the sum of doubles in numpy's (1.24) order, so that a figure HTA (pandas) sums comes
 * out to its last bit: 8192-element chunks added one after the other from 0, each chunk's sum
 * pairwise (halves cut at multiples of 8 down to 128 or fewer elements, those summed in 8
 * running sums combined as ((0+1)+(2+3))+((4+5)+(6+7)), then the rest one by one).
 */
#ifndef OPSCOPE_UTIL_FSUM_H
#define OPSCOPE_UTIL_FSUM_H

#include <stddef.h>

/* One chunk's pairwise sum: N doubles, the first at A, each STRIDE bytes after the last. */
static inline double opscope_fsum_pairwise(const char *a, size_t n, size_t stride) {
#define OPSCOPE_FSUM_AT(i) (*(const double *)(const void *)(a + (i) * stride))
    if (n < 8) {
        double r = 0.0;
        for (size_t i = 0; i < n; i++) r += OPSCOPE_FSUM_AT(i);
        return r;
    }
    if (n <= 128) {
        double r[8];
        for (size_t j = 0; j < 8; j++) r[j] = OPSCOPE_FSUM_AT(j);
        size_t i = 8;
        for (; i < n - n % 8; i += 8)
            for (size_t j = 0; j < 8; j++) r[j] += OPSCOPE_FSUM_AT(i + j);
        double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < n; i++) res += OPSCOPE_FSUM_AT(i);
        return res;
    }
#undef OPSCOPE_FSUM_AT
    size_t n2 = n / 2;
    n2 -= n2 % 8;
    return opscope_fsum_pairwise(a, n2, stride) + opscope_fsum_pairwise(a + n2 * stride, n - n2, stride);
}

/* numpy's sum of N doubles, the first at A, each STRIDE bytes after the last (sizeof(double)
 * for an array); 0 when N is 0. Pure: thread-safe. */
static inline double opscope_fsum_numpy(const void *a, size_t n, size_t stride) {
    double acc = 0.0;
    const char *p = a;
    for (size_t i = 0; i < n; i += 8192) {
        size_t k = n - i < 8192 ? n - i : 8192;
        acc += opscope_fsum_pairwise(p + i * stride, k, stride);
    }
    return acc;
}

#endif /* OPSCOPE_UTIL_FSUM_H */
