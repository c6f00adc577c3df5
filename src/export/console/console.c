/* console.c - the console summary (stdout). */
#include "export/sections/sections.h"
#include "analyze/ggml/graphs.h"
#include "export/sections/threads_out.h"
#include "analyze/record/shape_fmt.h"
#include "export/console/text.h"
#include "export/sections/win_out.h"

void opscope_console_write(opscope_out_t *w, const opscope_stats_t *s,
                           const opscope_report_opts *o) {
    static const opscope_report_opts defaults = {0};
    if (!o) o = &defaults;
    const opscope_totals *t = opscope_stats_totals(s);
    opscope_out_str(w, "\n================================================================================\n");
    opscope_out_printf(w, " opscope summary%s%s\n", o->source ? ": " : "", o->source ? o->source : "");
    opscope_out_str(w, "================================================================================\n");
    opscope_out_printf(w, " Total records: %llu (%llu ops, %llu copies)\n",
                       (unsigned long long)t->n_records, (unsigned long long)t->n_ops,
                       (unsigned long long)t->n_copies);
    bool sampled = opscope_totals_sampled(t); /* the sums hold the device-timed computes only */
    opscope_out_printf(w, " Total time:    %.2f ms%s (ops %.2f ms, copies %.2f ms)\n",
                       (double)t->total_ns / 1e6, sampled ? " measured" : "", (double)t->op_ns / 1e6,
                       (double)t->copy_ns / 1e6);
    if (sampled) {
        opscope_out_printf(w, " Estimated:     %.2f ms est. over all computes (ops %.2f ms, copies %.2f ms)\n",
                           (double)t->est_total_ns / 1e6, (double)t->est_op_ns / 1e6, (double)t->est_copy_ns / 1e6);
        opscope_out_str(w, "                (sampled device timing: measured = the device-timed computes and the\n"
                           "                 others' host time; est. = timed records x their weights; per op in\n"
                           "                 \"Sampled device timing (estimates)\")\n");
    }
    if (t->n_records)
        opscope_out_printf(w, " Wall span:     %.2f ms\n",
                           (double)(t->last_end_ns - t->first_start_ns) / 1e6);
    opscope_text_rpc_covered(w, t, 16);
    opscope_out_printf(w, " Unique ops:    %zu\n", opscope_stats_n_ops(s));
    if (o->filter)
        opscope_out_printf(w, " Filter:        %s: %llu of %llu records kept\n", o->filter,
                           (unsigned long long)o->filter_kept, (unsigned long long)o->filter_records);
    opscope_text_dropped(w, opscope_stats_meta(s), 16);
    opscope_text_ended(w, opscope_stats_meta(s), 16);
    const opscope_capture_info *cap = opscope_stats_meta(s)->capture;
    opscope_win_write_head(w, cap, t->first_start_ns, t->last_end_ns, 16);
    opscope_threads_write_finding(w, o->threads, o->graphs);
    opscope_run_write_head(w, s, o->peak);
    opscope_out_str(w, "================================================================================\n");
    /* before the records' sections: a window that caught no compute is still said */
    if (opscope_win_any(cap)) opscope_out_str(w, "\n --- " OPSCOPE_WIN_TITLE " ---\n");
    opscope_win_write_text(w, cap, o->graphs, t->first_start_ns, t->last_end_ns, 20);
    opscope_out_char(w, '\n');
    if (!t->n_records) {
        opscope_out_str(w, " No profiling data.\n\n");
        return;
    }
    if (opscope_run_write_tests_text(w, s, o->graphs)) opscope_out_str(w, " (tests: out of memory)\n");
    if (opscope_req_write_text(w, s, o->graphs, 32)) opscope_out_str(w, " (requests: out of memory)\n");
    opscope_name_labels_t *labels = opscope_name_labels_new(s); /* NULL: full names */
    size_t limit = o->top_ops ? o->top_ops : 50;
    opscope_text_op_table_peak(w, s, opscope_stats_n_ops(s), opscope_stats_op, limit, false, labels,
                               o->peak);
    opscope_text_roofline_note(w, s, o->peak);
    opscope_text_sampled(w, s, 0);

    if (opscope_stats_n_backends(s) > 1) {
        opscope_out_str(w, "\n --- By Backend ---\n");
        opscope_text_backends(w, s);
    }
    if (opscope_stats_n_copy_dirs(s)) {
        opscope_out_str(w, "\n --- Copies by direction ---\n");
        opscope_text_copies(w, s, labels);
    }
    if (opscope_graphs_any(o->graphs)) {
        opscope_out_str(w, "\n --- " OPSCOPE_GRAPHS_TITLE " ---\n");
        opscope_graphs_write_text(w, o->graphs, 10);
    }
    if (opscope_threads_n(o->threads) > 1) {
        opscope_out_str(w, "\n --- CPU threads at ggml's barriers ---\n");
        opscope_threads_write_text(w, o->threads, 10);
    }
    if (o->by_shape) {
        opscope_out_str(w, "\n --- By shape ---\n");
        opscope_text_op_table_peak(w, s, opscope_stats_n_shapes(s), opscope_stats_shape,
                                   o->top_shapes ? o->top_shapes : 30, true, labels, o->peak);
    }
    size_t n_ineff = o->inefficiency ? 20 : 5;
    if (opscope_stats_n_inefficient(s)) {
        opscope_out_printf(w, "\n --- Top %zu Inefficient Operations (time/byte) ---\n", n_ineff);
        opscope_text_inefficiency(w, s, n_ineff, labels);
    }
    size_t n_top = o->top_kernels ? o->top_kernels : 5;
    if (opscope_stats_n_top(s)) {
        opscope_out_printf(w, "\n --- Top %zu Longest Kernels ---\n", n_top);
        opscope_text_top_kernels(w, s, n_top, labels);
    }
    opscope_name_labels_free(labels);
    opscope_out_char(w, '\n');
}
