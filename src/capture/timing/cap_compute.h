/*
 * cap_compute.h - one backend compute as its records see it (internal): the graph, where it
 * ran (backend, scheduler, graph id, split) and when. The hook that times a compute fills one
 * and hands it by pointer to every writer of its records, instead of the fields one by one.
 * Ownership: the caller's (usually on its stack); G is ggml's and valid only while the compute's
 * records are written. Thread safety: per thread (the computing thread).
 */
#ifndef OPSCOPE_CAP_COMPUTE_H
#define OPSCOPE_CAP_COMPUTE_H

#include <stdbool.h>
#include <stdint.h>

struct ggml_cgraph;

typedef struct opscope_cap_compute {
    struct ggml_cgraph *g; /* the graph computed; NULL for a copy call's context */
    int n;                 /* its nodes */
    int bi;                /* backend entry (cap_tables.h), -1 unknown */
    int sched;             /* scheduler entry, -1 outside a scheduler compute */
    int64_t gid;           /* graph id: the scheduler compute's, else the backend compute's own */
    int split;             /* the backend compute's index in its scheduler compute, -1 outside */
    uint64_t t0, t1;       /* host ticks (cap_clock.h) when the compute started and returned */
    bool aborted;          /* the program's abort callback stopped it */
} opscope_cap_compute;

#endif
