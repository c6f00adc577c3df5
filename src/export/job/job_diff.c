/*
 * job_diff.c - two jobs side by side (job_diff.h).
 */
#include "export/job/job_diff.h"

#include <string.h>

static double ms(int64_t ns) {
    return (double)ns / 1e6;
}

static int64_t step_of(const opscope_job_rank_summary *s) {
    return s->n_steps ? s->step_median_ns : s->span_ns;
}

/* Calls FN for every rank of either job, in rank order, with its row on each side (or NULL). */
static void each_rank(const opscope_job *a, const opscope_job *b, void *ud,
                      void (*fn)(void *ud, int64_t rank, const opscope_job_row *x, const opscope_job_row *y, bool first)) {
    size_t i = 0, j = 0;
    bool first = true;
    while (i < a->n || j < b->n) {
        int64_t ra = i < a->n ? a->rows[i].s->rank : INT64_MAX, rb = j < b->n ? b->rows[j].s->rank : INT64_MAX;
        int64_t r = ra < rb ? ra : rb;
        const opscope_job_row *x = ra == r ? &a->rows[i] : NULL, *y = rb == r ? &b->rows[j] : NULL;
        /* a rank claimed twice on one side: each of its rows once */
        if (x) i++;
        if (y) j++;
        fn(ud, r, x, y, first);
        first = false;
    }
}

static void console_bound(opscope_out_t *w, const char *side, const opscope_job *j) {
    opscope_out_printf(w, "%-5s %zu ranks, median step %.2f ms, bound by %s on rank %lld", side, j->n,
                       ms(j->median_step_ns), j->bound_resource ? j->bound_resource : "?",
                       j->n ? (long long)j->rows[j->bound_row].s->rank : -1LL);
    for (size_t i = 0; i < j->n_stragglers; i++)
        opscope_out_printf(w, "%s rank %lld (%s)", i ? "," : "; stragglers:", (long long)j->stragglers[i].rank,
                           opscope_job_cause_name(j->stragglers[i].cause));
    opscope_out_char(w, '\n');
}

static void console_row(void *ud, int64_t rank, const opscope_job_row *x, const opscope_job_row *y, bool first) {
    opscope_out_t *w = ud;
    (void)first;
    opscope_out_printf(w, "%5lld", (long long)rank);
    if (x) opscope_out_printf(w, " %9.2f", ms(step_of(x->s)));
    else opscope_out_printf(w, " %9s", "-");
    if (y) opscope_out_printf(w, " %9.2f", ms(step_of(y->s)));
    else opscope_out_printf(w, " %9s", "-");
    if (!x || !y) {
        opscope_out_printf(w, "  %s\n", x ? "(BASE only)" : "(NEW only)");
        return;
    }
    int64_t a = step_of(x->s), b = step_of(y->s);
    opscope_out_printf(w, " %+7.1f%% %+7.1f %+9.1f %+7.1f %+7.1f %+9.1f %10.1f %10.1f\n",
                       a > 0 ? 100.0 * (double)(b - a) / (double)a : 0.0, y->idle_pct - x->idle_pct,
                       y->compute_pct - x->compute_pct, y->comm_pct - x->comm_pct, y->input_pct - x->input_pct,
                       y->overlap_pct - x->overlap_pct, (double)x->s->launch.delay_p50_ns / 1e3,
                       (double)y->s->launch.delay_p50_ns / 1e3);
}

void opscope_job_diff_console(opscope_out_t *w, const opscope_job *base, const opscope_job *next) {
    int64_t a = base->median_step_ns, b = next->median_step_ns;
    opscope_out_printf(w, "Job diff: median step %.2f ms -> %.2f ms (%+.1f%%)\n", ms(a), ms(b),
                       a > 0 ? 100.0 * (double)(b - a) / (double)a : 0.0);
    console_bound(w, "BASE", base);
    console_bound(w, "NEW", next);
    opscope_out_str(w, "\nPer rank (median step ms; changes of the shares in points of the span; delay p50 in us)\n");
    opscope_out_printf(w, "%5s %9s %9s %8s %7s %9s %7s %7s %9s %10s %10s\n", "rank", "base ms", "new ms",
                       "step", "idle", "compute", "comm", "input", "overlap", "delay base", "delay new");
    each_rank(base, next, w, console_row);
}

static void json_side(opscope_out_t *w, const opscope_job_row *r) {
    if (!r) {
        opscope_out_str(w, "null");
        return;
    }
    opscope_out_printf(w, "{\"trace\":");
    opscope_out_json_str(w, r->path);
    opscope_out_printf(w, ",\"step_median_ns\":%lld,\"launch_delay_p50_ns\":%lld", (long long)step_of(r->s),
                       (long long)r->s->launch.delay_p50_ns);
    const double v[] = {r->idle_pct, r->compute_pct, r->non_compute_pct, r->overlap_pct};
    const char *k[] = {"idle_pct", "compute_pct", "non_compute_pct", "overlap_pct"};
    for (int i = 0; i < 4; i++) {
        opscope_out_printf(w, ",\"%s\":", k[i]);
        opscope_out_fixed(w, v[i], 4);
    }
    opscope_out_char(w, '}');
}

static void json_row(void *ud, int64_t rank, const opscope_job_row *x, const opscope_job_row *y, bool first) {
    opscope_out_t *w = ud;
    opscope_out_printf(w, "%s{\"rank\":%lld,\"base\":", first ? "" : ",", (long long)rank);
    json_side(w, x);
    opscope_out_str(w, ",\"new\":");
    json_side(w, y);
    opscope_out_char(w, '}');
}

static void json_job(opscope_out_t *w, const opscope_job *j) {
    opscope_out_printf(w, "{\"ranks_count\":%zu,\"median_step_ns\":%lld,\"bound\":{\"rank\":%lld,\"resource\":", j->n,
                       (long long)j->median_step_ns, j->n ? (long long)j->rows[j->bound_row].s->rank : -1LL);
    opscope_out_json_str(w, j->bound_resource ? j->bound_resource : "unknown");
    opscope_out_str(w, "},\"stragglers\":[");
    for (size_t i = 0; i < j->n_stragglers; i++) {
        opscope_out_printf(w, "%s{\"rank\":%lld,\"cause\":\"%s\",\"wait_ns\":%lld}", i ? "," : "",
                           (long long)j->stragglers[i].rank, opscope_job_cause_name(j->stragglers[i].cause),
                           (long long)j->stragglers[i].wait_ns);
    }
    opscope_out_str(w, "]}");
}

void opscope_job_diff_json(opscope_out_t *w, const opscope_job *base, const opscope_job *next) {
    opscope_out_str(w, "{\"job_diff\":{\"base\":");
    json_job(w, base);
    opscope_out_str(w, ",\"new\":");
    json_job(w, next);
    opscope_out_str(w, ",\"ranks\":[");
    each_rank(base, next, w, json_row);
    opscope_out_str(w, "]}}\n");
}
