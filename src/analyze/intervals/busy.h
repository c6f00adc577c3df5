/*
 * busy.h - the exact union of time intervals that come in any order (busy time).
 *
 * A backend's ops come sorted by start from a capture but grouped by stream from a Kineto
 * trace, so a one-pass union that assumes time order over-counts there. This keeps the
 * disjoint intervals seen so far: in-order input extends or appends the last one (O(1));
 * out-of-order input is appended and the whole set is sorted and merged when it fills.
 *
 * Memory. By default the set is a window of intervals: when it is full, the oldest half is
 * sealed into a sum. While every interval has come in time order (a capture: records come
 * sorted by start) the window is OPSCOPE_BUSY_WINDOW_ORDERED intervals, 64 KiB allocated once:
 * no growth, no sort. After the first out-of-order interval it widens to OPSCOPE_BUSY_WINDOW
 * (1 MiB). An interval that starts before the sealed part's end is late: its part after that
 * end is still merged exactly, the part before is not (counted in n_late, so a report can say
 * the union is approximate). Inputs grouped by stream (Kineto and Chrome traces, where a whole
 * stream may come before an earlier one) keep every interval (opscope_busy_keep_all): 16
 * bytes per gap of the union, exact in any order.
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

#define OPSCOPE_BUSY_WINDOW 65536
#define OPSCOPE_BUSY_WINDOW_ORDERED 4096

typedef struct opscope_busy {
    opscope_busy_iv *iv;
    size_t n, cap;
    bool unsorted;       /* iv is not sorted by start (merge before reading) */
    bool keep_all;       /* never seal: exact for any order (opscope_busy_keep_all) */
    uint64_t n_unsorted; /* intervals that started before the last one kept */
    uint64_t n_late;     /* intervals that started before the sealed part's end */
    uint64_t sealed_ns;  /* the union of the sealed intervals */
    uint64_t watermark;  /* the sealed part's end (0: nothing sealed) */
} opscope_busy;

/* Keeps every interval from now on (exact in any order, memory grows with the gaps). Call it
 * before the first add; later it only stops further sealing. */
void opscope_busy_keep_all(opscope_busy *b);

/* Adds [START, END). Returns 0, or -1 when out of memory (the set is unchanged). */
int opscope_busy_add(opscope_busy *b, uint64_t start, uint64_t end);

/* The length of the union (sorts and merges the set first; adding may go on after). */
uint64_t opscope_busy_total(opscope_busy *b);

void opscope_busy_free(opscope_busy *b);

#endif /* OPSCOPE_ANALYZE_BUSY_H */
