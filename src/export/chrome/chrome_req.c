/* chrome_req.c - a llama.cpp run's requests in the Chrome export (analyze/ggml/run_requests.h): a
 * process of their own, a thread per (context, sequence) (llama-server: per slot; requests of
 * different slots overlap, so they cannot share one), llama.cpp's warm-ups on a thread apart.
 * Each request is a slice from its first call's start to its last call's end (cat "request",
 * warm-ups "warmup") with its prompt and generation phases nested in it; one a capture
 * window's edge cut says so in its args ("partial"). */
#include "analyze/ggml/run_requests.h"
#include "export/chrome/chrome_state.h"
#include "export/fmt/json_fmt.h"

#include <stdio.h>
#include <stdlib.h>

int opscope_chrome_take_requests(opscope_chrome_t *c, const opscope_capture_info *cap) {
    const opscope_run_info *run = cap ? cap->run : NULL;
    free(c->reqs);
    c->reqs = NULL;
    c->n_reqs = 0;
    if (!run || !run->n_decodes) return 0;
    /* no graphs: the slices need the calls' times only */
    if (opscope_run_requests(run, NULL, &c->reqs, &c->n_reqs, NULL)) return c->oom = true, -1;
    opscope_run_requests_cut_by(c->reqs, c->n_reqs, cap);
    return 0;
}

/* The threads of the requests into TID (1 for warm-ups, else 2 + the index of the request's
 * (context, seq) in order of first sight: few pairs, contexts x slots) and the names'
 * requests into FIRST (per thread, the first request on it; FIRST[0..1] unused). Returns the
 * highest thread, 0 when out of memory. */
static uint32_t threads(const opscope_chrome_t *c, uint32_t *tid, size_t *first) {
    uint32_t n = 2;
    for (size_t i = 0; i < c->n_reqs; i++) {
        const opscope_run_request *r = &c->reqs[i];
        if (r->warmup) {
            tid[i] = 1;
            continue;
        }
        uint32_t t = 2;
        while (t < n && !(c->reqs[first[t]].context == r->context && c->reqs[first[t]].seq == r->seq)) t++;
        if (t == n) first[n++] = i;
        tid[i] = t;
    }
    return n - 1;
}

static void slice(opscope_chrome_t *c, json_fmt *f, const char *cat, const char *name, long pid,
                  uint32_t tid, uint64_t start, uint64_t end) {
    if (c->n_events++) jf_char(f, ',');
    jf_lit(f, "\n{\"ph\":\"X\",\"cat\":");
    jf_str(f, cat);
    jf_lit(f, ",\"name\":");
    jf_str(f, name);
    jf_key(f, "pid");
    jf_u64(f, (uint64_t)pid);
    jf_key(f, "tid");
    jf_u64(f, tid);
    jf_key(f, "ts");
    jf_ns_as_us(f, start);
    jf_key(f, "dur");
    jf_ns_as_us(f, end > start ? end - start : 0);
}

void opscope_chrome_write_requests(opscope_chrome_t *c, long pid) {
    if (!c->n_reqs) return;
    opscope_chrome_start(c);
    opscope_out_t *w = c->out;
    opscope_chrome_meta_event(c, "process_name", pid, -1);
    opscope_out_str(w, "\"name\":\"llama requests (libllama's batches: prompt, then generation)\"}}");
    opscope_chrome_meta_event(c, "process_sort_index", pid, -1);
    opscope_out_str(w, "\"sort_index\":-2}}"); /* above the backends: the run's story first */
    uint32_t *tids = malloc(c->n_reqs * sizeof *tids);
    size_t *first = malloc((c->n_reqs + 2) * sizeof *first);
    if (!tids || !first) {
        free(tids);
        free(first);
        c->oom = true;
        return;
    }
    uint32_t top = threads(c, tids, first);
    for (uint32_t t = 2; t <= top; t++) {
        const opscope_run_request *r = &c->reqs[first[t]];
        opscope_chrome_meta_event(c, "thread_name", pid, t);
        opscope_out_printf(w, "\"name\":\"context %d, seq %d\"}}", (int)r->context, (int)r->seq);
        opscope_chrome_meta_event(c, "thread_sort_index", pid, t);
        opscope_out_printf(w, "\"sort_index\":%u}}", (unsigned)t);
    }
    for (size_t i = 0; i < c->n_reqs; i++) {
        if (!c->reqs[i].warmup) continue;
        opscope_chrome_meta_event(c, "thread_name", pid, 1);
        opscope_out_str(w, "\"name\":\"warm-up (llama.cpp's empty runs, not requests)\"}}");
        break;
    }
    json_fmt f;
    jf_init(&f, w);
    for (size_t i = 0; i < c->n_reqs; i++) {
        const opscope_run_request *r = &c->reqs[i];
        uint32_t tid = tids[i];
        char name[64];
        snprintf(name, sizeof name, "%s %u (seq %d)", r->warmup ? "warm-up" : "request", r->request, (int)r->seq);
        slice(c, &f, r->warmup ? "warmup" : "request", name, pid, tid, r->start_ns, r->end_ns);
        jf_lit(&f, ",\"args\":{\"request\":");
        jf_u64(&f, r->request);
        jf_lit(&f, ",\"context\":");
        jf_i64(&f, r->context);
        jf_lit(&f, ",\"seq\":");
        jf_i64(&f, r->seq);
        jf_key(&f, "n_prompt");
        jf_u64(&f, r->n_prompt);
        jf_key(&f, "n_gen");
        jf_u64(&f, r->n_gen);
        jf_key(&f, "n_outputs");
        jf_u64(&f, r->n_outputs);
        jf_key(&f, "decodes");
        jf_u64(&f, r->decodes);
        if (r->warmup) jf_lit(&f, ",\"warmup\":true");
        /* a capture window's edge cut it: "start", "end" or "both", as the report's requests */
        static const char *const cut[] = {NULL, "start", "end", "both"};
        if (r->cut & 3) jf_key_str(&f, "partial", cut[r->cut & 3]);
        jf_lit(&f, "}}");
        /* the phases: the prompt up to the end of the call with the first output */
        uint64_t split = r->n_outputs && r->first_output_ns > r->start_ns ? r->first_output_ns : r->end_ns;
        slice(c, &f, "request_phase", "prompt", pid, tid, r->start_ns, split);
        jf_lit(&f, ",\"args\":{\"request\":");
        jf_u64(&f, r->request);
        jf_lit(&f, "}}");
        if (split < r->end_ns) {
            slice(c, &f, "request_phase", "generation", pid, tid, split, r->end_ns);
            jf_lit(&f, ",\"args\":{\"request\":");
            jf_u64(&f, r->request);
            jf_lit(&f, "}}");
        }
    }
    jf_flush(&f);
    free(tids);
    free(first);
}
