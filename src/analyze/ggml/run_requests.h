/*
 * run_requests.h - a llama.cpp run's requests (llama-server's slots and their prompts), from
 * the llama_decode calls the capture saw (capture.run.decodes) and the per-graph aggregates
 * (internal; docs/metrics.md, "Requests").
 *
 * A request is a sequence's run of tokens from a new prompt (the capture numbers them:
 * docs/capture.md, "Requests"). Its prompt tokens are those up to and including its first
 * output, its generated tokens those decoded after it, its outputs the tokens it sampled. Its
 * graphs are those computed inside the calls it took part in; its op time is its share of
 * their op time by tokens (a call of 4 slots' tokens splits its graphs' time by each slot's
 * tokens). Prompt tokens/s: its prompt tokens over the time from the start of its first call
 * to the end of the call that gave its first output; generation tokens/s: its generated
 * tokens over the time from there to the end of its last call.
 * A warm-up is a request that generated nothing and whose context's memory was wiped before
 * the context's next call (that call is marked wiped: llama_memory_clear with its data):
 * llama.cpp's empty runs before serving (common_init_from_params', llama-server's own); a
 * client's conversation generates, and llama-bench's repetitions clear without data.
 * Ownership: results are the caller's (free with free()). Thread safety: pure.
 */
#ifndef OPSCOPE_RUN_REQUESTS_H
#define OPSCOPE_RUN_REQUESTS_H

#include "analyze/ggml/graphs.h"
#include "opscope.h"

#include <stdbool.h>

typedef struct opscope_run_request {
    uint32_t request;
    int32_t context, seq;
    uint64_t n_prompt, n_gen, n_outputs;
    uint64_t decodes, graphs;   /* calls it took part in; graphs of those calls in the profile */
    uint64_t op_ns;             /* its share of those graphs' op time */
    uint64_t start_ns, first_output_ns, end_ns;
    double prompt_ts, gen_ts;   /* 0 when not defined (no output yet, nothing generated) */
    uint32_t last_decode;       /* its last call (an index into decodes) */
    bool warmup;                /* llama.cpp's warm-up (above), not a client's request */
    uint8_t cut;                /* OPSCOPE_REQ_CUT_*: a capture window's edge cut it (below) */
} opscope_run_request;

/* Where a request is partial in a windowed profile (docs/metrics.md, "Windows and marks"):
 * START, it began before the profile saw it (no prompt token in its calls: its prompt was
 * decoded before the window opened; opscope_run_requests sets it); END, its sequence's last
 * request in a closed window whose last call ended less than two of its call intervals before
 * the window closed, so it was most likely still generating (opscope_run_requests_cut_by). */
enum { OPSCOPE_REQ_CUT_START = 1, OPSCOPE_REQ_CUT_END = 2 };

/* The calls and the graphs they computed, summed (the check that every token is in a graph). */
typedef struct opscope_run_decode_totals {
    uint64_t calls, failed;     /* calls; those that returned non-zero */
    uint64_t tokens, outputs;   /* of the calls that decoded */
    uint64_t graphs;            /* graph ids inside the calls that are in the profile */
    uint64_t missing_graphs;    /* graph ids inside the calls that are not (filtered, dropped) */
    uint64_t graph_tokens;      /* the batch (rows) of those graphs, summed */
    uint64_t mismatched;        /* decoded calls whose graphs' rows differ from their tokens */
    uint64_t lost;              /* calls the capture had no room for */
    uint64_t warmups;           /* requests that are warm-ups */
} opscope_run_decode_totals;

/* The requests of RUN (NULL: none) over G's graphs (finished; NULL: none linked), ordered by
 * request number: *OUT (malloc'd, NULL when none) and *N; TOT (may be NULL) receives the
 * totals. Returns 0, or -1 when out of memory. */
int opscope_run_requests(const opscope_run_info *run, const opscope_graphs_t *g,
                         opscope_run_request **out, size_t *n, opscope_run_decode_totals *tot);

/* Marks OPSCOPE_REQ_CUT_END on the requests of R (N of them) that CAP's closed windows cut
 * (above); nothing when CAP is NULL or not windowed. */
void opscope_run_requests_cut_by(opscope_run_request *r, size_t n, const opscope_capture_info *cap);

/* Moves the client requests of R (N of them, from opscope_run_requests) ahead of the
 * warm-ups, each part in request order, and returns how many are clients. */
size_t opscope_run_requests_clients_first(opscope_run_request *r, size_t n);

#endif /* OPSCOPE_RUN_REQUESTS_H */
