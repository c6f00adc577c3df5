/* select.c - --batch and --graphs for report, view, replay and diff (select.h). */
#include "cli/select.h"

#include "cli/args.h"
#include "cli/cli.h"
#include "cli/progress.h"
#include "read/readers.h"

#include <stdio.h>
#include <string.h>

int opscope_cli_select_option(const char *cmd, opscope_cli_select *s, const char *name, const char *val) {
    bool batch = !strcmp(name, "--batch");
    if (opscope_graph_select_set(s, batch, val))
        return opscope_cli_usage_error(cmd, "%s: expected N, A-B or A- (%s >= 0)%s, got '%s'", name,
                                       batch ? "integers" : "graph ids", batch ? ", decode or prefill" : "", val);
    return OPSCOPE_EXIT_OK;
}

int opscope_cli_select_check(const char *cmd, const opscope_cli_select *s, const char *const *inputs, int n) {
    for (int i = 0; s->batch_spec && i < n; i++) {
        if (inputs[i] && !strcmp(inputs[i], "-"))
            return opscope_cli_usage_error(cmd, "--batch reads each input twice: it needs files, not stdin");
    }
    return OPSCOPE_EXIT_OK;
}

int opscope_cli_select_open(const opscope_cli_select *s, const char *path, opscope_cli_selection *sel,
                            opscope_error *err) {
    return opscope_graph_select_open(s, path, opscope_progress_read, sel, err);
}

void opscope_cli_select_note(const char *cmd, const opscope_cli_select *s, const char *path,
                             const opscope_cli_selection *sel) {
    opscope_graph_select_note(stderr, cmd, s, path, sel);
}
