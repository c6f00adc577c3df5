/* json_summary.c - the "summary" member of the JSON export (json_summary.h): the report's
 * numbers of a finished stats analysis, op groups with their traffic and roofline, backends,
 * devices and top kernels, then the RPC, graph, run and request sections. */
#include "export/json/json_summary.h"
#include "export/fmt/json_fmt.h"
#include "export/sections/sections.h"
#include "analyze/ggml/graphs.h"
#include "analyze/ggml/warm_ops.h"
#include "analyze/ggml/win_count.h"
#include "export/sections/threads_out.h"
#include "analyze/rpc/rpc_calls.h"
#include "analyze/record/shape_fmt.h"
#include "model/oplog_win.h"
#include "model/run_end.h"

#include <stdbool.h>
#include <stdlib.h>

/* NE's dimensions as an array, the value of the key or item just written through J. */
static void ne_array(opscope_jw *j, const int64_t *ne) {
    opscope_jw_open_arr(j);
    for (int d = 0; d < OPSCOPE_MAX_DIMS; d++) opscope_jw_item_i64(j, ne[d]);
    opscope_jw_end_arr(j);
}

/* The member "shape": SH as an object. */
static void shape_obj(opscope_jw *j, const opscope_shape *sh) {
    opscope_jw_obj(j, "shape");
    opscope_jw_i64(j, "n_src", sh->n_src);
    opscope_jw_arr(j, "ne_src");
    for (int i = 0; i < sh->n_src; i++) {
        opscope_jw_item(j);
        ne_array(j, sh->ne_src[i]);
    }
    opscope_jw_end_arr(j);
    opscope_jw_arr(j, "type_src");
    for (int i = 0; i < sh->n_src; i++) opscope_jw_item_i64(j, sh->type_src[i]);
    opscope_jw_end_arr(j);
    if (sh->has_out) {
        opscope_jw_key(j, "ne");
        ne_array(j, sh->ne);
        opscope_jw_i64(j, "out_type", sh->out_type);
    }
    char buf[1024];
    size_t n = opscope_fmt_sources(buf, sizeof buf, sh);
    opscope_jw_key(j, "text");
    opscope_out_json_strn(j->out, buf, n < sizeof buf ? n : sizeof buf - 1);
    opscope_jw_end_obj(j);
}

static double ratio(uint64_t a, uint64_t b) { return b ? (double)a / (double)b : 0.0; }

/* Traffic, intensity and the roofline of group G: null where unknown (no shapes with types,
 * a Kineto kernel), never a guess. */
static void traffic_members(opscope_jw *j, const opscope_op_stats *g, const opscope_stats_t *s,
                            const opscope_peak *peak) {
    bool known = g->n_with_traffic > 0;
    opscope_roof r;
    opscope_roofline_of(peak, g, s ? opscope_stats_backend_by_id(s, g->backend_id) : NULL, &r);
    if (known) opscope_jw_u64(j, "traffic_bytes", g->traffic_bytes);
    else opscope_jw_null(j, "traffic_bytes");
    opscope_jw_u64(j, "traffic_calls", g->n_with_traffic);
    opscope_jw_bool(j, "traffic_upper_bound", g->n_traffic_upper != 0);
    if (known) opscope_jw_double(j, "traffic_gbps", ratio(g->traffic_bytes, g->total_ns));
    else opscope_jw_null(j, "traffic_gbps");
    if (known && g->traffic_bytes && g->type == OPSCOPE_RECORD_OP)
        opscope_jw_double(j, "intensity", ratio(g->flops, g->traffic_bytes));
    else
        opscope_jw_null(j, "intensity");
    if (r.bound == OPSCOPE_BOUND_UNKNOWN) {
        opscope_jw_null(j, "bound");
        return;
    }
    bool compute = r.bound == OPSCOPE_BOUND_COMPUTE;
    opscope_jw_str(j, "bound", compute ? "compute" : "memory");
    opscope_jw_str(j, "bound_level", compute ? "fma" : r.cache ? "l2" : "memory");
    opscope_jw_double(j, "roof_gflops", r.roof_gflops);
    opscope_jw_double(j, "roofline_pct", r.pct);
}

