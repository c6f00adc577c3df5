/*
 * chrome_lanes.h - on-the-fly track and lane assignment for timeline exports (internal).
 *
 * A track is (backend, split or stream, kind); kind 0 = compute, 1 = copies. Within a track,
 * each interval goes to the first lane whose last interval ended at or before its start, so
 * no two intervals of one lane overlap and nothing is moved in time; a new lane is opened
 * when every lane is busy. Works on records in any order (a lane remembers its latest end).
 * Every (track, lane) gets a distinct thread id, 1, 2, 3... in creation order.
 *
 * Memory: one small entry per track and lane. Thread safety: none.
 */
#ifndef OPSCOPE_CHROME_LANES_H
#define OPSCOPE_CHROME_LANES_H

#include <stddef.h>
#include <stdint.h>

typedef struct opscope_lanes opscope_lanes_t;

typedef struct opscope_lane_info {
    int32_t backend_id, split_id, kind;
    uint32_t lane;  /* 0 = the track's first lane */
    uint32_t tid;
} opscope_lane_info;

opscope_lanes_t *opscope_lanes_new(void);
void opscope_lanes_free(opscope_lanes_t *l);

/* Thread id for [START, START + DUR) on the track; 0 when out of memory. */
uint32_t opscope_lanes_assign(opscope_lanes_t *l, int32_t backend_id, int32_t split_id,
                              int32_t kind, uint64_t start, uint64_t dur);

/* Lanes created so far, in creation order (tid = index + 1). */
size_t opscope_lanes_count(const opscope_lanes_t *l);
const opscope_lane_info *opscope_lanes_get(const opscope_lanes_t *l, size_t i);

#endif /* OPSCOPE_CHROME_LANES_H */
