/*
 * replay_run.h - running test-backend-ops on an exported graph-op file, for `opscope replay`.
 *
 * Each line of the file gets a result per backend: the isolated time per call, or why there
 * is none (not supported by the backend, test-backend-ops failed or crashed on it, it built
 * another op than the one exported). The file written for the run names every line
 * "L<index>_<tensor name>", so each result is joined to its line by the name test-backend-ops
 * echoes, never by position: a test that fails without a result shifts nothing. A crash
 * (a GGML_ASSERT in a backend) or a hang ends the run; it is restarted after the line that
 * crashed or hung.
 *
 * Ownership: the caller owns the results array. Thread safety: none (it spawns processes).
 */
#ifndef OPSCOPE_REPLAY_RUN_H
#define OPSCOPE_REPLAY_RUN_H

#include "export/replay/ops_export.h"
#include "export/replay/replay_out.h" /* opscope_replay_result */

#include <stdbool.h>
#include <stdint.h>

/* The test-backend-ops to run: GIVEN when not NULL (must be executable), else the first
 * `test-backend-ops` in PATH, else Debian's /usr/libexec/<multiarch>/llama.cpp-tests/ and
 * /usr/libexec/<multiarch>/ggml/. Copies it into BUF (SIZE bytes); returns false (and prints
 * why on stderr) when there is none. */
bool replay_find_tbo(const char *given, char *buf, size_t size);

/* Runs `TBO MODE --test-file ... -b BACKEND --output sql` over every line of X (in DIR, a
 * private temporary folder) and fills RES[i] for line i (n = opscope_ops_export_n_lines).
 * A run that prints nothing for TIMEOUT_S seconds (> 0; 0: no limit) is killed, the line
 * after its last result is marked failed ("timed out") and the run goes on after it, as
 * after a crash. PROGRESS: one updating line on stderr. Returns 0, or -1 when test-backend-ops
 * ran nothing at all on BACKEND (no such device; the reason printed on stderr). */
int replay_run_backend(const char *tbo, const char *mode, const char *dir,
                       const opscope_ops_export_t *x, const char *backend, opscope_replay_result *res,
                       double timeout_s, bool progress);

#endif /* OPSCOPE_REPLAY_RUN_H */
