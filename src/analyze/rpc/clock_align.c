/* clock_align.c - clock offset from matched request intervals (see clock_align.h). */
#include "analyze/rpc/clock_align.h"
#include "util/sort.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The coarse pass's window: the true pairs' (s0 - c0) differ by their latencies' spread. */
#define ALIGN_WINDOW_NS 1000000
/* A server event pairs with a client event at most this far from where the coarse offset
 * puts it. */
#define ALIGN_MATCH_NS 5000000
/* Votes of the coarse pass at most (client events are thinned to stay below). */
#define ALIGN_MAX_VOTES (1u << 22)

typedef struct keyed {
    uint64_t key;
    int64_t t0, t1;
    size_t i;
} keyed;

static int cmp_keyed(const void *a, const void *b) {
    const keyed *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    if (x->t0 != y->t0) return x->t0 < y->t0 ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* First index in K[0..N) with key >= KEY and, among equal keys, t0 >= T0. */
static size_t lower(const keyed *k, size_t n, uint64_t key, int64_t t0) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (k[mid].key < key || (k[mid].key == key && k[mid].t0 < t0)) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

static keyed *index_by_key(const opscope_align_event *e, size_t n) {
    keyed *k = malloc((n ? n : 1) * sizeof *k);
    if (!k) return NULL;
    for (size_t i = 0; i < n; i++) k[i] = (keyed){e[i].key, e[i].t0, e[i].t1, i};
    opscope_sort(k, n, sizeof *k, cmp_keyed);
    return k;
}

typedef struct edge {
    int64_t x;
    int d; /* +1 an interval opens at x, -1 one closed before x */
} edge;

/* An interval as its two edges, laid out as two consecutive edges in the vote array. */
typedef struct span2 {
    edge open, close;
} span2;

static int cmp_span2(const void *a, const void *b) {
    const span2 *x = a, *y = b;
    return x->open.x < y->open.x ? -1 : x->open.x > y->open.x;
}

static int cmp_edge(const void *a, const void *b) {
    const edge *x = a, *y = b;
    if (x->x != y->x) return x->x < y->x ? -1 : 1;
    return x->d < y->d ? -1 : x->d > y->d; /* closings first at the same x */
}

/*
 * The coarse offset. With waited client events: the offset held by the most same-key pairs
 * (client event, server event), each pair holding [s1 - c1, s0 - c0] (where the server
 * event lies inside the client's): the true pairs all hold the true offset, while a pairing
 * shifted by one request holds it only where the requests' timing repeats to within a
 * call's slack. Without waited events: the densest ALIGN_WINDOW_NS window of (s0 - c0).
 * Returns 1 (found), 0 (no same-key pair) or -1 (no memory).
 */
static int coarse_offset(const opscope_align_event *c, size_t nc, const keyed *sk, size_t ns,
                         int64_t *out) {
    uint64_t total = 0, total_w = 0;
    for (size_t i = 0; i < nc; i++) {
        size_t a = lower(sk, ns, c[i].key, INT64_MIN);
        size_t b = c[i].key == UINT64_MAX ? ns : lower(sk, ns, c[i].key + 1, INT64_MIN);
        total += b - a;
        if (c[i].end_known) total_w += b - a;
    }
    if (total == 0) return 0;
    bool waited = total_w > 0;
    uint64_t t = waited ? total_w : total;
    size_t step = (size_t)(t / ALIGN_MAX_VOTES + 1);
    size_t cap = (size_t)(t / step + nc + 1) * (waited ? 2 : 1);
    edge *v = malloc(cap * sizeof *v);
    if (!v) return -1;
    size_t nv = 0;
    size_t seen = 0;
    for (size_t i = 0; i < nc; i++) {
        if (waited && !c[i].end_known) continue;
        if (seen++ % step) continue;
        size_t a = lower(sk, ns, c[i].key, INT64_MIN);
        size_t first = nv;
        for (size_t j = a; j < ns && sk[j].key == c[i].key; j++) {
            int64_t hi = sk[j].t0 - c[i].t0;
            if (!waited) {
                v[nv++] = (edge){hi, 0};
                continue;
            }
            int64_t lo = sk[j].t1 - c[i].t1;
            if (lo > hi) continue; /* the server event outlasts the client's: not this pair */
            v[nv++] = (edge){lo, +1};
            v[nv++] = (edge){hi + 1, -1};
        }
        if (!waited || nv - first <= 2) continue;
        /* One client event counts once at any offset: a long wait may hold several server
         * events at once, which must not outvote events that each hold one. Its intervals
         * (the pairs of edges just written: sorted by opening, merged) become their union. */
        size_t m = (nv - first) / 2;
        span2 *iv = (span2 *)(void *)(v + first);
        opscope_sort(iv, m, sizeof *iv, cmp_span2);
        size_t w = 0;
        for (size_t x = 0; x < m; x++) {
            if (w && iv[x].open.x <= iv[w - 1].close.x) {
                if (iv[x].close.x > iv[w - 1].close.x) iv[w - 1].close.x = iv[x].close.x;
            } else {
                iv[w++] = iv[x];
            }
        }
        nv = first + 2 * w;
    }
    if (nv == 0) {
        free(v);
        return 0;
    }
    opscope_sort(v, nv, sizeof *v, cmp_edge);
    if (!waited) {
        size_t best_a = 0, best_n = 0;
        for (size_t a = 0, b = 0; a < nv; a++) {
            if (b < a) b = a;
            while (b < nv && v[b].x - v[a].x <= ALIGN_WINDOW_NS) b++;
            if (b - a > best_n) best_n = b - a, best_a = a;
        }
        *out = v[best_a + best_n / 2].x;
    } else {
        long depth = 0, best = -1;
        int64_t from = 0, to = 0;
        for (size_t k = 0; k < nv; k++) {
            depth += v[k].d;
            if (v[k].d > 0 && depth > best) {
                best = depth;
                from = v[k].x;
                to = k + 1 < nv ? v[k + 1].x - 1 : v[k].x; /* the region lasts to the next edge */
            }
        }
        *out = from + (to - from) / 2;
    }
    free(v);
    return 1;
}

void opscope_align_bounds(const opscope_align_event *c, const opscope_align_event *s, size_t n,
                          opscope_align_result *out) {
    memset(out, 0, sizeof *out);
    out->lo_ns = INT64_MIN;
    out->hi_ns = INT64_MAX;
    if (n == 0) return;
    /* Upper bounds u = s0 - c0 and lower bounds l = s1 - c1 (waited ends only). The offset
     * kept is the one that satisfies the most of them; pairs violating it are mismatches. */
    int64_t *u = malloc(n * sizeof *u), *l = malloc(n * sizeof *l);
    if (!u || !l) {
        free(u);
        free(l);
        return;
    }
    size_t nl = 0;
    for (size_t i = 0; i < n; i++) {
        u[i] = s[i].t0 - c[i].t0;
        if (c[i].end_known) l[nl++] = s[i].t1 - c[i].t1;
    }
    opscope_sort(u, n, sizeof *u, cmp_i64);
    opscope_sort(l, nl, sizeof *l, cmp_i64);
    /* satisfied(x) = #{u >= x} + #{l <= x}: evaluated at every bound */
    size_t best = 0;
    int64_t bx = u[0];
    for (int pass = 0; pass < 2; pass++) {
        const int64_t *cand = pass ? l : u;
        size_t nc = pass ? nl : n;
        for (size_t k = 0; k < nc; k++) {
            int64_t x = cand[k];
            size_t a = 0, b = n; /* first u >= x */
            while (a < b) {
                size_t m = a + (b - a) / 2;
                if (u[m] < x) a = m + 1; else b = m;
            }
            size_t su = n - a;
            a = 0, b = nl; /* first l > x */
            while (a < b) {
                size_t m = a + (b - a) / 2;
                if (l[m] <= x) a = m + 1; else b = m;
            }
            if (su + a > best) best = su + a, bx = x;
        }
    }
    int64_t hi = INT64_MAX, lo = INT64_MIN;
    for (size_t i = 0; i < n; i++)
        if (u[i] >= bx && u[i] < hi) hi = u[i];
    for (size_t i = 0; i < nl; i++)
        if (l[i] <= bx && l[i] > lo) lo = l[i];
    for (size_t i = 0; i < n; i++) {
        int bad = s[i].t0 - c[i].t0 < bx || (c[i].end_known && s[i].t1 - c[i].t1 > bx);
        if (bad) out->n_rejected++;
        else {
            out->n_used++;
            if (c[i].end_known) out->n_lower++;
        }
    }
    free(u);
    free(l);
    out->ok = out->n_used > 0;
    out->n_matched = n;
    out->hi_ns = hi;
    out->lo_ns = lo;
    out->offset_ns = lo == INT64_MIN ? hi : lo + (hi - lo) / 2;
}

int opscope_align_estimate(const opscope_align_event *c, size_t nc, const opscope_align_event *s,
                           size_t ns, opscope_align_result *out, long *match_out) {
    memset(out, 0, sizeof *out);
    out->lo_ns = INT64_MIN;
    out->hi_ns = INT64_MAX;
    if (match_out)
        for (size_t j = 0; j < ns; j++) match_out[j] = -1;
    if (nc == 0 || ns == 0) return 0;
    keyed *sk = index_by_key(s, ns), *ck = index_by_key(c, nc);
    unsigned char *used = calloc(ns ? ns : 1, 1);
    opscope_align_event *pc = malloc((nc + 1) * sizeof *pc), *ps = malloc((nc + 1) * sizeof *ps);
    int rc = -1;
    if (!sk || !ck || !used || !pc || !ps) goto done;
    int64_t coarse = 0;
    int r = coarse_offset(c, nc, sk, ns, &coarse);
    if (r < 0) goto done;
    rc = 0;
    if (r == 0) goto done;
    /* Each client event, in order, takes the unused same-key server event that lies closest
     * to inside it on the coarse offset (a waited event: the distance outside [c0, c1]; else
     * the distance of s0 from c0), if within ALIGN_MATCH_NS: the same rule that chose the
     * offset, so a wait holding several server events takes the one the offset puts in it. */
    size_t n = 0;
    for (size_t i = 0; i < nc; i++) {
        int64_t lo_t = c[i].t0 + coarse - ALIGN_MATCH_NS;
        size_t k = lower(sk, ns, c[i].key, lo_t);
        long best = -1;
        int64_t best_d = 0;
        int64_t hi_t = (c[i].end_known ? c[i].t1 : c[i].t0) + coarse + ALIGN_MATCH_NS;
        for (; k < ns && sk[k].key == c[i].key && sk[k].t0 <= hi_t; k++) {
            if (used[sk[k].i]) continue;
            int64_t s0 = sk[k].t0 - coarse, s1 = sk[k].t1 - coarse, d;
            if (c[i].end_known)
                d = (s0 < c[i].t0 ? c[i].t0 - s0 : 0) + (s1 > c[i].t1 ? s1 - c[i].t1 : 0);
            else
                d = s0 > c[i].t0 ? s0 - c[i].t0 : c[i].t0 - s0;
            if (d <= ALIGN_MATCH_NS && (best < 0 || d < best_d)) best = (long)sk[k].i, best_d = d;
        }
        if (best < 0) continue;
        used[best] = 1;
        pc[n] = c[i];
        ps[n] = s[best];
        if (match_out) match_out[best] = (long)i;
        n++;
    }
    opscope_align_bounds(pc, ps, n, out);
done:
    free(sk);
    free(ck);
    free(used);
    free(pc);
    free(ps);
    return rc;
}
