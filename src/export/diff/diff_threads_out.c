/*
 * diff_threads_out.c - the console and text diff's section on CPU threads and the JSON's
 * "threads" members (docs/diff.md, "CPU threads"): per group the speed-up and parallel
 * efficiency when the runs' thread counts differ, and each side's imbalance and wait share
 * where it has per-thread times. Nothing at all when neither side has per-thread times.
 */
#include "export/diff/diff_report.h"
#include "export/fmt/json_fmt.h"

#include <stdio.h>

/* V x MUL with PREC decimals and SUFFIX, or "-" when V is negative (not known). */
static void cell(char *buf, size_t size, double v, double mul, int prec, const char *suffix) {
    if (v < 0) snprintf(buf, size, "-");
    else snprintf(buf, size, "%.*f%s", prec, v * mul, suffix);
}

/* (N - B) x MUL, signed, or "-" when either is not known. */
static void change(char *buf, size_t size, double b, double n, double mul, int prec, const char *suffix) {
    if (b < 0 || n < 0) snprintf(buf, size, "-");
    else snprintf(buf, size, "%+.*f%s", prec, (n - b) * mul, suffix);
}

static void line(opscope_out_t *w, const opscope_diff_thread_cmp *c, const char *name) {
    char su[24], ef[24], ib[24], in[24], ic[24], wb[24], wn[24], wc[24];
    cell(su, sizeof su, c->speedup, 1.0, 3, "x");
    cell(ef, sizeof ef, c->efficiency, 100.0, 1, "%");
    cell(ib, sizeof ib, c->base_imbalance, 1.0, 3, "");
    cell(in, sizeof in, c->new_imbalance, 1.0, 3, "");
    change(ic, sizeof ic, c->base_imbalance, c->new_imbalance, 1.0, 3, "");
    cell(wb, sizeof wb, c->base_wait_share, 100.0, 1, "%");
    cell(wn, sizeof wn, c->new_wait_share, 100.0, 1, "%");
    change(wc, sizeof wc, c->base_wait_share, c->new_wait_share, 100.0, 1, "pp");
    opscope_out_printf(w, "  %9s %10s %9s %9s %8s %9s %9s %9s  %s\n", su, ef, ib, in, ic, wb, wn, wc, name);
}

void opscope_diff_threads_write_text(opscope_out_t *w, const opscope_diff_t *d, size_t limit, bool all) {
    if (!opscope_diff_threads_compared(d)) return;
    opscope_diff_thread_cmp c;
    opscope_diff_thread_cmp_get(d, NULL, &c);
    int32_t fewer = c.base_threads < c.new_threads ? c.base_threads : c.new_threads;
    int32_t more = c.base_threads < c.new_threads ? c.new_threads : c.base_threads;
    char tb[16], tn[16];
    snprintf(tb, sizeof tb, "%d", (int)c.base_threads);
    snprintf(tn, sizeof tn, "%d", (int)c.new_threads);
    if (c.base_threads <= 0) snprintf(tb, sizeof tb, "unknown");
    if (c.new_threads <= 0) snprintf(tn, sizeof tn, "unknown");
    opscope_out_printf(w, "\n  CPU threads: BASE %s, NEW %s", tb, tn);
    if (c.speedup >= 0)
        opscope_out_printf(w, "; speed-up = time at %d thread%s / time at %d, efficiency = speed-up / %g",
                           (int)fewer, fewer == 1 ? "" : "s", (int)more, (double)more / (double)fewer);
    opscope_out_str(w, ".\n  Imbalance: the slowest thread's work over the mean thread's; wait share: "
                       "the threads' wait at\n  the barriers over their work + wait (a side "
                       "without per-thread times: -).\n");
    opscope_out_printf(w, "  %9s %10s %9s %9s %8s %9s %9s %9s  %s\n", "Speed-up", "Efficiency", "Imb BASE",
                       "Imb NEW", "Imb d", "Wait BASE", "Wait NEW", "Wait d", "Group");
    line(w, &c, "(all groups: the totals)");
    size_t listed = 0, more_rows = 0;
    for (size_t i = 0; i < opscope_diff_n_rows(d); i++) {
        const opscope_diff_row *r = opscope_diff_row_get(d, i);
        if (!all && !r->shown) continue;
        if (limit && listed == limit) {
            more_rows++;
            continue;
        }
        listed++;
        opscope_diff_thread_cmp_get(d, r, &c);
        line(w, &c, r->name);
    }
    if (more_rows) opscope_out_printf(w, "  ... %zu more (--text FILE lists all)\n", more_rows);
}

