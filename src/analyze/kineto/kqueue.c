/* kqueue.c - every stream's launch queue over time and its summary (see kqueue.h). */
#include "analyze/kineto/kqueue.h"

#include "util/vec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct opscope_kqueue {
    bool keep;
    OPSCOPE_VEC(opscope_kqueue_stream) streams;
    OPSCOPE_VEC(int64_t *) owned;   /* the kept copies of the keys */
    OPSCOPE_VEC(uint64_t) hist;     /* scratch: points per length, min to max */
};

opscope_kqueue_t *opscope_kqueue_new(bool keep_series) {
    opscope_kqueue_t *q = calloc(1, sizeof *q);
    if (q) q->keep = keep_series;
    return q;
}

void opscope_kqueue_free(opscope_kqueue_t *q) {
    if (!q) return;
    for (size_t i = 0; i < q->owned.n; i++) free(q->owned.v[i]);
    free(q->owned.v);
    free(q->streams.v);
    free(q->hist.v);
    free(q);
}

/* numpy's linear interpolation between A and B at T (its _lerp: from the nearer end). */
static double lerp(double a, double b, double t) {
    double d = b - a;
    return t >= 0.5 ? b - d * (1 - t) : a + d * t;
}

double opscope_kdescribe_quantile(const double *v, size_t n, double p) {
    if (!n) return 0;
    double idx = p * (double)(n - 1), lo = floor(idx);
    size_t i = (size_t)lo;
    return lerp(v[i], v[i + 1 < n ? i + 1 : i], idx - lo);
}

/* The K-th smallest (0-based) of the points counted in H[0..N) from length MIN on. */
static double hist_kth(const uint64_t *h, size_t n, int64_t min, uint64_t k) {
    uint64_t seen = 0;
    for (size_t i = 0; i < n; i++)
        if ((seen += h[i]) > k) return (double)(min + (int64_t)i);
    return (double)(min + (int64_t)n - 1);
}

static double hist_quantile(const uint64_t *h, size_t n, int64_t min, uint64_t count, double p) {
    double idx = p * (double)(count - 1), lo = floor(idx);
    uint64_t i = (uint64_t)lo;
    double a = hist_kth(h, n, min, i), b = i + 1 < count ? hist_kth(h, n, min, i + 1) : a;
    return lerp(a, b, idx - lo);
}

/* The describe() of the lengths after each change of KEYS[0..M) (H: the histogram scratch). */
static int describe_keys(opscope_kqueue_t *q, const int64_t *keys, size_t m, opscope_kdescribe *d) {
    *d = (opscope_kdescribe){.count = m};
    if (!m) return 0;
    int64_t v = 0, lo = INT64_MAX, hi = INT64_MIN, sum = 0;
    for (size_t i = 0; i < m; i++) {
        v += opscope_kqueue_key_up(keys[i]) ? 1 : -1;
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
        sum += v;
    }
    size_t span = (size_t)(hi - lo) + 1;
    if (opscope_vec_reserve((void **)&q->hist.v, &q->hist.cap, span, sizeof *q->hist.v, 64)) return -1;
    memset(q->hist.v, 0, span * sizeof *q->hist.v);
    v = 0;
    for (size_t i = 0; i < m; i++) {
        v += opscope_kqueue_key_up(keys[i]) ? 1 : -1;
        q->hist.v[v - lo]++;
    }
    d->mean = (double)sum / (double)m;
    double ss = 0;
    for (size_t i = 0; i < span; i++) {
        double dv = (double)(lo + (int64_t)i) - d->mean;
        ss += (double)q->hist.v[i] * dv * dv;
    }
    d->std = m > 1 ? sqrt(ss / (double)(m - 1)) : 0;
    d->min = (double)lo;
    d->max = (double)hi;
    d->p25 = hist_quantile(q->hist.v, span, lo, m, 0.25);
    d->p50 = hist_quantile(q->hist.v, span, lo, m, 0.5);
    d->p75 = hist_quantile(q->hist.v, span, lo, m, 0.75);
    return 0;
}

int opscope_kqueue_add(opscope_kqueue_t *q, int64_t device, int64_t stream, opscope_kqueue_out out,
                       const int64_t *keys, size_t m) {
    opscope_kqueue_stream *st = q->streams.n ? &q->streams.v[q->streams.n - 1] : NULL;
    if (!st || st->device != device || st->stream != stream) {
        opscope_kqueue_stream row = {.device = device, .stream = stream};
        if (OPSCOPE_VEC_PUSH(q->streams, row)) return -1;
        st = &q->streams.v[q->streams.n - 1];
    }
    if (describe_keys(q, keys, m, &st->len[out])) return -1;
    if (!q->keep || !m) return 0;
    int64_t *copy = malloc(m * sizeof *copy);
    if (!copy || OPSCOPE_VEC_PUSH(q->owned, copy)) {
        free(copy);
        return -1;
    }
    memcpy(copy, keys, m * sizeof *copy);
    st->keys[out] = copy;
    st->n_keys[out] = m;
    return 0;
}

const opscope_kqueue_stream *opscope_kqueue_streams(const opscope_kqueue_t *q, size_t *n) {
    *n = q ? q->streams.n : 0;
    return q ? q->streams.v : NULL;
}
