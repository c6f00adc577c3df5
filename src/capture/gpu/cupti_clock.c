/*
 * cupti_clock.c - CUPTI's timestamps to CLOCK_MONOTONIC (see cupti_clock.h).
 */
#include "capture/gpu/cupti_clock.h"

void opscope_cupti_clock_init(opscope_cupti_clock *c, uint64_t begin, int64_t calibrated, bool callback) {
    atomic_store(&c->calibrated, calibrated);
    atomic_store(&c->offset, callback ? 0 : calibrated);
    c->callback = callback;
    atomic_store(&c->bad, 0);
    atomic_store(&c->fallback, 0);
    c->begin = begin;
}

void opscope_cupti_clock_calibrated(opscope_cupti_clock *c, int64_t calibrated) {
    atomic_store_explicit(&c->calibrated, calibrated, memory_order_relaxed);
    if (!c->callback) {
        atomic_store_explicit(&c->offset, calibrated, memory_order_relaxed);
    }
}

static bool inside(const opscope_cupti_clock *c, uint64_t start, uint64_t end, int64_t off, uint64_t now) {
    int64_t a = (int64_t)start + off, b = (int64_t)end + off;
    return a >= (int64_t)c->begin - OPSCOPE_CUPTI_CLOCK_SLACK_NS && b <= (int64_t)now + OPSCOPE_CUPTI_CLOCK_SLACK_NS;
}

bool opscope_cupti_clock_map(opscope_cupti_clock *c, uint64_t start, uint64_t end, uint64_t now, uint64_t *t0,
                             uint64_t *t1) {
    *t0 = *t1 = 0;
    int64_t off = atomic_load_explicit(&c->offset, memory_order_relaxed);
    bool ok = start != 0 && end != 0 && end >= start;
    if (ok && !inside(c, start, end, off, now)) {
        /* stamped with CUPTI's own clock despite the callback: this record takes the
         * calibration (the two clocks are years apart: no record fits both) */
        off = atomic_load_explicit(&c->calibrated, memory_order_relaxed);
        ok = c->callback && inside(c, start, end, off, now);
        if (ok) {
            atomic_fetch_add_explicit(&c->fallback, 1, memory_order_relaxed);
        }
    }
    if (!ok) {
        atomic_fetch_add_explicit(&c->bad, 1, memory_order_relaxed);
        return false;
    }
    *t0 = (uint64_t)((int64_t)start + off);
    *t1 = (uint64_t)((int64_t)end + off);
    return true;
}
