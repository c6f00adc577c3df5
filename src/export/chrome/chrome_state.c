/* chrome_state.c - the document's start and the metadata events (chrome_state.h). */
#include "export/chrome/chrome_state.h"

void opscope_chrome_start(opscope_chrome_t *c) {
    if (c->started) return;
    c->started = true;
    opscope_out_str(c->out, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[");
}

void opscope_chrome_meta_event(opscope_chrome_t *c, const char *what, long pid, long tid) {
    opscope_out_t *w = c->out;
    if (c->n_events++) opscope_out_char(w, ',');
    opscope_out_str(w, "\n{\"ph\":\"M\",\"name\":\"");
    opscope_out_str(w, what);
    opscope_out_str(w, "\",\"pid\":");
    opscope_out_u64(w, (uint64_t)pid);
    if (tid >= 0) {
        opscope_out_str(w, ",\"tid\":");
        opscope_out_u64(w, (uint64_t)tid);
    }
    opscope_out_str(w, ",\"args\":{");
}
