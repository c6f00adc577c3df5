/*
 * record_session.h - a part of `opscope record` (internal): the run directory through which
 * the capture library says what each process wrote (record_session.c). Thread safety: single-
 * threaded (the CLI's main thread).
 */
#ifndef OPSCOPE_CLI_RECORD_SESSION_H
#define OPSCOPE_CLI_RECORD_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "cli/record/record_exec.h"

typedef struct opscope_rec_session opscope_rec_session_t;

/* Makes the run directory (under $TMPDIR or /tmp). OUTPATH: the absolute profile path, or
 * NULL with --format summary. Returns NULL with a message on stderr. */
opscope_rec_session_t *opscope_rec_session_new(const char *outpath);
const char *opscope_rec_session_dir(const opscope_rec_session_t *s);

/*
 * After the command ended: waits (bounded) for profiles still being written, gives PATH to
 * the earliest profile when its owner wrote none, and says on stderr where every process's
 * profile went, what it dropped, which could not be written and which were lost.
 * CMD: the command, ended (a death by a signal: its descendants may be writing theirs; its
 * own profile, when only a checkpoint of it is there, is told how it ended).
 * Every process gets one line. Returns the number of profiles missing at the end: could not
 * be written (full disk, folder removed, read-only), lost (a death before any write), or
 * written and then removed; 1 when the run left no profile at all (no ggml graph computed).
 * record's exit status does not depend on it unless --strict (record.c).
 */
int opscope_rec_session_report(opscope_rec_session_t *s, const opscope_rec_child *cmd);

/* Removes the run directory and frees S. NULL is a no-op. */
void opscope_rec_session_free(opscope_rec_session_t *s);

#endif /* OPSCOPE_CLI_RECORD_SESSION_H */
