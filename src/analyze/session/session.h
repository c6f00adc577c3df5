/*
 * session.h - one run of the analysis and its outputs (internal).
 *
 * A session owns what a run computes over its records: the stats, the per-graph aggregates,
 * the RPC calls, a trace's Kineto analysis and the graph filter in front of them; and the
 * outputs that run asked for, each one an opscope_output. Every command that reads records
 * into outputs (report, merge, diff, the capture's writer) is configuration of one session:
 *
 *   s = opscope_session_new(&opts);                the analyses
 *   opscope_session_add(s, &out);                  each output, in the order they finish
 *   sink = opscope_session_sink(s);                the read feeds this (filter, analyses,
 *   opscope_session_read_options(s, &ro);          outputs), and the trace collector
 *   opscope_session_finish(s, &err);               analyses, then each output's finish
 *   opscope_session_commit(s, on_done, ud);        each output made visible, in order
 *   opscope_session_free(s);                       aborts whatever was not committed
 *
 * An output's sink sees every record after the analyses' sinks, so nothing depends on the
 * order in which outputs are added except the order of their finish and commit steps. A
 * record's derived values (FLOPs, traffic, fused and display names: analyze/record/derived.h) are
 * computed once, by the stats or the first output that asks, and shared with the others.
 *
 * Ownership: the session owns its analyses and, from opscope_session_add on, each output
 * (exactly one of commit or abort, then release). It borrows the filter.
 * Thread safety: none; one session per thread.
 */
#ifndef OPSCOPE_SESSION_H
#define OPSCOPE_SESSION_H

#include "analyze/ggml/graph_filter.h"
#include "analyze/ggml/graphs.h"
#include "analyze/threads/threads.h"
#include "analyze/kineto/kineto.h"
#include "analyze/rpc/rpc_calls.h"
#include "analyze/ggml/stats.h"
#include "read/readers.h"

#include <stdbool.h>

typedef struct opscope_session opscope_session_t;

/* One output of a run: a sink fed while the input streams, then finish, commit or abort.
 * Implemented by every format (export/outputs/outputs.h); IMPL is the format's own handle. */
typedef struct opscope_output {
    const char *name; /* the option that asked for it ("--json"), for messages */
    const char *path; /* the file it writes ("-": stdout; NULL: none) */
    void *impl;
    opscope_sink sink;  /* its ud is IMPL's; callbacks may be NULL (fed nothing) */
    /* Called instead of sink.on_record (with sink.ud) when not NULL: the record with its
     * derived values (analyze/record/derived.h), made once per record for the stats and every output */
    opscope_derived_fn on_derived;
    bool kineto_links;  /* needs every kernel's links (opscope_kineto_links) */
    bool kineto_series; /* needs the queue and bandwidth series (opscope_kineto_keep_series) */
    bool cpath_marks;   /* needs the critical path's events and edges (opscope_cpath_keep_marks) */
    /* After the read and the analyses: writes what the session computed (may be NULL).
     * Returns 0, or -1 with ERR filled. */
    int (*finish)(void *impl, opscope_session_t *s, opscope_error *err);
    /* Makes the output visible (may be NULL: finish did). Returns 0, or -1 with ERR filled. */
    int (*commit)(void *impl, opscope_error *err);
    /* Frees IMPL; DISCARD: nothing was committed, leave nothing behind. */
    void (*release)(void *impl, bool discard);
    /* After its sink stopped the read: why, when the output knows (may be NULL). */
    const opscope_error *(*stopped)(const void *impl);
    /* Puts the output in front of a trace read's collector NEXT (may be NULL: it reads none);
     * returns the collector the read feeds, owned by IMPL. */
    opscope_kineto_collector *(*collector)(void *impl, opscope_kineto_collector *next);
    /* Says what was written, after a commit (may be NULL: the command's own line). */
    void (*say)(void *impl, const char *cmd, bool quiet);
} opscope_output;