/* KEY: V, or null when KNOWN is false. */
static void double_if(opscope_jw *j, const char *key, bool known, double v) {
    if (known) opscope_jw_double(j, key, v);
    else opscope_jw_null(j, key);
}

/* The members of one comparison (not known: null). */
static void cmp_json(opscope_jw *j, const opscope_diff_thread_cmp *c) {
    bool ib = c->base_imbalance >= 0, in = c->new_imbalance >= 0;
    bool wb = c->base_wait_share >= 0, wn = c->new_wait_share >= 0;
    double_if(j, "speedup", c->speedup >= 0, c->speedup);
    double_if(j, "efficiency", c->efficiency >= 0, c->efficiency);
    double_if(j, "base_imbalance", ib, c->base_imbalance);
    double_if(j, "new_imbalance", in, c->new_imbalance);
    double_if(j, "imbalance_change", ib && in, c->new_imbalance - c->base_imbalance);
    double_if(j, "base_wait_share", wb, c->base_wait_share);
    double_if(j, "new_wait_share", wn, c->new_wait_share);
    double_if(j, "wait_share_change", wb && wn, c->new_wait_share - c->base_wait_share);
}

/* One side's sums as "P_threads_n", "P_work_ns"... */
static void sums_json(opscope_jw *j, const char *p, const opscope_diff_group *g) {
    static const opscope_diff_threads none = {0};
    const opscope_diff_threads *t = g ? &g->threads : &none;
    const char *names[] = {"n", "work_ns", "work_mean_ns", "work_max_ns", "wait_ns"};
    const uint64_t v[] = {t->n, t->work_ns, t->work_mean_ns, t->work_max_ns, t->wait_ns};
    for (size_t i = 0; i < 5; i++) {
        char k[48];
        snprintf(k, sizeof k, "%s_%s", p, names[i]);
        opscope_jw_u64(j, k, v[i]);
    }
}

void opscope_diff_threads_row_json(opscope_jw *j, const opscope_diff_t *d, const opscope_diff_row *r) {
    if (!opscope_diff_threads_compared(d)) return;
    opscope_diff_thread_cmp c;
    opscope_diff_thread_cmp_get(d, r, &c);
    opscope_jw_obj(j, "threads");
    sums_json(j, "base", r->base);
    sums_json(j, "new", r->newg);
    cmp_json(j, &c);
    opscope_jw_end_obj(j);
}

void opscope_diff_threads_write_json(opscope_jw *j, const opscope_diff_t *d) {
    if (!opscope_diff_threads_compared(d)) return;
    opscope_diff_thread_cmp c;
    opscope_diff_thread_cmp_get(d, NULL, &c);
    opscope_jw_nl(j);
    opscope_jw_obj(j, "threads");
    opscope_jw_i64(j, "base_threads", c.base_threads);
    opscope_jw_i64(j, "new_threads", c.new_threads);
    opscope_jw_u64(j, "base_thread_records", opscope_diff_side_totals(opscope_diff_base(d))->thread_records);
    opscope_jw_u64(j, "new_thread_records", opscope_diff_side_totals(opscope_diff_newer(d))->thread_records);
    cmp_json(j, &c);
    opscope_jw_end_obj(j);
}
