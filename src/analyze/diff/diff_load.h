/*
 * diff_load.h - the two sides of a diff read and compared, as `opscope diff BASE NEW` does
 * (src/cli/diff.c) and the Python package's diff (src/py): each side's runs read (their
 * warm-up and outliers found in the read, or by a first pass when --batch or --graphs choose
 * too; read again when a guess failed), the kinds of input checked, the groups paired and
 * compared, and two traces' events per name over the chosen profiler steps. docs/diff.md.
 *
 * Ownership: a load owns its sides, its diff and what the outputs borrow from it
 * (opscope_diff_load_free); the options' paths and strings are borrowed and must outlive it.
 * Messages (the note on a selection that kept nothing) go to the options' MSG.
 * Thread safety: none (one load per thread).
 */
#ifndef OPSCOPE_DIFF_LOAD_H
#define OPSCOPE_DIFF_LOAD_H

#include "analyze/diff/diff.h"
#include "analyze/diff/diff_apart.h"
#include "analyze/diff/graph_select.h"
#include "analyze/diff/trace_ops.h"
#include "analyze/ggml/run_requests.h"
#include "analyze/ggml/run_tests.h"

#include <stdbool.h>
#include <stdio.h>

#define OPSCOPE_DIFF_MAX_INPUTS 64

/* A timeline fed with the whole first run of a side (the diff page's): OPEN makes side SIDE's
 * before its read (FIRST: that run's path) into *SINK, returns 0 or -1 (out of memory); DROP
 * frees it when the side is read again or the load is freed. */
typedef struct opscope_diff_timeline {
    int (*open)(void *ud, int side, const char *first, opscope_sink *sink);
    void (*drop)(void *ud, int side);
    void *ud;
} opscope_diff_timeline;

typedef struct opscope_diff_load_opts {
    const char *const *paths[2]; /* each side's runs ("-": stdin, at most one) */
    size_t n_in[2];              /* 1..OPSCOPE_DIFF_MAX_INPUTS each */
    unsigned keys;               /* --by (0: op) */
    const char *by;              /* --by as given (NULL: canonical) */
    bool tests_only, requests_only; /* --by test, --by request */
    opscope_diff_norm norm;
    double min_share, fail_pct, alpha; /* as opscope_diff_opts */
    bool merge_backends, include_warmup;
    opscope_graph_select select; /* --batch, --graphs (its STEADY is the load's to set) */
    opscope_trace_steps steps;   /* --steps (ALL: every profiler step) */
    opscope_diff_read_fn read;   /* every read (the CLI's shows progress) */
    FILE *msg;                   /* notes; NULL: none */
    const opscope_diff_timeline *timeline; /* NULL: none */
} opscope_diff_load_opts;

/* O's defaults: min_share 0.5, alpha 0.05, no regression check, every step, READ as given. */
void opscope_diff_load_opts_init(opscope_diff_load_opts *o, opscope_diff_read_fn read);

/* "auto", "none", "graph", "token", "iteration" into *OUT. Returns 0, or -1 when S is none. */
int opscope_diff_norm_parse(const char *s, opscope_diff_norm *out);

/* Warm-up apart (docs/diff.md): what each side's reads left out of the statistics. */
typedef struct opscope_diff_load_apart {
    bool on, stdin_read, no_graphs;
    const char *no_steady;       /* the first input without a steady graph (borrowed) */
    uint64_t graphs[2][3], records[2][3], ns[2][3];
} opscope_diff_load_apart;

/* What the outputs read of a load, per side (0 BASE, 1 NEW). */
typedef struct opscope_diff_load_view {
    const opscope_diff_t *d;
    const struct opscope_run_test *tests[2];
    size_t n_tests[2];
    const struct opscope_run_request *requests[2];
    size_t n_requests[2];
    const char *filter;          /* "batch 1": --batch or --graphs (NULL: neither) */
    uint64_t filter_kept[2], filter_records[2];
    opscope_diff_load_apart apart;
    const opscope_trace_ops_cmp *trace_ops; /* NULL: not two traces */
} opscope_diff_load_view;

typedef struct opscope_diff_load opscope_diff_load_t;

/* Reads and compares O's sides into *OUT (NULL on failure). Returns 0; -1 with ERR filled
 * (bad input, naming its file; out of memory); or 1 when the inputs cannot be compared as
 * asked, WHY (SIZE bytes) saying why ("--steps: ..." , a ggml profile against a trace). */
int opscope_diff_load(const opscope_diff_load_opts *o, opscope_diff_load_t **out, opscope_error *err, char *why,
                      size_t size);

void opscope_diff_load_free(opscope_diff_load_t *l);

/* What L holds for the outputs (valid while L lives). */
const opscope_diff_load_view *opscope_diff_load_get(const opscope_diff_load_t *l);

#endif /* OPSCOPE_DIFF_LOAD_H */
