/*
 * rec_fifo.h - records held back in arrival order, each a copy of its fields, of its
 * per-thread times and of its strings, until the one who holds them lets them go (internal;
 * warm_defer.h holds a graph compute's records until it knows whether the compute was a
 * warm-up).
 *
 * Memory: per record its fields up to the last source's (about 300 bytes for two sources;
 * the whole 1 KB struct when the unused sources' fields are not opscope_record_init's), its
 * per-thread times (12 bytes a thread) and its strings; the caller bounds it by
 * opscope_rec_fifo_bytes. Ownership: the FIFO owns its copies; a record from
 * opscope_rec_fifo_head is valid until the next push or pop. Thread safety: none.
 */
#ifndef OPSCOPE_REC_FIFO_H
#define OPSCOPE_REC_FIFO_H

#include "opscope.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A ring of bytes: live entries in [head, tail), or when wrapped in [head, end) then
 * [0, tail); it grows (and is made straight) only when full, so a steady flow of records
 * reuses the same, warm, memory. */
typedef struct opscope_rec_fifo {
    unsigned char *buf;
    size_t head, tail, end, cap;
    bool wrapped;
    size_t n; /* records held */
    opscope_record out, blank; /* the head handed out; an initialised record (blank_set) */
    bool blank_set;
    int out_rows; /* sources of OUT that may differ from BLANK's (-1: any field) */
} opscope_rec_fifo;

/* Zero-initialised is empty. */
void opscope_rec_fifo_free(opscope_rec_fifo *f);
/* Appends a copy of REC. 0, or -1 when out of memory (nothing appended). */
int opscope_rec_fifo_push(opscope_rec_fifo *f, const opscope_record *rec);
/* The oldest record (a copy equal to the one pushed, its strings in the FIFO), or NULL when
 * empty. */
const opscope_record *opscope_rec_fifo_head(opscope_rec_fifo *f);
/* The oldest record's graph id (*HAS_GRAPH: OPSCOPE_HAS_GRAPH), without making the copy;
 * false when empty. */
bool opscope_rec_fifo_head_graph(const opscope_rec_fifo *f, bool *has_graph, int64_t *graph_id);
/* Drops the oldest record (no-op when empty). */
void opscope_rec_fifo_pop(opscope_rec_fifo *f);
/* Bytes the held records take. */
static inline size_t opscope_rec_fifo_bytes(const opscope_rec_fifo *f) {
    return f->wrapped ? f->end - f->head + f->tail : f->tail - f->head;
}

#endif /* OPSCOPE_REC_FIFO_H */
