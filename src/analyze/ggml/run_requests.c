/* run_requests.c - a llama.cpp run's requests (see run_requests.h). */
#include "analyze/ggml/run_requests.h"

#include <stdlib.h>
#include <string.h>

/* One sequence of one call: its call and its part. */
typedef struct part_ref {
    uint32_t request;
    uint32_t decode;
    const opscope_run_seq *q;
} part_ref;

static int by_request(const void *a, const void *b) {
    const part_ref *x = a, *y = b;
    if (x->request != y->request) return x->request < y->request ? -1 : 1;
    return x->decode < y->decode ? -1 : x->decode > y->decode;
}

/* A call's graphs: their count in the profile, rows and op time. */
typedef struct call_graphs {
    uint64_t graphs, rows, op_ns, part_tokens;
} call_graphs;

static void graphs_of(const opscope_run_decode *d, const opscope_graphs_t *g, call_graphs *c,
                      opscope_run_decode_totals *t) {
    memset(c, 0, sizeof *c);
    for (uint32_t i = 0; i < d->n_graphs; i++) {
        const opscope_graph_stats *s = g ? opscope_graphs_find(g, d->graph + (int64_t)i) : NULL;
        if (!s) {
            t->missing_graphs++;
            continue;
        }
        c->graphs++;
        c->rows += s->batch > 0 ? (uint64_t)s->batch : 0;
        c->op_ns += s->op_ns;
    }
    for (size_t i = 0; i < d->n_seqs; i++) c->part_tokens += d->seqs[i].n_tokens;
    t->graphs += c->graphs;
    t->graph_tokens += c->rows;
    if (d->ret == 0 && c->rows != d->n_tokens) t->mismatched++;
}

/* Adds part P of call D (graphs C) to request R (its calls come in call order). */
static void add_part(opscope_run_request *r, uint32_t at, const opscope_run_decode *d,
                     const opscope_run_seq *q, const call_graphs *c) {
    if (!r->decodes) {
        r->context = d->context;
        r->seq = q->seq;
        r->start_ns = d->start_ns;
    }
    r->decodes++;
    r->last_decode = at;
    r->graphs += c->graphs;
    if (c->part_tokens)
        r->op_ns += (uint64_t)((double)c->op_ns * (double)q->n_tokens / (double)c->part_tokens + 0.5);
    r->n_prompt += q->n_prompt;
    r->n_gen += q->n_tokens > q->n_prompt ? q->n_tokens - q->n_prompt : 0; /* after the first output */
    if (!r->n_outputs && q->n_outputs) r->first_output_ns = d->end_ns;
    r->n_outputs += q->n_outputs;
    if (d->end_ns > r->end_ns) r->end_ns = d->end_ns;
}

static void rates(opscope_run_request *r) {
    if (r->n_outputs && r->first_output_ns > r->start_ns)
        r->prompt_ts = (double)r->n_prompt * 1e9 / (double)(r->first_output_ns - r->start_ns);
    if (r->n_gen && r->end_ns > r->first_output_ns)
        r->gen_ts = (double)r->n_gen * 1e9 / (double)(r->end_ns - r->first_output_ns);
}

/* Marks the warm-ups among REQS (see run_requests.h): per call, whether its context's next
 * call is marked wiped, found walking the calls backwards. 0, or -1 out of memory. */
static int mark_warmups(const opscope_run_info *run, opscope_run_request *reqs, size_t nr,
                        opscope_run_decode_totals *t) {
    size_t nd = run ? run->n_decodes : 0;
    int32_t nctx = 0;
    for (size_t i = 0; i < nd; i++)
        if (run->decodes[i].context >= nctx) nctx = run->decodes[i].context + 1;
    /* per context: whether its call seen last (walking back) is wiped; slot 0 for unknown */
    uint8_t *next_wiped = calloc((size_t)nctx + 1, 1), *wiped_after = malloc(nd ? nd : 1);
    if (!next_wiped || !wiped_after) {
        free(next_wiped);
        free(wiped_after);
        return -1;
    }
    for (size_t i = nd; i-- > 0;) {
        const opscope_run_decode *d = &run->decodes[i];
        size_t c = d->context >= 0 ? (size_t)d->context + 1 : 0;
        wiped_after[i] = next_wiped[c];
        next_wiped[c] = d->wiped;
    }
    for (size_t k = 0; k < nr; k++) {
        opscope_run_request *r = &reqs[k];
        r->warmup = r->decodes && !r->n_gen && r->context >= 0 && wiped_after[r->last_decode];
        t->warmups += r->warmup;
        if (r->decodes && !r->n_prompt) r->cut |= OPSCOPE_REQ_CUT_START; /* its prompt came before */
    }
    free(next_wiped);
    free(wiped_after);
    return 0;
}

