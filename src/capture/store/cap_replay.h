/*
 * cap_replay.h - the captured records as one opscope record stream, sorted by start
 * (internal). Thread safety: any thread; records written during a replay may be missed.
 */
#ifndef OPSCOPE_CAP_REPLAY_H
#define OPSCOPE_CAP_REPLAY_H

#include "opscope.h"

/*
 * Streams the captured records to SINK as opscope records, sorted by start time: meta,
 * every backend, then records (of scheduler SCHED only when SCHED >= 0; -2 = all).
 * Ticks become CLOCK_MONOTONIC ns. Returns 0, or -1 (out of memory / sink stopped).
 */
int opscope_cap_replay(int sched, const opscope_sink *sink);

#endif