/* The members of a backend (or device) entry after its id. */
static void backend_members(opscope_jw *j, const opscope_backend_stats *b, const opscope_peak *peak) {
    opscope_jw_str(j, "name", b->name);
    opscope_jw_str(j, "device", b->device);
    opscope_jw_i64(j, "device_type", b->device_type);
    opscope_jw_u64(j, "n_ops", b->n_ops);
    opscope_jw_u64(j, "busy_ns", b->busy_ns);
    opscope_jw_u64(j, "overlap_ns", b->overlap_ns);
    opscope_jw_u64(j, "op_ns", b->op_ns);
    opscope_jw_u64(j, "op_bytes", b->op_bytes);
    opscope_jw_u64(j, "op_flops", b->op_flops);
    opscope_jw_u64(j, "op_traffic_bytes", b->op_traffic);
    opscope_jw_bool(j, "roofline", peak && opscope_roofline_applies(b));
    opscope_jw_u64(j, "n_copies", b->n_copies);
    opscope_jw_u64(j, "copy_ns", b->copy_ns);
    opscope_jw_u64(j, "copy_bytes", b->copy_bytes);
    opscope_jw_double(j, "op_bandwidth_gbps", ratio(b->op_bytes, b->op_ns));
    opscope_jw_double(j, "copy_bandwidth_gbps", ratio(b->copy_bytes, b->copy_ns));
    opscope_jw_u64(j, "first_start_ns", b->first_start_ns);
    opscope_jw_u64(j, "last_end_ns", b->last_end_ns);
    if (b->rpc_covered_ns) opscope_jw_u64(j, "rpc_covered_ns", b->rpc_covered_ns);
}

/* "sub_op" as in the records (ggml's enum value, -1 for none) and its name beside it. */
static void sub_op_members(opscope_jw *j, int32_t value, const char *name) {
    opscope_jw_i64(j, "sub_op", value);
    opscope_jw_str(j, "sub_op_name", name);
}

/* WARM (NULL: none): the op table's warm-up marks (analyze/ggml/warm_ops.h, docs/metrics.md). */
static void op_obj(opscope_jw *j, const opscope_op_stats *g, uint64_t total_ns,
                   const opscope_stats_t *s, const opscope_peak *peak, const opscope_warm_ops_t *warm,
                   struct opscope_threads *threads) {
    opscope_jw_item_obj(j);
    opscope_jw_str(j, "name", g->name);
    sub_op_members(j, opscope_sub_op_value(g->name, g->sub_op), g->sub_op);
    opscope_jw_str(j, "extra", g->extra);
    opscope_jw_str(j, "call", g->call);
    opscope_jw_str(j, "display", g->display);
    opscope_jw_i64(j, "type", g->type);
    opscope_jw_i64(j, "backend_id", g->backend_id);
    opscope_jw_u64(j, "count", g->count);
    opscope_jw_u64(j, "total_ns", g->total_ns);
    opscope_jw_u64(j, "min_ns", g->min_ns);
    opscope_jw_u64(j, "max_ns", g->max_ns);
    opscope_jw_double(j, "avg_ns", ratio(g->total_ns, g->count));
    opscope_jw_double(j, "pct_time", 100.0 * ratio(g->total_ns - g->rpc_covered_ns, total_ns));
    if (g->rpc_covered_ns) opscope_jw_u64(j, "rpc_covered_ns", g->rpc_covered_ns);
    opscope_jw_u64(j, "bytes", g->bytes);
    opscope_jw_double(j, "bandwidth_gbps", ratio(g->bytes, g->total_ns));
    opscope_jw_u64(j, "flops", g->flops);
    opscope_jw_double(j, "gflops_per_s", ratio(g->flops, g->total_ns));
    traffic_members(j, g, s, peak);
    if (g->timed_computes) {
        /* sampled device timing: measured over timed_computes, estimated over all */
        opscope_jw_u64(j, "device_timed_computes", g->timed_computes);
        opscope_jw_u64(j, "computes", g->sampled_computes);
        opscope_jw_u64(j, "estimated_total_ns", g->est_ns);
    } else if (g->n_sampled_out) {
        /* host time of computes sampled out of device timing: measured, no part of the
         * estimate (the timed computes' weights hold their device work) */
        opscope_jw_u64(j, "sampled_out_records", g->n_sampled_out);
        opscope_jw_u64(j, "estimated_total_ns", g->total_ns - g->sampled_out_ns);
    }
    uint64_t wc, wns;
    if (opscope_warm_ops_get(warm, g->display, g->backend_id, g->type, &wc, &wns)) {
        opscope_jw_u64(j, "warmup_count", wc); /* of count: calls in warm-up computes and the load */
        opscope_jw_u64(j, "warmup_ns", wns);
    }
    if (threads && g->display) opscope_threads_write_group_json(j, threads, g->display, g->backend_id);
    shape_obj(j, &g->shape);
    opscope_jw_end_obj(j);
}

