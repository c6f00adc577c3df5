/*
 * busy.h - the exact union of time intervals that come in any order (busy time).
 *
 * A backend's ops come sorted by start from a capture but grouped by stream from a Kineto
 * trace, so a one-pass union that assumes time order over-counts there. This keeps the
 * disjoint intervals seen so far: in-order input extends or appends the last one (O(1));
 * out-of-order input is appended and the whole set is sorted and merged when it fills, so
 * memory is one interval (16 bytes) per gap of the union, amortised O(log n) per add.
 *
 * Ownership: the caller owns the struct (zero-initialised = empty); opscope_busy_free
 * releases its array. Thread safety: none.
 */
#ifndef OPSCOPE_ANALYZE_BUSY_H
#define OPSCOPE_ANALYZE_BUSY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct opscope_busy_iv {
    uint64_t start, end;
} opscope_busy_iv;

typedef struct opscope_busy {
    opscope_busy_iv *iv;
    size_t n, cap;
    bool unsorted;       /* iv is not sorted by start (merge before reading) */
    uint64_t n_unsorted; /* intervals that started before the last one kept */
} opscope_busy;

/* Adds [START, END). Returns 0, or -1 when out of memory (the set is unchanged). */
int opscope_busy_add(opscope_busy *b, uint64_t start, uint64_t end);

/* The length of the union (sorts and merges the set first; adding may go on after). */
uint64_t opscope_busy_total(opscope_busy *b);

void opscope_busy_free(opscope_busy *b);

#endif /* OPSCOPE_ANALYZE_BUSY_H */
