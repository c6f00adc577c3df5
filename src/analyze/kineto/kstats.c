/* kstats.c - kernels and launches by HTA's definitions beside opscope's (see kstats.h). */
#include "analyze/kineto/kstats.h"

#include "analyze/kineto/kqueue.h"

#include "util/npsort.h"
#include "util/sort.h"
#include "util/vec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A running series: Welford's mean and sum of squared deviations, so the standard deviation
 * needs no second pass and no sum of squares that could lose the small differences. */
typedef struct run_t {
    uint64_t n;
    int64_t sum, min, max;
    double mean, m2;
} run_t;

static void run_add(run_t *r, int64_t v) {
    if (!r->n || v < r->min) r->min = v;
    if (!r->n || v > r->max) r->max = v;
    r->n++;
    r->sum += v;
    double d = (double)v - r->mean;
    r->mean += d / (double)r->n;
    r->m2 += d * ((double)v - r->mean);
}

static double run_std(const run_t *r) { return r->n > 1 ? sqrt(r->m2 / (double)(r->n - 1)) : 0; }

static opscope_kstats_series run_series(const run_t *r) {
    return (opscope_kstats_series){r->n, r->sum, r->min, r->max, r->mean, run_std(r)};
}

typedef struct krow {
    run_t run;
    int kind;
} krow;

struct opscope_kstats {
    int64_t full_queue;
    OPSCOPE_VEC(krow) by_name;     /* indexed by name id (ids are dense) */
    opscope_kstats_kernel *kernels; size_t n_kernels;
    opscope_kstats_launch launch;
    opscope_kstats_stream *streams; size_t n_streams;
    OPSCOPE_VEC(uint64_t) at;      /* the streams' time at each queue length, one run each */
    opscope_kqueue_t *kq;          /* every stream's queue series and summary (kqueue.h) */
    int64_t origin;                /* the trace's earliest event start (HTA's origin) */
};

opscope_kstats_t *opscope_kstats_new(int64_t full_queue) {
    opscope_kstats_t *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->full_queue = full_queue > 0 ? full_queue : OPSCOPE_KSTATS_FULL_QUEUE;
    if (!(s->kq = opscope_kqueue_new(false))) {
        free(s);
        return NULL;
    }
    return s;
}

int opscope_kstats_keep_series(opscope_kstats_t *s) {
    opscope_kqueue_t *kq = opscope_kqueue_new(true);
    if (!kq) return -1;
    opscope_kqueue_free(s->kq);
    s->kq = kq;
    return 0;
}

const opscope_kqueue_t *opscope_kstats_queue(const opscope_kstats_t *s) { return s->kq; }
void opscope_kstats_set_origin(opscope_kstats_t *s, int64_t origin_ns) { s->origin = origin_ns; }

void opscope_kstats_free(opscope_kstats_t *s) {
    if (!s) return;
    opscope_kqueue_free(s->kq);
    void *owned[] = {s->by_name.v, s->kernels, s->streams, s->at.v, s};
    for (size_t i = 0; i < sizeof owned / sizeof *owned; i++) free(owned[i]);
}

int opscope_kstats_add(opscope_kstats_t *s, uint32_t name, int kind, int64_t dur_ns) {
    if (name == UINT32_MAX) return 0;
    if (name >= s->by_name.n) {
        size_t old = s->by_name.n, want = (size_t)name + 1;
        if (opscope_vec_reserve((void **)&s->by_name.v, &s->by_name.cap, want, sizeof *s->by_name.v, 64))
            return -1;
        memset(s->by_name.v + old, 0, (want - old) * sizeof *s->by_name.v);
        s->by_name.n = want;
    }
    krow *r = &s->by_name.v[name];
    if (!r->run.n) r->kind = kind;
    run_add(&r->run, dur_ns);
    return 0;
}

