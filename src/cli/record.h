/*
 * record.h - the parts of `opscope record` (internal): running the command like a shell
 * would (record_exec.c) and the run directory through which the capture library says what
 * each process wrote (record_session.c).
 * Thread safety: single-threaded (the CLI's main thread).
 */
#ifndef OPSCOPE_CLI_RECORD_H
#define OPSCOPE_CLI_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* ---- record_exec.c ---- */

typedef struct opscope_rec_child {
    pid_t pid;
    int exec_errno; /* set when the command could not be run (nothing else is then valid) */
    int status;     /* waitpid status, once it ended */
} opscope_rec_child;

/*
 * Starts ARGV (argv[0] looked up in PATH): in this process group when it is the foreground
 * group of a terminal, else in a process group of its own; it is killed (SIGKILL) when this
 * process dies. The signals record forwards are blocked here until opscope_rec_exec_wait. Returns 0, or -1 with exec_errno set
 * (the message is printed) when it cannot be run: then the exit status is
 * opscope_rec_exec_failed_status().
 */
int opscope_rec_exec_start(char **argv, opscope_rec_child *c);
int opscope_rec_exec_failed_status(const opscope_rec_child *c);

/*
 * Waits for the command to end. SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 and
 * SIGALRM that record receives are passed on to the command (to its process group when it
 * has its own), except those of the terminal while the command shares our foreground group
 * (it has them already) and those the command or its descendants sent.
 */
void opscope_rec_exec_wait(opscope_rec_child *c);

/* Waits up to MS milliseconds for one of those signals (after the command ended). Returns it,
 * or 0 when none came. */
int opscope_rec_exec_next_signal(int ms);

/* When STATUS is a death by a signal, dies by the same signal (no core dump of its own);
 * returns otherwise. */
void opscope_rec_exec_die_like(int status);

/* ---- record_lock.c ---- */

/* Takes OUTPATH (a buffer of SIZE bytes) for this record: an flock on ".NAME.opscope-lock"
 * beside it, released when the process ends. When another record holds it, OUTPATH becomes
 * the first free NAME-2.EXT, NAME-3.EXT... (unlocked, no such file), said on stderr, so both
 * keep their profile. Returns 0 (also when no lock file can be made: then unlocked), or -1
 * with the refusal printed when no name is free. */
int opscope_rec_lock(char *outpath, size_t size);

/* Removes the lock file and releases it. No-op when not locked. */
void opscope_rec_unlock(void);

/* ---- record_end.c ---- */

/* How a process that died by a signal ended, for its profile's capture "end": "crash"
 * (SIGSEGV, SIGABRT, SIGBUS...) or "killed", with *SIG its name ("SIGKILL"; NULL for a
 * signal without one here); NULL (and *SIG NULL) when STATUS is no death by a signal. */
const char *opscope_rec_end_how(int status, const char **sig);

/* Starts a fresh line on stderr when the command left its last line unfinished there (a
 * file: its last byte; a terminal or a pipe cannot be asked). */
void opscope_rec_fresh_line(void);

/* ---- record_session.c ---- */

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
 * Returns the number of profiles that could not be written.
 */
int opscope_rec_session_report(opscope_rec_session_t *s, const opscope_rec_child *cmd);

/* Removes the run directory and frees S. NULL is a no-op. */
void opscope_rec_session_free(opscope_rec_session_t *s);

#endif
