/*
 * record_exec.h - a part of `opscope record` (internal): running the command like a shell
 * would: its start, its signals, its status (record_exec.c). Thread safety: single-threaded
 * (the CLI's main thread).
 */
#ifndef OPSCOPE_CLI_RECORD_EXEC_H
#define OPSCOPE_CLI_RECORD_EXEC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

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

/* Starts a fresh line on stderr when the command left its last line unfinished there (a
 * file: its last byte; a terminal or a pipe cannot be asked). */
void opscope_rec_fresh_line(void);

#endif /* OPSCOPE_CLI_RECORD_EXEC_H */
