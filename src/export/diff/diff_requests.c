/* diff_requests.c - diff's Requests section: llama requests (analyze/ggml/run_requests.h) paired
 * by their prompt and sampled tokens, in request order, their tokens/s side by side
 * (docs/diff.md, "Requests"). */
#include "analyze/ggml/run_requests.h"
#include "export/diff/diff_report.h"
#include "export/fmt/json_fmt.h"

/* Up to 4096 requests a side are paired (more are listed alone). */
enum { MAX_REQUESTS = 4096 };

/* One pair's row (B or N NULL: the request of one side alone), onto CTX. */
typedef void (*row_fn)(void *ctx, const opscope_run_request *b, const opscope_run_request *n);

static void pairs(void *ctx, const opscope_diff_report_opts *o, row_fn row) {
    bool used[MAX_REQUESTS] = {false};
    for (size_t i = 0; i < o->n_requests[0]; i++) {
        const opscope_run_request *b = &o->requests[0][i], *n = NULL;
        for (size_t j = 0; j < o->n_requests[1] && j < MAX_REQUESTS && !n; j++) {
            const opscope_run_request *c = &o->requests[1][j];
            if (!used[j] && c->n_prompt == b->n_prompt && c->n_outputs == b->n_outputs) {
                used[j] = true;
                n = c;
            }
        }
        row(ctx, b, n);
    }
    for (size_t j = 0; j < o->n_requests[1]; j++)
        if (j >= MAX_REQUESTS || !used[j]) row(ctx, NULL, &o->requests[1][j]);
}

static void fmt_ts(char *buf, size_t size, const opscope_run_request *r, bool gen) {
    if (r) snprintf(buf, size, "%.2f", gen ? r->gen_ts : r->prompt_ts);
    else snprintf(buf, size, "-");
}

static void text_row(void *ctx, const opscope_run_request *b, const opscope_run_request *n) {
    opscope_out_t *w = ctx;
    const opscope_run_request *r = b ? b : n;
    char bp[32], np[32], bg[32], ng[32], chg[32] = "", seqs[32];
    fmt_ts(bp, sizeof bp, b, false);
    fmt_ts(np, sizeof np, n, false);
    fmt_ts(bg, sizeof bg, b, true);
    fmt_ts(ng, sizeof ng, n, true);
    if (b && n && b->gen_ts > 0) snprintf(chg, sizeof chg, "%+.1f%%", 100.0 * (n->gen_ts - b->gen_ts) / b->gen_ts);
    if (b && n) snprintf(seqs, sizeof seqs, "%d/%d", (int)b->seq, (int)n->seq);
    else if (b) snprintf(seqs, sizeof seqs, "%d/-", (int)b->seq);
    else snprintf(seqs, sizeof seqs, "-/%d", (int)n->seq);
    opscope_out_printf(w, " %8llu %8llu %9s %12s %12s %12s %12s %9s\n", (unsigned long long)r->n_prompt,
                       (unsigned long long)r->n_outputs, seqs, bp, np, bg, ng, chg);
}

void opscope_diff_requests_write_text(opscope_out_t *w, const opscope_diff_report_opts *o) {
    if (!o->n_requests[0] || !o->n_requests[1]) return;
    opscope_out_str(w, "\n --- Requests (llama; paired by prompt and sampled tokens, in request order) ---\n");
    opscope_out_printf(w, " %8s %8s %9s %12s %12s %12s %12s %9s\n", "prompt", "sampled", "seq B/N", "BASE pp t/s",
                       "NEW pp t/s", "BASE tg t/s", "NEW tg t/s", "tg change");
    pairs(w, o, text_row);
}

/* The member KEY: R's side of a pair (NULL: null). */
static void json_side(opscope_jw *j, const char *key, const opscope_run_request *r) {
    if (!opscope_jw_obj_or_null(j, key, r)) return;
    opscope_jw_u64(j, "request", r->request);
    opscope_jw_i64(j, "seq", r->seq);
    opscope_jw_u64(j, "n_gen", r->n_gen);
    opscope_jw_u64(j, "graphs", r->graphs);
    opscope_jw_u64(j, "op_ns", r->op_ns);
    opscope_jw_g17(j, "prompt_ts", r->prompt_ts);
    opscope_jw_g17(j, "gen_ts", r->gen_ts);
    opscope_jw_end_obj(j);
}

/* A pair as an item of the "requests" array (CTX: its writer), a line each after the first. */
static void json_row(void *ctx, const opscope_run_request *b, const opscope_run_request *n) {
    opscope_jw *j = ctx;
    const opscope_run_request *r = b ? b : n;
    if (j->comma) opscope_jw_nl(j);
    opscope_jw_item_obj(j);
    opscope_jw_u64(j, "n_prompt", r->n_prompt);
    opscope_jw_u64(j, "n_outputs", r->n_outputs);
    json_side(j, "base", b);
    json_side(j, "new", n);
    if (b && n && b->gen_ts > 0) opscope_jw_g17(j, "gen_ts_change", (n->gen_ts - b->gen_ts) / b->gen_ts);
    if (b && n && b->prompt_ts > 0) opscope_jw_g17(j, "prompt_ts_change", (n->prompt_ts - b->prompt_ts) / b->prompt_ts);
    opscope_jw_end_obj(j);
}

void opscope_diff_requests_write_json(opscope_out_t *w, const opscope_diff_report_opts *o) {
    if (!o->n_requests[0] || !o->n_requests[1]) return;
    opscope_jw j = opscope_jw_resume(w);
    opscope_jw_nl(&j);
    opscope_jw_arr(&j, "requests");
    pairs(&j, o, json_row);
    opscope_jw_end_arr(&j);
}
