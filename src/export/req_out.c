/* req_out.c - a llama.cpp run's requests, as text and JSON (see sections.h). */
#include "analyze/run_requests.h"
#include "export/sections.h"

#include <stdlib.h>

/* Rows of the console table; the JSON has every request. */
enum { MAX_ROWS = 32 };

static void write_totals_text(opscope_out_t *w, const opscope_run_decode_totals *t) {
    opscope_out_printf(w, " Batches:       %llu calls", (unsigned long long)t->calls);
    if (t->failed) opscope_out_printf(w, " (%llu returned an error)", (unsigned long long)t->failed);
    opscope_out_printf(w, ", %llu tokens, %llu outputs; their %llu graphs computed %llu rows\n",
                       (unsigned long long)t->tokens, (unsigned long long)t->outputs,
                       (unsigned long long)t->graphs, (unsigned long long)t->graph_tokens);
    if (t->mismatched)
        opscope_out_printf(w, " (%llu calls' graphs computed other than their tokens' rows)\n",
                           (unsigned long long)t->mismatched);
    if (t->missing_graphs)
        opscope_out_printf(w, " (%llu graphs computed inside the calls are not in the profile)\n",
                           (unsigned long long)t->missing_graphs);
    if (t->lost)
        opscope_out_printf(w, " (%llu calls past the capture's table are not counted)\n", (unsigned long long)t->lost);
}

int opscope_req_write_text(opscope_out_t *w, const opscope_stats_t *s, const opscope_graphs_t *g) {
    opscope_run_request *reqs;
    size_t n;
    opscope_run_decode_totals t;
    const opscope_run_info *run = opscope_stats_run(s);
    if (!run || !run->n_decodes) return 0;
    if (opscope_run_requests(run, g, &reqs, &n, &t)) return -1;
    opscope_out_str(w, "\n --- Requests (libllama's own batches: a sequence's tokens from a new prompt) ---\n");
    write_totals_text(w, &t);
    if (n)
        opscope_out_str(w, " request  ctx  seq   prompt  generated  sampled  calls  graphs       op ms  prompt t/s     gen t/s\n");
    for (size_t i = 0; i < n && i < MAX_ROWS; i++) {
        const opscope_run_request *r = &reqs[i];
        opscope_out_printf(w, " %7u %4d %4d %8llu %10llu %8llu %6llu %7llu %11.3f %11.2f %11.2f\n", r->request,
                           (int)r->context, (int)r->seq, (unsigned long long)r->n_prompt,
                           (unsigned long long)r->n_gen, (unsigned long long)r->n_outputs,
                           (unsigned long long)r->decodes, (unsigned long long)r->graphs,
                           (double)r->op_ns / 1e6, r->prompt_ts, r->gen_ts);
    }
    if (n > MAX_ROWS) opscope_out_printf(w, " ... %zu more requests (every one in --json)\n", n - MAX_ROWS);
    if (n)
        opscope_out_str(w, " (generated: tokens decoded after the first output; sampled: outputs, one token each;"
                           " op ms: the calls' graphs' op time shared by tokens)\n");
    free(reqs);
    return 0;
}

static void write_request_json(opscope_out_t *w, const opscope_run_request *r) {
    opscope_out_printf(w, "{\"request\":%u,\"context\":%d,\"seq\":%d", r->request, (int)r->context, (int)r->seq);
    const char *const k[] = {"n_prompt", "n_gen", "n_outputs", "decodes", "graphs", "op_ns",
                             "start_ns", "first_output_ns", "end_ns"};
    const uint64_t v[] = {r->n_prompt, r->n_gen, r->n_outputs, r->decodes, r->graphs, r->op_ns,
                          r->start_ns, r->first_output_ns, r->end_ns};
    for (size_t i = 0; i < sizeof v / sizeof *v; i++)
        opscope_out_printf(w, ",\"%s\":%llu", k[i], (unsigned long long)v[i]);
    opscope_out_printf(w, ",\"prompt_ts\":%.17g,\"gen_ts\":%.17g}", r->prompt_ts, r->gen_ts);
}

int opscope_req_write_json(opscope_out_t *w, const opscope_stats_t *s, const opscope_graphs_t *g) {
    opscope_run_request *reqs;
    size_t n;
    opscope_run_decode_totals t;
    const opscope_run_info *run = opscope_stats_run(s);
    if (!run || !run->n_decodes) return 0;
    if (opscope_run_requests(run, g, &reqs, &n, &t)) return -1;
    const char *const k[] = {"calls", "failed", "tokens", "outputs", "graphs", "missing_graphs",
                             "graph_tokens", "mismatched", "lost"};
    const uint64_t v[] = {t.calls, t.failed, t.tokens, t.outputs, t.graphs, t.missing_graphs,
                          t.graph_tokens, t.mismatched, t.lost};
    opscope_out_str(w, ",\n\"decodes\":{");
    for (size_t i = 0; i < sizeof v / sizeof *v; i++)
        opscope_out_printf(w, "%s\"%s\":%llu", i ? "," : "", k[i], (unsigned long long)v[i]);
    opscope_out_str(w, "},\n\"requests\":[");
    for (size_t i = 0; i < n; i++) {
        if (i) opscope_out_str(w, ",\n");
        write_request_json(w, &reqs[i]);
    }
    opscope_out_char(w, ']');
    free(reqs);
    return 0;
}
