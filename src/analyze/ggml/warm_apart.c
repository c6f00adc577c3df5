/* warm_apart.c - the warm-up and outlier graphs of a first pass (warm_apart.h). */
#include "analyze/ggml/warm_apart.h"

#include <stdlib.h>
#include <string.h>

int opscope_warm_apart_from(opscope_warm_apart *a, const opscope_graphs_t *g,
                            bool (*choose)(const void *ctx, const opscope_graph_stats *s), const void *ctx) {
    memset(a, 0, sizeof *a);
    size_t n = opscope_graphs_n(g), k = 0;
    for (size_t i = 0; i < n; i++) {
        const opscope_graph_stats *s = opscope_graphs_at(g, i);
        a->graphs[s->warm]++;
        if (s->warm == OPSCOPE_GRAPH_STEADY && (!choose || choose(ctx, s))) a->chosen_steady++;
    }
    size_t apart = n - (size_t)a->graphs[OPSCOPE_GRAPH_STEADY];
    if (!apart) return 0;
    a->ids = malloc(apart * sizeof *a->ids);
    a->kind = malloc(apart);
    if (!a->ids || !a->kind) {
        opscope_warm_apart_free(a);
        return -1;
    }
    for (size_t i = 0; i < n; i++) { /* by id already */
        const opscope_graph_stats *s = opscope_graphs_at(g, i);
        if (s->warm == OPSCOPE_GRAPH_STEADY) continue;
        a->ids[k] = s->id;
        a->kind[k++] = (uint8_t)s->warm;
    }
    a->n = k;
    return 0;
}

void opscope_warm_apart_free(opscope_warm_apart *a) {
    free(a->ids);
    free(a->kind);
    memset(a, 0, sizeof *a);
}

opscope_graph_warm opscope_warm_apart_find(const opscope_warm_apart *a, int64_t id) {
    if (!a) return OPSCOPE_GRAPH_STEADY;
    size_t lo = 0, hi = a->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a->ids[mid] < id) lo = mid + 1;
        else hi = mid;
    }
    return lo < a->n && a->ids[lo] == id ? (opscope_graph_warm)a->kind[lo] : OPSCOPE_GRAPH_STEADY;
}
