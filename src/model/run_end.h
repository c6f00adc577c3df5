/*
 * run_end.h - how the profiled program ended, as its profile says (capture "end",
 * docs/formats.md): whether the capture saw the end, and the one sentence every output
 * prints for a run it did not see end (console, text report, JSON summary, viewer).
 * Thread safety: pure functions of their arguments. NULL handling: a NULL capture (a
 * profile that does not say) is an end not known.
 */
#ifndef OPSCOPE_RUN_END_H
#define OPSCOPE_RUN_END_H

#include "opscope.h"

#include <stdbool.h>
#include <stddef.h>

/* Whether C's end is known and the capture did not see it: the profile is the last write made
 * while the program ran ("checkpoint"), or record saw it die after that write ("killed",
 * "crash"); records made after that write are missing. False for "exit", "signal" (the
 * capture caught the signal and wrote the profile before the death) and an unknown end. */
bool opscope_run_end_partial(const opscope_capture_info *c);

/* Whether C says an end at all (capture.end.how present). */
bool opscope_run_end_known(const opscope_capture_info *c);

/*
 * Writes into BUF (SIZE bytes, NUL-terminated, cut to fit) the one sentence that says how
 * the program ended, without a trailing newline or period:
 *   "llama-completion was killed by SIGKILL 61.44 s after the capture's last write; the
 *    capture did not see the end: records made after that write, if any, are missing"
 * (crashed with SIGSEGV; "was written while PROG ran (a checkpoint) and not again: killed,
 * crashed or still running"; "ended by SIGTERM, caught: the profile is whole"; "exited").
 * Returns the sentence's length, 0 (BUF "") when the end is not known.
 */
size_t opscope_run_end_text(const opscope_capture_info *c, char *buf, size_t size);

#endif /* OPSCOPE_RUN_END_H */
