/* graph_select.c - the graph computes an input's read keeps (graph_select.h). */
#include "analyze/diff/graph_select.h"

#include <string.h>

int opscope_graph_select_set(opscope_graph_select *s, bool batch, const char *val) {
    if (batch && val && (!strcmp(val, "decode") || !strcmp(val, "prefill"))) {
        s->by_phase = true;
        s->phase = val[0] == 'd' ? OPSCOPE_GRAPH_PHASE_DECODE : OPSCOPE_GRAPH_PHASE_PREFILL;
    } else if (!opscope_range_parse(val, batch ? &s->batch : &s->graphs)) {
        return -1;
    } else if (batch) {
        s->by_phase = false;
    }
    if (batch) s->batch_spec = val;
    else s->graphs_spec = val;
    return 0;
}

void opscope_graph_select_filter_init(const opscope_graph_select *s, opscope_graph_filter *f) {
    memset(f, 0, sizeof *f);
    f->by_graph = s->graphs_spec != NULL;
    f->by_batch = s->batch_spec != NULL && !s->by_phase;
    f->by_phase = s->batch_spec != NULL && s->by_phase;
    f->phase = s->phase;
    f->graphs = s->graphs;
    f->batch = s->batch;
    f->steady = s->steady;
}

int opscope_graph_select_open(const opscope_graph_select *s, const char *path, opscope_diff_read_fn read,
                              opscope_graph_selection *sel, opscope_error *err) {
    memset(sel, 0, sizeof *sel);
    opscope_graph_select_filter_init(s, &sel->filter);
    snprintf(sel->desc, sizeof sel->desc, "%s%s%s%s%s", s->batch_spec ? "batch " : "",
             s->batch_spec ? s->batch_spec : "", s->batch_spec && s->graphs_spec ? ", " : "",
             s->graphs_spec ? "graph ids " : "", s->graphs_spec ? s->graphs_spec : "");
    if (!s->batch_spec) return 0;
    sel->index = opscope_graphs_new();
    if (!sel->index) {
        memset(err, 0, sizeof *err);
        err->code = OPSCOPE_ERROR_NOMEM;
        err->msg = "out of memory";
        return -1;
    }
    opscope_sink is = opscope_graphs_sink(sel->index);
    int rc = read(path, OPSCOPE_FORMAT_AUTO, &is, NULL, err);
    if (rc) {
        if (err->code == OPSCOPE_ERROR_ABORTED) {
            err->code = OPSCOPE_ERROR_NOMEM; /* the graphs sink stops only when out of memory */
            err->msg = "out of memory";
        }
        return -1;
    }
    sel->filter.index = sel->index;
    return 0;
}

void opscope_graph_select_note(FILE *msg, const char *cmd, const opscope_graph_select *s, const char *path,
                               const opscope_graph_selection *sel) {
    if (!msg || !opscope_graph_select_any(s) || sel->filter.kept) return;
    const opscope_graphs_t *index = sel->index;
    if (!index || !opscope_graphs_n(index)) {
        fprintf(msg, "opscope %s: no record of %s matches %s%s\n", cmd, path, sel->desc,
                index ? ": its records carry no graph ids (a trace, not a ggml profile)" : "");
        return;
    }
    fprintf(msg, "opscope %s: no record of %s matches %s; its batches:", cmd, path, sel->desc);
    for (size_t i = 0; i < opscope_graphs_n_batches(index) && i < 20; i++) {
        const opscope_graph_batch *b = opscope_graphs_batch_at(index, i);
        fprintf(msg, " %lld %s (%llu graphs)", (long long)b->batch, opscope_graph_phase_name(b->phase),
                (unsigned long long)b->graphs);
    }
    fprintf(msg, "; graph ids %lld-%lld\n", (long long)opscope_graphs_at(index, 0)->id,
            (long long)opscope_graphs_at(index, opscope_graphs_n(index) - 1)->id);
}

void opscope_graph_select_close(opscope_graph_selection *sel) {
    opscope_graphs_free(sel->index);
    sel->index = NULL;
    sel->filter.index = NULL;
}
