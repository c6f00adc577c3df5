/*
 * cap_life.h - the capture's lifecycle: start-up from the environment, export triggers
 * (scheduler freed, exit, SIGINT/SIGTERM/SIGHUP/SIGQUIT), fork and exec of children, disabling (internal).
 *
 * Environment:
 *   GGML_PROFILE        where the profile goes (cap_config.h); unset: capture off unless a
 *                       program turns it on through ggml-profiler.h
 *   OPSCOPE_MAX_MB      memory cap for records in MiB (default 512); past it records are
 *                       dropped and counted ("dropped_records" in the JSON)
 *   OPSCOPE_CLOCK       auto | tsc | monotonic
 *   OPSCOPE_FORMAT      json | txt: overrides the format the file name implies
 *   OPSCOPE_CHECKPOINT_MS  ms between checkpoints of a JSON profile while the program runs
 *                       (default 1000; 0 none): a crash or SIGKILL then leaves the last one
 *   OPSCOPE_STATS       1: one line of capture statistics on stderr at exit
 *   OPSCOPE_GRAPH_LOG   a path: one TSV line per backend graph compute (wall time, nodes)
 *   OPSCOPE_OWNER_PID   set by the first profiled process; a descendant that finds another
 *                       pid there writes to PATH.PID instead of PATH
 *   OPSCOPE_RECORD_DIR  set by `opscope record`: a directory of this run. The first ggml
 *                       process to create DIR/owner (holding its pid) owns PATH, the others
 *                       write PATH.PID, so sequential programs keep their profiles too. Each
 *                       profiling process keeps DIR/PID, key=value lines replaced atomically:
 *                       pid, program, state (recording | exporting (the final write) |
 *                       checkpoint (the last write while it runs; not final) | written | failed | off |
 *                       unrecorded: a plain fork child that computes),
 *                       path (or stderr/stdout), start_ns (CLOCK_MONOTONIC at its first
 *                       compute), records (written by the last export), written_before,
 *                       dropped, dropped_graphs, dropped_first, dropped_last, cap_mb, cause,
 *                       error (why a write failed or profiling is off). Write failures and
 *                       drops are then left for record to print.
 * Thread safety: every function may be called from any thread.
 */
#ifndef OPSCOPE_CAP_LIFE_H
#define OPSCOPE_CAP_LIFE_H

#include <stdatomic.h>
#include <stdbool.h>

/* True while records should be taken (set by init or the C API; cleared by disable/fork). */
extern _Atomic bool opscope_cap_on;
/* True when GGML_PROFILE asked for capture (every scheduler recorded by default). */
extern bool opscope_cap_env_mode;

/* Reads the environment once; idempotent. Returns opscope_cap_on. */
bool opscope_cap_life_init(void);

/* Turns capture on for programs using the C API (no automatic export destination). */
void opscope_cap_life_enable_api(void);

/* Called on the first record: starts the signal watcher (lazily, once). */
void opscope_cap_life_started(void);

/* Called for a compute that is not recorded because capture is off: in the child of a plain
 * fork of a profiled process, says once (record's status file, else stderr) that its graphs
 * are not profiled. Cheap otherwise. */
void opscope_cap_life_unrecorded(void);

/* Called by the library's _exit/_Exit: exports (bounded wait) before the process ends. */
void opscope_cap_life_exit_hook(void);

/* Turns capture off for good and prints WHY once on stderr ("opscope: WHY; profiling off"). */
void opscope_cap_life_disable(const char *why);

/* The automatic export (GGML_PROFILE destination). AT_EXIT false: a scheduler was freed
 * (files only; the console summary waits for exit). Never runs twice concurrently; skipped
 * when nothing new was recorded since the last one. */
void opscope_cap_life_export(bool at_exit);

#endif