int opscope_kstats_call_kind(const char *name) {
    static const char *const stats[] = {"cudaLaunchKernel", "cudaLaunchKernelExC", "cudaMemcpyAsync",
                                        "cudaMemsetAsync",
                                        "runFunction - job_prep_and_submit_for_execution"};
    static const char *const queue_only[] = {"cuLaunchKernel", "cuLaunchKernelEx", "hipLaunchKernel",
                                             "hipExtModuleLaunchKernel", "hipMemsetAsync",
                                             "hipMemcpyAsync", "hipMemcpyWithStream"};
    if (!name) return 0;
    int kernel = (!strncmp(name, "cuda", 4) && strstr(name + 4, "LaunchKernel")) ||
                         !strncmp(name, "cuLaunchKernel", 14) || !strncmp(name, "runFunction", 11)
                     ? OPSCOPE_KSTATS_CALL_KERNEL
                     : 0;
    for (size_t i = 0; i < sizeof stats / sizeof *stats; i++)
        if (!strcmp(name, stats[i])) return kernel | OPSCOPE_KSTATS_CALL_STATS | OPSCOPE_KSTATS_CALL_QUEUE;
    for (size_t i = 0; i < sizeof queue_only / sizeof *queue_only; i++)
        if (!strcmp(name, queue_only[i])) return kernel | OPSCOPE_KSTATS_CALL_QUEUE;
    return kernel;
}

static int kernel_cmp(const void *pa, const void *pb) {
    const opscope_kstats_kernel *a = pa, *b = pb;
    if (a->sum_ns != b->sum_ns) return a->sum_ns > b->sum_ns ? -1 : 1;
    return (a->name > b->name) - (a->name < b->name);
}

static int kernels_finish(opscope_kstats_t *s) {
    size_t m = 0;
    for (size_t i = 0; i < s->by_name.n; i++) m += s->by_name.v[i].run.n > 0;
    s->kernels = calloc(m ? m : 1, sizeof *s->kernels);
    if (!s->kernels) return -1;
    for (size_t i = 0; i < s->by_name.n; i++) {
        const krow *r = &s->by_name.v[i];
        if (!r->run.n) continue;
        s->kernels[s->n_kernels++] = (opscope_kstats_kernel){
            .name = (uint32_t)i, .kind = r->kind, .count = r->run.n, .sum_ns = (uint64_t)r->run.sum,
            .min_ns = (uint64_t)r->run.min, .max_ns = (uint64_t)r->run.max, .mean_ns = r->run.mean,
            .std_ns = run_std(&r->run)};
    }
    opscope_sort(s->kernels, s->n_kernels, sizeof *s->kernels, kernel_cmp);
    free(s->by_name.v);
    memset(&s->by_name, 0, sizeof s->by_name);
    return 0;
}

static void launches_finish(opscope_kstats_t *s, const opscope_kstats_act *a, size_t n) {
    run_t end = {0}, end_hta = {0}, start = {0}, call = {0};
    opscope_kstats_launch *l = &s->launch;
    for (size_t i = 0; i < n; i++) {
        if (a[i].call_start == INT64_MIN || !(a[i].call_kind & OPSCOPE_KSTATS_CALL_STATS)) continue;
        int64_t d = a[i].start - (a[i].call_start + a[i].call_dur);
        run_add(&end, d > 0 ? d : 0);
        d = a[i].hta_start - (a[i].hta_call_start + a[i].call_dur);
        run_add(&end_hta, d > 0 ? d : 0);
        run_add(&start, a[i].start - a[i].call_start);
        run_add(&call, a[i].call_dur);
        if (a[i].dur < a[i].call_dur) {
            l->shorter_than_call++;
            l->shorter_short_call += a[i].call_dur <= OPSCOPE_KSTATS_SHORT_CALL_NS;
        }
    }
    l->launches = end.n;
    l->delay_end = run_series(&end);
    l->delay_end_hta = run_series(&end_hta);
    l->delay_start = run_series(&start);
    l->call = run_series(&call);
}

/* By stream, then start, then duration: the first key that differs decides. */
static int act_cmp(const void *pa, const void *pb) {
    const opscope_kstats_act *a = pa, *b = pb;
    const int64_t x[] = {a->device, a->stream, a->start, a->dur}, y[] = {b->device, b->stream, b->start, b->dur};
    for (size_t i = 0; i < 4; i++)
        if (x[i] != y[i]) return x[i] < y[i] ? -1 : 1;
    return 0;
}

