/* threads_out.c - the CPU threads' sections as text and JSON (see threads_out.h). */
#include "export/sections/threads_out.h"

#include "analyze/ggml/graphs.h"
#include "util/sort.h"

#include <stdio.h>
#include <stdlib.h>

static int phase_of(void *ud, int64_t id) {
    const opscope_graph_stats *g = id >= 0 ? opscope_graphs_find(ud, id) : NULL;
    return g ? (int)g->phase : (int)OPSCOPE_GRAPH_PHASE_NONE;
}

void opscope_threads_write_finding(opscope_out_t *w, opscope_threads_t *t, const opscope_graphs_t *graphs) {
    if (opscope_threads_n(t) < 2) return;
    static const opscope_graph_phase phases[] = {OPSCOPE_GRAPH_PHASE_PREFILL, OPSCOPE_GRAPH_PHASE_DECODE};
    opscope_threads_phase p;
    char line[320];
    int lines = 0;
    for (size_t i = 0; graphs && i < sizeof phases / sizeof *phases; i++) {
        if (opscope_threads_phase_sum(t, phase_of, (void *)graphs, (int)phases[i], &p) &&
            opscope_threads_phase_line(&p, opscope_graph_phase_name(phases[i]), line, sizeof line))
            opscope_out_printf(w, lines++ ? "                %s\n" : " Threads:       %s\n", line);
    }
    bool phased = graphs && (opscope_threads_phase_sum(t, phase_of, (void *)graphs, (int)phases[0], &p) ||
                             opscope_threads_phase_sum(t, phase_of, (void *)graphs, (int)phases[1], &p));
    /* no graph with a phase (not a llama run): the whole profile in one line */
    if (!phased) {
        opscope_threads_phase_sum(t, NULL, NULL, 0, &p);
        if (opscope_threads_phase_line(&p, NULL, line, sizeof line)) opscope_out_printf(w, " Threads:       %s\n", line);
    }
}

static double pct(uint64_t a, uint64_t b) {
    return b ? 100.0 * (double)a / (double)b : 0.0;
}

/* Group indices by max work, largest first. */
static int by_max_work(const void *a, const void *b, void *ctx) {
    const opscope_thread_group *x = opscope_threads_group(ctx, *(const size_t *)a);
    const opscope_thread_group *y = opscope_threads_group(ctx, *(const size_t *)b);
    return x->work_max_ns < y->work_max_ns ? 1 : x->work_max_ns > y->work_max_ns ? -1 : 0;
}

void opscope_threads_write_text(opscope_out_t *w, opscope_threads_t *t, size_t max_groups) {
    int n = opscope_threads_n(t);
    if (n < 2) return;
    uint64_t work, wait;
    opscope_threads_totals(t, &work, &wait);
    opscope_out_printf(w, " %d threads; their wait at barriers: %.1f%% of their time on the nodes\n", n,
                       pct(wait, work + wait));
    opscope_out_str(w, "   Thread  CPU     Work (ms)   Wait (ms)   Wait %     Nodes   Slowest in   Held others (ms)\n");
    for (int i = 0; i < n; i++) {
        const opscope_thread_sum *s = opscope_threads_thread(t, i);
        char cpu[16] = "-";
        if (s->cpu >= 0)
            snprintf(cpu, sizeof cpu, "%d", s->cpu);
        else if (s->moved)
            snprintf(cpu, sizeof cpu, "moved");
        opscope_out_printf(w, "   %6d %5s %12.3f %11.3f %7.1f%% %9llu   %9.1f%% %18.3f\n", s->thread, cpu,
                           (double)s->work_ns / 1e6, (double)s->wait_ns / 1e6, pct(s->wait_ns, s->work_ns + s->wait_ns),
                           (unsigned long long)s->nodes, pct(s->slowest_nodes, s->nodes), (double)s->held_ns / 1e6);
    }
    size_t ng = opscope_threads_n_groups(t);
    size_t *ix = malloc((ng ? ng : 1) * sizeof *ix);
    if (!ix) return;
    for (size_t i = 0; i < ng; i++) ix[i] = i;
    opscope_sort_r(ix, ng, sizeof *ix, by_max_work, t);
    opscope_out_str(w, "   Op                        Nodes  Work min/mean/max (ms)      Imbalance  Wait (ms)  Slowest (of wait, nodes)\n");
    for (size_t k = 0; k < ng && k < max_groups; k++) {
        const opscope_thread_group *g = opscope_threads_group(t, ix[k]);
        opscope_out_printf(w, "   %-24.24s %7llu  %7.3f %7.3f %7.3f      %6.2f %10.3f  thread %d: %.0f%%, %.0f%%\n",
                           g->display, (unsigned long long)g->n, (double)g->work_min_ns / 1e6,
                           (double)g->work_mean_ns / 1e6, (double)g->work_max_ns / 1e6, g->imbalance,
                           (double)g->wait_ns / 1e6, g->slowest_thread, 100.0 * g->held_share,
                           100.0 * g->slowest_share);
    }
    free(ix);
}

void opscope_threads_write_json(opscope_out_t *w, opscope_threads_t *t) {
    int n = opscope_threads_n(t);
    if (n < 1) return;
    opscope_jw j = opscope_jw_resume(w);
    opscope_jw_nl(&j);
    opscope_jw_arr(&j, "cpu_threads");
    static const char *const keys[] = {"work_ns", "wait_ns", "nodes", "slowest_nodes", "held_ns"};
    for (int i = 0; i < n; i++) {
        const opscope_thread_sum *s = opscope_threads_thread(t, i);
        const uint64_t vals[] = {s->work_ns, s->wait_ns, s->nodes, s->slowest_nodes, s->held_ns};
        opscope_jw_item_obj(&j);
        opscope_jw_i64(&j, "thread", s->thread);
        for (size_t k = 0; k < sizeof vals / sizeof *vals; k++) opscope_jw_u64(&j, keys[k], vals[k]);
        if (s->cpu >= 0)
            opscope_jw_i64(&j, "cpu", s->cpu);
        else
            opscope_jw_null(&j, "cpu");
        opscope_jw_end_obj(&j);
    }
    opscope_jw_end_arr(&j);
}

void opscope_threads_write_group_json(opscope_jw *j, opscope_threads_t *t, const char *display, int32_t backend) {
    const opscope_thread_group *g = opscope_threads_find(t, display, backend);
    if (!g || !g->n) return;
    static const char *const keys[] = {"n", "work_min_ns", "work_mean_ns", "work_max_ns", "wait_ns"};
    const uint64_t vals[] = {g->n, g->work_min_ns, g->work_mean_ns, g->work_max_ns, g->wait_ns};
    opscope_jw_obj(j, "threads");
    for (size_t k = 0; k < sizeof vals / sizeof *vals; k++) opscope_jw_u64(j, keys[k], vals[k]);
    opscope_jw_fixed(j, "imbalance", g->imbalance, 3);
    opscope_jw_i64(j, "slowest_thread", g->slowest_thread);
    opscope_jw_fixed(j, "slowest_share", g->slowest_share, 3);
    opscope_jw_fixed(j, "held_share", g->held_share, 3);
    opscope_jw_end_obj(j);
}
