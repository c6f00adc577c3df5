/*
 * diff_align.c - two finished sides aligned into rows: normalisation, the noise test,
 * fusion differences and regressions (definitions: docs/diff.md).
 */
#include "util/hash.h"
#include "util/hindex.h"
#include "analyze/diff/diff.h"
#include "model/ggml_vocab.h"
#include "model/strtab.h"
#include "util/sort.h"
#include "util/vec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct opscope_diff {
    const opscope_diff_side_t *side[2];
    opscope_diff_opts opts;
    opscope_diff_norm norm;
    double units[2];
    bool merged;
    opscope_diff_row *rows;
    size_t n_rows;
    opscope_diff_fusion *fusions;
    size_t n_fusions, cap_fusions;
    opscope_diff_summary sum;
    opscope_diff_noise noise;
    bool total_tested;  /* the total's regression is tested (runs on both sides) */
    double alpha_check; /* --alpha over the number of regression checks */
};

/* How much the rest of the run (all but R's group) slowed from BASE to NEW; 1 when a side
 * has no rest. */
static double scale_rest(const opscope_diff_t *d, const opscope_diff_row *r) {
    double b = d->sum.base_total - r->base_ns, n = d->sum.new_total - r->new_ns;
    return b > 0 && n > 0 ? n / b : 1.0;
}

const char *opscope_diff_norm_name(opscope_diff_norm n) {
    switch (n) {
    case OPSCOPE_DIFF_NORM_GRAPH: return "graph";
    case OPSCOPE_DIFF_NORM_TOKEN: return "token";
    case OPSCOPE_DIFF_NORM_ITERATION: return "iteration";
    case OPSCOPE_DIFF_NORM_AUTO: return "auto";
    default: return "none";
    }
}

static uint64_t unit_count(const opscope_diff_totals *t, opscope_diff_norm n) {
    switch (n) {
    case OPSCOPE_DIFF_NORM_GRAPH: return t->graphs;
    case OPSCOPE_DIFF_NORM_TOKEN: return t->tokens;
    case OPSCOPE_DIFF_NORM_ITERATION: return t->iterations;
    default: return t->inputs > 1 ? t->inputs : 1; /* totals per run */
    }
}

/* Run R's count of the unit N (1 per run for none); 0 when unknown (iterations). */
static double run_units(const opscope_diff_run *r, opscope_diff_norm n) {
    switch (n) {
    case OPSCOPE_DIFF_NORM_GRAPH: return (double)r->graphs;
    case OPSCOPE_DIFF_NORM_TOKEN: return (double)r->tokens;
    case OPSCOPE_DIFF_NORM_ITERATION: return 0;
    default: return 1;
    }
}

/* The spread of a side's normalised total: its variance and Welch-Satterthwaite term. */
typedef struct spread {
    double mean, var, df_den;
    bool ok;
} spread;

/* From per-run totals (RUN_NS, or the runs' whole totals when NULL): the mean per unit of the
 * runs and the variance of that mean. Needs 2 runs with units. */
static spread per_run(const opscope_diff_t *d, int side, const uint64_t *run_ns) {
    spread sp = {0};
    const opscope_diff_side_t *s = d->side[side];
    size_t k = (size_t)opscope_diff_side_totals(s)->inputs;
    if (k < 2) return sp;
    double sum = 0, sumsq = 0;
    for (size_t r = 0; r < k; r++) {
        opscope_diff_run run;
        if (!opscope_diff_side_run(s, r, &run)) return sp;
        double u = run_units(&run, d->norm);
        if (u <= 0) return sp;
        double v = (double)(run_ns ? run_ns[r] : run.total_ns) / u;
        sum += v;
        sumsq += v * v;
    }
    sp.mean = sum / (double)k;
    double var = fmax(0.0, (sumsq - sum * sum / (double)k) / (double)(k - 1));
    sp.var = var / (double)k;
    sp.df_den = sp.var * sp.var / (double)(k - 1);
    sp.ok = true;
    return sp;
}

