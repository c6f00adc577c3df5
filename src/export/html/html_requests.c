/* html_requests.c - a llama.cpp run's requests for the viewer (see html_requests.h). */
#include "export/html/html_requests.h"
#include "export/fmt/json_fmt.h"

int opscope_html_requests_take(const opscope_capture_info *cap, opscope_run_request **out, size_t *n) {
    const opscope_run_info *run = cap ? cap->run : NULL;
    *out = NULL;
    *n = 0;
    if (!run || !run->n_decodes) return 0;
    /* no graphs: the page needs the calls' times and tokens only */
    if (opscope_run_requests(run, NULL, out, n, NULL)) return -1;
    opscope_run_requests_cut_by(*out, *n, cap);
    return 0;
}

/* NS after T0, signed (a warm-up's first call starts before the first record). */
static int64_t rel(uint64_t ns, uint64_t t0) {
    return ns >= t0 ? (int64_t)(ns - t0) : -(int64_t)(t0 - ns);
}

void opscope_html_requests_write(opscope_out_t *w, const opscope_run_request *r, size_t n, uint64_t t0) {
    if (!n) return;
    static const char *const cols[] = {"request", "context", "seq", "start", "prompt_end", "end",
                                       "n_prompt", "n_gen", "decodes", "warmup", "partial"};
    opscope_jw j = opscope_jw_resume(w);
    opscope_jw_obj(&j, "requests");
    for (size_t c = 0; c < sizeof cols / sizeof *cols; c++) {
        opscope_jw_arr(&j, cols[c]);
        for (size_t i = 0; i < n; i++) {
            const opscope_run_request *q = &r[i];
            /* the prompt phase ends with the call that gave the first output (else: all prompt) */
            uint64_t pe = q->n_outputs && q->first_output_ns > q->start_ns ? q->first_output_ns : q->end_ns;
            switch (c) {
            case 0: opscope_jw_item_u64(&j, q->request); break;
            case 1: opscope_jw_item_i64(&j, q->context); break;
            case 2: opscope_jw_item_i64(&j, q->seq); break;
            case 3: opscope_jw_item_i64(&j, rel(q->start_ns, t0)); break;
            case 4: opscope_jw_item_i64(&j, rel(pe, t0)); break;
            case 5: opscope_jw_item_i64(&j, rel(q->end_ns, t0)); break;
            case 6: opscope_jw_item_u64(&j, q->n_prompt); break;
            case 7: opscope_jw_item_u64(&j, q->n_gen); break;
            case 8: opscope_jw_item_u64(&j, q->decodes); break;
            case 9: opscope_jw_item_u64(&j, q->warmup ? 1 : 0); break;
            default: opscope_jw_item_u64(&j, q->cut & 3); break; /* OPSCOPE_REQ_CUT_* bits */
            }
        }
        opscope_jw_end_arr(&j);
    }
    opscope_jw_end_obj(&j);
}
