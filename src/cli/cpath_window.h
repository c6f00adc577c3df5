/*
 * cpath_window.h - the --critical-path-annotation and --critical-path-instance options of
 * `opscope report` and `opscope view`: which windows a trace's critical path is computed over
 * (analyze/kineto/critical_path.h, opscope_cpath_set_window), with the same messages in both.
 *
 * Usage: opscope_cli_cpath_window_option for each option, opscope_cli_cpath_window_check once
 * the operands are known, the annotation and instance into opscope_session_opts, then
 * opscope_cli_cpath_window_missing after the session's finish. Not thread safe.
 */
#ifndef OPSCOPE_CLI_CPATH_WINDOW_H
#define OPSCOPE_CLI_CPATH_WINDOW_H

#include "analyze/session/session.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct opscope_cli_cpath_window {
    const char *annotation; /* as given (borrowed); NULL: the profiler steps */
    int64_t instance;       /* -1: every instance (after the check) */
    bool instance_set;
} opscope_cli_cpath_window;

/* The help lines of the two options. */
#define OPSCOPE_CLI_CPATH_WINDOW_HELP                                                          \
    "  --critical-path-annotation NAME\n"                                                      \
    "                         a trace's critical path over each instance of the\n"            \
    "                         annotation NAME (a record_function range or op, its\n"          \
    "                         whole name) instead of each profiler step, as HTA's\n"          \
    "  --critical-path-instance I\n"                                                           \
    "                         only instance I of it, or profiler step I without it\n"        \
    "                         (0 = the first by start)\n"

/* Option NAME ("--critical-path-annotation" or "--critical-path-instance") with VAL into W.
 * Returns a cli status (cli/cli.h): 0, or the exit status of a usage error (said on stderr, as
 * CMD's). */
int opscope_cli_cpath_window_option(const char *cmd, opscope_cli_cpath_window *w, const char *name,
                                    const char *val);

/* After the options: the instance is -1 (every one) when not given. Returns a cli status
 * (cli/cli.h): 0, or a usage error's exit status. */
int opscope_cli_cpath_window_check(const char *cmd, opscope_cli_cpath_window *w);

/* After S's finish, with an annotation or an instance: whether INPUT lacks the window asked
 * for (said on stderr as CMD's: no such annotation, the instances it has, or no such step). */
bool opscope_cli_cpath_window_missing(const char *cmd, const char *input, const opscope_cli_cpath_window *w,
                                      const opscope_session_t *s);

#endif /* OPSCOPE_CLI_CPATH_WINDOW_H */
