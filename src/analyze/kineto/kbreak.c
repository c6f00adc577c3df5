/* kbreak.c - GPU time by kernel type as HTA measures it (see kbreak.h). */
#include "analyze/kineto/kbreak.h"

#include "util/fsum.h"
#include "util/npsort.h"
#include "util/sort_runs.h"
#include "util/vec.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef struct kb_ev {
    int64_t start, end, corr;
    int type;
} kb_ev;

typedef struct kb_edge { /* a merged interval's start (+bit) or end (-bit), in HTA's us */
    double t;
    int delta;
} kb_edge;

struct opscope_kbreak {
    OPSCOPE_VEC(kb_ev) ev;
    opscope_kbreak_results res;
};

opscope_kbreak_t *opscope_kbreak_new(void) { return calloc(1, sizeof(opscope_kbreak_t)); }

void opscope_kbreak_free(opscope_kbreak_t *b) {
    if (!b) return;
    free(b->ev.v);
    free(b);
}

static bool starts(const char *s, const char *p) { return !strncmp(s, p, strlen(p)); }

/* HTA's non-compute names (its compute pattern, inverted) besides the communication and
 * memory ones. */
static bool not_compute(const char *n) {
    static const char *const pre[] = {"nccl", "Stream Wait Event", "runFunction", "hip", "job_exe", "packet",
                                      "pe_exe", "cpum_exe_subgraph", "hccl", "collective_subgraph_execution"};
    for (size_t i = 0; i < sizeof pre / sizeof *pre; i++)
        if (starts(n, pre[i])) return true;
    return strstr(n, "Memcpy") || strstr(n, "Memset") || strstr(n, "dma") || strstr(n, "Sync") ||
           (starts(n, "cuda") && strstr(n + 4, "LaunchKernel"));
}

int opscope_kbreak_type_of(const char *n) {
    if (!n) return OPSCOPE_KBREAK_OTHER;
    if (starts(n, "nccl") || starts(n, "hip") || starts(n, "hccl") || strstr(n, "ncclKernel"))
        return OPSCOPE_KBREAK_COMMUNICATION;
    if (starts(n, "Memcpy") || starts(n, "Memset") || starts(n, "dma")) return OPSCOPE_KBREAK_MEMORY;
    return not_compute(n) ? OPSCOPE_KBREAK_OTHER : OPSCOPE_KBREAK_COMPUTATION;
}

int opscope_kbreak_add(opscope_kbreak_t *b, int type, int64_t start_ns, int64_t dur_ns, int64_t corr) {
    kb_ev e = {start_ns, start_ns + (dur_ns > 0 ? dur_ns : 0), corr, type};
    return OPSCOPE_VEC_PUSH(b->ev, e);
}

void opscope_kbreak_keep(opscope_kbreak_t *b, int (*keep)(const void *ud, int64_t corr), const void *ud) {
    size_t w = 0;
    for (size_t i = 0; i < b->ev.n; i++)
        if (keep(ud, b->ev.v[i].corr)) b->ev.v[w++] = b->ev.v[i];
    b->ev.n = w;
}

static int ev_cmp(const void *pa, const void *pb) {
    const kb_ev *a = pa, *b = pb;
    return (a->start > b->start) - (a->start < b->start);
}

static inline int ev_less(const kb_ev *a, const kb_ev *b) { return a->start < b->start; }
/* the events come in trace order (each stream's in time order): merging their runs is cheaper
 * than sorting them */
OPSCOPE_SORT_RUNS_DEFINE(sort_ev, kb_ev, ev_less, ev_cmp)

/* The union of the events (by start) of a type in MASK (0: every event), in ns. */
static int64_t union_ns(const kb_ev *e, size_t n, int mask) {
    int64_t sum = 0, s = 0, t = 0;
    bool open = false;
    for (size_t i = 0; i < n; i++) {
        if (mask && !(e[i].type & mask)) continue;
        if (open && e[i].start <= t) {
            if (e[i].end > t) t = e[i].end;
            continue;
        }
        if (open) sum += t - s;
        s = e[i].start, t = e[i].end, open = true;
    }
    return open ? sum + t - s : sum;
}

/* The whole microseconds apart: a trace's ns exceed a double's 53 bits. */
double opscope_kbreak_us(int64_t ns) { return (double)(ns / 1000) + (double)(ns % 1000) / 1000.0; }

int64_t opscope_kbreak_delta_ns(int64_t a, int64_t b) {
    return llround((opscope_kbreak_us(b) - opscope_kbreak_us(a)) * 1000.0);
}


static size_t edge_pair(kb_edge *x, size_t m, double s, double t, int bit, double *sums) {
    if (x) x[m] = (kb_edge){s, bit}, x[m + 1] = (kb_edge){t, -bit};
    sums[0] += t, sums[1] += s;
    return m + 2;
}

/* HTA's merge of the events of a type in MASK (0: all; by start) as us doubles from ORIGIN: a
 * new interval where a start is past every end before it; their edges appended to X (NULL:
 * none), the sums of their ends and starts to SUMS. Returns the edges. */
static size_t merged_edges(const kb_ev *e, size_t n, int mask, int64_t origin, kb_edge *x, double *sums) {
    size_t m = 0;
    double s = 0, t = 0, o = opscope_kbreak_us(origin);
    bool open = false;
    for (size_t i = 0; i < n; i++) {
        if (mask && e[i].type != mask) continue;
        double ts = opscope_kbreak_us(e[i].start) - o, end = ts + opscope_kbreak_us(e[i].end - e[i].start);
        if (open && !(ts > t)) {
            if (end > t) t = end;
            continue;
        }
        if (open) m = edge_pair(x, m, s, t, mask, sums);
        s = ts, t = end, open = true;
    }
    return open ? edge_pair(x, m, s, t, mask, sums) : m;
}