/* From a group's strata (per-graph sums or per-call durations) over one run's units. */
static spread per_stratum(double mean, double var_total, double df_den, double units) {
    spread sp = {mean, var_total / (units * units), df_den / (units * units * units * units), true};
    return sp;
}

/* One-sided p-value that NEW exceeds F times BASE (F = 1 + PCT/100): the regression test. */
static double margin_p(const spread *b, const spread *n, double f) {
    double se2 = n->var + f * f * b->var, delta = n->mean - f * b->mean;
    if (se2 <= 0.0) return delta > 0 ? 0.0 : 1.0;
    double den = n->df_den + f * f * f * f * b->df_den;
    double t = delta / sqrt(se2), df = den > 0 ? se2 * se2 / den : 1.0;
    double two = opscope_t_two_sided(t, df);
    return t > 0 ? two / 2 : 1.0 - two / 2;
}

/* |delta| descending, then the larger total, then the key: a stable, total order. */
static int row_cmp(const void *pa, const void *pb) {
    const opscope_diff_row *a = pa, *b = pb;
    double da = fabs(a->delta_ns), db = fabs(b->delta_ns);
    if (da != db) return da > db ? -1 : 1;
    double ma = fmax(a->base_ns, a->new_ns), mb = fmax(b->base_ns, b->new_ns);
    if (ma != mb) return ma > mb ? -1 : 1;
    return strcmp(a->key, b->key);
}

static int fusion_cmp(const void *pa, const void *pb) {
    const opscope_diff_fusion *a = pa, *b = pb;
    double da = fabs(a->delta_ns), db = fabs(b->delta_ns);
    if (da != db) return da > db ? -1 : 1;
    if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
    return strcmp(a->name, b->name);
}

static opscope_diff_fusion *fusion_push(opscope_diff_t *d) {
    if (opscope_vec_reserve((void **)&d->fusions, &d->cap_fusions, d->n_fusions + 1, sizeof *d->fusions, 16))
        return NULL;
    opscope_diff_fusion *f = &d->fusions[d->n_fusions++];
    memset(f, 0, sizeof *f);
    return f;
}

/* ggml ops that compute nothing (no record): left out of a fused name's runs. */
static bool empty_op(const char *s, size_t n) { return opscope_ggml_op_is_view(opscope_ggml_op_value_n(s, n)); }

/* Fused groups of side X that side Y runs as separate records. */
static int fusions_ggml(opscope_diff_t *d, int x) {
    const opscope_diff_side_t *sx = d->side[x], *sy = d->side[1 - x];
    for (size_t i = 0; i < opscope_diff_side_n_fused(sx); i++) {
        const opscope_diff_fused *f = opscope_diff_side_fused(sx, i);
        bool both = false;
        for (size_t j = 0; j < opscope_diff_side_n_fused(sy) && !both; j++)
            both = !strcmp(opscope_diff_side_fused(sy, j)->pattern, f->pattern);
        if (both) continue;
        char parts[8][64];
        const char *names[8];
        size_t n = 0;
        bool ok = true;
        for (const char *p = f->pattern; *p && ok;) {
            const char *e = strchr(p, '+');
            size_t len = e ? (size_t)(e - p) : strlen(p);
            if (!empty_op(p, len)) {
                if (n == 8 || len >= sizeof parts[0]) ok = false;
                else {
                    memcpy(parts[n], p, len);
                    parts[n][len] = '\0';
                    names[n] = parts[n];
                    n++;
                }
            }
            p = e ? e + 1 : p + len;
        }
        uint64_t runs = 0, run_ns = 0;
        if (ok && n >= 2) runs = opscope_diff_side_runs(sy, names, n, &run_ns);
        opscope_diff_fusion *r = fusion_push(d);
        if (!r) return -1;
        r->kind = OPSCOPE_DIFF_FUSION_GGML;
        r->name = f->pattern;
        uint64_t *calls[2] = {&r->base_calls, &r->new_calls};
        uint64_t *kern[2] = {&r->base_kernels, &r->new_kernels};
        double *ns[2] = {&r->base_ns, &r->new_ns};
        *calls[x] = f->count;
        *kern[x] = f->count;
        *ns[x] = (double)f->total_ns / d->units[x];
        *calls[1 - x] = runs;
        *kern[1 - x] = runs * n;
        *ns[1 - x] = (double)run_ns / d->units[1 - x];
        r->delta_ns = r->new_ns - r->base_ns;
    }
    return 0;
}

