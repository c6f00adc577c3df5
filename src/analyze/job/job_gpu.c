/*
 * job_gpu.c - a GPU rank's streams (idle split, queue length) and launch statistics
 * (job_gpu.h; definitions in docs/job.md).
 */
#include "analyze/job/job_gpu.h"

#include "util/sort.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NO_LAUNCH INT64_MIN

static int by_corr(const void *a, const void *b) {
    const opscope_job_call *x = a, *y = b;
    if (x->corr != y->corr) return x->corr < y->corr ? -1 : 1;
    return (x->s > y->s) - (x->s < y->s);
}

const opscope_job_call *opscope_job_call_find(const opscope_job_call *c, size_t n, int64_t corr) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c[mid].corr < corr) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && c[lo].corr == corr ? &c[lo] : NULL;
}

static int by_stream_start(const void *a, const void *b) {
    const opscope_job_act *x = a, *y = b;
    if (x->device != y->device) return x->device < y->device ? -1 : 1;
    if (x->stream != y->stream) return x->stream < y->stream ? -1 : 1;
    if (x->s != y->s) return x->s < y->s ? -1 : 1;
    return (x->e > y->e) - (x->e < y->e);
}

/* One stream's busy, idle and its split: a gap before activity I is host wait while I was not
 * launched yet (its call starts after the gap opened), kernel wait once it was, other when its
 * launch is unknown. LAUNCH[i]: the start of activity I's call, or NO_LAUNCH. */
static void stream_idle(const opscope_job_act *a, const int64_t *launch, size_t n,
                        opscope_job_stream *st) {
    int64_t cur_s = a[0].s, cur_e = a[0].e;
    for (size_t i = 1; i < n; i++) {
        if (a[i].s <= cur_e) {
            if (a[i].e > cur_e) cur_e = a[i].e;
            continue;
        }
        int64_t gap = a[i].s - cur_e;
        st->busy_ns += cur_e - cur_s;
        if (launch[i] == NO_LAUNCH) {
            st->other_wait_ns += gap;
        } else {
            int64_t host = launch[i] - cur_e;
            host = host < 0 ? 0 : host > gap ? gap : host;
            st->host_wait_ns += host;
            st->kernel_wait_ns += gap - host;
        }
        cur_s = a[i].s;
        cur_e = a[i].e;
    }
    st->busy_ns += cur_e - cur_s;
    st->span_ns = cur_e - a[0].s;
    st->idle_ns = st->span_ns - st->busy_ns;
}

typedef struct qev {
    int64_t t;
    int d; /* +1: launched, -1: finished */
} qev;

static int by_time(const void *a, const void *b) {
    const qev *x = a, *y = b;
    if (x->t != y->t) return x->t < y->t ? -1 : 1;
    return x->d - y->d; /* a finish before a launch at the same instant */
}

/* The stream's queue: +1 at each linked activity's call start, -1 at its end; the value after
 * all the changes at an instant holds until the next one. Q: room for 2N events. */
static void stream_queue(const opscope_job_act *a, const int64_t *launch, size_t n, qev *q,
                         opscope_job_stream *st) {
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (launch[i] == NO_LAUNCH) continue;
        q[m++] = (qev){launch[i], 1};
        q[m++] = (qev){a[i].e, -1};
    }
    if (!m) return;
    opscope_sort(q, m, sizeof *q, by_time);
    int64_t v = 0, max = INT64_MIN, at_max = 0;
    double integral = 0;
    for (size_t i = 0; i < m;) {
        int64_t t = q[i].t;
        for (; i < m && q[i].t == t; i++) v += q[i].d;
        int64_t len = i < m ? q[i].t - t : 0;
        integral += (double)v * (double)len;
        if (v > max) {
            max = v;
            at_max = len;
        } else if (v == max) {
            at_max += len;
        }
    }
    int64_t span = q[m - 1].t - q[0].t;
    st->queue_max = max;
    st->queue_at_max_ns = at_max;
    st->queue_mean = span > 0 ? integral / (double)span : 0;
}

/* The streams of IN (acts sorted by stream) into OUT, with LAUNCH per act. */
static int fill_streams(const opscope_job_gpu_in *in, const int64_t *launch,
                        opscope_job_rank_summary *out) {
    const opscope_job_act *a = in->acts;
    size_t n = in->n_acts, ns = 0;
    for (size_t i = 0; i < n; i++)
        ns += !i || a[i].device != a[i - 1].device || a[i].stream != a[i - 1].stream;
    out->streams = calloc(ns ? ns : 1, sizeof *out->streams);
    qev *q = malloc((2 * n + 1) * sizeof *q);
    if (!out->streams || !q) {
        free(q);
        return -1;
    }
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && a[j].device == a[i].device && a[j].stream == a[i].stream) j++;
        opscope_job_stream *st = &out->streams[out->n_streams++];
        st->device = a[i].device;
        st->stream = a[i].stream;
        st->activities = j - i;
        stream_idle(a + i, launch + i, j - i, st);
        stream_queue(a + i, launch + i, j - i, q, st);
        out->host_wait_ns += st->host_wait_ns;
        out->kernel_wait_ns += st->kernel_wait_ns;
        out->other_wait_ns += st->other_wait_ns;
        i = j;
    }
    free(q);
    return 0;
}

