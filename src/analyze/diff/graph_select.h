/*
 * graph_select.h - which graph computes of an input are read (--batch, --graphs, diff's steady
 * state; analyze/ggml/graph_filter.h), for `opscope report`, `view`, `replay`, `diff` and the
 * Python package's diff alike. The command line's parsing and usage messages stay in
 * cli/select.h; this is the selection itself, its first pass and its note.
 *
 * Usage: opscope_graph_select_set per option, then per input opscope_graph_select_open (a
 * first pass over it for --batch, with the caller's reader) and opscope_graph_filter_sink in
 * front of the input's sinks; opscope_graph_select_close after the read. Ownership: a
 * selection owns its first pass's index. Thread safety: none.
 */
#ifndef OPSCOPE_GRAPH_SELECT_H
#define OPSCOPE_GRAPH_SELECT_H

#include "analyze/diff/diff_apart.h"
#include "analyze/ggml/graph_filter.h"
#include "analyze/ggml/graphs.h"

#include <stdbool.h>
#include <stdio.h>

typedef struct opscope_graph_select {
    const char *batch_spec, *graphs_spec; /* as given; NULL: not asked for */
    opscope_range batch, graphs;
    bool by_phase;                        /* --batch decode|prefill: a phase, not a range */
    opscope_graph_phase phase;
    bool steady;                          /* diff: warm-up, outliers and load left out (the
                                             filter's apart list is the command's to set) */
} opscope_graph_select;

/* One input's filter and the graph index of its first pass. */
typedef struct opscope_graph_selection {
    opscope_graph_filter filter;
    opscope_graphs_t *index; /* --batch: the input's graphs; owned */
    char desc[160];          /* "batch 1, graph ids 3-": for the outputs' headers */
} opscope_graph_selection;

/* True when S asks for a filter: --batch, --graphs or the steady state. */
static inline bool opscope_graph_select_filters(const opscope_graph_select *s) {
    return s->batch_spec || s->graphs_spec || s->steady;
}

/* True when S asks for --batch or --graphs. */
static inline bool opscope_graph_select_any(const opscope_graph_select *s) {
    return s->batch_spec || s->graphs_spec;
}

/* --batch (BATCH) or --graphs VAL (borrowed: it must outlive S) into S. Returns 0, or -1 when
 * VAL is no N, A-B, A- (nor decode or prefill for --batch); S unchanged then. */
int opscope_graph_select_set(opscope_graph_select *s, bool batch, const char *val);

/* F's choice of graphs as S asks (graph ids, batch, phase, steady), nothing else set. */
void opscope_graph_select_filter_init(const opscope_graph_select *s, opscope_graph_filter *f);

/* Prepares SEL for reading PATH under S (a first pass over PATH with READ for --batch).
 * Returns 0, or -1 with ERR filled (the file named). SEL is ready for
 * opscope_graph_select_close either way. */
int opscope_graph_select_open(const opscope_graph_select *s, const char *path, opscope_diff_read_fn read,
                              opscope_graph_selection *sel, opscope_error *err);

/* After the read: when nothing passed, says on MSG (NULL: nowhere) what PATH has (its batches
 * and graph ids, or that it has no graph ids), as "opscope CMD: ...". */
void opscope_graph_select_note(FILE *msg, const char *cmd, const opscope_graph_select *s, const char *path,
                               const opscope_graph_selection *sel);

void opscope_graph_select_close(opscope_graph_selection *sel);

#endif /* OPSCOPE_GRAPH_SELECT_H */
