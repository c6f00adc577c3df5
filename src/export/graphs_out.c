/* graphs_out.c - the "Graphs by batch" section as text and as JSON (sections.h). */
#include "export/sections.h"

#include <stdio.h>

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

void opscope_graphs_write_json(opscope_out_t *w, const opscope_graphs_t *g) {
    size_t nb = g ? opscope_graphs_n_batches(g) : 0;
    if (!nb) return;
    opscope_out_str(w, ",\n\"graphs_by_batch\":[");
    for (size_t i = 0; i < nb; i++) {
        const opscope_graph_batch *b = opscope_graphs_batch_at(g, i);
        opscope_out_str(w, i ? ",\n{\"batch\":" : "\n{\"batch\":");
        opscope_out_i64(w, b->batch);
        opscope_out_str(w, ",\"phase\":\"");
        opscope_out_str(w, opscope_graph_phase_name(b->phase));
        opscope_out_char(w, '"');
        static const char *const names[] = {"graphs", "records", "ops", "op_ns", "copy_ns", "wall_ns",
                                            "median_op_ns", "median_wall_ns", "span_ns"};
        const uint64_t v[] = {b->graphs, b->records, b->n_ops, b->op_ns, b->copy_ns, b->wall_ns,
                              b->median_op_ns, b->median_wall_ns, b->span_ns};
        for (size_t k = 0; k < sizeof v / sizeof *v; k++) {
            opscope_out_str(w, ",\"");
            opscope_out_str(w, names[k]);
            opscope_out_str(w, "\":");
            opscope_out_u64(w, v[k]);
        }
        if (b->n_outliers) {
            opscope_out_str(w, ",\"outliers\":");
            opscope_out_u64(w, b->n_outliers);
            opscope_out_str(w, ",\"outlier_wall_ns\":");
            opscope_out_u64(w, b->outlier_wall_ns);
            opscope_out_str(w, ",\"max_outlier_graph\":");
            opscope_out_i64(w, b->max_outlier_graph);
            opscope_out_str(w, ",\"max_outlier_wall_ns\":");
            opscope_out_u64(w, b->max_outlier_wall_ns);
        }
        if (b->device_timed_graphs || b->sampled_out_graphs) { /* op_ns is measured, this an estimate */
            opscope_out_str(w, ",\"device_timed_graphs\":");
            opscope_out_u64(w, b->device_timed_graphs);
            opscope_out_str(w, ",\"sampled_out_graphs\":");
            opscope_out_u64(w, b->sampled_out_graphs);
            opscope_out_str(w, ",\"estimated_op_ns\":");
            opscope_out_u64(w, b->est_op_ns);
        }
        opscope_out_str(w, ",\"first_graph\":");
        opscope_out_i64(w, b->first_graph);
        opscope_out_char(w, '}');
    }
    opscope_out_char(w, ']');
}
