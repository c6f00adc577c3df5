/* diff_view.c - a load's figures as the outputs' view (diff_view.h). */
#include "export/diff/diff_view.h"

#include <string.h>

void opscope_diff_view_fill(opscope_diff_view *v, const opscope_diff_load_t *l, const opscope_diff_load_opts *o,
                            size_t top) {
    const opscope_diff_load_view *lv = opscope_diff_load_get(l);
    opscope_diff_report_opts *ro = &v->ro;
    memset(ro, 0, sizeof *ro);
    ro->base_path = o->paths[0][0];
    ro->new_path = o->paths[1][0];
    ro->top = top;
    ro->tests_only = o->tests_only;
    ro->requests_only = o->requests_only;
    ro->filter = lv->filter;
    ro->trace_ops = lv->trace_ops;
    for (int s = 0; s < 2; s++) {
        ro->paths[s] = o->paths[s];
        ro->n_paths[s] = o->n_in[s];
        ro->tests[s] = lv->tests[s];
        ro->n_tests[s] = lv->n_tests[s];
        ro->requests[s] = lv->requests[s];
        ro->n_requests[s] = lv->n_requests[s];
        ro->filter_kept[s] = lv->filter_kept[s];
        ro->filter_records[s] = lv->filter_records[s];
    }
    const opscope_diff_load_apart *a = &lv->apart;
    ro->apart.on = a->on;
    ro->apart.stdin_read = a->stdin_read;
    ro->apart.no_steady = a->no_steady;
    ro->apart.no_graphs = a->no_graphs;
    memcpy(ro->apart.graphs, a->graphs, sizeof a->graphs);
    memcpy(ro->apart.records, a->records, sizeof a->records);
    memcpy(ro->apart.ns, a->ns, sizeof a->ns);
    v->d = lv->d;
}
