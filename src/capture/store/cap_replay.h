/*
 * cap_replay.h - the captured records as one opscope record stream, sorted by start
 * (internal). Thread safety: any thread; records written during a replay may be missed.
 */
#ifndef OPSCOPE_CAP_REPLAY_H
#define OPSCOPE_CAP_REPLAY_H

#include "capture/store/cap_buf.h"
#include "opscope.h"

#include <stdbool.h>

/* Records gathered for sorting: one entry per record of the profile (a CALL's steps one each). */
typedef struct opscope_cap_gather_ent {
    uint64_t t0, t1;
    const opscope_cap_rec *r; /* an OP/COPY record, an opscope_cap_event or opscope_cap_call */
    int32_t step;             /* a call's step */
} opscope_cap_gather_ent;

typedef struct opscope_cap_gather {
    opscope_cap_gather_ent *v; /* free() it */
    size_t n, cap;
    int sched;                 /* as opscope_cap_replay's SCHED */
    bool oom;
} opscope_cap_gather;

/* A foreach/take callback (UD: an opscope_cap_gather) adding R's records of the profile:
 * description, plan and graph records add nothing. Returns non-zero when out of memory. */
int opscope_cap_gather_one(void *ud, const opscope_cap_rec *r);
/* Sorts G's entries by start tick, then end tick (the order every export replays). */
void opscope_cap_gather_sort(opscope_cap_gather *g);
/* The same order (a stable merge sort, as glibc's qsort), with TMP (room for G->n entries,
 * the caller's) as its scratch: no heap call, for the watcher thread's record log. */
void opscope_cap_gather_sort_with(opscope_cap_gather *g, opscope_cap_gather_ent *tmp);

/*
 * Streams the captured records to SINK as opscope records, sorted by start time: meta,
 * every backend, then records (of scheduler SCHED only when SCHED >= 0; -2 = all).
 * Ticks become CLOCK_MONOTONIC ns. Returns 0, or -1 (out of memory / sink stopped).
 */
int opscope_cap_replay(int sched, const opscope_sink *sink);

#endif