/* Kernels of C in category CAT (-1: all). */
static double cat_count(const opscope_diff_cpu_op *c, int cat) {
    uint64_t n = 0;
    for (size_t i = 0; i < c->n_kern; i++)
        if (cat < 0 || c->kern[i].category == cat) n += c->kern[i].count;
    return (double)n;
}

/* Takes EXCESS kernels of category CAT from X's, shortest per call first (the extra launch
 * of a fusion difference is the small one: a split-K reduction or a bias add, not the GEMM
 * beside it, whatever either is named). Adds their time to *CREDIT; *TOP, *BEST: the name
 * credited most. */
static void take_extra(const opscope_diff_cpu_op *x, int cat, double excess, bool *used,
                       double *credit, const char **top, double *best) {
    while (excess > 0) {
        size_t pick = SIZE_MAX;
        double pick_mean = 0;
        for (size_t i = 0; i < x->n_kern; i++) {
            const opscope_diff_kernel *k = &x->kern[i];
            if (used[i] || !k->count || k->category != cat) continue;
            double mean = (double)k->total_ns / (double)k->count;
            if (pick == SIZE_MAX || mean < pick_mean) pick = i, pick_mean = mean;
        }
        if (pick == SIZE_MAX) break;
        used[pick] = true;
        double take = fmin(excess, (double)x->kern[pick].count);
        excess -= take;
        *credit += take * pick_mean;
        if (take * pick_mean > *best) *best = take * pick_mean, *top = x->kern[pick].name;
    }
}

/* The time of the kernels X launches beyond Y's kernels per call (X has more), per kernel
 * family (category): in each family where X runs more kernels per call, that many of X's,
 * by take_extra (a split-K reduction or a bias add, not the GEMM beside it). A kernel that
 * disappears is credited its own time, not its op's whole change. */
static double extra_kernels_ns(const opscope_diff_cpu_op *x, const opscope_diff_cpu_op *y,
                               const char **top) {
    double scale = (double)x->calls / (double)y->calls, credit = 0, best = 0;
    bool *used = calloc(x->n_kern ? x->n_kern : 1, sizeof *used);
    if (!used) return 0;
    for (size_t i = 0; i < x->n_kern; i++) {
        int cat = x->kern[i].category;
        bool first = true;
        for (size_t j = 0; j < i && first; j++) first = x->kern[j].category != cat;
        if (!first) continue;
        double excess = cat_count(x, cat) - cat_count(y, cat) * scale;
        if (excess > 0) take_extra(x, cat, excess, used, &credit, top, &best);
    }
    free(used);
    return credit;
}

/* CPU ops whose calls launch a different number of kernels on the two sides. */
static int fusions_cpu(opscope_diff_t *d) {
    const opscope_diff_side_t *b = d->side[0], *n = d->side[1];
    for (size_t i = 0; i < opscope_diff_side_n_cpu_ops(b); i++) {
        const opscope_diff_cpu_op *cb = opscope_diff_side_cpu_op(b, i);
        const opscope_diff_cpu_op *cn = NULL;
        for (size_t j = 0; j < opscope_diff_side_n_cpu_ops(n) && !cn; j++)
            if (!strcmp(opscope_diff_side_cpu_op(n, j)->name, cb->name))
                cn = opscope_diff_side_cpu_op(n, j);
        if (!cn || !cb->calls || !cn->calls) continue;
        if (cb->kernels * cn->calls == cn->kernels * cb->calls) continue;
        opscope_diff_fusion *r = fusion_push(d);
        if (!r) return -1;
        r->kind = OPSCOPE_DIFF_FUSION_CPU_OP;
        r->name = cb->name;
        r->base_calls = cb->calls;
        r->base_kernels = cb->kernels;
        r->new_calls = cn->calls;
        r->new_kernels = cn->kernels;
        r->base_ns = (double)cb->total_ns / d->units[0];
        r->new_ns = (double)cn->total_ns / d->units[1];
        bool base_more = cb->kernels * cn->calls > cn->kernels * cb->calls;
        r->delta_ns = base_more ? -extra_kernels_ns(cb, cn, &r->kernel) / d->units[0]
                                : extra_kernels_ns(cn, cb, &r->kernel) / d->units[1];
    }
    return 0;
}

