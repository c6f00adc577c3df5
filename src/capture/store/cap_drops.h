/*
 * cap_drops.h - which graphs lost records, and the drop fields of a profile's meta
 * (internal). A graph's records are built by one thread, once: the thread's drop count read
 * before and after them says whether that graph lost some. Thread safety: any thread
 * (relaxed atomics; the first/last ids by compare-and-swap).
 */
#ifndef OPSCOPE_CAP_DROPS_H
#define OPSCOPE_CAP_DROPS_H

#include "opscope.h"

#include <stdint.h>

/* Notes graph GID as having lost records when the calling thread dropped some since its drop
 * count was BEFORE (opscope_cap_buf_dropped_here, read before the graph's records). */
void opscope_cap_drops_check(int64_t gid, uint64_t before);

typedef struct opscope_cap_drops {
    uint64_t graphs;     /* graphs that lost records */
    int64_t first, last; /* their lowest and highest graph ids (-1 when none) */
} opscope_cap_drops;
void opscope_cap_drops_get(opscope_cap_drops *out);

/* The cap a profile states (capture_cap_mb), when it is not the buffers' but the record
 * log's size on disk (cap_log.h). Call at start-up, before any record. */
void opscope_cap_drops_set_cap_mb(uint64_t mb);

/* The record log dropped a flush's records at its cap: GRAPHS graphs between ids FIRST and
 * LAST lost records (the records themselves are counted by opscope_cap_buf_note_dropped). */
void opscope_cap_drops_log_full(int64_t first, int64_t last, uint64_t graphs);

/* Fills META's drop fields: records dropped (the buffers' and the device items a GPU source
 * lost), the graphs that lost records, the cap in MiB, the cause. */
void opscope_cap_drops_meta(opscope_meta *meta);

#endif