/* The member NAME: the N groups GET returns, one a line. */
static void op_list(opscope_jw *j, const char *name, size_t n,
                    const opscope_op_stats *(*get)(const opscope_stats_t *, size_t),
                    const opscope_stats_t *s, uint64_t total_ns, const opscope_peak *peak,
                    const opscope_warm_ops_t *warm, struct opscope_threads *threads) {
    opscope_jw_nl(j);
    opscope_jw_arr(j, name);
    for (size_t i = 0; i < n; i++) {
        opscope_jw_nl(j);
        op_obj(j, get(s, i), total_ns, s, peak, warm, threads);
    }
    opscope_jw_end_arr(j);
}

/* The totals' members. */
static void totals_members(opscope_jw *j, const opscope_stats_t *s) {
    const opscope_totals *t = opscope_stats_totals(s);
    const char *const keys[] = {"n_records", "n_ops", "n_copies", "total_ns", "op_ns",
                                "copy_ns", "bytes", "copy_bytes", "flops", "traffic_bytes",
                                "first_start_ns", "last_end_ns", "unique_ops",
                                "shape_groups_dropped"};
    const uint64_t vals[] = {t->n_records, t->n_ops, t->n_copies, t->total_ns, t->op_ns,
                             t->copy_ns, t->bytes, t->copy_bytes, t->flops, t->traffic_bytes,
                             t->first_start_ns, t->last_end_ns, opscope_stats_n_ops(s),
                             t->shape_groups_dropped};
    for (size_t i = 0; i < sizeof vals / sizeof *vals; i++) opscope_jw_u64(j, keys[i], vals[i]);
    if (t->rpc_covered_ns) {
        opscope_jw_u64(j, "rpc_covered_ns", t->rpc_covered_ns);
        opscope_jw_u64(j, "counted_ns", opscope_totals_counted_ns(t));
    }
    if (t->rpc_cover_unsorted) opscope_jw_bool(j, "rpc_cover_unsorted", true);
    if (opscope_totals_sampled(t)) { /* total_ns, op_ns, copy_ns above: measured only */
        opscope_jw_u64(j, "weighted_records", t->n_weighted);
        opscope_jw_u64(j, "sampled_out_records", t->n_sampled_out);
        opscope_jw_u64(j, "estimated_total_ns", t->est_total_ns);
        opscope_jw_u64(j, "estimated_op_ns", t->est_op_ns);
        opscope_jw_u64(j, "estimated_copy_ns", t->est_copy_ns);
    }
}

