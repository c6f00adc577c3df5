/* merge_json.c - the "merge" member of the merged profile's JSON (merge_json.h). */
#include "export/json/merge_json.h"
#include "export/fmt/json_fmt.h"

#include <stdbool.h>

static void write_i64_or_null(opscope_out_t *w, int64_t v, bool null) {
    if (null) opscope_out_str(w, "null");
    else opscope_out_i64(w, v);
}

static void write_estimate(opscope_out_t *w, const opscope_merge_process *x) {
    const opscope_align_result *r = x->estimate;
    bool no_lo = r->lo_ns == INT64_MIN;
    opscope_out_str(w, ",\"endpoint\":");
    opscope_out_json_str(w, x->endpoint);
    opscope_out_str(w, ",\"estimate_ns\":");
    opscope_out_i64(w, r->offset_ns);
    opscope_out_str(w, ",\"bound_lo_ns\":");
    write_i64_or_null(w, r->lo_ns, no_lo);
    opscope_out_str(w, ",\"bound_hi_ns\":");
    opscope_out_i64(w, r->hi_ns);
    opscope_out_str(w, ",\"uncertainty_ns\":");
    write_i64_or_null(w, (r->hi_ns - r->lo_ns) / 2, no_lo);
    opscope_out_printf(w, ",\"matched\":%zu,\"used\":%zu,\"rejected\":%zu,\"waited\":%zu",
                       r->n_matched, r->n_used, r->n_rejected, r->n_lower);
}

void opscope_merge_write_member(opscope_out_t *w, void *ud) {
    const opscope_merge_processes *m = ud;
    opscope_out_str(w, ",\n\"merge\":{\"processes\":[");
    for (size_t i = 0; i < m->n; i++) {
        const opscope_merge_process *x = &m->v[i];
        opscope_out_str(w, i ? ",\n" : "\n");
        opscope_out_str(w, "{\"label\":");
        opscope_out_json_str(w, x->label);
        opscope_out_str(w, ",\"file\":");
        opscope_out_json_str(w, x->path);
        opscope_out_str(w, ",\"role\":");
        opscope_out_str(w, x->server ? "\"server\"" : "\"client\"");
        opscope_out_str(w, ",\"backend_id_base\":");
        opscope_out_i64(w, x->id_base);
        opscope_out_str(w, ",\"graph_id_base\":");
        opscope_out_i64(w, x->graph_base);
        if (x->capture) {
            opscope_out_str(w, ",\"capture\":{");
            opscope_json_write_capture_members(w, x->capture);
            opscope_out_char(w, '}');
        }
        opscope_out_str(w, ",\"offset_ns\":");
        opscope_out_i64(w, x->offset_ns);
        opscope_out_str(w, ",\"method\":");
        opscope_out_json_str(w, x->method);
        if (x->estimate) write_estimate(w, x);
        opscope_out_char(w, '}');
    }
    opscope_out_str(w, "]}");
}
