/* req_out.c - a llama.cpp run's requests, as text and JSON (see sections.h). */
#include "analyze/ggml/run_requests.h"
#include "export/sections/sections.h"
#include "export/fmt/json_fmt.h"

#include <stdlib.h>

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

/* The warm-ups (after the clients, see opscope_run_requests_clients_first): one line. */
static void write_warmups_text(opscope_out_t *w, const opscope_run_request *r, size_t n) {
    if (!n) return;
    uint64_t tokens = 0, ns = 0;
    for (size_t i = 0; i < n; i++) tokens += r[i].n_prompt, ns += r[i].end_ns - r[i].start_ns;
    opscope_out_printf(w, " Warm-up:       %zu request%s before serving (%llu tokens, %.3f ms; llama.cpp's empty"
                          " runs, their memory wiped after): not counted below\n",
                       n, n == 1 ? "" : "s", (unsigned long long)tokens, (double)ns / 1e6);
}

/* The run's requests (S's run over G's graphs), the clients' first: *N of them, then the
 * warm-ups up to *NALL. 1 when the run has no llama_decode calls (nothing to write), 0, or -1
 * when out of memory. *REQS is the caller's to free. */
static int client_requests(const opscope_stats_t *s, const opscope_graphs_t *g, opscope_run_request **reqs,
                           size_t *n, size_t *nall, opscope_run_decode_totals *t) {
    const opscope_run_info *run = opscope_stats_run(s);
    if (!run || !run->n_decodes) return 1;
    if (opscope_run_requests(run, g, reqs, nall, t)) return -1;
    const opscope_meta *m = opscope_stats_meta(s);
    opscope_run_requests_cut_by(*reqs, *nall, m ? m->capture : NULL);
    *n = opscope_run_requests_clients_first(*reqs, *nall);
    return 0;
}

/* A request a window's edge cut, at the end of its row (empty otherwise). */
static const char *cut_note(uint8_t cut) {
    static const char *const k[] = {"", "  partial: began before the window", "  partial: cut by the window's end",
                                    "  partial: both edges"};
    return k[cut & 3];
}

/* Its JSON value "partial" (NULL: whole). */
static const char *cut_word(uint8_t cut) {
    static const char *const k[] = {NULL, "start", "end", "both"};
    return k[cut & 3];
}

int opscope_req_write_text(opscope_out_t *w, const opscope_stats_t *s, const opscope_graphs_t *g,
                           size_t max_rows) {
    opscope_run_request *reqs;
    size_t n, nall;
    opscope_run_decode_totals t;
    int rc = client_requests(s, g, &reqs, &n, &nall, &t);
    if (rc) return rc < 0 ? -1 : 0;
    opscope_out_str(w, "\n --- Requests (libllama's own batches: a sequence's tokens from a new prompt) ---\n");
    write_totals_text(w, &t);
    write_warmups_text(w, reqs + n, nall - n);
    if (n)
        opscope_out_str(w, " request  ctx  seq   prompt  generated  sampled  calls  graphs       op ms  prompt t/s     gen t/s\n");
    for (size_t i = 0; i < n && i < max_rows; i++) {
        const opscope_run_request *r = &reqs[i];
        opscope_out_printf(w, " %7u %4d %4d %8llu %10llu %8llu %6llu %7llu %11.3f %11.2f %11.2f%s\n", r->request,
                           (int)r->context, (int)r->seq, (unsigned long long)r->n_prompt,
                           (unsigned long long)r->n_gen, (unsigned long long)r->n_outputs,
                           (unsigned long long)r->decodes, (unsigned long long)r->graphs,
                           (double)r->op_ns / 1e6, r->prompt_ts, r->gen_ts, cut_note(r->cut));
    }
    if (n > max_rows) opscope_out_printf(w, " ... %zu more requests (every one in --json and --text)\n", n - max_rows);
    if (n)
        opscope_out_str(w, " (generated: tokens decoded after the first output; sampled: outputs, one token each;"
                           " op ms: the calls' graphs' op time shared by tokens)\n");
    free(reqs);
    return 0;
}

static void write_request_json(opscope_jw *j, const opscope_run_request *r) {
    opscope_jw_item_obj(j);
    opscope_jw_u64(j, "request", r->request);
    opscope_jw_i64(j, "context", r->context);
    opscope_jw_i64(j, "seq", r->seq);
    const char *const k[] = {"n_prompt", "n_gen", "n_outputs", "decodes", "graphs", "op_ns",
                             "start_ns", "first_output_ns", "end_ns"};
    const uint64_t v[] = {r->n_prompt, r->n_gen, r->n_outputs, r->decodes, r->graphs, r->op_ns,
                          r->start_ns, r->first_output_ns, r->end_ns};
    for (size_t i = 0; i < sizeof v / sizeof *v; i++) opscope_jw_u64(j, k[i], v[i]);
    opscope_jw_g17(j, "prompt_ts", r->prompt_ts);
    opscope_jw_g17(j, "gen_ts", r->gen_ts);
    if (r->warmup) opscope_jw_bool(j, "warmup", true);
    if (r->cut) opscope_jw_str(j, "partial", cut_word(r->cut));
    opscope_jw_end_obj(j);
}

/* The member KEY: requests R[FROM..TO), a line each after the first. */
static void requests_json(opscope_jw *j, const char *key, const opscope_run_request *r, size_t from, size_t to) {
    opscope_jw_arr(j, key);
    for (size_t i = from; i < to; i++) {
        if (i > from) opscope_jw_nl(j);
        write_request_json(j, &r[i]);
    }
    opscope_jw_end_arr(j);
}

int opscope_req_write_json(opscope_out_t *w, const opscope_stats_t *s, const opscope_graphs_t *g) {
    opscope_run_request *reqs;
    size_t n, nall;
    opscope_run_decode_totals t;
    int rc = client_requests(s, g, &reqs, &n, &nall, &t);
    if (rc) return rc < 0 ? -1 : 0;
    const char *const k[] = {"calls", "failed", "tokens", "outputs", "graphs", "missing_graphs",
                             "graph_tokens", "mismatched", "lost", "warmups"};
    const uint64_t v[] = {t.calls, t.failed, t.tokens, t.outputs, t.graphs, t.missing_graphs,
                          t.graph_tokens, t.mismatched, t.lost, t.warmups};
    opscope_jw j = opscope_jw_resume(w);
    opscope_jw_nl(&j);
    opscope_jw_obj(&j, "decodes");
    for (size_t i = 0; i < sizeof v / sizeof *v; i++) opscope_jw_u64(&j, k[i], v[i]);
    opscope_jw_end_obj(&j);
    opscope_jw_nl(&j);
    requests_json(&j, "requests", reqs, 0, n);
    /* llama.cpp's warm-ups apart: not client requests */
    opscope_jw_nl(&j);
    requests_json(&j, "warmup_requests", reqs, n, nall);
    free(reqs);
    return 0;
}
