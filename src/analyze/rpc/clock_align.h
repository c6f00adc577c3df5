/*
 * clock_align.h - the clock offset between two processes, from their profiles alone (internal).
 *
 * Offset = server clock - client clock. A matched event is one request the client sent and
 * the server handled: the server cannot start it before the client started sending it, so
 * offset <= s0 - c0 (an upper bound); when the client then waited for the server's answer
 * (a synchronize after a remote graph compute), the server was done before the client's wait
 * ended, so offset >= s1 - c1 (a lower bound). Each match narrows [lo, hi], as in Cristian's
 * algorithm; the estimate is the middle and the residual uncertainty half the width.
 *
 * Matching works without any clock hint. First a coarse offset: with waited client events,
 * the offset that the most client events hold some same-key server event inside (each client
 * event counted once: a long wait holding several server events does not outvote the others);
 * the true pairs all agree on it, while pairings shifted by a request (or by a whole session
 * of another client) hold it only where the timing repeats within a call's slack. Without
 * waited events, the densest 1 ms window of (s0 - c0). Then each client event takes the
 * unused same-key server event closest to inside it on that offset (within 5 ms), and the
 * bounds are intersected; a pair whose bound contradicts the majority (a mismatch) is left
 * out and counted. Pure functions: thread safe, no globals.
 */
#ifndef OPSCOPE_CLOCK_ALIGN_H
#define OPSCOPE_CLOCK_ALIGN_H

#include <stddef.h>
#include <stdint.h>

/* One request on one side: KEY says what it was (kind and size: two events can only match
 * when their keys are equal), [t0, t1] when it ran on that side's clock. END_KNOWN (client
 * side): the client waited for the server's answer before t1, so t1 bounds the server's end. */
typedef struct opscope_align_event {
    uint64_t key;
    int64_t t0, t1;
    int end_known;
} opscope_align_event;

typedef struct opscope_align_result {
    int ok;              /* 1: an offset was found (at least one usable match) */
    int64_t offset_ns;   /* server - client: the middle of [lo_ns, hi_ns] */
    int64_t lo_ns, hi_ns; /* the bound; lo_ns = INT64_MIN when no lower bound (no waited end) */
    size_t n_matched;    /* pairs found */
    size_t n_used;       /* pairs whose bounds agree (the estimate's) */
    size_t n_rejected;   /* pairs left out: their bound contradicts the others */
    size_t n_lower;      /* used pairs that gave a lower bound */
} opscope_align_result;

/*
 * Estimates the offset from the client's events C (NC, sorted by t0) and the server's S (NS,
 * sorted by t0). MATCH_OUT (may be NULL; else NS entries) receives for each server event the
 * index of its client event, or -1. Returns 0, or -1 when out of memory (OUT->ok = 0).
 */
int opscope_align_estimate(const opscope_align_event *c, size_t nc, const opscope_align_event *s,
                           size_t ns, opscope_align_result *out, long *match_out);

/* The bounds of given pairs only (no matching): pair i is (C[i], S[i]). */
void opscope_align_bounds(const opscope_align_event *c, const opscope_align_event *s, size_t n,
                          opscope_align_result *out);

#endif /* OPSCOPE_CLOCK_ALIGN_H */
