/* job_hta.c - HTA's straggler rule over the ranks (see job_hta.h). */
#include "analyze/job/job_hta.h"

#include "util/sort.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CMP(x, y) (((x) > (y)) - ((x) < (y)))

/* By stream, name, step, rank, then start (the last of a key is its latest start). */
static int comm_cmp(const void *pa, const void *pb) {
    const opscope_hta_comm *a = *(const opscope_hta_comm *const *)pa, *b = *(const opscope_hta_comm *const *)pb;
    int c = CMP(a->stream, b->stream);
    if (!c) c = CMP(a->name, b->name);
    if (!c) c = CMP(a->step, b->step);
    if (!c) c = CMP(a->rank, b->rank);
    return c ? c : CMP(a->start_ns, b->start_ns);
}

static int same(const opscope_hta_comm *a, const opscope_hta_comm *b, int depth) {
    return a->stream == b->stream && a->name == b->name && (depth < 2 || a->step == b->step) &&
           (depth < 3 || a->rank == b->rank);
}

static int desc_cmp(const void *pa, const void *pb) { return CMP(*(const double *)pb, *(const double *)pa); }

/* The last rows of each (stream, name, step, rank) of P[0..N) (sorted), kept in place: their count. */
static size_t lasts(const opscope_hta_comm **p, size_t n) {
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (i + 1 == n || !same(p[i], p[i + 1], 3)) p[m++] = p[i];
    return m;
}

/* The first row of the (stream, name) of the largest mean over steps of the ranks' sample
 * std of DUR / MEAN, or N when none has a std. */
static size_t metric_kernel(const opscope_hta_comm **p, size_t n, double mean) {
    size_t best = n;
    double best_v = -1;
    for (size_t i = 0, j; i < n; i = j) { /* one (stream, name) */
        double sum = 0;
        int steps = 0;
        for (j = i; j < n && same(p[i], p[j], 1);) {
            size_t k = j;
            double s = 0, s2 = 0;
            for (; k < n && same(p[j], p[k], 2); k++) s += p[k]->dur_ns / mean;
            size_t r = k - j;
            for (size_t q = j; q < k; q++) s2 += pow(p[q]->dur_ns / mean - s / r, 2);
            if (r > 1) sum += sqrt(s2 / (r - 1)), steps++;
            j = k;
        }
        if (steps && sum / steps > best_v) best_v = sum / steps, best = i;
    }
    return best;
}

/* Per rank of the kernel's rows P[0..N) (one (stream, name), by step): how often its metric
 * is among the NUM largest of its step, into COUNT (by rank index), their count SEEN. */
static void tally(const opscope_hta_comm **p, size_t n, int num, int64_t t_min, double mean, double *scratch,
                  int64_t *count, uint8_t *seen, size_t n_ranks) {
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i; j < n && same(p[i], p[j], 2); j++) scratch[j - i] = (p[j]->start_ns - t_min) / mean;
        size_t m = j - i;
        opscope_sort(scratch, m, sizeof *scratch, desc_cmp);
        double thr = scratch[(size_t)num <= m ? (size_t)num - 1 : m - 1];
        for (size_t q = i; q < j; q++) {
            size_t r = (size_t)p[q]->rank;
            if (r >= n_ranks) continue;
            seen[r] = 1;
            count[r] += (p[q]->start_ns - t_min) / mean >= thr;
        }
    }
}

int opscope_job_hta_stragglers(const opscope_hta_span *spans, size_t n_spans, const opscope_hta_comm *comms,
                               size_t n_comms, int num, int64_t *out, size_t *n_out) {
    *n_out = 0;
    if (num < 1) num = 1;
    int64_t t_min = INT64_MAX, t_max = INT64_MIN, *steps = malloc((n_spans + 1) * sizeof *steps), n_ranks = 0;
    if (!steps) return -1;
    for (size_t i = 0; i < n_spans; i++) {
        t_min = spans[i].start_ns < t_min ? spans[i].start_ns : t_min;
        t_max = spans[i].end_ns > t_max ? spans[i].end_ns : t_max;
        steps[i] = spans[i].step;
        n_ranks = spans[i].rank + 1 > n_ranks ? spans[i].rank + 1 : n_ranks;
    }
    size_t n_steps = 0; /* the distinct steps (a few a job: a scan) */
    for (size_t i = 0; i < n_spans; i++) {
        size_t k = 0;
        while (k < n_steps && steps[k] != spans[i].step) k++;
        if (k == n_steps) steps[n_steps++] = spans[i].step;
    }
    free(steps);
    double mean = n_steps && t_max > t_min ? (double)(t_max - t_min) / (double)n_steps : 0;
    const opscope_hta_comm **p = malloc((n_comms + 1) * sizeof *p);
    double *scratch = malloc((n_comms + 1) * sizeof *scratch);
    int64_t *count = calloc((size_t)n_ranks + 1, sizeof *count);
    uint8_t *seen = calloc((size_t)n_ranks + 1, 1);
    int rc = p && scratch && count && seen ? 1 : -1;
    size_t n = 0;
    for (size_t i = 0; rc > 0 && mean > 0 && i < n_comms; i++)
        if (comms[i].step > 0 && comms[i].stream > 0 && comms[i].dur_ns >= mean * 0.01) p[n++] = &comms[i];
    if (rc > 0) {
        qsort(p, n, sizeof *p, comm_cmp);
        n = lasts(p, n);
        size_t at = metric_kernel(p, n, mean), end = at;
        while (end < n && same(p[at], p[end], 1)) end++;
        if (at < n) {
            tally(p + at, end - at, num, t_min, mean, scratch, count, seen, (size_t)n_ranks);
            rc = 0;
        }
    }
    for (int k = 0; !rc && k < num; k++) { /* the most often, the lower rank on a tie */
        int64_t best = -1;
        for (int64_t r = 0; r < n_ranks; r++)
            if (seen[r] && (best < 0 || count[r] > count[best])) best = r;
        if (best < 0) break;
        out[(*n_out)++] = best;
        seen[best] = 0;
    }
    free(p);
    free(scratch);
    free(count);
    free(seen);
    return rc;
}
