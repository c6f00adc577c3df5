/* welch.c - Welch's t-test on streamed moments; the incomplete beta by continued fraction. */
#include "analyze/diff/welch.h"

#include <math.h>

void opscope_moments_merge(opscope_moments *a, const opscope_moments *b) {
    if (!b->n) return;
    if (!a->n) {
        *a = *b;
        return;
    }
    /* Re-express B's sums around A's shift: x - sa = (x - sb) + (sb - sa). */
    double c = (double)b->shift - (double)a->shift;
    a->sumsq += b->sumsq + 2.0 * c * b->sum + (double)b->n * c * c;
    a->sum += b->sum + (double)b->n * c;
    a->n += b->n;
}

double opscope_moments_mean(const opscope_moments *m) {
    return m->n ? (double)m->shift + m->sum / (double)m->n : 0.0;
}

double opscope_moments_var(const opscope_moments *m) {
    if (m->n < 2) return 0.0;
    double n = (double)m->n;
    double v = (m->sumsq - m->sum * m->sum / n) / (n - 1.0);
    return v > 0.0 ? v : 0.0;
}

/* Continued fraction of I_x(a, b) (modified Lentz), for x < (a + 1) / (a + b + 2). */
static double beta_cf(double a, double b, double x) {
    const double tiny = 1e-300, eps = 1e-15;
    double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0);
    if (fabs(d) < tiny) d = tiny;
    d = 1.0 / d;
    double h = d;
    for (int m = 1; m <= 10000; m++) {
        double m2 = 2.0 * m;
        double num = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));
        d = 1.0 + num * d;
        if (fabs(d) < tiny) d = tiny;
        c = 1.0 + num / c;
        if (fabs(c) < tiny) c = tiny;
        d = 1.0 / d;
        h *= d * c;
        num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
        d = 1.0 + num * d;
        if (fabs(d) < tiny) d = tiny;
        c = 1.0 + num / c;
        if (fabs(c) < tiny) c = tiny;
        d = 1.0 / d;
        double del = d * c;
        h *= del;
        if (fabs(del - 1.0) < eps) break;
    }
    return h;
}

double opscope_betai(double a, double b, double x) {
    if (x <= 0.0) return 0.0;
    if (x >= 1.0) return 1.0;
    double lbt = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);
    double bt = exp(lbt);
    if (x < (a + 1.0) / (a + b + 2.0)) return bt * beta_cf(a, b, x) / a;
    return 1.0 - bt * beta_cf(b, a, 1.0 - x) / b;
}

double opscope_t_two_sided(double t, double df) {
    if (!isfinite(t)) return 0.0;
    double x = df / (df + t * t);
    return opscope_betai(df / 2.0, 0.5, x);
}

double opscope_welch_p(const opscope_moments *a, const opscope_moments *b, double *t_out) {
    if (t_out) *t_out = 0.0;
    if (a->n < 2 || b->n < 2) return -1.0;
    double na = (double)a->n, nb = (double)b->n;
    double va = opscope_moments_var(a) / na, vb = opscope_moments_var(b) / nb;
    double diff = opscope_moments_mean(b) - opscope_moments_mean(a);
    double se2 = va + vb;
    if (se2 <= 0.0) {
        if (t_out) *t_out = diff == 0.0 ? 0.0 : diff > 0 ? INFINITY : -INFINITY;
        return diff == 0.0 ? 1.0 : 0.0;
    }
    double t = diff / sqrt(se2);
    if (t_out) *t_out = t;
    /* Welch-Satterthwaite degrees of freedom. */
    double den = va * va / (na - 1.0) + vb * vb / (nb - 1.0);
    double df = den > 0.0 ? se2 * se2 / den : na + nb - 2.0;
    return opscope_t_two_sided(t, df);
}

double opscope_welch_sum_p(double delta, double var_a, double df_a, double var_b, double df_b) {
    double se2 = var_a + var_b;
    if (se2 <= 0.0) return delta == 0.0 ? 1.0 : 0.0;
    double t = delta / sqrt(se2);
    double den = df_a + df_b;
    double df = den > 0.0 ? se2 * se2 / den : 1.0;
    return opscope_t_two_sided(t, df);
}
