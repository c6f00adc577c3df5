/*
 * record_timer.h - a part of `opscope record` (internal): --delay and --duration, a capture
 * window opened and closed on time through the run's control channel (ctl_client.h), by a
 * helper process that dies with record (PR_SET_PDEATHSIG). Thread safety: the CLI's main
 * thread.
 */
#ifndef OPSCOPE_CLI_RECORD_TIMER_H
#define OPSCOPE_CLI_RECORD_TIMER_H

/* Starts the helper for the run in DIR: DELAY_S seconds after now (< 0: none) it sends start;
 * DURATION_S seconds (< 0: none) after the capture first records (at the start, or after the
 * delay, or a ctl start) it sends stop. A failed start is said on stderr (the run goes on).
 * Returns the helper's pid, or -1. */
long opscope_rec_timer_start(const char *dir, double delay_s, double duration_s);

#endif