typedef struct opscope_session_opts {
    opscope_stats_opts stats;
    bool no_stats;   /* no output reads the stats (view): the records skip them */
    bool graphs;     /* per-graph aggregates and their batches (NULL analysis on no memory) */
    bool rpc;        /* the RPC calls (merge, report) */
    bool kineto;     /* a trace's analysis: CPU ops, links, phases (report) */
    bool critical_path; /* with kineto: each step's critical path (report; view draws it) */
    bool no_sequences;  /* with kineto: no kernel sequences (opscope_kineto_skip_sequences) */
    const char *cpath_annotation; /* the path's windows: this annotation's instances instead of
                                     the steps (opscope_cpath_set_window; borrowed), or NULL */
    int64_t cpath_instance1;      /* 1 + the one window to keep (an instance of the annotation,
                                     else a profiler step by order); 0: every one */
    int hta_steps;                /* a trace read through HTA's profiler-step filter: an
                                     opscope_kineto_steps (read/kineto_filter.h; 0: none) */
    opscope_graph_filter *filter; /* borrowed; NULL: every record (its next is set here) */
    const char *filter_desc;      /* "batch 1": for the outputs' headers (borrowed) */
} opscope_session_opts;

/* Returns a new session, or NULL when out of memory (the stats, unless NO_STATS, could not
 * be made; the other analyses are simply absent then). OPTS is copied. */
opscope_session_t *opscope_session_new(const opscope_session_opts *opts);

/* Aborts and releases every output not committed, frees the analyses. NULL is a no-op. */
void opscope_session_free(opscope_session_t *s);

/* Takes O (copied) into S. Returns 0, or -1 when S holds OPSCOPE_SESSION_MAX outputs (O is
 * released, discarded). */
#define OPSCOPE_SESSION_MAX 10
int opscope_session_add(opscope_session_t *s, const opscope_output *o);

/* The sink the read feeds: the filter (when given), then the stats, the graphs, the RPC
 * calls and every output's sink. Call once, after the last add; valid until free. */
opscope_sink opscope_session_sink(opscope_session_t *s);

/* Fills RO's Kineto collector: the analysis, behind the outputs that see a trace's events
 * (none under a filter: a trace has no graph ids); and its step filter (hta_steps). */
void opscope_session_read_options(opscope_session_t *s, opscope_read_options *ro);

/* After a read that a sink stopped (OPSCOPE_ERROR_ABORTED): ERR says why (an output's reason,
 * else out of memory). */
void opscope_session_stopped(const opscope_session_t *s, opscope_error *err);

/* After the read: finishes the analyses, then each output in the order added. Returns 0, or
 * -1 with ERR filled; opscope_session_failed then names the output (NULL: an analysis). */
int opscope_session_finish(opscope_session_t *s, opscope_error *err);
const opscope_output *opscope_session_failed(const opscope_session_t *s);

/* Called for each output after its commit: ERR NULL on success. */
typedef void (*opscope_session_done_fn)(void *ud, const opscope_output *o, const opscope_error *err);

/* Commits every output in the order added (a failure does not stop the others), calling
 * DONE (may be NULL) for each, and releases them. Returns 0, or -1 when one failed. */
int opscope_session_commit(opscope_session_t *s, opscope_session_done_fn done, void *ud);

/* The analyses (borrowed; NULL when not asked for or out of memory; the stats are NULL
 * only under NO_STATS). Finished after
 * opscope_session_finish; the Kineto analysis is NULL until then and for non-trace input. */
opscope_stats_t *opscope_session_stats(const opscope_session_t *s);
opscope_graphs_t *opscope_session_graphs(const opscope_session_t *s);
/* Every CPU thread's work and wait at ggml's barriers (analyze/threads/threads.h); with the stats. */
opscope_threads_t *opscope_session_threads(const opscope_session_t *s);
opscope_rpc_t *opscope_session_rpc(const opscope_session_t *s);
const opscope_kineto_t *opscope_session_kineto(const opscope_session_t *s);
/* The critical path of each step of a trace (analyze/kineto/critical_path.h), after finish; NULL
 * for non-trace input, a trace without CPU or GPU events, or out of memory. */
typedef struct opscope_cpath opscope_cpath_t;
const opscope_cpath_t *opscope_session_cpath(const opscope_session_t *s);

/* The filter's description and counts (desc NULL: no filter). */
typedef struct opscope_session_filtered {
    const char *desc;
    uint64_t kept, records;
} opscope_session_filtered;
opscope_session_filtered opscope_session_filter(const opscope_session_t *s);

#endif /* OPSCOPE_SESSION_H */
