/* graphs_out.c - the "Graphs by batch" section as text and as JSON (sections.h). */
#include "export/sections/sections.h"
#include "export/fmt/json_fmt.h"

#include <inttypes.h>
#include <stdio.h>

#define WARM_LIST_MAX 64 /* graph ids listed per kind in the JSON */

/* The warm-up line under the table: how many graphs, their time, the first ids. */
static void warm_text(opscope_out_t *w, const opscope_graphs_t *g) {
    uint64_t n[3] = {0}, op[3] = {0}, wall[3] = {0}, load_n, load_ns;
    size_t total = opscope_graphs_n(g);
    for (size_t i = 0; i < total; i++) {
        const opscope_graph_stats *s = opscope_graphs_at(g, i);
        n[s->warm]++;
        op[s->warm] += s->op_ns;
        wall[s->warm] += s->wall_ns;
    }
    opscope_graphs_load(g, &load_n, &load_ns);
    if (!n[OPSCOPE_GRAPH_WARMUP] && !load_n) return;
    opscope_out_printf(w, " warm-up (the first compute of each graph topology; diff leaves it out): %" PRIu64
                          " graph%s, %.3f ms of ops, %.3f ms wall; graphs",
                       n[OPSCOPE_GRAPH_WARMUP], n[OPSCOPE_GRAPH_WARMUP] == 1 ? "" : "s",
                       (double)op[OPSCOPE_GRAPH_WARMUP] / 1e6, (double)wall[OPSCOPE_GRAPH_WARMUP] / 1e6);
    size_t shown = 0;
    for (size_t i = 0; i < total && shown < 8; i++) {
        const opscope_graph_stats *s = opscope_graphs_at(g, i);
        if (s->warm != OPSCOPE_GRAPH_WARMUP) continue;
        opscope_out_printf(w, "%s %lld (%lld %s)", shown++ ? "," : "", (long long)s->id, (long long)s->batch,
                           opscope_graph_phase_name(s->phase));
    }
    if (n[OPSCOPE_GRAPH_WARMUP] > shown) opscope_out_str(w, ", ...");
    opscope_out_printf(w, "\n load (records before the first graph compute): %" PRIu64 " records, %.3f ms; "
                          "steady state: %" PRIu64 " graphs, %.3f ms of ops\n",
                       load_n, (double)load_ns / 1e6, n[OPSCOPE_GRAPH_STEADY], (double)op[OPSCOPE_GRAPH_STEADY] / 1e6);
}

/* The "warmup" member: the load, and per kind the graphs' number, time and first ids. */
static void warm_json(opscope_jw *j, const opscope_graphs_t *g) {
    uint64_t load_n, load_ns;
    opscope_graphs_load(g, &load_n, &load_ns);
    opscope_jw_nl(j);
    opscope_jw_obj(j, "warmup");
    opscope_jw_u64(j, "load_records", load_n);
    opscope_jw_u64(j, "load_ns", load_ns);
    static const char *const kind[3] = {"steady", "warmup", "outlier"};
    size_t total = opscope_graphs_n(g);
    for (int k = 0; k < 3; k++) {
        uint64_t n = 0, op = 0, wall = 0;
        char key[32];
        snprintf(key, sizeof key, "%s_ids", kind[k]);
        opscope_jw_arr(j, key);
        for (size_t i = 0; i < total; i++) {
            const opscope_graph_stats *s = opscope_graphs_at(g, i);
            if ((int)s->warm != k) continue;
            if (k && n < WARM_LIST_MAX) opscope_jw_item_i64(j, s->id);
            n++;
            op += s->op_ns;
            wall += s->wall_ns;
        }
        opscope_jw_end_arr(j);
        snprintf(key, sizeof key, "%s_graphs", kind[k]);
        opscope_jw_u64(j, key, n);
        snprintf(key, sizeof key, "%s_op_ns", kind[k]);
        opscope_jw_u64(j, key, op);
        snprintf(key, sizeof key, "%s_wall_ns", kind[k]);
        opscope_jw_u64(j, key, wall);
    }
    opscope_jw_end_obj(j);
}

