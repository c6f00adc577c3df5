/* cap_threads.c - per-thread work and wait at the barriers of a CPU compute (see cap_threads.h). */
#include "capture/timing/cap_threads.h"

#include <stdlib.h>
#include <string.h>

bool opscope_cap_thr_reserve(opscope_cap_thr_table *tb, int nt, int bars, int cb) {
    if (nt > OPSCOPE_CAP_THR_MAX) nt = OPSCOPE_CAP_THR_MAX;
    if (nt < 1 || bars < 1 || cb < 1) return false;
    if (nt > tb->nt_cap) {
        opscope_cap_thr_row *r = NULL;
        if (posix_memalign((void **)&r, 64, (size_t)nt * sizeof *r) != 0) return false;
        free(tb->rows);
        tb->rows = r;
    }
    int rows = nt > tb->nt_cap ? nt : tb->nt_cap, b = bars > tb->bar_cap ? bars : tb->bar_cap;
    if (rows > tb->nt_cap || b > tb->bar_cap) { /* the old contents are not needed */
        free(tb->t);
        free(tb->rel);
        tb->t = malloc((size_t)rows * (size_t)b * sizeof *tb->t);
        tb->rel = malloc((size_t)b * sizeof *tb->rel);
        bool ok = tb->t && tb->rel;
        tb->nt_cap = ok ? rows : 0;
        tb->bar_cap = ok ? b : 0;
        if (!ok) return false;
    }
    if (cb > tb->cb_cap) {
        int32_t *c = realloc(tb->cb_bar, (size_t)cb * sizeof *c);
        if (!c) return false;
        tb->cb_bar = c;
        tb->cb_cap = cb;
    }
    return true;
}

void opscope_cap_thr_clear(opscope_cap_thr_table *tb) {
    for (int i = 0; i < tb->nt_cap; i++) {
        atomic_store_explicit(&tb->rows[i].n, 0, memory_order_relaxed);
        tb->rows[i].cpu = -1;
    }
    for (int k = 0; k < tb->cb_cap; k++) tb->cb_bar[k] = -1;
    atomic_store_explicit(&tb->nt_seen, 0, memory_order_relaxed);
    atomic_store_explicit(&tb->bad, 0, memory_order_release);
}

void opscope_cap_thr_free(opscope_cap_thr_table *tb) {
    free(tb->rows);
    free(tb->t);
    free(tb->cb_bar);
    free(tb->rel);
    memset(tb, 0, sizeof *tb);
}

static uint32_t sat32(uint64_t v) {
    return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/* The latest arrival at each barrier (its release) into REL, in ns; false when a row runs back. */
static bool releases(const uint64_t *t, int nt, int bar_cap, int nb, uint64_t (*to_ns)(uint64_t), uint64_t *rel) {
    for (int b = 0; b < nb; b++) rel[b] = 0;
    for (int i = 0; i < nt; i++) {
        const uint64_t *row = &t[(size_t)i * (size_t)bar_cap];
        for (int b = 0; b < nb; b++) {
            if (b > 0 && row[b] < row[b - 1]) return false;
            uint64_t a = to_ns(row[b]);
            if (a > rel[b]) rel[b] = a;
        }
    }
    return true;
}

bool opscope_cap_thr_reduce(const uint64_t *t, const int32_t *row_n, int nt, int bar_cap,
                            const int32_t *cb_bar, const uint64_t *cb_ts, int n_cb, uint64_t t_start,
                            uint64_t t_end, uint64_t (*to_ns)(uint64_t), uint32_t *out, uint64_t *rel) {
    if (nt < 1 || n_cb < 1) return false;
    int nb = row_n[0];
    for (int i = 1; i < nt; i++) {
        if (row_n[i] != nb) return false;
    }
    for (int k = 0; k < n_cb; k++) {
        if (cb_bar[k] < 0 || cb_bar[k] >= nb || (k > 0 && cb_bar[k] <= cb_bar[k - 1])) return false;
    }
    if (!releases(t, nt, bar_cap, nb, to_ns, rel)) return false;
    uint64_t start = to_ns(t_start), end = to_ns(t_end);
    for (int i = 0; i < nt; i++) {
        const uint64_t *row = &t[(size_t)i * (size_t)bar_cap];
        uint64_t prev = start;
        int b = 0;
        for (int k = 0; k < n_cb; k++) {
            int last = k == n_cb - 1 ? nb - 1 : cb_bar[k];
            uint64_t work = 0, wait = 0;
            for (; b <= last; b++) {
                uint64_t a = to_ns(row[b]), done = a;
                if (i == 0 && cb_ts && b == cb_bar[k]) {
                    uint64_t c = to_ns(cb_ts[k]); /* thread 0's work ended at its callback */
                    done = c < a ? c : a;
                }
                uint64_t from = done > prev ? done : prev, to = a > rel[b] ? a : rel[b];
                work += from - prev;
                wait += to - from;
                prev = to;
            }
            if (k == n_cb - 1 && end > prev) {
                wait += end - prev; /* the join at the region's end, and thread 0's return */
            }
            out[((size_t)k * (size_t)nt + (size_t)i) * 2] = sat32(work);
            out[((size_t)k * (size_t)nt + (size_t)i) * 2 + 1] = sat32(wait);
        }
    }
    return true;
}