/* One change of a stream's queue as a key: its time doubled, plus 1 for a launch, so that keys
 * sort by time with the activities counted out before the launches of the same instant. */
static int64_t qkey(int64_t t, int launch) { return t * 2 + launch; }

static int key_cmp(const void *pa, const void *pb) {
    int64_t x = *(const int64_t *)pa, y = *(const int64_t *)pb;
    return (x > y) - (x < y);
}

typedef struct qsum {
    double mean, std, tmean; /* per change point; time-weighted over first change to last */
    int64_t max;
    uint64_t below_ns;       /* time below 0 (a kernel that starts before its call) */
} qsum;

/* The queue over the keys Q[0..M) (sorted here): every change is a point whose value holds
 * until the next one. AT (NULL: not wanted) gets the time at each length 0..max. */
static qsum queue_of(int64_t *q, size_t m, uint64_t *at) {
    if (!at) opscope_sort(q, m, sizeof *q, key_cmp);
    run_t pts = {0};
    int64_t v = 0;
    double integral = 0;
    qsum r = {0};
    for (size_t i = 0; i < m; i++) {
        v += (q[i] & 1) ? 1 : -1;
        run_add(&pts, v);
        int64_t len = i + 1 < m ? (q[i + 1] >> 1) - (q[i] >> 1) : 0;
        integral += (double)v * (double)len;
        if (at && v >= 0) at[v] += (uint64_t)len;
        else if (at) r.below_ns += (uint64_t)len;
    }
    int64_t span = m ? (q[m - 1] >> 1) - (q[0] >> 1) : 0;
    r.mean = pts.mean;
    r.std = run_std(&pts);
    r.max = pts.n ? pts.max : 0;
    r.tmean = span > 0 ? integral / (double)span : 0;
    return r;
}

/* An activity that its launch call put in HTA's queue. */
static bool queued(const opscope_kstats_act *a) {
    return a->call_start != INT64_MIN && (a->call_kind & OPSCOPE_KSTATS_CALL_QUEUE);
}

/* The queue keys of A[0..N) into Q: +1 at each launch call's start, -1 at the activity's start
 * (AT_END false) or end. Returns their number. */
static size_t queue_keys(const opscope_kstats_act *a, size_t n, bool at_end, int64_t *q) {
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (!queued(&a[i])) continue;
        q[m++] = qkey(a[i].call_start, 1);
        q[m++] = qkey(at_end ? a[i].start + a[i].dur : a[i].start, 0);
    }
    return m;
}

static bool same_stream(const opscope_kstats_act *x, const opscope_kstats_act *y) {
    return x->device == y->device && x->stream == y->stream;
}

typedef struct call_row { uint64_t key; uint32_t act; } call_row;

static int call_row_cmp(const void *pa, const void *pb) {
    uint64_t x = ((const call_row *)pa)->key, y = ((const call_row *)pb)->key;
    return (x > y) - (x < y);
}

/* The queue's changes as HTA reads them (the times as its doubles), every stream's in HTA's row
 * order (get_queue_length_time_series): it concatenates every launch call in the file's order,
 * then every activity in the file's order, sorts the rows by time with numpy's quicksort
 * (pandas' sort_values), which leaves the changes of one instant in an order of its own (that
 * order decides the per-point mean and std), and takes each stream's rows in turn. A[0..N) is
 * sorted by stream; OUT (2 N) gets the streams' keys one after another, in the order of A's
 * streams. 0, or -1 out of memory. */
