/* diff_requests.c - diff's Requests section: llama requests (analyze/ggml/run_requests.h) paired
 * by their prompt and sampled tokens, in request order, their tokens/s side by side
 * (docs/diff.md, "Requests"). */
#include "analyze/ggml/run_requests.h"
#include "export/diff/diff_report.h"

/* Up to 4096 requests a side are paired (more are listed alone). */
enum { MAX_REQUESTS = 4096 };

typedef void (*row_fn)(opscope_out_t *w, const opscope_run_request *b, const opscope_run_request *n, bool first);

static void pairs(opscope_out_t *w, const opscope_diff_report_opts *o, row_fn row) {
    bool used[MAX_REQUESTS] = {false};
    bool first = true;
    for (size_t i = 0; i < o->n_requests[0]; i++) {
        const opscope_run_request *b = &o->requests[0][i], *n = NULL;
        for (size_t j = 0; j < o->n_requests[1] && j < MAX_REQUESTS && !n; j++) {
            const opscope_run_request *c = &o->requests[1][j];
            if (!used[j] && c->n_prompt == b->n_prompt && c->n_outputs == b->n_outputs) {
                used[j] = true;
                n = c;
            }
        }
        row(w, b, n, first);
        first = false;
    }
    for (size_t j = 0; j < o->n_requests[1]; j++)
        if (j >= MAX_REQUESTS || !used[j]) {
            row(w, NULL, &o->requests[1][j], first);
            first = false;
        }
}

static void fmt_ts(char *buf, size_t size, const opscope_run_request *r, bool gen) {
    if (r) snprintf(buf, size, "%.2f", gen ? r->gen_ts : r->prompt_ts);
    else snprintf(buf, size, "-");
}

static void text_row(opscope_out_t *w, const opscope_run_request *b, const opscope_run_request *n, bool first) {
    (void)first;
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

static void json_side(opscope_out_t *w, const char *key, const opscope_run_request *r) {
    opscope_out_printf(w, ",\"%s\":", key);
    if (!r) {
        opscope_out_str(w, "null");
        return;
    }
    opscope_out_printf(w, "{\"request\":%u,\"seq\":%d,\"n_gen\":%llu,\"graphs\":%llu,\"op_ns\":%llu,"
                          "\"prompt_ts\":%.17g,\"gen_ts\":%.17g}",
                       r->request, (int)r->seq, (unsigned long long)r->n_gen, (unsigned long long)r->graphs,
                       (unsigned long long)r->op_ns, r->prompt_ts, r->gen_ts);
}

static void json_row(opscope_out_t *w, const opscope_run_request *b, const opscope_run_request *n, bool first) {
    const opscope_run_request *r = b ? b : n;
    opscope_out_printf(w, "%s{\"n_prompt\":%llu,\"n_outputs\":%llu", first ? "" : ",\n",
                       (unsigned long long)r->n_prompt, (unsigned long long)r->n_outputs);
    json_side(w, "base", b);
    json_side(w, "new", n);
    if (b && n && b->gen_ts > 0) opscope_out_printf(w, ",\"gen_ts_change\":%.17g", (n->gen_ts - b->gen_ts) / b->gen_ts);
    if (b && n && b->prompt_ts > 0)
        opscope_out_printf(w, ",\"prompt_ts_change\":%.17g", (n->prompt_ts - b->prompt_ts) / b->prompt_ts);
    opscope_out_char(w, '}');
}

void opscope_diff_requests_write_json(opscope_out_t *w, const opscope_diff_report_opts *o) {
    if (!o->n_requests[0] || !o->n_requests[1]) return;
    opscope_out_str(w, ",\n\"requests\":[");
    pairs(w, o, json_row);
    opscope_out_char(w, ']');
}