static const char *unit_missing(opscope_diff_norm n, int side) {
    static const char *const m[][2] = {
        {"BASE has no graph ids to normalise by (ggml profiles written by opscope have them)",
         "NEW has no graph ids to normalise by (ggml profiles written by opscope have them)"},
        {"BASE has no token counts to normalise by (needs MUL_MAT records with graph ids)",
         "NEW has no token counts to normalise by (needs MUL_MAT records with graph ids)"},
        {"BASE has no profiler steps to normalise by (ProfilerStep#N annotations)",
         "NEW has no profiler steps to normalise by (ProfilerStep#N annotations)"},
    };
    int i = n == OPSCOPE_DIFF_NORM_GRAPH ? 0 : n == OPSCOPE_DIFF_NORM_TOKEN ? 1 : 2;
    return m[i][side];
}

/* The noise test of a row present on both sides, and its regression check (docs/diff.md).
 * With 2 runs or more per side the spread is the runs' (per-run totals); else it is
 * estimated within each run from per-graph sums and per-call durations. A different number
 * of calls per unit is a change of the work itself; no change at all is never significant.
 * A regression is a slowdown by more than --fail-on-regression PCT beyond the noise: NEW >
 * (1 + PCT/100) BASE, one-sided at --alpha over the number of checks (Bonferroni). With one
 * run a side, a slower machine slows every op alike, which no test within the runs can
 * tell from a regression: BASE is first scaled by how much the rest of the run slowed. */
static void row_test(opscope_diff_t *d, opscope_diff_row *r, double alpha_check) {
    r->p_value = -1;
    r->significant = true;
    r->regression = false;
    if (r->status != OPSCOPE_DIFF_BOTH) return;
    const opscope_diff_group *b = r->base, *n = r->newg;
    double f = 1.0 + d->opts.fail_pct / 100.0;
    bool check = d->opts.fail_pct >= 0 && r->shown && r->new_ns > r->base_ns * f;
    double cb = (double)b->count * d->units[1], cn = (double)n->count * d->units[0];
    bool same_work = fabs(cb - cn) <= 1e-9 * fmax(cb, cn);
    spread sb, sn;
    bool runs = d->noise == OPSCOPE_DIFF_NOISE_RUNS && b->run_ns && n->run_ns;
    if (runs) {
        sb = per_run(d, 0, b->run_ns);
        sn = per_run(d, 1, n->run_ns);
    } else {
        sb = per_stratum(r->base_ns, b->var_total, b->df_den, d->units[0]);
        sn = per_stratum(r->new_ns, n->var_total, n->df_den, d->units[1]);
        sb.ok = sn.ok = b->n_tested && n->n_tested;
    }
    if (r->delta_ns == 0) {
        r->significant = false;
        if (sb.ok && sn.ok) r->p_value = 1;
        return;
    }
    if (!same_work || !sb.ok || !sn.ok) { /* nothing to test against: the change counts */
        r->regression = check && (runs || fmax(1.0, scale_rest(d, r)) * r->base_ns * f < r->new_ns);
        return;
    }
    r->p_value = opscope_welch_sum_p(sn.mean - sb.mean, sb.var, sb.df_den, sn.var, sn.df_den);
    r->significant = r->p_value < d->opts.alpha;
    if (!check || !r->significant) return;
    if (!runs) { /* against the rest of the run: BASE as if it had slowed like the rest */
        double c = fmax(1.0, scale_rest(d, r));
        sb.mean *= c;
        sb.var *= c * c;
        sb.df_den *= c * c * c * c;
    }
    r->regression = margin_p(&sb, &sn, f) < alpha_check;
}

