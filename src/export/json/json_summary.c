/* json_summary.c - the "summary" member of the JSON export (json_summary.h): the report's
 * numbers of a finished stats analysis, op groups with their traffic and roofline, backends,
 * devices and top kernels, then the RPC, graph, run and request sections. */
#include "export/json/json_summary.h"
#include "export/sections/sections.h"
#include "analyze/ggml/graphs.h"
#include "analyze/ggml/warm_ops.h"
#include "analyze/rpc/rpc_calls.h"
#include "analyze/record/shape_fmt.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static void key(opscope_out_t *w, const char *k, size_t len) {
    opscope_out_write(w, ",\"", 2);
    opscope_out_write(w, k, len);
    opscope_out_write(w, "\":", 2);
}
#define KEY(w, lit) key((w), (lit), sizeof(lit) - 1)

static void ne_array(opscope_out_t *w, const int64_t *ne, int n) {
    opscope_out_char(w, '[');
    for (int d = 0; d < n; d++) {
        if (d) opscope_out_char(w, ',');
        opscope_out_i64(w, ne[d]);
    }
    opscope_out_char(w, ']');
}

static void shape_obj(opscope_out_t *w, const opscope_shape *sh) {
    opscope_out_str(w, "{\"n_src\":");
    opscope_out_i64(w, sh->n_src);
    opscope_out_str(w, ",\"ne_src\":[");
    for (int i = 0; i < sh->n_src; i++) {
        if (i) opscope_out_char(w, ',');
        ne_array(w, sh->ne_src[i], OPSCOPE_MAX_DIMS);
    }
    opscope_out_str(w, "],\"type_src\":[");
    for (int i = 0; i < sh->n_src; i++) {
        if (i) opscope_out_char(w, ',');
        opscope_out_i64(w, sh->type_src[i]);
    }
    opscope_out_char(w, ']');
    if (sh->has_out) {
        KEY(w, "ne");
        ne_array(w, sh->ne, OPSCOPE_MAX_DIMS);
        KEY(w, "out_type");
        opscope_out_i64(w, sh->out_type);
    }
    char buf[1024];
    size_t n = opscope_fmt_sources(buf, sizeof buf, sh);
    KEY(w, "text");
    opscope_out_json_strn(w, buf, n < sizeof buf ? n : sizeof buf - 1);
    opscope_out_char(w, '}');
}

static double ratio(uint64_t a, uint64_t b) { return b ? (double)a / (double)b : 0.0; }

/* Traffic, intensity and the roofline of group G: null where unknown (no shapes with types,
 * a Kineto kernel), never a guess. */
static void traffic_members(opscope_out_t *w, const opscope_op_stats *g, const opscope_stats_t *s,
                            const opscope_peak *peak) {
    bool known = g->n_with_traffic > 0;
    opscope_roof r;
    opscope_roofline_of(peak, g, s ? opscope_stats_backend_by_id(s, g->backend_id) : NULL, &r);
    KEY(w, "traffic_bytes");
    if (known) opscope_out_u64(w, g->traffic_bytes);
    else opscope_out_str(w, "null");
    KEY(w, "traffic_calls");
    opscope_out_u64(w, g->n_with_traffic);
    KEY(w, "traffic_upper_bound");
    opscope_out_str(w, g->n_traffic_upper ? "true" : "false");
    KEY(w, "traffic_gbps");
    if (known) opscope_out_double(w, ratio(g->traffic_bytes, g->total_ns));
    else opscope_out_str(w, "null");
    KEY(w, "intensity");
    if (known && g->traffic_bytes && g->type == OPSCOPE_RECORD_OP)
        opscope_out_double(w, ratio(g->flops, g->traffic_bytes));
    else
        opscope_out_str(w, "null");
    KEY(w, "bound");
    if (r.bound == OPSCOPE_BOUND_UNKNOWN) {
        opscope_out_str(w, "null");
    } else {
        opscope_out_json_str(w, r.bound == OPSCOPE_BOUND_COMPUTE ? "compute" : "memory");
        KEY(w, "bound_level");
        opscope_out_json_str(w, r.bound == OPSCOPE_BOUND_COMPUTE ? "fma" : r.cache ? "l2" : "memory");
        KEY(w, "roof_gflops");
        opscope_out_double(w, r.roof_gflops);
        KEY(w, "roofline_pct");
        opscope_out_double(w, r.pct);
    }
}

