/*
 * select.h - the --batch and --graphs options of `opscope report` and `opscope diff`: which
 * graph computes of an input are read (analyze/ggml/graph_filter.h), with the same messages in
 * both commands.
 *
 * Usage: opscope_cli_select_option for each option, opscope_cli_select_check once the operands
 * are known, then per input opscope_cli_select_open (a first pass over it for --batch) and
 * opscope_graph_filter_sink in front of the input's sinks; opscope_cli_select_close after the
 * read. Not thread safe.
 */
#ifndef OPSCOPE_CLI_SELECT_H
#define OPSCOPE_CLI_SELECT_H

#include "analyze/ggml/graph_filter.h"
#include "analyze/ggml/graphs.h"

#include <stdbool.h>

typedef struct opscope_cli_select {
    const char *batch_spec, *graphs_spec; /* as given; NULL: not asked for */
    opscope_range batch, graphs;
    bool by_phase;                        /* --batch decode|prefill: a phase, not a range */
    opscope_graph_phase phase;
    bool steady;                          /* diff: warm-up, outliers and load left out (the
                                             filter's apart list is the command's to set) */
} opscope_cli_select;

/* One input's filter and the graph index of its first pass. */
typedef struct opscope_cli_selection {
    opscope_graph_filter filter;
    opscope_graphs_t *index; /* --batch: the input's graphs; owned */
    char desc[160];          /* "batch 1, graph ids 3-": for the outputs' headers */
} opscope_cli_selection;

/* True when S asks for a filter: --batch, --graphs or the steady state. */
static inline bool opscope_cli_select_filters(const opscope_cli_select *s) {
    return s->batch_spec || s->graphs_spec || s->steady;
}

/* True when S asks for --batch or --graphs. */
static inline bool opscope_cli_select_any(const opscope_cli_select *s) {
    return s->batch_spec || s->graphs_spec;
}

/* Takes "--batch" or "--graphs" NAME with its value VAL into S. Returns a cli status
 * (cli/cli.h): 0, or the exit status after a usage message naming CMD. */
int opscope_cli_select_option(const char *cmd, opscope_cli_select *s, const char *name, const char *val);

/* After the operands: --batch reads each input twice, so none may be stdin. Returns a cli
 * status (cli/cli.h): 0, or the exit status of the usage error. */
int opscope_cli_select_check(const char *cmd, const opscope_cli_select *s, const char *const *inputs, int n);

/* F's choice of graphs as S asks (graph ids, batch, phase, steady), nothing else set. */
void opscope_cli_select_filter_init(const opscope_cli_select *s, opscope_graph_filter *f);

/* Prepares SEL for reading PATH under S (a first pass over PATH with --batch, with progress
 * on a terminal). Returns 0, or -1 with ERR filled (the file named). SEL is ready for
 * opscope_cli_select_close either way. */
int opscope_cli_select_open(const opscope_cli_select *s, const char *path, opscope_cli_selection *sel,
                            opscope_error *err);

/* After the read: when nothing passed, says on stderr what PATH has (its batches and graph
 * ids, or that it has no graph ids). */
void opscope_cli_select_note(const char *cmd, const opscope_cli_select *s, const char *path,
                             const opscope_cli_selection *sel);

void opscope_cli_select_close(opscope_cli_selection *sel);

#endif /* OPSCOPE_CLI_SELECT_H */