/* A double as an int64 key of the same order (util/npsort.h sorts int64): a non-negative
 * double's bits rise with it, a negative one's are mirrored, and -0 is 0, as they compare. */
static int64_t double_key(double d) {
    if (d == 0) return 0;
    int64_t b;
    memcpy(&b, &d, sizeof b);
    return b < 0 ? -(b & INT64_MAX) : b;
}

/* The scratch of a split: 2 N + 1 of each. */
typedef struct kb_scratch {
    kb_edge *x, *tmp;
    int64_t *keys;
    uint32_t *idx;
} kb_scratch;

/* The time per set of types running (OUT by mask) over the edges X[0..M): each piece between
 * two edges cut to whole microseconds, as HTA's integer cast of its durations; ROWS counts,
 * per mask, HTA's rows with that set running (a set that runs for 0 us at an instant where one
 * type ends and another starts is a row of 0 in its table). */
static void split_walk(const kb_edge *x, size_t m, int64_t *out, uint64_t *rows) {
    int run = 0;
    for (size_t i = 0; i + 1 < m; i++) {
        run += x[i].delta;
        if (run > 0 && run < OPSCOPE_KBREAK_MASKS) {
            out[run] += (int64_t)(x[i + 1].t - x[i].t);
            rows[run]++;
        }
    }
}

/* HTA's split of the types' overlaps, with MEMORY among the types and without it, the edges in
 * HTA's row order: per type (COMPUTATION, COMMUNICATION, then MEMORY), the rows so far, then
 * the type's merged starts and then its ends (its melt), sorted by time with numpy's sort (its
 * sort_values after each concat), so that the edges of one instant fall as in HTA's table.
 * Without MEMORY the rows are those after the second type. */
static void split(const kb_ev *e, size_t n, int64_t origin, kb_scratch *sc, opscope_kbreak_results *r) {
    kb_edge *x = sc->x;
    size_t m = 0;
    double sums[2] = {0, 0};
    for (int bit = 1; bit < OPSCOPE_KBREAK_MASKS; bit <<= 1) {
        size_t k = merged_edges(e, n, bit, origin, sc->tmp, sums), h = k / 2;
        for (size_t i = 0; i < h; i++) x[m + i] = sc->tmp[2 * i], x[m + h + i] = sc->tmp[2 * i + 1];
        m += k;
        for (size_t i = 0; i < m; i++) sc->keys[i] = double_key(x[i].t);
        opscope_npsort_argsort(sc->keys, sc->idx, m);
        for (size_t i = 0; i < m; i++) sc->tmp[i] = x[sc->idx[i]];
        if (m) memcpy(x, sc->tmp, m * sizeof *x);
        if (bit == OPSCOPE_KBREAK_COMMUNICATION) split_walk(x, m, r->without_memory_us, r->without_memory_rows);
    }
    split_walk(x, m, r->with_memory_us, r->with_memory_rows);
}

/* HTA's sum of the merged intervals' ends less that of their starts (X: M edges, start and end
 * in turn), each summed as pandas sums a column (util/fsum.h): the last bits of HTA's figure. */
static double merged_sum(const kb_edge *x, size_t m) {
    size_t pairs = m / 2, stride = 2 * sizeof *x;
    return m ? opscope_fsum_numpy(&x[1].t, pairs, stride) - opscope_fsum_numpy(&x[0].t, pairs, stride) : 0;
}

int opscope_kbreak_finish(opscope_kbreak_t *b, int64_t origin) {
    size_t n = b->ev.n;
    if (2 * n + 1 >= UINT32_MAX) return -1; /* npsort's positions are 32-bit */
    kb_scratch sc = {malloc((2 * n + 1) * sizeof *sc.x), malloc((2 * n + 1) * sizeof *sc.tmp),
                     malloc((2 * n + 1) * sizeof *sc.keys), malloc((2 * n + 1) * sizeof *sc.idx)};
    kb_edge *x = sc.x;
    if (!sc.x || !sc.tmp || !sc.keys || !sc.idx) {
        free(sc.x), free(sc.tmp), free(sc.keys), free(sc.idx);
        return -1;
    }
    kb_ev *e = b->ev.v;
    sort_ev(e, n);
    opscope_kbreak_results *r = &b->res;
    r->events = n;
    int64_t lo = n ? e[0].start : 0, hi = lo;
    for (size_t i = 0; i < n; i++)
        if (e[i].end > hi) hi = e[i].end;
    r->span_ns = hi - lo;
    r->busy_ns = union_ns(e, n, 0);
    r->compute_ns = union_ns(e, n, OPSCOPE_KBREAK_COMPUTATION);
    double all[2] = {0, 0}, comp[2] = {0, 0};
    size_t m = merged_edges(e, n, 0, origin, x, all);
    r->span_us = m ? x[m - 1].t - x[0].t : 0; /* the last merged end is the latest end */
    r->busy_us = merged_sum(x, m);
    m = merged_edges(e, n, OPSCOPE_KBREAK_COMPUTATION, origin, x, comp);
    r->compute_us = merged_sum(x, m);
    split(e, n, origin, &sc, r);
    free(sc.x), free(sc.tmp), free(sc.keys), free(sc.idx);
    free(b->ev.v);
    b->ev.v = NULL;
    b->ev.n = b->ev.cap = 0;
    return 0;
}

const opscope_kbreak_results *opscope_kbreak_results_of(const opscope_kbreak_t *b) { return &b->res; }
