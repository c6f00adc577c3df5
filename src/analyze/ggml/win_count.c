/* win_count.c - a capture's graph computes per window (see win_count.h). */
#include "analyze/ggml/win_count.h"

#include <string.h>

/* The window of C whose span holds NS, or C's n_windows when none does. */
static size_t window_at(const opscope_capture_info *c, uint64_t ns) {
    size_t lo = 0, hi = c->n_windows;
    while (lo < hi) { /* the last window that began at or before NS */
        size_t mid = lo + (hi - lo) / 2;
        if (c->windows[mid].start_ns <= ns) lo = mid + 1;
        else hi = mid;
    }
    if (!lo) return c->n_windows;
    const opscope_window *w = &c->windows[lo - 1];
    uint64_t end = w->end_ns ? w->end_ns : c->end_ns ? c->end_ns : UINT64_MAX; /* open: to the last write */
    return ns < end ? lo - 1 : c->n_windows;
}

uint64_t opscope_win_count_graphs(const opscope_capture_info *c, const opscope_graphs_t *g,
                                  opscope_win_count *counts) {
    if (!c || !c->n_windows) return 0;
    memset(counts, 0, c->n_windows * sizeof *counts);
    uint64_t outside = 0;
    for (size_t i = 0; g && i < opscope_graphs_n(g); i++) {
        const opscope_graph_stats *gs = opscope_graphs_at(g, i);
        size_t k = window_at(c, gs->start_ns);
        if (k == c->n_windows) {
            outside++;
            continue;
        }
        counts[k].graphs++;
        counts[k].records += gs->n;
    }
    return outside;
}
