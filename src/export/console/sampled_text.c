/*
 * sampled_text.c - the console and text reports' section on sampled device timing: per op
 * group, how many graph computes were timed on the device, of how many, and the estimated
 * total over all of them (marked as an estimate). Written only when the profile's device
 * records carry sampling weights (docs/capture.md, "Device timing").
 */
#include "export/console/sampled_text.h"

#include <stdlib.h>

#define SAMPLED_ROWS 25

static int by_est(const void *a, const void *b) {
    const opscope_op_stats *x = *(const opscope_op_stats *const *)a, *y = *(const opscope_op_stats *const *)b;
    return x->est_ns < y->est_ns ? 1 : x->est_ns > y->est_ns ? -1 : 0;
}

void opscope_text_sampled(opscope_out_t *w, const opscope_stats_t *s, size_t limit) {
    size_t n = opscope_stats_n_ops(s), k = 0;
    const opscope_op_stats **v = malloc((n ? n : 1) * sizeof *v);
    if (!v) {
        return;
    }
    for (size_t i = 0; i < n; i++) {
        const opscope_op_stats *g = opscope_stats_op(s, i);
        if (g->timed_computes) {
            v[k++] = g;
        }
    }
    if (k) {
        qsort(v, k, sizeof *v, by_est);
        opscope_out_str(w, "\n --- Sampled device timing (estimates) ---\n");
        opscope_out_str(w, " Per graph, its first computes and then one in N were timed on the device\n"
                           " (`opscope record --gpu-timing all` times every one); the others are host-timed\n"
                           " GRAPH_SPLIT records. Timed / computes: per op group. est.: the measured time\n"
                           " scaled to all the computes, an estimate.\n");
        opscope_out_printf(w, " %-40s %7s %17s %12s %16s\n", "Operation", "Backend", "Timed / computes",
                           "Measured ms", "Estimated ms");
        size_t lim = limit ? limit : SAMPLED_ROWS;
        for (size_t i = 0; i < k && i < lim; i++) {
            const opscope_op_stats *g = v[i];
            opscope_out_printf(w, " %-40.40s %7d %8llu / %-6llu %12.3f %10.3f est.\n", g->display, (int)g->backend_id,
                               (unsigned long long)g->timed_computes, (unsigned long long)g->sampled_computes,
                               (double)g->total_ns / 1e6, (double)g->est_ns / 1e6);
        }
        if (k > lim) {
            opscope_out_printf(w, " ... %zu more groups (the JSON summary lists every one)\n", k - lim);
        }
    }
    free(v);
}
