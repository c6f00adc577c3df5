/*
 * sections.h - the writers of the analyses' own sections (internal): the batch table of
 * analyze/ggml/graphs.h, the RPC tables of analyze/rpc/rpc_calls.h, the peak file of
 * analyze/ggml/roofline.h. The analyses compute; only export/ writes (ARCHITECTURE.md, Layers).
 * W is an open output (util/out.h) owned by the caller; the analyses are only read.
 * Thread safety: none beyond the output's.
 */
#ifndef OPSCOPE_SECTIONS_H
#define OPSCOPE_SECTIONS_H

#include "analyze/ggml/graphs.h"
#include "analyze/ggml/roofline.h"
#include "analyze/rpc/rpc_calls.h"
#include "analyze/ggml/stats.h"
#include "util/out.h"

/* What ran (run_out.c; docs/metrics.md, "What ran"): the command, the models, the BLAS and
 * the slow setups, one line each, for the summary's header (S's run; PEAK, may be NULL, for
 * the below-peak setup). */
void opscope_run_write_head(opscope_out_t *w, const opscope_stats_t *s, const opscope_peak *peak);
/* The tests table of a llama-bench run (llama-bench's columns, tokens/s, warm-up, top ops);
 * nothing when the run has no tests. Returns -1 when out of memory. */
int opscope_run_write_tests_text(opscope_out_t *w, const opscope_stats_t *s, const opscope_graphs_t *g);
/* The summary's "tests" and "notes" members (each after a comma; none when empty). -1: out
 * of memory. */
int opscope_run_write_json(opscope_out_t *w, const opscope_stats_t *s, const opscope_graphs_t *g,
                           const opscope_peak *peak);

/* A llama.cpp run's requests (req_out.c; docs/metrics.md, "Requests"): the llama_decode
 * totals, llama.cpp's warm-ups in one line, and one row per client request (the first MAX_ROWS);
 * nothing without decodes. G may be NULL. -1: out of memory. */
int opscope_req_write_text(opscope_out_t *w, const opscope_stats_t *s, const opscope_graphs_t *g,
                           size_t max_rows);
/* The summary's "decodes" (totals), "requests" (every client request) and "warmup_requests"
 * members, each after a comma; none without decodes. -1: out of memory. */
int opscope_req_write_json(opscope_out_t *w, const opscope_stats_t *s, const opscope_graphs_t *g);

/* The table of "Graphs by batch" as text, without its title: the first MAX_ROWS groups;
 * nothing without graphs. G finished. */
void opscope_graphs_write_text(opscope_out_t *w, const opscope_graphs_t *g, size_t max_rows);
/* The groups as a `,"graphs_by_batch":[...]` member of the JSON summary (docs/formats.md);
 * nothing without graphs. G finished. */
void opscope_graphs_write_json(opscope_out_t *w, const opscope_graphs_t *g);

/* The per-server table and the first MAX_CALLS calls, as text ("RPC servers" section);
 * nothing when the profile has no server. */
void opscope_rpc_write_text(opscope_out_t *w, const opscope_rpc_t *r, size_t max_calls);

/* The same figures, every call, as a `,"rpc":{"servers":[...],"calls":[...]}` member of the
 * JSON summary (docs/formats.md); nothing when the profile has no server. R finished. */
void opscope_rpc_write_json(opscope_out_t *w, const opscope_rpc_t *r);

/* Writes P as the peak file's JSON object (and a newline). */
void opscope_peak_write_json(opscope_out_t *w, const opscope_peak *p);

#endif /* OPSCOPE_SECTIONS_H */