typedef struct launch_row {
    uint32_t name;
    int64_t delay;
} launch_row;

static int by_name(const void *a, const void *b) {
    const launch_row *x = a, *y = b;
    return (x->name > y->name) - (x->name < y->name);
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Nearest rank: V[floor((N - 1) * Q / 100)] of sorted V. */
static int64_t pct(const int64_t *v, size_t n, unsigned q) {
    return n ? v[(n - 1) * q / 100] : 0;
}

static bool better(const opscope_job_outlier *a, const opscope_job_outlier *b) {
    return a->count != b->count ? a->count > b->count : a->max_delay_ns > b->max_delay_ns;
}

/* Keeps O among the OPSCOPE_JOB_OUTLIERS most outlying names of L (most outliers first, then
 * the longest delay). */
static void keep_outlier(opscope_job_launch *l, const opscope_job_outlier *o) {
    int i;
    if (l->n_outliers < OPSCOPE_JOB_OUTLIERS) i = l->n_outliers++;
    else if (better(o, &l->outliers[OPSCOPE_JOB_OUTLIERS - 1])) i = OPSCOPE_JOB_OUTLIERS - 1;
    else return;
    l->outliers[i] = *o;
    for (; i > 0 && better(&l->outliers[i], &l->outliers[i - 1]); i--) {
        opscope_job_outlier t = l->outliers[i - 1];
        l->outliers[i - 1] = l->outliers[i];
        l->outliers[i] = t;
    }
}

/* Delay outliers grouped by kernel name (ROWS sorted by name). */
static void find_outliers(const opscope_job_gpu_in *in, launch_row *rows, size_t n,
                          opscope_job_launch *l) {
    opscope_sort(rows, n, sizeof *rows, by_name);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        opscope_job_outlier o;
        memset(&o, 0, sizeof o);
        for (; j < n && rows[j].name == rows[i].name; j++) {
            o.launches++;
            if (rows[j].delay > in->delay_cutoff_ns) o.count++;
            if (rows[j].delay > o.max_delay_ns) o.max_delay_ns = rows[j].delay;
        }
        if (o.count) {
            const char *s = opscope_strtab_get(in->names, rows[i].name);
            snprintf(o.name, sizeof o.name, "%s", s ? s : "?");
            keep_outlier(l, &o);
        }
        i = j;
    }
}

/* Launch delay and CPU launch time of every activity with a call (LAUNCH[i] set). */
static int fill_launch(const opscope_job_gpu_in *in, const int64_t *launch, const int64_t *cpu,
                       opscope_job_launch *l) {
    size_t n = in->n_acts, m = 0;
    int64_t *d = malloc((n ? n : 1) * sizeof *d), *c = malloc((n ? n : 1) * sizeof *c);
    launch_row *rows = malloc((n ? n : 1) * sizeof *rows);
    if (!d || !c || !rows) {
        free(d);
        free(c);
        free(rows);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        if (launch[i] == NO_LAUNCH) continue;
        d[m] = in->acts[i].s - launch[i];
        c[m] = cpu[i];
        rows[m] = (launch_row){in->acts[i].name, d[m]};
        l->delay_outliers += d[m] > in->delay_cutoff_ns;
        l->cpu_outliers += c[m] > in->cpu_cutoff_ns;
        m++;
    }
    l->launches = m;
    opscope_sort(d, m, sizeof *d, cmp_i64);
    opscope_sort(c, m, sizeof *c, cmp_i64);
    l->delay_p50_ns = pct(d, m, 50);
    l->delay_p90_ns = pct(d, m, 90);
    l->delay_p99_ns = pct(d, m, 99);
    l->delay_max_ns = m ? d[m - 1] : 0;
    l->cpu_p50_ns = pct(c, m, 50);
    l->cpu_p90_ns = pct(c, m, 90);
    l->cpu_max_ns = m ? c[m - 1] : 0;
    find_outliers(in, rows, m, l);
    free(d);
    free(c);
    free(rows);
    return 0;
}

int opscope_job_gpu_measure(const opscope_job_gpu_in *in, opscope_job_rank_summary *out) {
    size_t n = in->n_acts;
    opscope_sort(in->calls, in->n_calls, sizeof *in->calls, by_corr);
    opscope_sort(in->acts, n, sizeof *in->acts, by_stream_start);
    int64_t *launch = malloc((n ? n : 1) * sizeof *launch), *cpu = malloc((n ? n : 1) * sizeof *cpu);
    if (!launch || !cpu) {
        free(launch);
        free(cpu);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        const opscope_job_call *c =
            in->acts[i].corr >= 0 ? opscope_job_call_find(in->calls, in->n_calls, in->acts[i].corr) : NULL;
        launch[i] = c ? c->s : NO_LAUNCH;
        cpu[i] = c ? c->dur : 0;
    }
    int rc = fill_streams(in, launch, out) || fill_launch(in, launch, cpu, &out->launch) ? -1 : 0;
    free(launch);
    free(cpu);
    return rc;
}
