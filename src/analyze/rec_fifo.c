/* rec_fifo.c - records held back in arrival order (rec_fifo.h). */
#include "analyze/rec_fifo.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* An entry: this header, the record, then its strings; string fields hold offsets from the
 * entry's start (+1; 0: NULL), pointers while the entry is the head that was handed out (only
 * the head ever is; back to offsets before the buffer moves). */
typedef struct entry {
    size_t size; /* of the whole entry, a multiple of 8 */
    bool fixed;  /* string fields are pointers */
} entry;

#define REC_AT(e) ((opscope_record *)((unsigned char *)(e) + sizeof(entry)))
#define N_STR 6

static const char **str_field(opscope_record *r, int i) {
    switch (i) {
    case 0: return &r->name;
    case 1: return &r->sub_op;
    case 2: return &r->extra;
    case 3: return &r->tensor_name;
    case 4: return &r->category;
    default: return &r->kernel;
    }
}

void opscope_rec_fifo_free(opscope_rec_fifo *f) {
    free(f->buf);
    memset(f, 0, sizeof *f);
}

/* The head's string fields back to offsets (the buffer is about to move). */
static void unfix(opscope_rec_fifo *f) {
    if (!f->n) return;
    entry *e = (entry *)(f->buf + f->head);
    if (!e->fixed) return;
    opscope_record *r = REC_AT(e);
    for (int i = 0; i < N_STR; i++) {
        const char **p = str_field(r, i);
        *p = *p ? (const char *)(uintptr_t)(*p - (const char *)e + 1) : NULL;
    }
    e->fixed = false;
}

/* Room for NEED more bytes at the tail (wrapping, else a bigger buffer, straight): the
 * offset where they go, or SIZE_MAX when out of memory. */
static size_t room(opscope_rec_fifo *f, size_t need) {
    if (f->wrapped) {
        if (f->tail + need <= f->head) return f->tail;
    } else if (f->tail + need <= f->cap) {
        return f->tail;
    } else if (f->n && need <= f->head) {
        f->end = f->tail;
        f->wrapped = true;
        return f->tail = 0;
    }
    size_t live = opscope_rec_fifo_bytes(f), cap = f->cap ? f->cap : 1u << 16;
    while (cap < live + need) cap *= 2;
    unsigned char *b = malloc(cap);
    if (!b) return SIZE_MAX;
    unfix(f);
    if (f->wrapped) {
        memcpy(b, f->buf + f->head, f->end - f->head);
        memcpy(b + (f->end - f->head), f->buf, f->tail);
    } else if (live) {
        memcpy(b, f->buf + f->head, live);
    }
    free(f->buf);
    f->buf = b;
    f->cap = cap;
    f->head = 0;
    f->wrapped = false;
    return f->tail = live;
}

int opscope_rec_fifo_push(opscope_rec_fifo *f, const opscope_record *rec) {
    size_t len[N_STR], need = sizeof(entry) + sizeof *rec;
    opscope_record *src = (opscope_record *)rec; /* read only: str_field takes a mutable one */
    for (int i = 0; i < N_STR; i++) {
        const char *s = *str_field(src, i);
        len[i] = s ? strlen(s) + 1 : 0;
        need += len[i];
    }
    need = (need + 7) & ~(size_t)7;
    size_t at = room(f, need);
    if (at == SIZE_MAX) return -1;
    entry *e = (entry *)(f->buf + at);
    e->size = need;
    e->fixed = false;
    opscope_record *r = REC_AT(e);
    memcpy(r, rec, sizeof *r);
    size_t off = sizeof(entry) + sizeof *r;
    for (int i = 0; i < N_STR; i++) {
        const char **p = str_field(r, i);
        if (!len[i]) {
            *p = NULL;
            continue;
        }
        memcpy((unsigned char *)e + off, *p, len[i]);
        *p = (const char *)(uintptr_t)(off + 1);
        off += len[i];
    }
    f->tail = at + need;
    f->n++;
    return 0;
}

const opscope_record *opscope_rec_fifo_head(opscope_rec_fifo *f) {
    if (!f->n) return NULL;
    entry *e = (entry *)(f->buf + f->head);
    opscope_record *r = REC_AT(e);
    if (!e->fixed) { /* offsets to pointers: the buffer does not move until the next push */
        for (int i = 0; i < N_STR; i++) {
            const char **p = str_field(r, i);
            uintptr_t off = (uintptr_t)*p;
            *p = off ? (const char *)e + off - 1 : NULL;
        }
        e->fixed = true;
    }
    return r;
}

void opscope_rec_fifo_pop(opscope_rec_fifo *f) {
    if (!f->n) return;
    f->head += ((entry *)(f->buf + f->head))->size;
    f->n--;
    if (f->wrapped && f->head == f->end) {
        f->head = 0;
        f->wrapped = false;
    }
    if (!f->n) {
        f->head = f->tail = 0;
        f->wrapped = false;
    }
}
