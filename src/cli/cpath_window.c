/* cpath_window.c - the critical path's window options (cpath_window.h). */
#include "cli/cpath_window.h"

#include "analyze/kineto/critical_path.h"
#include "cli/args.h"
#include "cli/cli.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

int opscope_cli_cpath_window_option(const char *cmd, opscope_cli_cpath_window *w, const char *name,
                                    const char *val) {
    if (!strcmp(name, "--critical-path-annotation")) {
        if (!*val) return opscope_cli_usage_error(cmd, "%s: expected an annotation's name", name);
        w->annotation = val;
        return OPSCOPE_EXIT_OK;
    }
    size_t i;
    if (!opscope_cli_parse_count(val, &i) || i > INT32_MAX)
        return opscope_cli_usage_error(cmd, "%s: expected an integer >= 0, got '%s'", name, val);
    w->instance = (int64_t)i;
    w->instance_set = true;
    return OPSCOPE_EXIT_OK;
}

int opscope_cli_cpath_window_check(const char *cmd, opscope_cli_cpath_window *w) {
    (void)cmd;
    if (!w->instance_set) w->instance = -1;
    return OPSCOPE_EXIT_OK;
}

bool opscope_cli_cpath_window_missing(const char *cmd, const char *input, const opscope_cli_cpath_window *w,
                                      const opscope_session_t *s) {
    if (!w->annotation && !w->instance_set) return false;
    const opscope_cpath_t *cp = opscope_session_cpath(s);
    size_t n = 0, have = opscope_cpath_window_count(cp);
    if (!cp || (opscope_cpath_steps(cp, &n) && n)) return false;
    if (!w->annotation)
        fprintf(stderr, "opscope %s: %s: no profiler step %" PRId64 " (--critical-path-instance counts the steps from 0)\n",
                cmd, input, w->instance);
    else if (!have)
        fprintf(stderr, "opscope %s: %s: no CPU annotation or op named '%s' (--critical-path-annotation)\n", cmd,
                input, w->annotation);
    else
        fprintf(stderr, "opscope %s: %s: no instance %" PRId64 " of '%s': it has %zu (0 to %zu)\n", cmd, input,
                w->instance, w->annotation, have, have - 1);
    return true;
}
