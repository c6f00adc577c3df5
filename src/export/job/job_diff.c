/*
 * job_diff.c - two jobs side by side (job_diff.h).
 */
#include "export/job/job_diff.h"
#include "export/fmt/json_fmt.h"

#include <string.h>

static double ms(int64_t ns) {
    return (double)ns / 1e6;
}

static int64_t step_of(const opscope_job_rank_summary *s) {
    return s->n_steps ? s->step_median_ns : s->span_ns;
}

/* Calls FN for every rank of either job, in rank order, with its row on each side (or NULL). */
static void each_rank(const opscope_job *a, const opscope_job *b, void *ud,
                      void (*fn)(void *ud, int64_t rank, const opscope_job_row *x, const opscope_job_row *y)) {
    size_t i = 0, j = 0;
    while (i < a->n || j < b->n) {
        int64_t ra = i < a->n ? a->rows[i].s->rank : INT64_MAX, rb = j < b->n ? b->rows[j].s->rank : INT64_MAX;
        int64_t r = ra < rb ? ra : rb;
        const opscope_job_row *x = ra == r ? &a->rows[i] : NULL, *y = rb == r ? &b->rows[j] : NULL;
        /* a rank claimed twice on one side: each of its rows once */
        if (x) i++;
        if (y) j++;
        fn(ud, r, x, y);
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

static void console_row(void *ud, int64_t rank, const opscope_job_row *x, const opscope_job_row *y) {
    opscope_out_t *w = ud;
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

/* The member KEY: R's side (NULL: null). */
static void json_side(opscope_jw *j, const char *key, const opscope_job_row *r) {
    if (!opscope_jw_obj_or_null(j, key, r)) return;
    opscope_jw_str(j, "trace", r->path);
    opscope_jw_i64(j, "step_median_ns", step_of(r->s));
    opscope_jw_i64(j, "launch_delay_p50_ns", r->s->launch.delay_p50_ns);
    opscope_jw_fixed(j, "idle_pct", r->idle_pct, 4);
    opscope_jw_fixed(j, "compute_pct", r->compute_pct, 4);
    opscope_jw_fixed(j, "non_compute_pct", r->non_compute_pct, 4);
    opscope_jw_fixed(j, "overlap_pct", r->overlap_pct, 4);
    opscope_jw_end_obj(j);
}

/* A rank as an item of the "ranks" array (UD: its writer). */
static void json_row(void *ud, int64_t rank, const opscope_job_row *x, const opscope_job_row *y) {
    opscope_jw *j = ud;
    opscope_jw_item_obj(j);
    opscope_jw_i64(j, "rank", rank);
    json_side(j, "base", x);
    json_side(j, "new", y);
    opscope_jw_end_obj(j);
}

/* The member KEY: one job's ranks, median step, bound and stragglers. */
static void json_job(opscope_jw *j, const char *key, const opscope_job *job) {
    opscope_jw_obj(j, key);
    opscope_jw_u64(j, "ranks_count", job->n);
    opscope_jw_i64(j, "median_step_ns", job->median_step_ns);
    opscope_jw_obj(j, "bound");
    opscope_jw_i64(j, "rank", job->n ? job->rows[job->bound_row].s->rank : -1);
    opscope_jw_str(j, "resource", job->bound_resource ? job->bound_resource : "unknown");
    opscope_jw_end_obj(j);
    opscope_jw_arr(j, "stragglers");
    for (size_t i = 0; i < job->n_stragglers; i++) {
        opscope_jw_item_obj(j);
        opscope_jw_i64(j, "rank", job->stragglers[i].rank);
        opscope_jw_str(j, "cause", opscope_job_cause_name(job->stragglers[i].cause));
        opscope_jw_i64(j, "wait_ns", job->stragglers[i].wait_ns);
        opscope_jw_end_obj(j);
    }
    opscope_jw_end_arr(j);
    opscope_jw_end_obj(j);
}

void opscope_job_diff_json(opscope_out_t *w, const opscope_job *base, const opscope_job *next) {
    opscope_jw j = opscope_jw_object(w);
    opscope_jw_obj(&j, "job_diff");
    json_job(&j, "base", base);
    json_job(&j, "new", next);
    opscope_jw_arr(&j, "ranks");
    each_rank(base, next, &j, json_row);
    opscope_jw_end_arr(&j);
    opscope_jw_end_obj(&j);
    opscope_jw_end_obj(&j);
    opscope_out_char(w, '\n');
}
