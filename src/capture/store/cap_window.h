/*
 * cap_window.h - capture windows and marks (internal; docs/capture.md, "Paused start and
 * opscope ctl"). A capture started paused (OPSCOPE_PAUSED=1) keeps nothing until a window
 * opens (opscope ctl start) and keeps nothing again once it closes (ctl stop). A window opens
 * and closes at graph-compute boundaries: a scheduler compute decides once, when it begins,
 * whether it is recorded (opscope_cap_window_enter), and a stop waits for the recorded
 * computes that began before it to end (opscope_cap_window_stop). Marks are instants with a
 * text. Both tables are fixed arrays (no heap), bounded by model/oplog_win.h's limits.
 *
 * Thread safety: opscope_cap_window_on is read by any thread; enter/leave from the computing
 * threads; start, stop, mark and the readers from any thread (one mutex, never held by a
 * compute).
 */
#ifndef OPSCOPE_CAP_WINDOW_H
#define OPSCOPE_CAP_WINDOW_H

#include "opscope.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* True while recording: always, unless the capture started paused or was stopped. The one
 * load a paused compute pays. */
extern _Atomic bool opscope_cap_window_on;

/* Sets the capture up paused (PAUSED: windowed, nothing recorded until a start) or recording
 * from the start (not windowed). At start-up, before the program's computes. */
void opscope_cap_window_init(bool paused);

/* True when the capture is windowed (it started paused, or a stop closed a window). */
bool opscope_cap_window_windowed(void);

/* A graph compute begins: true when it is recorded (a window is open), then the caller calls
 * opscope_cap_window_leave when it ended. One relaxed load when paused. */
static inline bool opscope_cap_window_enter(void) {
    extern _Atomic int opscope_cap_window_busy;
    if (!atomic_load_explicit(&opscope_cap_window_on, memory_order_relaxed)) return false;
    atomic_fetch_add(&opscope_cap_window_busy, 1);
    if (atomic_load(&opscope_cap_window_on)) return true;
    atomic_fetch_sub(&opscope_cap_window_busy, 1); /* a stop came between: not recorded */
    return false;
}

/* A recorded graph compute ended (after its records were written to the buffers). */
static inline void opscope_cap_window_leave(void) {
    extern _Atomic int opscope_cap_window_busy;
    atomic_fetch_sub(&opscope_cap_window_busy, 1);
}

/* Opens a window at NOW_NS (the capture's clock): the next graph compute to begin is
 * recorded. Returns 0, 1 when one was already open (nothing changes), or -1 when the table
 * holds OPSCOPE_WIN_MAX_WINDOWS windows (nothing opens). */
int opscope_cap_window_start(uint64_t now_ns);

/* Closes the open window: no compute begins recorded after this, and it returns once those
 * that began in the window have ended (at most WAIT_MS ms; then it returns 2, the window
 * closed but a compute was still running). The window's end is the clock then. Returns 0, 1
 * when none was open, or 2. */
int opscope_cap_window_stop(unsigned wait_ms);

/* A mark at NOW_NS with the LEN bytes at TEXT (cut at OPSCOPE_WIN_MAX_TEXT bytes, at a UTF-8
 * character boundary; control bytes become spaces). Returns 0, or -1 when the table is full. */
int opscope_cap_window_mark(uint64_t now_ns, const char *text, size_t len);

/* True when a call that began at T (the capture's clock) is inside a window: always when the
 * capture is not windowed. For the calls noted after they return (libllama's batches). */
bool opscope_cap_window_holds(uint64_t t);

/* A number that changes whenever a window or a mark is added or closed (the log writes its
 * chunk again then). */
uint64_t opscope_cap_window_gen(void);

/* Copies the windows (at most MAX_W) into W and the marks (at most MAX_M) into M, their
 * texts pointing into the table (valid for the process's life: a mark never changes once
 * added). *N_W and *N_M receive the table's counts (MAX 0: the counts alone; both tables
 * hold at most model/oplog_win.h's bounds, so a MAX of those copies all). Returns whether the
 * capture is windowed. */
bool opscope_cap_window_get(opscope_window *w, size_t max_w, size_t *n_w, opscope_mark *m, size_t max_m,
                            size_t *n_m);

/* Fills C's windowed/windows/marks from the table (arrays of the table's own, static). */
void opscope_cap_window_fill(opscope_capture_info *c);

#endif
