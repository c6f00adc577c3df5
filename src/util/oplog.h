/*
 * oplog.h - the framing of opscope's record log (docs/formats.md, "The record log"): a file
 * header, then chunks appended one write(2) each, every chunk a 16-byte header (magic, type,
 * payload length, checksum of type, length and payload) and its payload. A chunk is complete
 * or absent: a reader takes chunks in file order up to the first whose header or checksum
 * does not hold (a write cut by a crash, a file cut short), and nothing after it. The payload
 * encoding (varints, strings) is here too; what the chunks hold is the capture's
 * (capture/store/cap_log.c) and the reader's (read/oplog_read.c) business.
 *
 * Ownership: the byte builder owns its buffer (free(b->v)). NULL handling: none. Thread
 * safety: pure functions; one builder per thread.
 */
#ifndef OPSCOPE_UTIL_OPLOG_H
#define OPSCOPE_UTIL_OPLOG_H

#include "util/vec.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The file header: 8 magic bytes (a high byte first, so a 7-bit copy or a text file never
 * matches), a version (u32 LE) and 4 reserved zero bytes. */
#define OPSCOPE_OPLOG_MAGIC "\x89OPSLOG\n"
/* Version 2 added per-thread times to records (a template with OPSCOPE_HAS_THREADS); the
 * reader takes versions 1 and 2, the capture writes 2. */
#define OPSCOPE_OPLOG_VERSION 2u
#define OPSCOPE_OPLOG_VERSION_MIN 1u
#define OPSCOPE_OPLOG_HEAD 16u
#define OPSCOPE_OPLOG_CHUNK_HEAD 16u
/* A chunk's payload is at most this long (a reader refuses longer lengths as damage). */
#define OPSCOPE_OPLOG_MAX_CHUNK (256u << 20)

/* Chunk types. */
enum {
    OPSCOPE_OPLOG_META = 1,    /* the capture's facts: host, program, clock (once, first) */
    OPSCOPE_OPLOG_BACKEND = 2, /* one backend: id, name, device, device type */
    OPSCOPE_OPLOG_RECORDS = 3, /* new record templates, then records sorted by start */
    OPSCOPE_OPLOG_DROPS = 4,   /* the drop counters so far (the last one counts) */
    OPSCOPE_OPLOG_END = 5,     /* how the program ended (the last one counts) */
    OPSCOPE_OPLOG_RUN = 6,     /* what ran: command line, models, contexts, BLAS (the last counts) */
    OPSCOPE_OPLOG_DECODES = 7, /* libllama's batches since the last chunk (model/oplog_dec.h) */
    OPSCOPE_OPLOG_WINDOWS = 8, /* capture windows and marks so far (model/oplog_win.h; the last counts) */
};

/* Bytes under construction (a chunk's payload). */
typedef OPSCOPE_VEC(unsigned char) opscope_oplog_buf;

/* Writes the 16-byte file header into OUT. */
void opscope_oplog_file_head(unsigned char out[OPSCOPE_OPLOG_HEAD]);
/* True when the N bytes at P start with the file header (N >= 16, known version). */
bool opscope_oplog_is_log(const void *p, size_t n);

/* Fills the chunk header HEAD for a payload of type TYPE (LEN bytes at PAYLOAD). */
void opscope_oplog_chunk_head(unsigned char head[OPSCOPE_OPLOG_CHUNK_HEAD], uint32_t type,
                              const void *payload, uint32_t len);

/* The chunk at byte OFF of the SIZE bytes at DATA: on success *TYPE, *PAYLOAD, *LEN are set
 * and the next chunk's offset is returned; 0 when no complete, intact chunk starts there
 * (end of data, a cut write, damage). */
size_t opscope_oplog_chunk_at(const unsigned char *data, size_t size, size_t off, uint32_t *type,
                              const unsigned char **payload, uint32_t *len);

/* ---- payload encoding: LEB128 varints, zigzag for signed, strings as varint(len + 1) then
 * the bytes and their NUL (varint 0: NULL) ---- */

/* Each returns 0, or -1 when out of memory (B then holds a prefix). */
int opscope_oplog_put_u(opscope_oplog_buf *b, uint64_t v);
int opscope_oplog_put_i(opscope_oplog_buf *b, int64_t v);
int opscope_oplog_put_str(opscope_oplog_buf *b, const char *s);

/* A reader's position in a payload; `bad` is set (and stays) when a value runs past the end. */
typedef struct opscope_oplog_cur {
    const unsigned char *p, *end;
    bool bad;
} opscope_oplog_cur;

uint64_t opscope_oplog_get_u(opscope_oplog_cur *c);
int64_t opscope_oplog_get_i(opscope_oplog_cur *c);
/* A string: *LEN bytes at the returned pointer, NUL-terminated in the payload; NULL for NULL
 * (or bad: a string without its NUL is damage). */
const char *opscope_oplog_get_str(opscope_oplog_cur *c, size_t *len);
/* opscope_oplog_get_str without the length. */
static inline const char *opscope_oplog_get_cstr(opscope_oplog_cur *c) {
    size_t n;
    return opscope_oplog_get_str(c, &n);
}

/* The checked narrowings every payload reader uses: a value out of the type's range, or a
 * count of one-byte-or-more items larger than the bytes left, is damage (`bad` set). */
static inline int32_t opscope_oplog_get_i32(opscope_oplog_cur *c) {
    int64_t v = opscope_oplog_get_i(c);
    if (v < INT32_MIN || v > INT32_MAX) c->bad = true;
    return (int32_t)v;
}

static inline uint32_t opscope_oplog_get_u32(opscope_oplog_cur *c) {
    uint64_t v = opscope_oplog_get_u(c);
    if (v > UINT32_MAX) c->bad = true;
    return (uint32_t)v;
}

static inline uint64_t opscope_oplog_get_count(opscope_oplog_cur *c) {
    uint64_t n = opscope_oplog_get_u(c);
    if (n > (uint64_t)(c->end - c->p)) c->bad = true;
    return c->bad ? 0 : n;
}

#endif /* OPSCOPE_UTIL_OPLOG_H */