/* The members of a backend (or device) entry after its id. */
static void backend_members(opscope_out_t *w, const opscope_backend_stats *b, const opscope_peak *peak) {
    KEY(w, "name");
    opscope_out_json_str(w, b->name);
    KEY(w, "device");
    opscope_out_json_str(w, b->device);
    KEY(w, "device_type");
    opscope_out_i64(w, b->device_type);
    KEY(w, "n_ops");
    opscope_out_u64(w, b->n_ops);
    KEY(w, "busy_ns");
    opscope_out_u64(w, b->busy_ns);
    KEY(w, "overlap_ns");
    opscope_out_u64(w, b->overlap_ns);
    KEY(w, "op_ns");
    opscope_out_u64(w, b->op_ns);
    KEY(w, "op_bytes");
    opscope_out_u64(w, b->op_bytes);
    KEY(w, "op_flops");
    opscope_out_u64(w, b->op_flops);
    KEY(w, "op_traffic_bytes");
    opscope_out_u64(w, b->op_traffic);
    KEY(w, "roofline");
    opscope_out_str(w, peak && opscope_roofline_applies(b) ? "true" : "false");
    KEY(w, "n_copies");
    opscope_out_u64(w, b->n_copies);
    KEY(w, "copy_ns");
    opscope_out_u64(w, b->copy_ns);
    KEY(w, "copy_bytes");
    opscope_out_u64(w, b->copy_bytes);
    KEY(w, "op_bandwidth_gbps");
    opscope_out_double(w, ratio(b->op_bytes, b->op_ns));
    KEY(w, "copy_bandwidth_gbps");
    opscope_out_double(w, ratio(b->copy_bytes, b->copy_ns));
    KEY(w, "first_start_ns");
    opscope_out_u64(w, b->first_start_ns);
    KEY(w, "last_end_ns");
    opscope_out_u64(w, b->last_end_ns);
    if (b->rpc_covered_ns) {
        KEY(w, "rpc_covered_ns");
        opscope_out_u64(w, b->rpc_covered_ns);
    }
}

/* "sub_op" as in the records (ggml's enum value, -1 for none) and its name beside it. */
static void sub_op_members(opscope_out_t *w, int32_t value, const char *name) {
    KEY(w, "sub_op");
    opscope_out_i64(w, value);
    KEY(w, "sub_op_name");
    opscope_out_json_str(w, name);
}

/* WARM (NULL: none): the op table's warm-up marks (analyze/ggml/warm_ops.h, docs/metrics.md). */
static void op_obj(opscope_out_t *w, const opscope_op_stats *g, uint64_t total_ns,
                   const opscope_stats_t *s, const opscope_peak *peak, const opscope_warm_ops_t *warm) {
    opscope_out_str(w, "{\"name\":");
    opscope_out_json_str(w, g->name);
    sub_op_members(w, opscope_sub_op_value(g->name, g->sub_op), g->sub_op);
    KEY(w, "extra");
    opscope_out_json_str(w, g->extra);
    KEY(w, "call");
    opscope_out_json_str(w, g->call);
    KEY(w, "display");
    opscope_out_json_str(w, g->display);
    KEY(w, "type");
    opscope_out_i64(w, g->type);
    KEY(w, "backend_id");
    opscope_out_i64(w, g->backend_id);
    KEY(w, "count");
    opscope_out_u64(w, g->count);
    KEY(w, "total_ns");
    opscope_out_u64(w, g->total_ns);
    KEY(w, "min_ns");
    opscope_out_u64(w, g->min_ns);
    KEY(w, "max_ns");
    opscope_out_u64(w, g->max_ns);
    KEY(w, "avg_ns");
    opscope_out_double(w, ratio(g->total_ns, g->count));
    KEY(w, "pct_time");
    opscope_out_double(w, 100.0 * ratio(g->total_ns - g->rpc_covered_ns, total_ns));
    if (g->rpc_covered_ns) {
        KEY(w, "rpc_covered_ns");
        opscope_out_u64(w, g->rpc_covered_ns);
    }
    KEY(w, "bytes");
    opscope_out_u64(w, g->bytes);
    KEY(w, "bandwidth_gbps");
    opscope_out_double(w, ratio(g->bytes, g->total_ns));
    KEY(w, "flops");
    opscope_out_u64(w, g->flops);
    KEY(w, "gflops_per_s");
    opscope_out_double(w, ratio(g->flops, g->total_ns));
    traffic_members(w, g, s, peak);
    if (g->timed_computes) {
        /* sampled device timing: measured over timed_computes, estimated over all */
        KEY(w, "device_timed_computes");
        opscope_out_u64(w, g->timed_computes);
        KEY(w, "computes");
        opscope_out_u64(w, g->sampled_computes);
        KEY(w, "estimated_total_ns");
        opscope_out_u64(w, g->est_ns);
    } else if (g->n_sampled_out) {
        /* host time of computes sampled out of device timing: measured, no part of the
         * estimate (the timed computes' weights hold their device work) */
        KEY(w, "sampled_out_records");
        opscope_out_u64(w, g->n_sampled_out);
        KEY(w, "estimated_total_ns");
        opscope_out_u64(w, g->total_ns - g->sampled_out_ns);
    }
    uint64_t wc, wns;
    if (opscope_warm_ops_get(warm, g->display, g->backend_id, g->type, &wc, &wns)) {
        KEY(w, "warmup_count"); /* of count: calls in warm-up computes and the load */
        opscope_out_u64(w, wc);
        KEY(w, "warmup_ns");
        opscope_out_u64(w, wns);
    }
    KEY(w, "shape");
    shape_obj(w, &g->shape);
    opscope_out_char(w, '}');
}