/* The top kernel R as an item. */
static void top_kernel_obj(opscope_jw *j, const opscope_record *r) {
    opscope_jw_item_obj(j);
    opscope_jw_i64(j, "type", r->type);
    opscope_jw_str(j, "name", r->name);
    int32_t sv;
    const char *sn = opscope_record_sub_op(r, &sv);
    sub_op_members(j, sv, sn);
    /* As in the groups: a COPY's extra is its ggml call, not a fused name. */
    bool copy = r->type == OPSCOPE_RECORD_COPY;
    opscope_jw_str(j, "extra", copy ? NULL : r->extra);
    opscope_jw_str(j, "call", copy ? r->extra : NULL);
    char disp[512], *dp = disp;
    size_t dn = opscope_op_display(disp, sizeof disp, r->type, r->name, r->sub_op, r->extra);
    if (dn >= sizeof disp && (dp = malloc(dn + 1)) != NULL)
        opscope_op_display(dp, dn + 1, r->type, r->name, r->sub_op, r->extra);
    opscope_jw_key(j, "display");
    opscope_out_json_strn(j->out, dp ? dp : disp, dp ? dn : sizeof disp - 1);
    if (dp != disp) free(dp);
    opscope_jw_i64(j, "backend_id", r->backend_id);
    opscope_jw_i64(j, "split_id", r->split_id);
    opscope_jw_u64(j, "start_ns", r->start_ns);
    opscope_jw_u64(j, "duration_ns", r->duration_ns);
    opscope_jw_u64(j, "bytes", r->bytes);
    opscope_jw_u64(j, "flops", r->flops);
    opscope_jw_str(j, "tensor_name", r->tensor_name);
    if (r->has & OPSCOPE_HAS_NODE) opscope_jw_i64(j, "node_index", r->node_index);
    if (r->has & OPSCOPE_HAS_GRAPH) opscope_jw_i64(j, "graph_id", r->graph_id);
    opscope_shape sh;
    opscope_shape_of_record(&sh, r);
    shape_obj(j, &sh);
    opscope_jw_end_obj(j);
}

/* "end": how the program ended, when the profile says (model/run_end.h): complete is false
 * when the capture did not see the end (records after its last write, if any, are missing). */
static void end_member(opscope_jw *j, const opscope_meta *m) {
    const opscope_capture_info *c = m ? m->capture : NULL;
    if (!opscope_run_end_known(c)) return;
    char text[512];
    opscope_run_end_text(c, text, sizeof text);
    opscope_jw_nl(j);
    opscope_jw_obj(j, "end");
    opscope_jw_str(j, "how", c->end);
    if (c->end_signal) opscope_jw_str(j, "signal", c->end_signal);
    else opscope_jw_null(j, "signal");
    opscope_jw_bool(j, "complete", !opscope_run_end_partial(c));
    if (c->end_ns && c->died_ns > c->end_ns) opscope_jw_u64(j, "after_last_write_ns", c->died_ns - c->end_ns);
    opscope_jw_str(j, "text", text);
    opscope_jw_end_obj(j);
}

/* "windows" and "marks" (docs/metrics.md): the capture's windows with the graphs and records
 * each holds and the graphs outside every window (from the graphs analysis, when it ran;
 * analyze/ggml/win_count.h), and its marks. */
static void windows_member(opscope_jw *j, const opscope_meta *m, const opscope_graphs_t *graphs) {
    const opscope_capture_info *c = m ? m->capture : NULL;
    if (!c || (!c->windowed && !c->n_marks)) return;
    opscope_win_count counts[OPSCOPE_WIN_MAX_WINDOWS]; /* the readers keep at most this many */
    size_t nc = c->n_windows < OPSCOPE_WIN_MAX_WINDOWS ? c->n_windows : OPSCOPE_WIN_MAX_WINDOWS;
    opscope_capture_info kept = *c; /* the count's windows: those COUNTS holds */
    kept.n_windows = nc;
    uint64_t outside = graphs ? opscope_win_count_graphs(&kept, graphs, counts) : 0;
    opscope_jw_nl(j);
    opscope_jw_bool(j, "windowed", c->windowed != 0);
    opscope_jw_arr(j, "windows");
    for (size_t i = 0; i < c->n_windows; i++) {
        opscope_json_window_open(j, &c->windows[i]);
        if (graphs && i < nc) {
            const opscope_jw_u64_kv n[] = {{"graphs", counts[i].graphs}, {"records", counts[i].records}};
            opscope_jw_u64s(j, n, 2);
        }
        opscope_jw_end_obj(j);
    }
    opscope_jw_end_arr(j);
    if (graphs && c->windowed) opscope_jw_u64(j, "graphs_outside_windows", outside);
    opscope_json_write_marks(j, c);
}

