/*
 * select.h - the --batch and --graphs options of `opscope report`, `view`, `replay` and
 * `diff`: their parsing and usage messages, the same in every command, over the selection of
 * analyze/diff/graph_select.h (the first pass with the progress line, the note on stderr).
 *
 * Usage: opscope_cli_select_option for each option, opscope_cli_select_check once the operands
 * are known, then per input opscope_cli_select_open (a first pass over it for --batch) and
 * opscope_graph_filter_sink in front of the input's sinks; opscope_cli_select_close after the
 * read. Not thread safe.
 */
#ifndef OPSCOPE_CLI_SELECT_H
#define OPSCOPE_CLI_SELECT_H

#include "analyze/diff/graph_select.h"

#include <stdbool.h>

typedef opscope_graph_select opscope_cli_select;
typedef opscope_graph_selection opscope_cli_selection;

/* True when S asks for a filter: --batch, --graphs or the steady state. */
static inline bool opscope_cli_select_filters(const opscope_cli_select *s) { return opscope_graph_select_filters(s); }

/* True when S asks for --batch or --graphs. */
static inline bool opscope_cli_select_any(const opscope_cli_select *s) { return opscope_graph_select_any(s); }

/* Takes "--batch" or "--graphs" NAME with its value VAL into S. Returns a cli status
 * (cli/cli.h): 0, or the exit status after a usage message naming CMD. */
int opscope_cli_select_option(const char *cmd, opscope_cli_select *s, const char *name, const char *val);

/* After the operands: --batch reads each input twice, so none may be stdin. Returns a cli
 * status (cli/cli.h): 0, or the exit status of the usage error. */
int opscope_cli_select_check(const char *cmd, const opscope_cli_select *s, const char *const *inputs, int n);

/* Prepares SEL for reading PATH under S (a first pass over PATH with --batch, with progress
 * on a terminal). Returns 0, or -1 with ERR filled (the file named). SEL is ready for
 * opscope_cli_select_close either way. */
int opscope_cli_select_open(const opscope_cli_select *s, const char *path, opscope_cli_selection *sel,
                            opscope_error *err);

/* After the read: when nothing passed, says on stderr what PATH has (its batches and graph
 * ids, or that it has no graph ids). */
void opscope_cli_select_note(const char *cmd, const opscope_cli_select *s, const char *path,
                             const opscope_cli_selection *sel);

static inline void opscope_cli_select_close(opscope_cli_selection *sel) { opscope_graph_select_close(sel); }

#endif /* OPSCOPE_CLI_SELECT_H */
