/*
 * peak_measure.h - measures this CPU's memory bandwidth and f32 FMA rate (peak_measure.c
 * says how). Used by `opscope peak`. Thread safety: one measurement at a time per process
 * (it starts its own threads and joins them before returning).
 */
#ifndef OPSCOPE_PEAK_MEASURE_H
#define OPSCOPE_PEAK_MEASURE_H

#include <stdint.h>

#define OPSCOPE_PEAK_MAX_THREADS 1024

typedef struct opscope_peak_opts {
    int threads;         /* 0: every online CPU */
    int reps;            /* timed repetitions per figure after one warm-up (0: 5) */
    uint64_t mem_bytes;  /* triad working set for memory (0: 4 x LLC, 256 MiB..1 GiB,
                          * at most 1/8 of RAM) */
    uint64_t fma_iters;  /* FMA loop iterations per thread (0: 20 million) */
} opscope_peak_opts;

typedef struct opscope_peak_figure {
    double best, median; /* GB/s or GFLOP/s over the timed repetitions */
    int threads;
    uint64_t bytes;      /* triad working set, all threads */
} opscope_peak_figure;

typedef struct opscope_peak_result {
    char isa[16];
    uint64_t llc_bytes;
    opscope_peak_figure mem_all, mem_one, cache_all, cache_one, flops_all, flops_one;
} opscope_peak_result;

/* Measures; PROGRESS (may be NULL) is told each step. Returns 0, or -1 when threads or
 * memory were refused. */
int opscope_peak_measure(const opscope_peak_opts *opts, opscope_peak_result *out,
                         void (*progress)(const char *what));

#endif
