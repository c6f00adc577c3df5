/*
 * win_count.h - a capture's graph computes per window (docs/metrics.md, "Capture windows and
 * marks"): the one count the console, the text report, the JSON summary and the SQLite
 * database show.
 *
 * A compute belongs to the window its first record began in: at or after the window's
 * start_ns and before its end_ns. A window still open at the profile's last write (end_ns 0)
 * ends at that write (the capture's end_ns) when the profile has it, else holds every compute
 * after its start. A compute that began in no window (before the first, in a gap between two,
 * after the last closed) is outside: the capture keeps only computes that began inside a
 * window and ends a window after the computes running at `ctl stop`, so only a hand-made
 * profile has one.
 *
 * NULL handling: a NULL capture or graphs counts nothing. Thread safety: pure.
 */
#ifndef OPSCOPE_WIN_COUNT_H
#define OPSCOPE_WIN_COUNT_H

#include "analyze/ggml/graphs.h"
#include "opscope.h"

#include <stddef.h>
#include <stdint.h>

/* One window's share of the graph computes. */
typedef struct opscope_win_count {
    uint64_t graphs;  /* computes whose first record began in the window */
    uint64_t records; /* their records */
} opscope_win_count;

/* Counts G's graph computes into COUNTS (C's n_windows entries, the caller's; zeroed here)
 * and returns those that began outside every window. C's windows are in time order (the
 * readers refuse others). */
uint64_t opscope_win_count_graphs(const opscope_capture_info *c, const opscope_graphs_t *g,
                                  opscope_win_count *counts);

#endif /* OPSCOPE_WIN_COUNT_H */
