/*
 * welch.h - Welch's unequal-variance t-test from streamed moments (internal).
 *
 * The diff marks a change of a group's per-call time as noise when Welch's test cannot tell
 * the two runs' per-call durations apart. Both sides are summarised by count, mean and sample
 * variance, which a streaming pass keeps in constant memory per group (opscope_moments).
 * Pure functions; thread safe.
 */
#ifndef OPSCOPE_WELCH_H
#define OPSCOPE_WELCH_H

#include <stdint.h>

/* Running moments of durations, shifted by the first value so that the sum of squares keeps
 * its precision when the spread is small next to the mean (the "shifted data" algorithm). */
typedef struct opscope_moments {
    uint64_t n;
    uint64_t shift;   /* the first value */
    double sum, sumsq; /* of (x - shift) */
} opscope_moments;

static inline void opscope_moments_add(opscope_moments *m, uint64_t x) {
    if (m->n++ == 0) m->shift = x;
    double d = (double)x - (double)m->shift;
    m->sum += d;
    m->sumsq += d * d;
}

/* Adds B into A (moments of the union). */
void opscope_moments_merge(opscope_moments *a, const opscope_moments *b);

double opscope_moments_mean(const opscope_moments *m);
/* Sample variance (n - 1 in the denominator); 0 when n < 2. */
double opscope_moments_var(const opscope_moments *m);

/*
 * Two-sided p-value of Welch's t-test for equal means of A and B. Returns -1 when the test
 * does not apply (fewer than 2 values on a side). When both variances are 0 the p-value is
 * 1 for equal means and 0 otherwise. *T (may be NULL) gets the t statistic (B - A).
 */
double opscope_welch_p(const opscope_moments *a, const opscope_moments *b, double *t);

/*
 * Two-sided p-value of a difference DELTA between two sums of independent calls whose
 * variances are VAR_A and VAR_B, with Welch-Satterthwaite denominators DF_A and DF_B (the sums
 * of (n s^2)^2 / (n - 1) over their strata): t = DELTA / sqrt(VAR_A + VAR_B). With one
 * stratum of n calls per side this is Welch's test on the means. 1 or 0 when both variances
 * are 0 (DELTA 0 or not).
 */
double opscope_welch_sum_p(double delta, double var_a, double df_a, double var_b, double df_b);

/* Regularized incomplete beta function I_x(a, b), 0 <= x <= 1, a, b > 0. */
double opscope_betai(double a, double b, double x);

/* Two-sided tail probability of Student's t distribution: P(|T| >= |t|) with DF degrees of
 * freedom (DF > 0, need not be an integer). */
double opscope_t_two_sided(double t, double df);

#endif /* OPSCOPE_WELCH_H */
