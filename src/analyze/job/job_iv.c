/*
 * job_iv.c - interval set arithmetic for the job's figures (job_iv.h).
 */
#include "analyze/job/job_iv.h"

#include "util/sort.h"

static int by_start(const void *a, const void *b) {
    const opscope_job_iv *x = a, *y = b;
    return x->s < y->s ? -1 : x->s > y->s ? 1 : (x->e > y->e) - (x->e < y->e);
}

size_t opscope_job_iv_merge(opscope_job_iv *v, size_t n) {
    size_t i;
    for (i = 1; i < n && v[i - 1].s <= v[i].s; i++) {}
    if (i < n) opscope_sort(v, n, sizeof *v, by_start);
    size_t m = 0;
    for (i = 0; i < n; i++) {
        if (v[i].e <= v[i].s) continue;
        if (m && v[i].s <= v[m - 1].e) {
            if (v[i].e > v[m - 1].e) v[m - 1].e = v[i].e;
        } else {
            v[m++] = v[i];
        }
    }
    return m;
}

int64_t opscope_job_iv_len(const opscope_job_iv *v, size_t n) {
    int64_t t = 0;
    for (size_t i = 0; i < n; i++) t += v[i].e - v[i].s;
    return t;
}

/* The first interval of merged V that ends after T. */
static size_t first_ending_after(const opscope_job_iv *v, size_t n, int64_t t) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid].e <= t) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

int64_t opscope_job_iv_len_in(const opscope_job_iv *v, size_t n, int64_t s, int64_t e) {
    int64_t t = 0;
    for (size_t i = first_ending_after(v, n, s); i < n && v[i].s < e; i++) {
        int64_t a = v[i].s > s ? v[i].s : s, b = v[i].e < e ? v[i].e : e;
        if (b > a) t += b - a;
    }
    return t;
}

int64_t opscope_job_iv_inter_len_in(const opscope_job_iv *a, size_t na, const opscope_job_iv *b,
                                    size_t nb, int64_t s, int64_t e) {
    size_t i = first_ending_after(a, na, s), j = first_ending_after(b, nb, s);
    int64_t t = 0;
    while (i < na && j < nb && a[i].s < e && b[j].s < e) {
        int64_t lo = a[i].s > b[j].s ? a[i].s : b[j].s;
        int64_t hi = a[i].e < b[j].e ? a[i].e : b[j].e;
        if (lo < s) lo = s;
        if (hi > e) hi = e;
        if (hi > lo) t += hi - lo;
        if (a[i].e < b[j].e) i++;
        else j++;
    }
    return t;
}

int64_t opscope_job_iv_inter_len(const opscope_job_iv *a, size_t na, const opscope_job_iv *b,
                                 size_t nb) {
    return opscope_job_iv_inter_len_in(a, na, b, nb, INT64_MIN, INT64_MAX);
}

size_t opscope_job_iv_sub(const opscope_job_iv *a, size_t na, const opscope_job_iv *b, size_t nb,
                          opscope_job_iv *out) {
    size_t m = 0, j = 0;
    for (size_t i = 0; i < na; i++) {
        int64_t s = a[i].s, e = a[i].e;
        while (j < nb && b[j].e <= s) j++;
        for (size_t k = j; k < nb && b[k].s < e; k++) {
            if (b[k].s > s) out[m++] = (opscope_job_iv){s, b[k].s};
            if (b[k].e > s) s = b[k].e;
        }
        if (e > s) out[m++] = (opscope_job_iv){s, e};
    }
    return m;
}