/* The summary object's members, through J (inside the object). */
static void summary_members(opscope_jw *j, const opscope_stats_t *s, const opscope_peak *peak,
                            const opscope_warm_ops_t *warm, struct opscope_threads *threads) {
    totals_members(j, s);
    end_member(j, opscope_stats_meta(s));
    if (peak) {
        opscope_jw_nl(j);
        opscope_jw_key(j, "peak");
        opscope_peak_write_json(j->out, peak);
    }
    uint64_t counted = opscope_totals_counted_ns(opscope_stats_totals(s)); /* pct_time's denominator */
    op_list(j, "ops", opscope_stats_n_ops(s), opscope_stats_op, s, counted, peak, warm, threads);
    if (opscope_stats_n_shapes(s))
        op_list(j, "by_shape", opscope_stats_n_shapes(s), opscope_stats_shape, s, counted, peak, NULL, NULL);
    op_list(j, "inefficiency", opscope_stats_n_inefficient(s), opscope_stats_inefficient, s,
            counted, peak, NULL, NULL);
    op_list(j, "copies", opscope_stats_n_copy_dirs(s), opscope_stats_copy_dir, s, counted, peak, NULL, NULL);
    op_list(j, "copy_calls", opscope_stats_n_copy_calls(s), opscope_stats_copy_call, s, counted,
            peak, NULL, NULL);

    opscope_jw_nl(j);
    opscope_jw_arr(j, "backends");
    for (size_t i = 0; i < opscope_stats_n_backends(s); i++) {
        const opscope_backend_stats *b = opscope_stats_backend(s, i);
        opscope_jw_nl(j);
        opscope_jw_item_obj(j);
        opscope_jw_i64(j, "id", b->backend_id);
        backend_members(j, b, peak);
        opscope_jw_end_obj(j);
    }
    opscope_jw_end_arr(j);
    /* the same merged by device: one entry per device with all its backend ids */
    opscope_jw_nl(j);
    opscope_jw_arr(j, "devices");
    for (size_t i = 0; i < opscope_stats_n_devices(s); i++) {
        const opscope_device_stats *dv = opscope_stats_device(s, i);
        opscope_jw_nl(j);
        opscope_jw_item_obj(j);
        opscope_jw_arr(j, "backend_ids");
        for (size_t k = 0; k < dv->n_ids; k++) opscope_jw_item_i64(j, dv->ids[k]);
        opscope_jw_end_arr(j);
        backend_members(j, &dv->sum, peak);
        opscope_jw_end_obj(j);
    }
    opscope_jw_end_arr(j);
    opscope_jw_nl(j);
    opscope_jw_arr(j, "top_kernels");
    for (size_t i = 0; i < opscope_stats_n_top(s); i++) {
        opscope_jw_nl(j);
        top_kernel_obj(j, opscope_stats_top(s, i));
    }
    opscope_jw_end_arr(j);
}

void opscope_json_write_summary(opscope_out_t *w, const opscope_stats_t *s) {
    opscope_jw j = opscope_jw_object(w);
    summary_members(&j, s, NULL, NULL, NULL);
    opscope_jw_end_obj(&j);
}

int opscope_json_summary_write(opscope_out_t *w, const opscope_stats_t *stats,
                               const opscope_json_summary_in *in) {
    int rc = 0;
    opscope_jw j = opscope_jw_resume(w);
    opscope_jw_nl(&j);
    opscope_jw_obj(&j, "summary");
    summary_members(&j, stats, in->peak, opscope_graphs_warm_ops(in->graphs), in->threads);
    opscope_threads_write_json(w, in->threads);
    /* the sections write their members onto W, each with its own comma */
    if (in->rpc && opscope_rpc_finish(in->rpc)) rc = -1;
    else if (in->rpc) opscope_rpc_write_json(w, in->rpc);
    opscope_graphs_write_json(w, in->graphs);
    windows_member(&j, opscope_stats_meta(stats), in->graphs);
    if (opscope_run_write_json(w, stats, in->graphs, in->peak)) rc = -1;
    if (opscope_req_write_json(w, stats, in->graphs)) rc = -1;
    if (in->extra) in->extra(w, in->extra_ud);
    opscope_jw_end_obj(&j);
    return rc;
}
