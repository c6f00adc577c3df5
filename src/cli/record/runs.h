/*
 * runs.h - the captures running on this machine, found in /proc (opscope top, opscope ctl):
 * a process of this user (owned by this uid: root sees only its own runs too) whose
 * environment has GGML_PROFILE naming a file and the capture (OPSCOPE_RECORD_DIR, set by
 * `opscope record`, or LD_PRELOAD naming libopscope). The environment is what the capture
 * itself reads, so a program started with GGML_PROFILE alone is found too, and no file is
 * added to a run to find it.
 *
 * Ownership: the caller's buffers. Thread safety: none needed (reads /proc only).
 */
#ifndef OPSCOPE_CLI_RECORD_RUNS_H
#define OPSCOPE_CLI_RECORD_RUNS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct opscope_found_run {
    long pid;
    char path[PATH_MAX]; /* its output, absolute */
    char dir[PATH_MAX];  /* its record run's folder (OPSCOPE_RECORD_DIR), "" outside record */
} opscope_found_run;

/* The value of NAME= in /proc/PID/environ, copied into OUT (SIZE bytes); false when absent or
 * unreadable (another user's process, one gone). */
bool opscope_runs_env_of(long pid, const char *name, char *out, size_t size);

/* PID's capture output: GGML_PROFILE naming a file (made absolute from the process's cwd),
 * when the process is this user's and runs the capture. False otherwise. */
bool opscope_runs_capture_of(long pid, char *out, size_t size);

/* PID's parent (-1 when unknown). */
long opscope_runs_parent_of(long pid);

/* The captures running (of PARENT's children when PARENT > 0), one per output path, into RUNS
 * (room for MAX). Returns how many were found (may exceed MAX: the rest not kept). */
size_t opscope_runs_find(long parent, opscope_found_run *runs, size_t max);

#endif