/* The window of CAP holding time T (the last that opened at or before it), or n_windows. */
static size_t window_at(const opscope_capture_info *cap, uint64_t t) {
    size_t w = cap->n_windows;
    for (size_t i = 0; i < cap->n_windows && cap->windows[i].start_ns <= t; i++) w = i;
    return w;
}

void opscope_run_requests_cut_by(opscope_run_request *r, size_t n, const opscope_capture_info *cap) {
    if (!cap || !cap->windowed) return;
    for (size_t i = 0; i < n; i++) {
        size_t w = window_at(cap, r[i].start_ns);
        if (w >= cap->n_windows || !cap->windows[w].end_ns || r[i].decodes < 2) continue;
        bool last = true; /* its sequence's last request in the window */
        for (size_t k = 0; k < n && last; k++)
            last = k == i || r[k].context != r[i].context || r[k].seq != r[i].seq || r[k].start_ns <= r[i].start_ns ||
                   window_at(cap, r[k].start_ns) != w;
        uint64_t gap = (r[i].end_ns - r[i].start_ns) / (r[i].decodes - 1), end = cap->windows[w].end_ns;
        if (last && end >= r[i].end_ns && end - r[i].end_ns < 2 * gap) r[i].cut |= OPSCOPE_REQ_CUT_END;
    }
}

int opscope_run_requests(const opscope_run_info *run, const opscope_graphs_t *g,
                         opscope_run_request **out, size_t *n, opscope_run_decode_totals *tot) {
    opscope_run_decode_totals t = {0};
    *out = NULL;
    *n = 0;
    size_t nd = run ? run->n_decodes : 0, np = 0;
    for (size_t i = 0; i < nd; i++) np += run->decodes[i].n_seqs;
    part_ref *parts = malloc((np ? np : 1) * sizeof *parts);
    call_graphs *calls = malloc((nd ? nd : 1) * sizeof *calls);
    if (!parts || !calls) {
        free(parts);
        free(calls);
        return -1;
    }
    np = 0;
    for (size_t i = 0; i < nd; i++) {
        const opscope_run_decode *d = &run->decodes[i];
        graphs_of(d, g, &calls[i], &t);
        t.calls++;
        if (d->ret != 0) {
            t.failed++;
            continue;
        }
        t.tokens += d->n_tokens;
        t.outputs += d->n_outputs;
        for (size_t k = 0; k < d->n_seqs; k++)
            parts[np++] = (part_ref){d->seqs[k].request, (uint32_t)i, &d->seqs[k]};
    }
    t.lost = run ? run->decodes_lost : 0;
    qsort(parts, np, sizeof *parts, by_request);
    size_t nr = 0;
    for (size_t i = 0; i < np; i++) nr += !i || parts[i].request != parts[i - 1].request;
    opscope_run_request *reqs = nr ? calloc(nr, sizeof *reqs) : NULL;
    if (nr && !reqs) {
        free(parts);
        free(calls);
        return -1;
    }
    for (size_t i = 0, k = (size_t)-1; i < np; i++) {
        if (!i || parts[i].request != parts[i - 1].request) reqs[++k].request = parts[i].request;
        add_part(&reqs[k], parts[i].decode, &run->decodes[parts[i].decode], parts[i].q, &calls[parts[i].decode]);
    }
    if (mark_warmups(run, reqs, nr, &t)) {
        free(reqs);
        free(parts);
        free(calls);
        return -1;
    }
    for (size_t k = 0; k < nr; k++) rates(&reqs[k]);
    free(parts);
    free(calls);
    if (tot) *tot = t;
    *out = reqs;
    *n = nr;
    return 0;
}

size_t opscope_run_requests_clients_first(opscope_run_request *r, size_t n) {
    size_t k = 0; /* r[0..k) are clients; r[k..i) warm-ups (few: a copy per client after one) */
    for (size_t i = 0; i < n; i++) {
        if (r[i].warmup) continue;
        if (i != k) {
            opscope_run_request c = r[i];
            memmove(&r[k + 1], &r[k], (i - k) * sizeof *r);
            r[k] = c;
        }
        k++;
    }
    return k;
}
