/* merge_json.c - the "merge" member of the merged profile's JSON (merge_json.h). */
#include "export/json/merge_json.h"
#include "export/fmt/json_fmt.h"

#include <stdbool.h>

/* The member KEY: V, or null when IS_NULL. */
static void i64_or_null(opscope_jw *j, const char *key, int64_t v, bool is_null) {
    if (is_null) opscope_jw_null(j, key);
    else opscope_jw_i64(j, key, v);
}

static void write_estimate(opscope_jw *j, const opscope_merge_process *x) {
    const opscope_align_result *r = x->estimate;
    bool no_lo = r->lo_ns == INT64_MIN;
    opscope_jw_str(j, "endpoint", x->endpoint);
    opscope_jw_i64(j, "estimate_ns", r->offset_ns);
    i64_or_null(j, "bound_lo_ns", r->lo_ns, no_lo);
    opscope_jw_i64(j, "bound_hi_ns", r->hi_ns);
    i64_or_null(j, "uncertainty_ns", (r->hi_ns - r->lo_ns) / 2, no_lo);
    opscope_jw_u64(j, "matched", r->n_matched);
    opscope_jw_u64(j, "used", r->n_used);
    opscope_jw_u64(j, "rejected", r->n_rejected);
    opscope_jw_u64(j, "waited", r->n_lower);
}

void opscope_merge_write_member(opscope_out_t *w, void *ud) {
    const opscope_merge_processes *m = ud;
    opscope_jw j = opscope_jw_resume(w);
    opscope_jw_nl(&j);
    opscope_jw_obj(&j, "merge");
    opscope_jw_arr(&j, "processes");
    for (size_t i = 0; i < m->n; i++) {
        const opscope_merge_process *x = &m->v[i];
        opscope_jw_nl(&j);
        opscope_jw_item_obj(&j);
        opscope_jw_str(&j, "label", x->label);
        opscope_jw_str(&j, "file", x->path);
        opscope_jw_str(&j, "role", x->server ? "server" : "client");
        opscope_jw_i64(&j, "backend_id_base", x->id_base);
        opscope_jw_i64(&j, "graph_id_base", x->graph_base);
        if (x->capture) {
            opscope_jw_obj(&j, "capture");
            opscope_json_write_capture_members(w, x->capture);
            opscope_jw_end_obj(&j);
        }
        opscope_jw_i64(&j, "offset_ns", x->offset_ns);
        opscope_jw_str(&j, "method", x->method);
        if (x->estimate) write_estimate(&j, x);
        opscope_jw_end_obj(&j);
    }
    opscope_jw_end_arr(&j);
    opscope_jw_end_obj(&j);
}