static int hta_queue_keys(const opscope_kstats_act *a, size_t n, int64_t *out) {
    size_t m = 0;
    for (size_t i = 0; i < n; i++) m += queued(&a[i]);
    if (!m) return 0;
    if (n >= UINT32_MAX / 2) return -1; /* elements are 2 i + 1 in 32 bits */
    call_row *calls = malloc(m * sizeof *calls);
    uint32_t *by_seq = malloc(n * sizeof *by_seq), *run = malloc(n * sizeof *run);
    uint32_t *elem = malloc(2 * m * sizeof *elem), *idx = malloc(2 * m * sizeof *idx);
    int64_t *t = malloc(2 * m * sizeof *t);
    size_t *fill = malloc((n + 1) * sizeof *fill);
    int rc = calls && by_seq && run && elem && idx && t && fill ? 0 : -1;
    size_t runs = 0;
    if (!rc) {
        size_t nc = 0;
        memset(by_seq, 0xff, n * sizeof *by_seq); /* SEQ is a permutation of 0..N-1 (kstats.h) */
        for (size_t i = 0; i < n; i++) {
            if (i && !same_stream(&a[i - 1], &a[i])) runs++;
            run[i] = (uint32_t)runs;
            if (!queued(&a[i])) continue;
            if (a[i].seq >= n || by_seq[a[i].seq] != UINT32_MAX) rc = -1; /* not the contract's SEQ */
            calls[nc++] = (call_row){(uint64_t)a[i].call_seq << 32 | a[i].seq, (uint32_t)i};
            if (!rc) by_seq[a[i].seq] = (uint32_t)i;
        }
    }
    if (!rc) {
        opscope_sort(calls, m, sizeof *calls, call_row_cmp);
        for (size_t r = 0; r < m; r++) elem[r] = 2 * calls[r].act + 1, t[r] = a[calls[r].act].hta_call_start;
        for (size_t q = 0, r = m; q < n; q++)
            if (by_seq[q] != UINT32_MAX) elem[r] = 2 * by_seq[q], t[r++] = a[by_seq[q]].hta_start;
        opscope_npsort_argsort(t, idx, 2 * m);
        /* each stream's slice of OUT: 2 keys per queued activity of the streams before it */
        memset(fill, 0, (runs + 2) * sizeof *fill);
        for (size_t i = 0; i < n; i++) fill[run[i] + 1] += 2 * queued(&a[i]);
        for (size_t r = 1; r <= runs + 1; r++) fill[r] += fill[r - 1];
        for (size_t p = 0; p < 2 * m; p++) {
            uint32_t e = elem[idx[p]];
            const opscope_kstats_act *x = &a[e / 2];
            out[fill[run[e / 2]]++] = e & 1 ? qkey(x->hta_call_start, 1) : qkey(x->hta_start, 0);
        }
    }
    free(calls), free(by_seq), free(run), free(elem), free(idx), free(t), free(fill);
    return rc;
}

/* HTA's idle split of one stream's activities A[0..N) in start order into ST (host wait,
 * kernel wait, other): the exact gaps in ns. */
static void idle_split(const opscope_kstats_act *a, size_t n, opscope_kstats_stream *st) {
    for (size_t i = 1; i < n; i++) {
        int64_t prev_end = a[i - 1].start + a[i - 1].dur, gap = a[i].start - prev_end;
        if (a[i].call_start != INT64_MIN && a[i].call_start > prev_end) st->idle_host_ns += gap;
        else if (gap < OPSCOPE_KSTATS_KERNEL_WAIT_NS) st->idle_kernel_ns += gap;
        else st->idle_other_ns += gap;
    }
}

/* The same split as HTA computes it from ORIGIN (kstats.h): times in us doubles (a duration
 * read as the JSON's decimal is the nearest double to its ns / 1000), an end the sum of two,
 * each gap a difference, the gaps of a category summed with Kahan's compensation. */
static void idle_split_hta(const opscope_kstats_act *a, size_t n, int64_t origin, opscope_kstats_stream *st) {
    double sum[3] = {0, 0, 0}, comp[3] = {0, 0, 0};
    for (size_t i = 1; i < n; i++) {
        double prev_end = (double)(a[i - 1].hta_start - origin) / 1000.0 + (double)a[i - 1].dur / 1000.0;
        double gap = (double)(a[i].hta_start - origin) / 1000.0 - prev_end;
        int c = a[i].call_start != INT64_MIN && (double)(a[i].hta_call_start - origin) / 1000.0 > prev_end ? 0
                : gap < OPSCOPE_KSTATS_KERNEL_WAIT_NS / 1000.0 ? 1 : 2;
        double y = gap - comp[c], t = sum[c] + y;
        comp[c] = (t - sum[c]) - y;
        sum[c] = t;
    }
    st->idle_host_hta_us = sum[0], st->idle_kernel_hta_us = sum[1], st->idle_other_hta_us = sum[2];
}

