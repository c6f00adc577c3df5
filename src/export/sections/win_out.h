/*
 * win_out.h - a capture's windows and marks (opscope_capture_info.windowed, windows, marks:
 * `opscope record --paused` with `opscope ctl start|stop|mark`, or --delay / --duration) for
 * every output: the times every output shows (from the capture's start), the console's and
 * text report's first-screen lines and section, and a copy that outlives the read for the
 * outputs that write at the end (Chrome, viewer). docs/metrics.md, "Capture windows".
 *
 * NULL handling: a NULL capture is one without windows or marks (nothing written).
 * Thread safety: pure functions of their arguments, but for the writes to W.
 */
#ifndef OPSCOPE_WIN_OUT_H
#define OPSCOPE_WIN_OUT_H

#include "analyze/ggml/graphs.h"
#include "opscope.h"
#include "util/out.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The section's title in the console and the text report. */
#define OPSCOPE_WIN_TITLE "Capture windows and marks (times from the capture's start)"

/* Whether C says anything for the outputs to show: windowed, or with marks. */
bool opscope_win_any(const opscope_capture_info *c);

/* The instant the outputs count times from: the capture's start when C has it, else the
 * first window's start, else the first mark, else FIRST_NS (the first record's start). */
uint64_t opscope_win_base(const opscope_capture_info *c, uint64_t first_ns);

/* The end of window I of C: its end_ns; when still open (0), the capture's last write
 * (end_ns) or else LAST_NS (the last record's end), never before the window's start. */
uint64_t opscope_win_end(const opscope_capture_info *c, size_t i, uint64_t last_ns);

/* The run's end as the profile knows it: when record saw it die, else the capture's last
 * write, else the latest of the windows' ends, the marks and LAST_NS. */
uint64_t opscope_win_run_end(const opscope_capture_info *c, uint64_t last_ns);

/* The summed durations of C's windows (ends as opscope_win_end). */
uint64_t opscope_win_recorded(const opscope_capture_info *c, uint64_t last_ns);

/* The first screen's lines, values at column INDENT: "Windows: 2 (12.40 s recorded of
 * 61.20 s: 3.10-9.50 s, 20.00-26.00 s); graph computes outside them are not in this
 * profile" for a windowed capture, "Marks: N ..." when it has marks; nothing otherwise.
 * FIRST_NS, LAST_NS: the records' first start and last end (0, 0 without records). */
void opscope_win_write_head(opscope_out_t *w, const opscope_capture_info *c, uint64_t first_ns,
                            uint64_t last_ns, int indent);

/* The body of the section "Capture windows and marks" (the caller writes its title): a row per window (start, end, duration, the time
 * not recorded before it, and with G, may be NULL, the graph computes that began in it and
 * their records), the time not recorded after the last, then a row per mark (time, text);
 * the first MAX_ROWS of each. Nothing when opscope_win_any is false. */
void opscope_win_write_text(opscope_out_t *w, const opscope_capture_info *c, const opscope_graphs_t *g,
                            uint64_t first_ns, uint64_t last_ns, size_t max_rows);

/* A copy of a capture's windows and marks that outlives the read: INFO holds windowed,
 * start_ns, has, end_ns, died_ns and the arrays (its strings and run NULL). */
typedef struct opscope_win_copy {
    opscope_capture_info info;
    void *block; /* the windows, the marks and their texts, one allocation */
} opscope_win_copy;

/* Replaces K's copy with C's (NULL: none). 0, or -1 when out of memory (K then empty). */
int opscope_win_copy_take(opscope_win_copy *k, const opscope_capture_info *c);
/* Frees K's copy (K itself is the caller's; zeroed after). */
void opscope_win_copy_free(opscope_win_copy *k);

#endif /* OPSCOPE_WIN_OUT_H */
