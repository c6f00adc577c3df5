/* busy_runs.c - the union of start-sorted runs of intervals by a k-way merge (busy_runs.h). */
#include "analyze/intervals/busy_runs.h"
#include "util/heap.h"

#include <stdbool.h>
#include <stdlib.h>

typedef struct cursor {
    int64_t start, end; /* the run's current interval, clipped */
    size_t next, stop;  /* its next index in the caller's sequence, and the run's end */
} cursor;

/* Moves C to its run's next interval that is not empty after clipping. 0: the run ended. */
static int advance(cursor *c, opscope_busy_get_fn get, const void *ud, int64_t lo, int64_t hi) {
    while (c->next < c->stop) {
        int64_t a, b;
        get(ud, c->next++, &a, &b);
        if (a < lo) a = lo;
        if (b > hi) b = hi;
        if (b > a) {
            c->start = a;
            c->end = b;
            return 1;
        }
    }
    return 0;
}

/* The heap of the runs' cursors: by start alone (equal starts union alike in either order). */
static inline bool start_less(const void *ctx, const cursor *a, const cursor *b) {
    return a->start < b->start;
}
OPSCOPE_HEAP_DEFINE(cursor_heap, cursor, const void *, start_less)

int opscope_busy_runs_total(const opscope_busy_run *runs, size_t n_runs, opscope_busy_get_fn get,
                            const void *ud, int64_t lo, int64_t hi, uint64_t *total) {
    cursor *h = malloc((n_runs ? n_runs : 1) * sizeof *h);
    if (!h) return -1;
    size_t n = 0;
    for (size_t r = 0; r < n_runs; r++) {
        h[n] = (cursor){0, 0, runs[r].begin, runs[r].end};
        if (advance(&h[n], get, ud, lo, hi)) n++;
    }
    cursor_heap_build(h, n, NULL);
    /* the merged intervals come in start order: a one-pass union */
    uint64_t t = 0;
    int64_t cs = 0, ce = 0;
    int open = 0;
    while (n) {
        int64_t a = h[0].start, b = h[0].end;
        if (!open || a > ce) {
            if (open) t += (uint64_t)(ce - cs);
            cs = a;
            ce = b;
            open = 1;
        } else if (b > ce) {
            ce = b;
        }
        if (advance(&h[0], get, ud, lo, hi)) cursor_heap_sift_down(h, n, 0, NULL);
        else cursor_heap_pop(h, &n, NULL);
    }
    if (open) t += (uint64_t)(ce - cs);
    free(h);
    *total = t;
    return 0;
}