void opscope_graphs_write_text(opscope_out_t *w, const opscope_graphs_t *g, size_t max_rows) {
    size_t nb = g ? opscope_graphs_n_batches(g) : 0;
    if (!nb) return;
    opscope_out_str(w, "   batch  phase     graphs  ops/graph   op time(ms)  op ms/graph  wall ms/graph      rows/s  first graph\n");
    size_t n = nb < max_rows ? nb : max_rows;
    for (size_t i = 0; i < n; i++) {
        const opscope_graph_batch *b = opscope_graphs_batch_at(g, i);
        char rate[32] = "-";
        if (b->batch > 0 && b->wall_ns > 0)
            snprintf(rate, sizeof rate, "%.1f", (double)b->batch * (double)b->graphs * 1e9 / (double)b->wall_ns);
        char batch[24] = "-";
        if (b->batch > 0) snprintf(batch, sizeof batch, "%lld", (long long)b->batch);
        opscope_out_printf(w, " %7s  %-7s %8llu %10.1f %13.3f %12.3f %14.3f %11s  %lld\n", batch,
                           opscope_graph_phase_name(b->phase),
                           (unsigned long long)b->graphs, (double)b->n_ops / (double)b->graphs,
                           (double)b->op_ns / 1e6, (double)b->median_op_ns / 1e6,
                           (double)b->median_wall_ns / 1e6, rate, (long long)b->first_graph);
    }
    if (nb > n)
        opscope_out_printf(w, " ... %zu more batch sizes (--json FILE lists all)\n", nb - n);
    for (size_t i = 0; i < nb; i++) {
        const opscope_graph_batch *b = opscope_graphs_batch_at(g, i);
        if (!b->n_outliers) continue;
        opscope_out_printf(w, " outliers (wall > %dx the group's median; a warm-up or a stall): batch %lld %s: "
                              "%llu graph%s, %.3f ms; longest graph %lld, %.3f ms = %.0fx the median\n",
                           OPSCOPE_GRAPHS_OUTLIER_X, (long long)b->batch, opscope_graph_phase_name(b->phase),
                           (unsigned long long)b->n_outliers, b->n_outliers == 1 ? "" : "s",
                           (double)b->outlier_wall_ns / 1e6, (long long)b->max_outlier_graph,
                           (double)b->max_outlier_wall_ns / 1e6,
                           b->median_wall_ns ? (double)b->max_outlier_wall_ns / (double)b->median_wall_ns : 0.0);
    }
    warm_text(w, g);
    uint64_t timed = 0, out = 0, op = 0, est = 0, graphs = 0;
    for (size_t i = 0; i < nb; i++) {
        const opscope_graph_batch *b = opscope_graphs_batch_at(g, i);
        timed += b->device_timed_graphs;
        out += b->sampled_out_graphs;
        op += b->op_ns;
        est += b->est_op_ns;
        graphs += b->graphs;
    }
    if (timed || out) /* sampled device timing: the op times above are the measured ones */
        opscope_out_printf(w, " sampled device timing: op time measured (%llu of %llu graphs device-timed, %llu with a "
                              "split sampled out: host time only): %.3f ms; estimated over all computes: %.3f ms est.\n",
                           (unsigned long long)timed, (unsigned long long)graphs, (unsigned long long)out,
                           (double)op / 1e6, (double)est / 1e6);
    opscope_out_str(w, " (per graph: medians; wall: the union of the graph's own records' spans, so a pipelined graph is\n"
                       "  not charged for its neighbours' work; rows/s: batch x graphs / wall;\n"
                       "  phase: decode when the attention has 1 query per sequence, however many sequences)\n");
}

static void batch_json(opscope_jw *j, const opscope_graph_batch *b) {
    opscope_jw_nl(j);
    opscope_jw_item_obj(j);
    opscope_jw_i64(j, "batch", b->batch);
    opscope_jw_str(j, "phase", opscope_graph_phase_name(b->phase));
    static const char *const names[] = {"graphs", "records", "ops", "op_ns", "copy_ns", "wall_ns",
                                        "median_op_ns", "median_wall_ns", "span_ns"};
    const uint64_t v[] = {b->graphs, b->records, b->n_ops, b->op_ns, b->copy_ns, b->wall_ns,
                          b->median_op_ns, b->median_wall_ns, b->span_ns};
    for (size_t k = 0; k < sizeof v / sizeof *v; k++) opscope_jw_u64(j, names[k], v[k]);
    if (b->n_outliers) {
        opscope_jw_u64(j, "outliers", b->n_outliers);
        opscope_jw_u64(j, "outlier_wall_ns", b->outlier_wall_ns);
        opscope_jw_i64(j, "max_outlier_graph", b->max_outlier_graph);
        opscope_jw_u64(j, "max_outlier_wall_ns", b->max_outlier_wall_ns);
    }
    opscope_jw_u64(j, "warmup_graphs", b->warmup_graphs);
    opscope_jw_u64(j, "warmup_op_ns", b->warmup_op_ns);
    opscope_jw_u64(j, "warmup_wall_ns", b->warmup_wall_ns);
    if (b->device_timed_graphs || b->sampled_out_graphs) { /* op_ns is measured, this an estimate */
        opscope_jw_u64(j, "device_timed_graphs", b->device_timed_graphs);
        opscope_jw_u64(j, "sampled_out_graphs", b->sampled_out_graphs);
        opscope_jw_u64(j, "estimated_op_ns", b->est_op_ns);
    }
    opscope_jw_i64(j, "first_graph", b->first_graph);
    opscope_jw_end_obj(j);
}

void opscope_graphs_write_json(opscope_out_t *w, const opscope_graphs_t *g) {
    size_t nb = g ? opscope_graphs_n_batches(g) : 0;
    if (!nb) return;
    opscope_jw j = opscope_jw_resume(w);
    opscope_jw_nl(&j);
    opscope_jw_arr(&j, "graphs_by_batch");
    for (size_t i = 0; i < nb; i++) batch_json(&j, opscope_graphs_batch_at(g, i));
    opscope_jw_end_arr(&j);
    warm_json(&j, g);
}
