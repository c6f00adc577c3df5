/*
 * cap_counters.h - the capture's own counters (internal). Relaxed atomic adds from any thread.
 */
#ifndef OPSCOPE_CAP_COUNTERS_H
#define OPSCOPE_CAP_COUNTERS_H

#include <stdatomic.h>
#include <stdint.h>

/* ---- counters (OPSCOPE_STATS=1 prints them at exit) ---- */

typedef struct opscope_cap_counters {
    _Atomic uint64_t graphs;          /* backend graph computes seen */
    _Atomic uint64_t graph_ticks;     /* their wall time */
    _Atomic uint64_t op_ticks;        /* sum of OP record durations */
    _Atomic uint64_t records;         /* records written */
    _Atomic uint64_t walk_ticks;      /* time spent building records after computes */
    _Atomic uint64_t callbacks;       /* abort callbacks taken */
    _Atomic uint64_t inexact_graphs;  /* callback count matched no prediction */
    _Atomic uint64_t nofusion_graphs; /* matched only the no-fusion prediction */
    _Atomic uint64_t split_only;      /* graph computes timed as a whole */
    _Atomic uint64_t descs;           /* op descriptions written (cache misses) */
    _Atomic uint64_t planned_graphs;  /* CPU graph computes recorded from a cached plan */
    _Atomic uint64_t gpu_lost;        /* device items a GPU source could not time, or given up */
    _Atomic uint64_t thr_barriers;    /* barrier arrivals, every thread, of the computes given
                                       * per-thread times */
} opscope_cap_counters;

extern opscope_cap_counters opscope_cap_stats;

#endif