/* The total's regression: per-run totals with 2 runs a side. With one run a side it is not
 * tested (a busier machine makes a whole run slower; only runs measure that). */
static bool total_test(const opscope_diff_t *d, double alpha_check) {
    const opscope_diff_summary *sm = &d->sum;
    if (!d->total_tested || sm->base_total <= 0) return false;
    double f = 1.0 + d->opts.fail_pct / 100.0;
    if (sm->new_total <= sm->base_total * f) return false;
    spread sb = per_run(d, 0, NULL), sn = per_run(d, 1, NULL);
    return margin_p(&sb, &sn, f) < alpha_check;
}

/* Which spread the test uses: the runs' when both sides have 2 runs or more with per-run
 * totals in the unit, else within runs. */
static opscope_diff_noise noise_kind(const opscope_diff_t *d) {
    spread b = per_run(d, 0, NULL), n = per_run(d, 1, NULL);
    if (b.ok && n.ok) return OPSCOPE_DIFF_NOISE_RUNS;
    for (int s = 0; s < 2; s++)
        for (size_t i = 0; i < opscope_diff_side_n_groups(d->side[s]); i++)
            if (opscope_diff_side_group(d->side[s], i)->n_graph_tested)
                return OPSCOPE_DIFF_NOISE_GRAPHS;
    return OPSCOPE_DIFF_NOISE_CALLS;
}

static bool base_key_eq(const void *ctx, uint32_t i, const void *key) {
    return !strcmp(opscope_diff_side_group(ctx, i)->key, key);
}

/* D's rows: each group of NEWER with the base group of its key, then the base groups left.
 * 0, or -1 when out of memory. */
static int align_rows(opscope_diff_t *d, const opscope_diff_side_t *base,
                      const opscope_diff_side_t *newer) {
    size_t nb = opscope_diff_side_n_groups(base), nn = opscope_diff_side_n_groups(newer);
    opscope_hindex ix; /* base groups by key */
    bool *matched = calloc(nb + 1, sizeof *matched);
    int rc = opscope_hindex_init(&ix, nb);
    for (size_t i = 0; !rc && i < nb; i++) {
        const char *k = opscope_diff_side_group(base, i)->key;
        rc = i >= OPSCOPE_HINDEX_NONE || opscope_hindex_add(&ix, opscope_hash_bytes(k, strlen(k)), (uint32_t)i);
    }
    for (size_t i = 0; !rc && matched && i < nn; i++) {
        const opscope_diff_group *g = opscope_diff_side_group(newer, i);
        uint32_t bi = opscope_hindex_find(&ix, opscope_hash_bytes(g->key, strlen(g->key)), g->key,
                                          base_key_eq, base);
        if (bi != OPSCOPE_HINDEX_NONE) matched[bi] = true;
        opscope_diff_row *r = &d->rows[d->n_rows++];
        r->base = bi != OPSCOPE_HINDEX_NONE ? opscope_diff_side_group(base, bi) : NULL;
        r->newg = g;
    }
    for (size_t i = 0; !rc && matched && i < nb; i++)
        if (!matched[i]) d->rows[d->n_rows++].base = opscope_diff_side_group(base, i);
    opscope_hindex_free(&ix);
    free(matched);
    return rc || !matched ? -1 : 0;
}