static void op_list(opscope_out_t *w, const char *name, size_t n,
                    const opscope_op_stats *(*get)(const opscope_stats_t *, size_t),
                    const opscope_stats_t *s, uint64_t total_ns, const opscope_peak *peak,
                    const opscope_warm_ops_t *warm) {
    opscope_out_str(w, ",\n\"");
    opscope_out_str(w, name);
    opscope_out_str(w, "\":[");
    for (size_t i = 0; i < n; i++) {
        opscope_out_str(w, i ? ",\n" : "\n");
        op_obj(w, get(s, i), total_ns, s, peak, warm);
    }
    opscope_out_char(w, ']');
}

/* The summary object without its closing brace. */
static void summary_members(opscope_out_t *w, const opscope_stats_t *s, const opscope_peak *peak,
                            const opscope_warm_ops_t *warm) {
    const opscope_totals *t = opscope_stats_totals(s);
    opscope_out_str(w, "{\"n_records\":");
    opscope_out_u64(w, t->n_records);
    KEY(w, "n_ops");
    opscope_out_u64(w, t->n_ops);
    KEY(w, "n_copies");
    opscope_out_u64(w, t->n_copies);
    KEY(w, "total_ns");
    opscope_out_u64(w, t->total_ns);
    KEY(w, "op_ns");
    opscope_out_u64(w, t->op_ns);
    KEY(w, "copy_ns");
    opscope_out_u64(w, t->copy_ns);
    KEY(w, "bytes");
    opscope_out_u64(w, t->bytes);
    KEY(w, "copy_bytes");
    opscope_out_u64(w, t->copy_bytes);
    KEY(w, "flops");
    opscope_out_u64(w, t->flops);
    KEY(w, "traffic_bytes");
    opscope_out_u64(w, t->traffic_bytes);
    KEY(w, "first_start_ns");
    opscope_out_u64(w, t->first_start_ns);
    KEY(w, "last_end_ns");
    opscope_out_u64(w, t->last_end_ns);
    KEY(w, "unique_ops");
    opscope_out_u64(w, opscope_stats_n_ops(s));
    KEY(w, "shape_groups_dropped");
    opscope_out_u64(w, t->shape_groups_dropped);
    if (t->rpc_covered_ns) {
        KEY(w, "rpc_covered_ns");
        opscope_out_u64(w, t->rpc_covered_ns);
        KEY(w, "counted_ns");
        opscope_out_u64(w, opscope_totals_counted_ns(t));
    }
    if (t->rpc_cover_unsorted) opscope_out_str(w, ",\"rpc_cover_unsorted\":true");
    if (opscope_totals_sampled(t)) { /* total_ns, op_ns, copy_ns above: measured only */
        KEY(w, "weighted_records");
        opscope_out_u64(w, t->n_weighted);
        KEY(w, "sampled_out_records");
        opscope_out_u64(w, t->n_sampled_out);
        KEY(w, "estimated_total_ns");
        opscope_out_u64(w, t->est_total_ns);
        KEY(w, "estimated_op_ns");
        opscope_out_u64(w, t->est_op_ns);
        KEY(w, "estimated_copy_ns");
        opscope_out_u64(w, t->est_copy_ns);
    }

    if (peak) {
        opscope_out_str(w, ",\n\"peak\":");
        opscope_peak_write_json(w, peak);
    }
    uint64_t counted = opscope_totals_counted_ns(t); /* pct_time's denominator */
    op_list(w, "ops", opscope_stats_n_ops(s), opscope_stats_op, s, counted, peak, warm);
    if (opscope_stats_n_shapes(s))
        op_list(w, "by_shape", opscope_stats_n_shapes(s), opscope_stats_shape, s, counted, peak, NULL);
    op_list(w, "inefficiency", opscope_stats_n_inefficient(s), opscope_stats_inefficient, s,
            counted, peak, NULL);
    op_list(w, "copies", opscope_stats_n_copy_dirs(s), opscope_stats_copy_dir, s, counted, peak, NULL);
    op_list(w, "copy_calls", opscope_stats_n_copy_calls(s), opscope_stats_copy_call, s, counted,
            peak, NULL);

    opscope_out_str(w, ",\n\"backends\":[");
    for (size_t i = 0; i < opscope_stats_n_backends(s); i++) {
        const opscope_backend_stats *b = opscope_stats_backend(s, i);
        opscope_out_str(w, i ? ",\n{\"id\":" : "\n{\"id\":");
        opscope_out_i64(w, b->backend_id);
        backend_members(w, b, peak);
        opscope_out_char(w, '}');
    }
    /* the same merged by device: one entry per device with all its backend ids */
    opscope_out_str(w, "],\n\"devices\":[");
    for (size_t i = 0; i < opscope_stats_n_devices(s); i++) {
        const opscope_device_stats *dv = opscope_stats_device(s, i);
        opscope_out_str(w, i ? ",\n{\"backend_ids\":[" : "\n{\"backend_ids\":[");
        for (size_t k = 0; k < dv->n_ids; k++) {
            if (k) opscope_out_char(w, ',');
            opscope_out_i64(w, dv->ids[k]);
        }
        opscope_out_char(w, ']');
        backend_members(w, &dv->sum, peak);
        opscope_out_char(w, '}');
    }
    opscope_out_str(w, "],\n\"top_kernels\":[");
    for (size_t i = 0; i < opscope_stats_n_top(s); i++) {
        const opscope_record *r = opscope_stats_top(s, i);
        opscope_out_str(w, i ? ",\n{\"type\":" : "\n{\"type\":");
        opscope_out_i64(w, r->type);
        KEY(w, "name");
        opscope_out_json_str(w, r->name);
        int32_t sv;
        const char *sn = opscope_record_sub_op(r, &sv);
        sub_op_members(w, sv, sn);
        /* As in the groups: a COPY's extra is its ggml call, not a fused name. */
        bool copy = r->type == OPSCOPE_RECORD_COPY;
        KEY(w, "extra");
        opscope_out_json_str(w, copy ? NULL : r->extra);
        KEY(w, "call");
        opscope_out_json_str(w, copy ? r->extra : NULL);
        char disp[512], *dp = disp;
        size_t dn = opscope_op_display(disp, sizeof disp, r->type, r->name, r->sub_op, r->extra);
        if (dn >= sizeof disp && (dp = malloc(dn + 1)) != NULL)
            opscope_op_display(dp, dn + 1, r->type, r->name, r->sub_op, r->extra);
        KEY(w, "display");
        opscope_out_json_strn(w, dp ? dp : disp, dp ? dn : sizeof disp - 1);
        if (dp != disp) free(dp);
        KEY(w, "backend_id");
        opscope_out_i64(w, r->backend_id);
        KEY(w, "split_id");
        opscope_out_i64(w, r->split_id);
        KEY(w, "start_ns");
        opscope_out_u64(w, r->start_ns);
        KEY(w, "duration_ns");
        opscope_out_u64(w, r->duration_ns);
        KEY(w, "bytes");
        opscope_out_u64(w, r->bytes);
        KEY(w, "flops");
        opscope_out_u64(w, r->flops);
        KEY(w, "tensor_name");
        opscope_out_json_str(w, r->tensor_name);
        if (r->has & OPSCOPE_HAS_NODE) {
            KEY(w, "node_index");
            opscope_out_i64(w, r->node_index);
        }
        if (r->has & OPSCOPE_HAS_GRAPH) {
            KEY(w, "graph_id");
            opscope_out_i64(w, r->graph_id);
        }
        opscope_shape sh;
        opscope_shape_of_record(&sh, r);
        KEY(w, "shape");
        shape_obj(w, &sh);
        opscope_out_char(w, '}');
    }
    opscope_out_str(w, "]");
}

void opscope_json_write_summary(opscope_out_t *w, const opscope_stats_t *s) {
    summary_members(w, s, NULL, NULL);
    opscope_out_char(w, '}');
}

int opscope_json_summary_write(opscope_out_t *w, const opscope_stats_t *stats,
                               const opscope_json_summary_in *in) {
    int rc = 0;
    opscope_out_str(w, ",\n\"summary\":");
    summary_members(w, stats, in->peak, opscope_graphs_warm_ops(in->graphs));
    if (in->rpc && opscope_rpc_finish(in->rpc)) rc = -1;
    else if (in->rpc) opscope_rpc_write_json(w, in->rpc);
    opscope_graphs_write_json(w, in->graphs);
    if (opscope_run_write_json(w, stats, in->graphs, in->peak)) rc = -1;
    if (opscope_req_write_json(w, stats, in->graphs)) rc = -1;
    if (in->extra) in->extra(w, in->extra_ud);
    opscope_out_char(w, '}');
    return rc;
}
