/*
 * oplog_reframe.h - what the record log's fuzz targets share (fuzz_oplog.c, the whole log;
 * fuzz_oplog_tail.c, the log as it grows): a chunk with a bad checksum ends a log, so mutated
 * bytes would rarely get past the framing; reframe makes every chunk's header whole again, and
 * reframe_each runs a target's read on both forms.
 */
#ifndef OPSCOPE_FUZZ_OPLOG_REFRAME_H
#define OPSCOPE_FUZZ_OPLOG_REFRAME_H

#include "util/oplog.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* DATA with every chunk header made whole (its own type and length, the checksum computed);
 * the caller frees it. NULL when out of memory. */
static inline uint8_t *reframe(const uint8_t *data, size_t size) {
    uint8_t *out = malloc(size);
    if (!out) return NULL;
    memcpy(out, data, size);
    size_t off = OPSCOPE_OPLOG_HEAD;
    while (off + OPSCOPE_OPLOG_CHUNK_HEAD <= size) {
        uint8_t *h = out + off;
        uint32_t type = (uint32_t)h[4] | (uint32_t)h[5] << 8 | (uint32_t)h[6] << 16 | (uint32_t)h[7] << 24;
        uint32_t len = (uint32_t)h[8] | (uint32_t)h[9] << 8 | (uint32_t)h[10] << 16 | (uint32_t)h[11] << 24;
        size_t left = size - off - OPSCOPE_OPLOG_CHUNK_HEAD;
        if (len > left) len = (uint32_t)left;
        opscope_oplog_chunk_head(h, type, h + OPSCOPE_OPLOG_CHUNK_HEAD, len);
        off += OPSCOPE_OPLOG_CHUNK_HEAD + len;
    }
    return out;
}

/* Runs ONE on DATA: a log as it is and reframed; any other bytes after a log header. */
static inline void reframe_each(const uint8_t *data, size_t size, void (*one)(const uint8_t *, size_t)) {
    if (opscope_oplog_is_log(data, size)) {
        one(data, size);
        uint8_t *whole = reframe(data, size);
        if (whole) one(whole, size);
        free(whole);
        return;
    }
    uint8_t *log = malloc(size + OPSCOPE_OPLOG_HEAD);
    if (!log) return;
    opscope_oplog_file_head(log);
    if (size) memcpy(log + OPSCOPE_OPLOG_HEAD, data, size);
    one(log, size + OPSCOPE_OPLOG_HEAD);
    free(log);
}

#endif /* OPSCOPE_FUZZ_OPLOG_REFRAME_H */
