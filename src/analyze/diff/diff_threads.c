/* diff_threads.c - CPU threads compared between the two sides of a diff (diff.h). */
#include "analyze/diff/diff.h"
#include "analyze/diff/diff_side_state.h"

#include <string.h>

bool opscope_diff_threads_compared(const opscope_diff_t *d) {
    return opscope_diff_side_totals(opscope_diff_base(d))->thread_records > 0 ||
           opscope_diff_side_totals(opscope_diff_newer(d))->thread_records > 0;
}

/* Imbalance and wait share of TH into *IMB and *WAIT; -1 when it has no per-thread times. */
static void shares(const opscope_diff_threads *th, double *imb, double *wait) {
    *imb = *wait = -1.0;
    if (!th->n) return;
    if (th->work_mean_ns) *imb = (double)th->work_max_ns / (double)th->work_mean_ns;
    if (th->work_ns + th->wait_ns) *wait = (double)th->wait_ns / (double)(th->work_ns + th->wait_ns);
}

/* A side's per-thread times over every group. */
static void side_threads(const opscope_diff_side_t *s, opscope_diff_threads *out) {
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < opscope_diff_side_n_groups(s); i++)
        opscope_diff_threads_add(out, &opscope_diff_side_group(s, i)->threads);
}

void opscope_diff_thread_cmp_get(const opscope_diff_t *d, const opscope_diff_row *r, opscope_diff_thread_cmp *out) {
    const opscope_diff_side_t *sb = opscope_diff_base(d), *sn = opscope_diff_newer(d);
    memset(out, 0, sizeof *out);
    out->base_threads = opscope_diff_side_totals(sb)->threads;
    out->new_threads = opscope_diff_side_totals(sn)->threads;
    opscope_diff_threads tb = {0}, tn = {0};
    double b, n;
    if (r) {
        if (r->base) tb = r->base->threads;
        if (r->newg) tn = r->newg->threads;
        b = r->base_ns;
        n = r->new_ns;
    } else {
        side_threads(sb, &tb);
        side_threads(sn, &tn);
        const opscope_diff_summary *sm = opscope_diff_get_summary(d);
        b = sm->base_total;
        n = sm->new_total;
    }
    shares(&tb, &out->base_imbalance, &out->base_wait_share);
    shares(&tn, &out->new_imbalance, &out->new_wait_share);
    out->speedup = out->efficiency = -1.0;
    int32_t nb = out->base_threads, nn = out->new_threads;
    /* a group no side ran on timed CPU threads (copies, GPU ops) did not scale with them */
    if (nb <= 0 || nn <= 0 || nb == nn || !(b > 0) || !(n > 0) || (!tb.n && !tn.n)) return;
    /* time at the fewer threads over time at the more; efficiency: per thread added */
    bool base_fewer = nb < nn;
    out->speedup = base_fewer ? b / n : n / b;
    out->efficiency = out->speedup * (double)(base_fewer ? nb : nn) / (double)(base_fewer ? nn : nb);
}