opscope_diff_t *opscope_diff_new(const opscope_diff_side_t *base, const opscope_diff_side_t *newer,
                                 const opscope_diff_opts *opts, const char **errmsg) {
    if (errmsg) *errmsg = NULL;
    const opscope_diff_totals *tb = opscope_diff_side_totals(base);
    const opscope_diff_totals *tn = opscope_diff_side_totals(newer);
    opscope_diff_norm norm = opts->norm;
    if (norm == OPSCOPE_DIFF_NORM_AUTO) {
        /* the finest unit both runs have, used only when the runs differ in it */
        static const opscope_diff_norm pref[] = {OPSCOPE_DIFF_NORM_TOKEN, OPSCOPE_DIFF_NORM_ITERATION,
                                                 OPSCOPE_DIFF_NORM_GRAPH};
        norm = OPSCOPE_DIFF_NORM_NONE;
        for (size_t i = 0; i < 3; i++) {
            uint64_t ub = unit_count(tb, pref[i]), un = unit_count(tn, pref[i]);
            if (ub && un) {
                if (ub != un) norm = pref[i];
                break;
            }
        }
    } else if (norm != OPSCOPE_DIFF_NORM_NONE) {
        for (int s = 0; s < 2; s++)
            if (!unit_count(s ? tn : tb, norm)) {
                if (errmsg) *errmsg = unit_missing(norm, s);
                return NULL;
            }
    }
    opscope_diff_t *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    d->side[0] = base;
    d->side[1] = newer;
    d->opts = *opts;
    if (d->opts.alpha <= 0) d->opts.alpha = 0.05;
    d->norm = norm;
    d->merged = opts->merged_backends;
    d->units[0] = (double)unit_count(tb, norm);
    d->units[1] = (double)unit_count(tn, norm);
    d->noise = noise_kind(d);

    size_t nb = opscope_diff_side_n_groups(base), nn = opscope_diff_side_n_groups(newer);
    d->rows = calloc(nb + nn + 1, sizeof *d->rows);
    if (!d->rows || align_rows(d, base, newer)) {
        opscope_diff_free(d);
        return NULL;
    }

    opscope_diff_summary *sm = &d->sum;
    size_t n_checks = 0;
    for (size_t i = 0; i < d->n_rows; i++) {
        opscope_diff_row *r = &d->rows[i];
        const opscope_diff_group *g = r->newg ? r->newg : r->base;
        r->name = g->name;
        r->key = g->key;
        r->status = r->base && r->newg ? OPSCOPE_DIFF_BOTH
                    : r->base          ? OPSCOPE_DIFF_ONLY_BASE
                                       : OPSCOPE_DIFF_ONLY_NEW;
        uint64_t bt = r->base ? r->base->total_ns : 0, nt = r->newg ? r->newg->total_ns : 0;
        r->base_ns = (double)bt / d->units[0];
        r->new_ns = (double)nt / d->units[1];
        r->delta_ns = r->new_ns - r->base_ns;
        r->ratio = r->base_ns > 0 ? r->new_ns / r->base_ns : NAN;
        r->base_share = tb->total_ns ? 100.0 * (double)bt / (double)tb->total_ns : 0.0;
        r->new_share = tn->total_ns ? 100.0 * (double)nt / (double)tn->total_ns : 0.0;
        r->shown = fmax(r->base_share, r->new_share) >= opts->min_share;
        n_checks += r->shown && r->status == OPSCOPE_DIFF_BOTH;
    }
    sm->base_wall = (double)tb->wall_ns / d->units[0];
    sm->new_wall = (double)tn->wall_ns / d->units[1];
    sm->base_op = (double)tb->op_ns / d->units[0];
    sm->new_op = (double)tn->op_ns / d->units[1];
    sm->base_copy = (double)tb->copy_ns / d->units[0];
    sm->new_copy = (double)tn->copy_ns / d->units[1];
    sm->base_total = (double)tb->total_ns / d->units[0];
    sm->new_total = (double)tn->total_ns / d->units[1];
    d->total_tested = opts->fail_pct >= 0 && d->noise == OPSCOPE_DIFF_NOISE_RUNS;
    n_checks += d->total_tested;
    /* the family of checks fails with probability alpha at most when nothing changed */
    d->alpha_check = d->opts.alpha / (double)(n_checks ? n_checks : 1);
    sm->total_regression = total_test(d, d->alpha_check);
    for (size_t i = 0; i < d->n_rows; i++) {
        opscope_diff_row *r = &d->rows[i];
        row_test(d, r, d->alpha_check);
        if (r->status == OPSCOPE_DIFF_BOTH) sm->n_both++;
        else if (r->status == OPSCOPE_DIFF_ONLY_BASE) sm->n_only_base++;
        else sm->n_only_new++;
        if (!r->significant) sm->n_not_significant++;
        if (!r->shown) {
            sm->n_hidden++;
            sm->hidden_delta_ns += r->delta_ns;
        }
        if (r->regression) sm->n_regressions++;
    }
    opscope_sort(d->rows, d->n_rows, sizeof *d->rows, row_cmp);

    if (fusions_ggml(d, 0) || fusions_ggml(d, 1) || fusions_cpu(d)) {
        opscope_diff_free(d);
        return NULL;
    }
    opscope_sort(d->fusions, d->n_fusions, sizeof *d->fusions, fusion_cmp);
    return d;
}

