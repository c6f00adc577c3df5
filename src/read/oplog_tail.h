/*
 * oplog_tail.h - the record log read as it grows (docs/formats.md, "The record log"): each
 * poll reads only the chunks appended since the last one, so a days-long run costs per poll
 * what it wrote since, and the reader keeps only its offset, the record templates (owned
 * copies: records of later chunks name them) and one chunk's buffer. Records come in file
 * order (each chunk sorted by start, not merged across chunks: a consumer that needs the
 * profile's order reads the whole log with opscope_oplog_read).
 *
 * Ownership: the tail owns its file descriptor, templates and buffer (opscope_oplog_tail_free).
 * Pointers handed to callbacks live until the callback returns. NULL handling: _free(NULL) is a
 * no-op. Thread safety: one tail per thread.
 */
#ifndef OPSCOPE_READ_OPLOG_TAIL_H
#define OPSCOPE_READ_OPLOG_TAIL_H

#include "opscope.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct opscope_oplog_tail opscope_oplog_tail_t;

/* What a poll hands on. Every callback may be NULL; a non-zero return stops the poll (its
 * chunk is read again by the next poll). TMPL is the record's template id: records of one
 * template share everything but their times and graph id, so a consumer may key a cache on it. */
typedef struct opscope_oplog_tail_cb {
    void *ud;
    int (*on_capture)(void *ud, const opscope_capture_info *cap); /* the META chunk */
    int (*on_backend)(void *ud, const opscope_backend *b);
    int (*on_record)(void *ud, const opscope_record *rec, uint32_t tmpl);
    int (*on_decode)(void *ud, const opscope_run_decode *d);
} opscope_oplog_tail_cb;

/* Where the file stands after a poll. */
typedef enum opscope_oplog_tail_state {
    OPSCOPE_OPLOG_TAIL_WAITING = 0, /* no record log at the path yet (not there, or empty) */
    OPSCOPE_OPLOG_TAIL_GROWING,     /* a record log: every whole chunk so far read */
    OPSCOPE_OPLOG_TAIL_REPLACED,    /* the log was read to its end and another file (the
                                       profile made at the program's end) now has its path */
    OPSCOPE_OPLOG_TAIL_NOT_LOG,     /* the path holds a file that is no record log */
} opscope_oplog_tail_state;

typedef struct opscope_oplog_tail_status {
    opscope_oplog_tail_state state;
    uint64_t offset;      /* bytes read: the next chunk's offset */
    uint64_t chunks;      /* chunks read so far */
    uint64_t records;     /* records handed on so far */
    char end[16];         /* the last END chunk's "how" ("exit", "checkpoint", ...), "" none */
} opscope_oplog_tail_status;

/* A tail of the log at PATH (copied); nothing is opened until the first poll. NULL when out
 * of memory. */
opscope_oplog_tail_t *opscope_oplog_tail_new(const char *path);

/* Reads the chunks appended since the last poll and hands them to CB, then fills *ST (may be
 * NULL). Returns 0, or -1 with ERR filled (a damaged chunk's payload, out of memory, a read
 * error, a callback's stop: OPSCOPE_ERROR_ABORTED); a chunk cut short at the end is not
 * damage: it is read when whole. */
int opscope_oplog_tail_poll(opscope_oplog_tail_t *t, const opscope_oplog_tail_cb *cb,
                            opscope_oplog_tail_status *st, opscope_error *err);

void opscope_oplog_tail_free(opscope_oplog_tail_t *t);

#endif /* OPSCOPE_READ_OPLOG_TAIL_H */
