/* rec_fifo.c - records held back in arrival order (rec_fifo.h). */
#include "analyze/ggml/rec_fifo.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* An entry: this header, the record's bytes, its per-thread times (N_THR threads' work and
 * wait pairs, then their CPUs when CPUS, at THR_OFF from the entry's start), then its strings. The record's bytes are the
 * struct up to ne_src, then the N_SRC sources' ne_src, nb_src and type_src rows, then
 * op_params, when the other sources' fields are opscope_record_init's (a reader's record);
 * else the whole struct (WHOLE). String fields hold offsets from the entry's start (+1; 0:
 * NULL). */
typedef struct entry {
    size_t size; /* of the whole entry, a multiple of 8 */
    bool whole, cpus;
    int32_t n_src, n_thr;
    size_t thr_off;
} entry;

#define N_STR 6
#define HEAD_LEN offsetof(opscope_record, ne_src)

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

/* Whether REC's sources from N on are as opscope_record_init leaves them (B: such a record). */
static bool rest_blank(const opscope_record *rec, const opscope_record *b, int n) {
    size_t k = (size_t)(OPSCOPE_MAX_SRC - n);
    return !memcmp(rec->ne_src[n], b->ne_src[n], k * sizeof rec->ne_src[0]) &&
           !memcmp(rec->nb_src[n], b->nb_src[n], k * sizeof rec->nb_src[0]) &&
           !memcmp(rec->type_src + n, b->type_src + n, k * sizeof rec->type_src[0]);
}

int opscope_rec_fifo_push(opscope_rec_fifo *f, const opscope_record *rec) {
    if (!f->blank_set) {
        opscope_record_init(&f->blank);
        f->blank_set = true;
        f->out_rows = -1;
    }
    int n = rec->n_src;
    bool whole = n < 0 || n > OPSCOPE_MAX_SRC || !rest_blank(rec, &f->blank, n);
    if (whole) n = OPSCOPE_MAX_SRC;
    size_t rows = (size_t)n, body = whole ? sizeof *rec
                                          : HEAD_LEN + rows * (sizeof rec->ne_src[0] + sizeof rec->nb_src[0] +
                                                               sizeof rec->type_src[0]) + sizeof rec->op_params;
    bool thr = (rec->has & OPSCOPE_HAS_THREADS) && rec->threads && rec->n_threads > 0;
    int32_t n_thr = !thr ? 0 : rec->n_threads > OPSCOPE_MAX_THREADS ? OPSCOPE_MAX_THREADS : rec->n_threads;
    size_t thr_off = (sizeof(entry) + body + 3) & ~(size_t)3; /* uint32_t aligned */
    size_t thr_len = (size_t)n_thr * (2 * sizeof *rec->threads + (rec->thread_cpus ? sizeof *rec->thread_cpus : 0));
    size_t len[N_STR], need = thr_off + thr_len;
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
    e->whole = whole;
    e->n_src = n;
    e->n_thr = n_thr;
    e->cpus = n_thr && rec->thread_cpus;
    e->thr_off = thr_off;
    if (n_thr) {
        memcpy((unsigned char *)e + thr_off, rec->threads, (size_t)n_thr * 2 * sizeof *rec->threads);
        if (e->cpus)
            memcpy((unsigned char *)e + thr_off + (size_t)n_thr * 2 * sizeof *rec->threads, rec->thread_cpus,
                   (size_t)n_thr * sizeof *rec->thread_cpus);
    }
    unsigned char *p = (unsigned char *)(e + 1);
    opscope_record *r = (opscope_record *)p; /* the head part: the string fields first */
    if (whole) {
        memcpy(p, rec, sizeof *rec);
    } else {
        memcpy(p, rec, HEAD_LEN);
        unsigned char *q = p + HEAD_LEN;
        memcpy(q, rec->ne_src, rows * sizeof rec->ne_src[0]);
        q += rows * sizeof rec->ne_src[0];
        memcpy(q, rec->nb_src, rows * sizeof rec->nb_src[0]);
        q += rows * sizeof rec->nb_src[0];
        memcpy(q, rec->type_src, rows * sizeof rec->type_src[0]);
        q += rows * sizeof rec->type_src[0];
        memcpy(q, rec->op_params, sizeof rec->op_params);
    }
    size_t off = thr_off + thr_len;
    for (int i = 0; i < N_STR; i++) {
        const char **sp = str_field(r, i);
        if (!len[i]) {
            *sp = NULL;
            continue;
        }
        memcpy((unsigned char *)e + off, *sp, len[i]);
        *sp = (const char *)(uintptr_t)(off + 1);
        off += len[i];
    }
    f->tail = at + need;
    f->n++;
    return 0;
}

bool opscope_rec_fifo_head_graph(const opscope_rec_fifo *f, bool *has_graph, int64_t *graph_id) {
    if (!f->n) return false;
    const opscope_record *r = (const opscope_record *)(f->buf + f->head + sizeof(entry)); /* head part */
    *has_graph = r->has & OPSCOPE_HAS_GRAPH;
    *graph_id = r->graph_id;
    return true;
}

const opscope_record *opscope_rec_fifo_head(opscope_rec_fifo *f) {
    if (!f->n) return NULL;
    entry *e = (entry *)(f->buf + f->head);
    const unsigned char *p = (const unsigned char *)(e + 1);
    opscope_record *r = &f->out;
    if (e->whole) {
        memcpy(r, p, sizeof *r);
        f->out_rows = -1;
    } else {
        size_t rows = (size_t)e->n_src;
        if (f->out_rows < 0) { /* OUT's sources back to BLANK's: all, or the last one's extra */
            memcpy(r, &f->blank, sizeof *r);
        } else if ((size_t)f->out_rows > rows) {
            size_t k = (size_t)f->out_rows - rows;
            memcpy(r->ne_src[rows], f->blank.ne_src[rows], k * sizeof r->ne_src[0]);
            memcpy(r->nb_src[rows], f->blank.nb_src[rows], k * sizeof r->nb_src[0]);
            memcpy(r->type_src + rows, f->blank.type_src + rows, k * sizeof r->type_src[0]);
        }
        f->out_rows = (int)rows;
        memcpy(r, p, HEAD_LEN);
        const unsigned char *q = p + HEAD_LEN;
        memcpy(r->ne_src, q, rows * sizeof r->ne_src[0]);
        q += rows * sizeof r->ne_src[0];
        memcpy(r->nb_src, q, rows * sizeof r->nb_src[0]);
        q += rows * sizeof r->nb_src[0];
        memcpy(r->type_src, q, rows * sizeof r->type_src[0]);
        q += rows * sizeof r->type_src[0];
        memcpy(r->op_params, q, sizeof r->op_params);
    }
    r->threads = NULL; /* the reader's when pushed: the entry's copy, when there is one */
    r->thread_cpus = NULL;
    r->n_threads = e->n_thr;
    if (e->n_thr) {
        const unsigned char *t = (const unsigned char *)e + e->thr_off;
        r->threads = (const uint32_t *)(const void *)t;
        if (e->cpus) r->thread_cpus = (const int32_t *)(const void *)(t + (size_t)e->n_thr * 2 * sizeof *r->threads);
    } else {
        r->has &= ~(uint32_t)OPSCOPE_HAS_THREADS;
    }
    for (int i = 0; i < N_STR; i++) { /* offsets to pointers into the entry */
        const char **sp = str_field(r, i);
        uintptr_t off = (uintptr_t)*sp;
        *sp = off ? (const char *)e + off - 1 : NULL;
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