void opscope_diff_free(opscope_diff_t *d) {
    if (!d) return;
    free(d->rows);
    free(d->fusions);
    free(d);
}

bool opscope_diff_sides_share_backend(const opscope_diff_side_t *a, const opscope_diff_side_t *b) {
    for (size_t i = 0; i < opscope_diff_side_n_backend_names(a); i++)
        for (size_t j = 0; j < opscope_diff_side_n_backend_names(b); j++)
            if (!strcmp(opscope_diff_side_backend_name(a, i), opscope_diff_side_backend_name(b, j)))
                return true;
    return false;
}

/* Every backend name of A is one of B's. */
static bool backends_within(const opscope_diff_side_t *a, const opscope_diff_side_t *b) {
    for (size_t i = 0; i < opscope_diff_side_n_backend_names(a); i++) {
        bool found = false;
        for (size_t j = 0; j < opscope_diff_side_n_backend_names(b) && !found; j++)
            found = !strcmp(opscope_diff_side_backend_name(a, i), opscope_diff_side_backend_name(b, j));
        if (!found) return false;
    }
    return true;
}

bool opscope_diff_sides_same_backends(const opscope_diff_side_t *a, const opscope_diff_side_t *b) {
    return backends_within(a, b) && backends_within(b, a);
}

const opscope_diff_opts *opscope_diff_get_opts(const opscope_diff_t *d) { return &d->opts; }
const opscope_diff_side_t *opscope_diff_base(const opscope_diff_t *d) { return d->side[0]; }
const opscope_diff_side_t *opscope_diff_newer(const opscope_diff_t *d) { return d->side[1]; }
opscope_diff_norm opscope_diff_norm_used(const opscope_diff_t *d) { return d->norm; }
double opscope_diff_units(const opscope_diff_t *d, int side) { return d->units[side ? 1 : 0]; }
bool opscope_diff_merged_backends(const opscope_diff_t *d) { return d->merged; }
opscope_diff_noise opscope_diff_noise_used(const opscope_diff_t *d) { return d->noise; }
bool opscope_diff_total_tested(const opscope_diff_t *d) { return d->total_tested; }
double opscope_diff_alpha_check(const opscope_diff_t *d) { return d->alpha_check; }
size_t opscope_diff_n_rows(const opscope_diff_t *d) { return d->n_rows; }
const opscope_diff_row *opscope_diff_row_get(const opscope_diff_t *d, size_t i) {
    return i < d->n_rows ? &d->rows[i] : NULL;
}
const opscope_diff_summary *opscope_diff_get_summary(const opscope_diff_t *d) { return &d->sum; }
size_t opscope_diff_n_fusions(const opscope_diff_t *d) { return d->n_fusions; }
const opscope_diff_fusion *opscope_diff_fusion_get(const opscope_diff_t *d, size_t i) {
    return i < d->n_fusions ? &d->fusions[i] : NULL;
}
bool opscope_diff_failed(const opscope_diff_t *d) {
    return d->opts.fail_pct >= 0 && (d->sum.total_regression || d->sum.n_regressions > 0);
}
