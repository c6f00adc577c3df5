/*
 * cap_ctl.h - the capture's control channel (internal; docs/capture.md, "Paused start and
 * opscope ctl"): a UNIX stream socket DIR/ctl.PID in the run's folder of `opscope record`
 * (OPSCOPE_RECORD_DIR), mode 0600, served by the watcher thread (cap_life.c) between its
 * checkpoints. One command per connection, one line each way:
 *   start        -> "ok started N"   the next graph compute is recorded (window N, from 1)
 *   stop         -> "ok stopped N"   the computes begun in the window have ended
 *   mark TEXT    -> "ok marked N"
 *   status       -> "ok paused|recording windows=N marks=M"
 * or "err WHY". A peer of another uid (SO_PEERCRED) is refused; a peer that sends nothing
 * within CTL_READ_MS, sends garbage or goes away mid-command is answered "err ..." (or
 * dropped) and never holds the watcher longer. Nothing here calls the heap (the watcher's
 * rule): syscalls, stack buffers and the window table (store/cap_window.h).
 *
 * Thread safety: open from start-up, unlink from the final export; fd and serve from the
 * watcher thread only; the wake pipe's write from anywhere, a signal handler included.
 */
#ifndef OPSCOPE_CAP_CTL_H
#define OPSCOPE_CAP_CTL_H

#include <stdbool.h>
#include <stddef.h>

/* Opens the socket in DIR (the process's pid names it) and the wake pipe. Returns 0, or -1
 * with nothing open (then WHY, of WHY_SIZE bytes, says why: a path too long for a socket, a
 * bind refused). */
int opscope_cap_ctl_open(const char *dir, char *why, size_t why_size);

/* The listening socket (-1 when not open) and the wake pipe's read end (-1 when none): what
 * the watcher polls. */
int opscope_cap_ctl_fd(void);
int opscope_cap_ctl_wake_fd(void);

/* Wakes the watcher's poll (async-signal-safe: one write(2)). */
void opscope_cap_ctl_wake(void);

/* Drains the wake pipe. */
void opscope_cap_ctl_drain(void);

/* Accepts and answers the connections waiting (never blocks longer than CTL_READ_MS per
 * peer). */
void opscope_cap_ctl_serve(void);

/* Removes the socket's file (the process is ending: no new peer finds it). The socket itself
 * stays open to the end, so the watcher never polls a descriptor that was closed under it. */
void opscope_cap_ctl_unlink(void);

#endif
