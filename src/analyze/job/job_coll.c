/*
 * job_coll.c - a job's collectives per type, bucket and rank, and their skew (job_coll.h).
 */
#include "analyze/job/job_coll.h"

#include "analyze/kineto/collectives.h"
#include "util/sort.h"

#include <stdlib.h>
#include <string.h>

void opscope_job_colls_free(opscope_job_colls *c) {
    if (!c) return;
    for (size_t i = 0; i < c->n_types; i++) free(c->types[i].ranks);
    free(c->types);
    free(c->buckets);
    memset(c, 0, sizeof *c);
}

static int cmp_dbl(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* T's median time over its ranks (D: room for them) and what the median rank waits for the
 * late one. */
static void late_wait(opscope_job_coll_type *t, double *d) {
    size_t m = t->n_ranks;
    int64_t late = 0;
    for (size_t i = 0; i < m; i++) {
        d[i] = (double)t->ranks[i].time_ns;
        if (t->ranks[i].rank == t->late_rank) late = t->ranks[i].time_ns;
    }
    opscope_sort(d, m, sizeof *d, cmp_dbl);
    double med = !m ? 0 : m % 2 ? d[m / 2] : (d[m / 2 - 1] + d[m / 2]) / 2;
    t->median_time_ns = (int64_t)med;
    t->time_min_ns = m ? (int64_t)d[0] : 0;
    t->time_max_ns = m ? (int64_t)d[m - 1] : 0;
    t->time_skew_pct = med > 0 ? (double)(t->time_max_ns - t->time_min_ns) / med * 100 : 0;
    t->late_wait_ns = m > 1 && t->median_time_ns > late ? t->median_time_ns - late : 0;
}

/* The ranks' figures of type T, their spread and slowest rank; by time alone when UNSIZED. */
static int fill_type(opscope_job_coll_type *t, const opscope_job_rank_summary *const *ranks, size_t n, double *d,
                     bool unsized) {
    t->algbw_gbps = opscope_colls_gbps(t->tot.bytes, t->tot.time_ns);
    t->busbw_gbps = opscope_colls_gbps(t->tot.bus_bytes, t->tot.time_ns);
    if (!(t->ranks = calloc(n ? n : 1, sizeof *t->ranks))) return -1;
    size_t late = 0, slow = 0; /* unsized: the rows of the late and slowest ranks */
    for (size_t i = 0; i < n; i++) {
        opscope_job_coll_rank r = {.rank = ranks[i]->rank};
        for (size_t k = 0; k < ranks[i]->n_colls; k++) {
            const opscope_job_coll *c = &ranks[i]->colls[k];
            if (strcmp(c->type, t->tot.type)) continue;
            r.count += c->count;
            r.bytes += c->bytes;
            r.bus_bytes += c->bus_bytes;
            r.time_ns += c->time_ns;
        }
        if (!r.count) continue;
        r.algbw_gbps = opscope_colls_gbps(r.bytes, r.time_ns);
        r.busbw_gbps = opscope_colls_gbps(r.bus_bytes, r.time_ns);
        if (unsized) {
            /* no bandwidth: the late rank spends the least time, the slowest the most */
            if (!t->n_ranks || r.time_ns < t->ranks[late].time_ns) {
                late = t->n_ranks;
                t->late_rank = r.rank;
            }
            if (!t->n_ranks || r.time_ns > t->ranks[slow].time_ns) {
                slow = t->n_ranks;
                t->slowest_rank = r.rank;
            }
        } else if (!t->n_ranks || r.busbw_gbps < t->busbw_min_gbps) {
            t->busbw_min_gbps = r.busbw_gbps;
            t->slowest_rank = r.rank;
        }
        if (!unsized && (!t->n_ranks || r.busbw_gbps > t->busbw_max_gbps)) {
            t->busbw_max_gbps = r.busbw_gbps;
            t->late_rank = r.rank;
        }
        d[t->n_ranks] = r.busbw_gbps;
        t->ranks[t->n_ranks++] = r;
    }
    size_t m = t->n_ranks;
    opscope_sort(d, m, sizeof *d, cmp_dbl);
    t->busbw_median_gbps = !m ? 0 : m % 2 ? d[m / 2] : (d[m / 2 - 1] + d[m / 2]) / 2;
    t->skew_pct = t->busbw_median_gbps > 0 ? (t->busbw_max_gbps - t->busbw_min_gbps) / t->busbw_median_gbps * 100 : 0;
    late_wait(t, d);
    return 0;
}

const opscope_job_coll_type *opscope_job_colls_worst_skew(const opscope_job_colls *c) {
    const opscope_job_coll_type *best = NULL;
    for (size_t i = 0; i < c->n_types; i++)
        if (c->types[i].late_wait_ns > 0 && (!best || c->types[i].late_wait_ns > best->late_wait_ns))
            best = &c->types[i];
    return best;
}

int opscope_job_colls_analyze(opscope_job_colls *out, const opscope_job_rank_summary *const *ranks, size_t n) {
    memset(out, 0, sizeof *out);
    size_t cap = 0;
    out->unsized = true;
    for (size_t i = 0; i < n; i++) {
        cap += ranks[i]->n_colls;
        out->on_kernels |= ranks[i]->colls_on_kernels;
        if (ranks[i]->n_colls && !ranks[i]->colls_unsized) out->unsized = false;
    }
    if (!cap) {
        out->unsized = false;
        return 0;
    }
    opscope_job_coll *types = calloc(cap, sizeof *types);
    double *d = calloc(n ? n : 1, sizeof *d);
    out->buckets = calloc(cap, sizeof *out->buckets);
    size_t nt = 0;
    int rc = types && d && out->buckets ? 0 : -1;
    for (size_t i = 0; !rc && i < n; i++)
        for (size_t k = 0; k < ranks[i]->n_colls; k++) {
            opscope_colls_merge(types, &nt, cap, &ranks[i]->colls[k], false);
            if (!out->unsized) opscope_colls_merge(out->buckets, &out->n_buckets, cap, &ranks[i]->colls[k], true);
        }
    if (!rc && !(out->types = calloc(nt, sizeof *out->types))) rc = -1;
    for (size_t i = 0; !rc && i < nt; i++) {
        out->types[i].tot = types[i];
        out->n_types = i + 1;
        rc = fill_type(&out->types[i], ranks, n, d, out->unsized);
    }
    free(types);
    free(d);
    if (rc) opscope_job_colls_free(out);
    return rc;
}
