/*
 * bench_time.h - the capture benchmarks' clock and the comparison their medians sort with
 * (header only: each benchmark is one program). Thread-safe.
 */
#ifndef OPSCOPE_BENCH_TIME_H
#define OPSCOPE_BENCH_TIME_H

#include <time.h>

/* CLOCK_MONOTONIC in ns (a double: differences of a run's times, not absolute stamps). */
static inline double bench_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* qsort's comparison of doubles, ascending. */
static inline int bench_cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

#endif /* OPSCOPE_BENCH_TIME_H */
