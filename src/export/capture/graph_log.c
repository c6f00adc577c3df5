/* graph_log.c - the capture's graph log (graph_log.h). */
#include "export/capture/graph_log.h"

void opscope_graph_log_header(opscope_out_t *w) {
    opscope_out_str(w, "graph_id\tsplit_id\tbackend_id\tsched_id\tn_nodes\tn_steps\tstart_ns\tend_ns"
                       "\tcapture_ns\tattribution\ttail_ns\n");
}

void opscope_graph_log_write(opscope_out_t *w, const opscope_graph_log_row *row) {
    const int64_t ids[] = {row->graph, row->split, row->backend, row->sched, row->n_nodes,
                           row->n_steps};
    for (size_t i = 0; i < sizeof ids / sizeof *ids; i++) {
        opscope_out_i64(w, ids[i]);
        opscope_out_char(w, '\t');
    }
    const uint64_t times[] = {row->start_ns, row->end_ns, row->capture_ns};
    for (size_t i = 0; i < sizeof times / sizeof *times; i++) {
        opscope_out_u64(w, times[i]);
        opscope_out_char(w, '\t');
    }
    opscope_out_str(w, row->attribution);
    opscope_out_char(w, '\t');
    opscope_out_u64(w, row->tail_ns);
    opscope_out_char(w, '\n');
}
