/*
 * cupti_clock.h - CUPTI's record timestamps put on CLOCK_MONOTONIC, and the ones that cannot
 * be (internal; pure: no CUDA, unit-tested on the host).
 *
 * CUPTI stamps records with CLOCK_REALTIME on Linux (NVIDIA's cupti_activity.h), unless a
 * timestamp callback was registered (then its clock: CLOCK_MONOTONIC here). Two ways to get
 * CLOCK_MONOTONIC: trust the callback (offset 0), or add an offset measured against
 * cuptiGetTimestamp (calibrated). The callback is not registered on CUDA 12.6 to 13.0 (kernel
 * timestamps zero, cupti_rec.h), and where it is, no record is taken on trust: one whose
 * times lie outside the session (before it began, after its buffer came back) but inside it
 * with the calibrated offset was stamped with CUPTI's own clock and takes that offset (the
 * clocks are years apart: no record fits both). A record with a zero or reversed timestamp,
 * or out of range either way, has no usable time: it is counted and left untimed.
 *
 * Thread safety: map may be called from several threads at once (CUPTI's buffer thread and a
 * forced flush); the state is a few atomics.
 */
#ifndef OPSCOPE_CUPTI_CLOCK_H
#define OPSCOPE_CUPTI_CLOCK_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* How far (ns) a record may lie outside [session start, buffer completion]: the two clocks are
 * read a few microseconds apart; CLOCK_REALTIME and CLOCK_MONOTONIC differ by years. */
#define OPSCOPE_CUPTI_CLOCK_SLACK_NS 1000000000ll

typedef struct opscope_cupti_clock {
    _Atomic int64_t offset;     /* added to CUPTI's timestamps */
    _Atomic int64_t calibrated; /* CLOCK_MONOTONIC minus CUPTI's own clock, measured */
    bool callback;              /* the callback was registered: offset 0 */
    _Atomic uint64_t bad;       /* records with zero, reversed or out-of-range timestamps */
    _Atomic uint64_t fallback;  /* records stamped with CUPTI's own clock despite the callback */
    uint64_t begin;             /* CLOCK_MONOTONIC when the session began */
} opscope_cupti_clock;

/* Starts C at BEGIN (CLOCK_MONOTONIC ns) with CALIBRATED; CALLBACK: the timestamp callback
 * was registered (records are read with offset 0, the calibration their fallback). Not
 * thread-safe: before any map. */
void opscope_cupti_clock_init(opscope_cupti_clock *c, uint64_t begin, int64_t calibrated, bool callback);

/* A new measure of the calibrated offset (CUPTI's clock may step: it is CLOCK_REALTIME). Used
 * at once unless the callback was registered. */
void opscope_cupti_clock_calibrated(opscope_cupti_clock *c, int64_t calibrated);

/* A record stamped START..END (CUPTI's ns), delivered at NOW (CLOCK_MONOTONIC ns): its times on
 * CLOCK_MONOTONIC in *T0, *T1. False when it has none (a zero timestamp: CUPTI could not time
 * it, or the callback bug; reversed; out of range with either offset), counted in C->bad;
 * *T0 = *T1 = 0 then. */
bool opscope_cupti_clock_map(opscope_cupti_clock *c, uint64_t start, uint64_t end, uint64_t now, uint64_t *t0,
                             uint64_t *t1);

#endif