/* ST's figures; its time at each queue length goes to the end of S->at (ST->q_at is set once
 * every stream's run is there: S->at moves while it grows). */
static int stream_finish(opscope_kstats_t *s, const opscope_kstats_act *a, size_t n, int64_t *q,
                         const int64_t *hta_keys, opscope_kstats_stream *st) {
    size_t m = queue_keys(a, n, false, q);
    qsum hta = queue_of(q, m, NULL);
    st->q_points = m;
    st->q_mean = hta.mean;
    st->q_std = hta.std;
    st->q_max = hta.max;
    st->q_time_mean = hta.tmean;
    st->q_n_at = hta.max >= 0 ? (size_t)hta.max + 1 : 0;
    size_t off = s->at.n;
    if (opscope_vec_reserve((void **)&s->at.v, &s->at.cap, off + st->q_n_at + 1, sizeof *s->at.v, 64)) return -1;
    memset(s->at.v + off, 0, (st->q_n_at + 1) * sizeof *s->at.v);
    s->at.n = off + st->q_n_at;
    st->q_below_ns = queue_of(q, m, s->at.v + off).below_ns; /* Q is sorted: a second walk */
    for (size_t i = (size_t)(s->full_queue > 0 ? s->full_queue : 0); i < st->q_n_at; i++) st->full_ns += s->at.v[off + i];
    if (opscope_kqueue_add(s->kq, st->device, st->stream, OPSCOPE_KQUEUE_OUT_START, q, m)) return -1;
    if (opscope_kqueue_add(s->kq, st->device, st->stream, OPSCOPE_KQUEUE_OUT_START_HTA, hta_keys, m)) return -1;
    m = queue_keys(a, n, true, q);
    qsum own = queue_of(q, m, NULL);
    if (opscope_kqueue_add(s->kq, st->device, st->stream, OPSCOPE_KQUEUE_OUT_END, q, m)) return -1;
    st->q_end_max = own.max;
    st->q_end_time_mean = own.tmean;
    idle_split(a, n, st);
    idle_split_hta(a, n, s->origin, st);
    return 0;
}

int opscope_kstats_finish(opscope_kstats_t *s, opscope_kstats_act *a, size_t n) {
    if (kernels_finish(s)) return -1;
    launches_finish(s, a, n);
    opscope_sort(a, n, sizeof *a, act_cmp);
    OPSCOPE_VEC(opscope_kstats_stream) rows = {0};
    int64_t *q = malloc((2 * n + 1) * sizeof *q); /* one stream's queue changes at a time */
    int64_t *hta = malloc((2 * n + 1) * sizeof *hta); /* every stream's, as HTA orders them */
    int rc = q && hta && !hta_queue_keys(a, n, hta) ? 0 : -1;
    for (size_t i = 0, j, off = 0; !rc && i < n; i = j) {
        for (j = i + 1; j < n && same_stream(&a[i], &a[j]); j++) {}
        opscope_kstats_stream row = {.device = a[i].device, .stream = a[i].stream};
        rc = stream_finish(s, a + i, j - i, q, hta + off, &row) || OPSCOPE_VEC_PUSH(rows, row) ? -1 : 0;
        off += row.q_points;
    }
    free(q);
    free(hta);
    s->streams = rows.v;
    s->n_streams = rows.n;
    for (size_t i = 0, off = 0; !rc && i < s->n_streams; off += s->streams[i++].q_n_at) s->streams[i].q_at = s->at.v + off;
    return rc;
}

const opscope_kstats_kernel *opscope_kstats_kernels(const opscope_kstats_t *s, size_t *n) {
    *n = s->n_kernels;
    return s->kernels;
}
const opscope_kstats_launch *opscope_kstats_launches(const opscope_kstats_t *s) { return &s->launch; }
const opscope_kstats_stream *opscope_kstats_streams(const opscope_kstats_t *s, size_t *n) {
    *n = s->n_streams;
    return s->streams;
}
int64_t opscope_kstats_full_queue(const opscope_kstats_t *s) { return s->full_queue; }
