/* html_graphs.c - the graph computes and their phases in the viewer's data. */
#include "export/html/html_graphs.h"

#include "analyze/ggml/graphs.h"
#include "export/fmt/json_fmt.h"
#include "util/sort.h"

#include <stdlib.h>

struct opscope_html_graphs {
    opscope_graphs_t *g;
    const opscope_graph_stats **order; /* by start, after finish */
    size_t n_order;
};

opscope_html_graphs_t *opscope_html_graphs_new(void) {
    opscope_html_graphs_t *h = calloc(1, sizeof *h);
    if (h && !(h->g = opscope_graphs_new())) {
        free(h);
        return NULL;
    }
    return h;
}

void opscope_html_graphs_free(opscope_html_graphs_t *h) {
    if (!h) return;
    opscope_graphs_free(h->g);
    free(h->order);
    free(h);
}

int opscope_html_graphs_add(opscope_html_graphs_t *h, const opscope_record *rec) {
    h->n_order = 0; /* the order is stale: finish again */
    return opscope_graphs_add(h->g, rec, 0);
}

static int by_start(const void *a, const void *b) {
    const opscope_graph_stats *x = *(const opscope_graph_stats *const *)a, *y = *(const opscope_graph_stats *const *)b;
    if (x->start_ns != y->start_ns) return x->start_ns < y->start_ns ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

/* The member KEY of the graphs object: a JSON array of one field of each compute. */
static void column(opscope_jw *j, const char *key, const opscope_graph_stats *const *v, size_t n, int which,
                   uint64_t t0) {
    opscope_jw_arr(j, key);
    for (size_t i = 0; i < n; i++) {
        switch (which) {
        case 0: opscope_jw_item_i64(j, v[i]->id); break;
        case 1: opscope_jw_item_i64(j, (int64_t)(v[i]->start_ns - t0)); break; /* two's complement: before T0 is negative */
        case 2: opscope_jw_item_u64(j, v[i]->end_ns - v[i]->start_ns); break;
        case 3: opscope_jw_item_u64(j, (uint64_t)v[i]->phase); break;
        default: opscope_jw_item_i64(j, v[i]->batch); break;
        }
    }
    opscope_jw_end_arr(j);
}

int opscope_html_graphs_finish(opscope_html_graphs_t *h) {
    if (!h || h->n_order) return 0;
    if (opscope_graphs_finish(h->g)) return -1;
    size_t n = opscope_graphs_n(h->g);
    if (!n) return 0;
    const opscope_graph_stats **v = realloc(h->order, n * sizeof *v);
    if (!v) return -1;
    h->order = v;
    for (size_t i = 0; i < n; i++) v[i] = opscope_graphs_at(h->g, i);
    opscope_sort(v, n, sizeof *v, by_start);
    h->n_order = n;
    return 0;
}

void opscope_html_graphs_write(opscope_out_t *w, const opscope_html_graphs_t *h, uint64_t t0) {
    if (!h || !h->n_order) return;
    opscope_jw j = opscope_jw_resume(w);
    opscope_jw_obj(&j, "graphs");
    opscope_jw_arr(&j, "phases");
    for (int p = OPSCOPE_GRAPH_PHASE_NONE; p <= OPSCOPE_GRAPH_PHASE_DECODE; p++)
        opscope_jw_item_str(&j, opscope_graph_phase_name((opscope_graph_phase)p));
    opscope_jw_end_arr(&j);
    static const char *const cols[] = {"id", "start", "dur", "phase", "batch"};
    for (int k = 0; k < 5; k++) column(&j, cols[k], h->order, h->n_order, k, t0);
    opscope_jw_end_obj(&j);
}
