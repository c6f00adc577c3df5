/* busy.c - exact union of intervals given in any order (see busy.h). */
#include "analyze/intervals/busy.h"
#include "util/sort.h"

#include <stdlib.h>
#include <string.h>

static int cmp_iv(const void *a, const void *b) {
    const opscope_busy_iv *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* Sorts by start and merges overlapping or touching intervals in place. */
static void compact(opscope_busy *b) {
    if (!b->unsorted) return;
    opscope_sort(b->iv, b->n, sizeof *b->iv, cmp_iv);
    size_t k = 0;
    for (size_t i = 1; i < b->n; i++) {
        if (b->iv[i].start <= b->iv[k].end) {
            if (b->iv[i].end > b->iv[k].end) b->iv[k].end = b->iv[i].end;
        } else {
            b->iv[++k] = b->iv[i];
        }
    }
    b->n = b->n ? k + 1 : 0;
    b->unsorted = false;
}

void opscope_busy_keep_all(opscope_busy *b) {
    b->keep_all = true;
}

/* The intervals kept before sealing: a small window while the input has come in time order
 * (nothing to merge out of order, so keeping more only costs memory), the full one once any
 * interval came out of order. */
static size_t window(const opscope_busy *b) {
    return b->n_unsorted ? OPSCOPE_BUSY_WINDOW : OPSCOPE_BUSY_WINDOW_ORDERED;
}

/* Folds the oldest intervals into sealed_ns, keeping half a window (IV sorted, disjoint). */
static void seal(opscope_busy *b) {
    size_t k = b->n - window(b) / 2;
    for (size_t i = 0; i < k; i++) b->sealed_ns += b->iv[i].end - b->iv[i].start;
    b->watermark = b->iv[k - 1].end;
    memmove(b->iv, b->iv + k, (b->n - k) * sizeof *b->iv);
    b->n -= k;
}

/* Frees a slot: merges, seals the oldest half of a full window, or grows. The ordered window is
 * allocated whole on first use (below malloc's mmap threshold), so time-ordered input never
 * reallocates. */
static int make_room(opscope_busy *b) {
    if (!b->keep_all && b->cap == 0) {
        b->iv = malloc(OPSCOPE_BUSY_WINDOW_ORDERED * sizeof *b->iv);
        if (!b->iv) return -1;
        b->cap = OPSCOPE_BUSY_WINDOW_ORDERED;
        return 0;
    }
    compact(b);
    if (!b->keep_all && b->n >= window(b)) seal(b);
    /* grow unless merging (or sealing) freed at least half */
    if (b->cap == 0 || b->n * 2 > b->cap) {
        size_t nc = b->cap ? b->cap * 2 : 64;
        opscope_busy_iv *nv = realloc(b->iv, nc * sizeof *nv);
        if (!nv) return -1;
        b->iv = nv;
        b->cap = nc;
    }
    return 0;
}

int opscope_busy_add(opscope_busy *b, uint64_t start, uint64_t end) {
    if (start < b->watermark) {
        /* late: the sealed part is a sum, so only what lies after it can be merged */
        b->n_late++;
        b->n_unsorted++;
        if (end <= b->watermark) return 0;
        start = b->watermark;
    }
    if (b->n) {
        opscope_busy_iv *last = &b->iv[b->n - 1];
        if (start >= last->start && start <= last->end) {
            if (end > last->end) last->end = end;
            return 0;
        }
    }
    if (b->n == b->cap && make_room(b)) return -1;
    if (b->n && start < b->iv[b->n - 1].start) {
        b->unsorted = true;
        b->n_unsorted++;
    }
    b->iv[b->n++] = (opscope_busy_iv){start, end};
    return 0;
}

uint64_t opscope_busy_total(opscope_busy *b) {
    compact(b);
    uint64_t t = b->sealed_ns;
    for (size_t i = 0; i < b->n; i++) t += b->iv[i].end - b->iv[i].start;
    return t;
}

void opscope_busy_free(opscope_busy *b) {
    free(b->iv);
    *b = (opscope_busy){0};
}
