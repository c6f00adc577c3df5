/* trace_ops.c - a trace's events per name over chosen profiler steps, two traces paired
 * (see trace_ops.h). */
#include "analyze/diff/trace_ops.h"
#include "util/sort.h"
#include "util/vec.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

typedef struct cpu_ev { int64_t start, dur; uint32_t name; } cpu_ev;
typedef struct rt_ev { int64_t corr, start; } rt_ev;
typedef struct gpu_ev { int64_t corr, dur; uint32_t name; } gpu_ev;
typedef struct step_ev { int64_t start, end, number; } step_ev;

struct opscope_trace_ops {
    opscope_kineto_collector coll;  /* what the reader sees */
    const opscope_kineto_collector *inner;
    struct { /* what the read keeps, freed at the finish */
        OPSCOPE_VEC(cpu_ev) cpu;
        OPSCOPE_VEC(rt_ev) rt;
        OPSCOPE_VEC(gpu_ev) gpu;
        OPSCOPE_VEC(step_ev) steps;
    } ev;
    int64_t *kept; size_t n_kept;   /* the chosen steps' numbers */
    opscope_trace_op *rows[2]; size_t n_rows[2]; /* CPU, GPU */
};

/* N of "ProfilerStep#N" (HTA's pattern: spaces allowed around '#'), or -1. */
static int64_t step_number(const char *s) {
    static const char pre[] = "ProfilerStep";
    if (strncmp(s, pre, sizeof pre - 1)) return -1;
    s += sizeof pre - 1;
    while (*s == ' ') s++;
    if (*s++ != '#') return -1;
    while (*s == ' ') s++;
    if (*s < '0' || *s > '9') return -1;
    int64_t n = 0;
    for (; *s >= '0' && *s <= '9' && n < INT64_MAX / 10 - 9; s++) n = n * 10 + (*s - '0');
    return n;
}

static int tally_add(void *ud, const opscope_kineto_event *ev) {
    opscope_trace_ops_t *t = ud;
    int64_t dur = ev->dur_ns > 0 ? ev->dur_ns : 0;
    if (ev->kind == OPSCOPE_KINETO_ANNOTATION) { /* a step, and a CPU slice too */
        int64_t n = step_number(opscope_strtab_get(t->coll.names, ev->name_id));
        step_ev s = {ev->start_ns, ev->start_ns + dur, n};
        if (n >= 0 && OPSCOPE_VEC_PUSH(t->ev.steps, s)) return -1;
    }
    switch (ev->kind) {
    case OPSCOPE_KINETO_ANNOTATION:
    case OPSCOPE_KINETO_CPU_OP:
    case OPSCOPE_KINETO_PYTHON:
    case OPSCOPE_KINETO_RUNTIME: {
        cpu_ev c = {ev->start_ns, dur, ev->name_id};
        if (OPSCOPE_VEC_PUSH(t->ev.cpu, c)) return -1;
        rt_ev r = {ev->corr, ev->start_ns};
        if (ev->kind == OPSCOPE_KINETO_RUNTIME && ev->corr >= 0 && OPSCOPE_VEC_PUSH(t->ev.rt, r)) return -1;
        break;
    }
    case OPSCOPE_KINETO_KERNEL:
    case OPSCOPE_KINETO_MEMCPY:
    case OPSCOPE_KINETO_MEMSET: {
        gpu_ev g = {ev->corr, dur, ev->name_id};
        if (OPSCOPE_VEC_PUSH(t->ev.gpu, g)) return -1;
        break;
    }
    default: break;
    }
    return t->inner ? t->inner->add(t->inner->ud, ev) : 0;
}

opscope_trace_ops_t *opscope_trace_ops_new(const opscope_kineto_collector *inner) {
    opscope_trace_ops_t *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    if (inner) t->coll = *inner;
    t->inner = inner;
    t->coll.ud = t;
    t->coll.add = tally_add;
    return t;
}

static void events_free(opscope_trace_ops_t *t) {
    void *own[] = {t->ev.cpu.v, t->ev.rt.v, t->ev.gpu.v, t->ev.steps.v};
    for (size_t i = 0; i < sizeof own / sizeof *own; i++) free(own[i]);
    memset(&t->ev, 0, sizeof t->ev);
}

void opscope_trace_ops_free(opscope_trace_ops_t *t) {
    if (!t) return;
    events_free(t);
    free(t->kept);
    free(t->rows[0]);
    free(t->rows[1]);
    free(t);
}

opscope_kineto_collector *opscope_trace_ops_collector(opscope_trace_ops_t *t) { return &t->coll; }

/* ---- finish ----------------------------------------------------------------------------- */

static int cmp_step(const void *a, const void *b) {
    const step_ev *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

static int cmp_rt(const void *a, const void *b) {
    const rt_ev *x = a, *y = b;
    if (x->corr != y->corr) return x->corr < y->corr ? -1 : 1;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* How many of the N elements of SIZE bytes at BASE, sorted by the int64_t at byte OFF of
 * each, have that key below KEY. */
static size_t count_below(const void *base, size_t n, size_t size, size_t off, int64_t key) {
    const char *b = base;
    size_t at = 0;
    for (size_t step = n; step > 0;) {
        size_t half = step / 2;
        int64_t k;
        memcpy(&k, b + (at + half) * size + off, sizeof k);
        if (k < key) at += half + 1, step -= half + 1;
        else step = half;
    }
    return at;
}

/* Whether TS counts: inside a chosen step (steps by start, CHOSEN per step), or any TS in a
 * trace without steps. */
static bool in_chosen(const opscope_trace_ops_t *t, const uint8_t *chosen, int64_t ts) {
    if (!t->ev.steps.n) return true;
    if (ts == INT64_MAX) return false;
    size_t i = count_below(t->ev.steps.v, t->ev.steps.n, sizeof *t->ev.steps.v, offsetof(step_ev, start), ts + 1);
    return i > 0 && ts < t->ev.steps.v[i - 1].end && chosen[i - 1];
}

/* The runtime call of correlation CORR's start, or INT64_MIN when none. */
static int64_t launch_of(const opscope_trace_ops_t *t, int64_t corr) {
    size_t i = count_below(t->ev.rt.v, t->ev.rt.n, sizeof *t->ev.rt.v, offsetof(rt_ev, corr), corr);
    return i < t->ev.rt.n && t->ev.rt.v[i].corr == corr ? t->ev.rt.v[i].start : INT64_MIN;
}

static int cmp_row(const void *a, const void *b) {
    return strcmp(((const opscope_trace_op *)a)->name, ((const opscope_trace_op *)b)->name);
}

/* The per-name sums SUM (count, ns per name id) as rows by name. */
static int rows_of(opscope_trace_ops_t *t, int side, const uint64_t *sum, uint32_t nn) {
    size_t n = 0;
    for (uint32_t i = 0; i < nn; i++) n += sum[2 * i] > 0;
    opscope_trace_op *r = malloc((n ? n : 1) * sizeof *r);
    if (!r) return -1;
    n = 0;
    for (uint32_t i = 0; i < nn; i++)
        if (sum[2 * i]) r[n++] = (opscope_trace_op){opscope_strtab_get(t->coll.names, i), sum[2 * i], sum[2 * i + 1]};
    opscope_sort(r, n, sizeof *r, cmp_row);
    t->rows[side] = r;
    t->n_rows[side] = n;
    return 0;
}

/* Marks the steps STEPS chooses; 0, or 1 when none is (with the trace's first and last). */
static int choose(opscope_trace_ops_t *t, const opscope_trace_steps *steps, uint8_t *chosen, int64_t *first,
                  int64_t *last) {
    *first = *last = -1;
    for (size_t i = 0; i < t->ev.steps.n; i++) {
        int64_t n = t->ev.steps.v[i].number;
        chosen[i] = steps->all || (n >= steps->lo && n <= steps->hi);
        if (chosen[i]) t->kept[t->n_kept++] = n;
        if (*first < 0 || n < *first) *first = n;
        if (n > *last) *last = n;
    }
    return (t->n_kept || (!t->ev.steps.n && steps->all)) ? 0 : 1;
}

int opscope_trace_ops_finish(opscope_trace_ops_t *t, const opscope_trace_steps *steps, int64_t *first,
                             int64_t *last) {
    opscope_sort(t->ev.steps.v, t->ev.steps.n, sizeof *t->ev.steps.v, cmp_step);
    opscope_sort(t->ev.rt.v, t->ev.rt.n, sizeof *t->ev.rt.v, cmp_rt);
    uint32_t nn = t->coll.names ? opscope_strtab_count(t->coll.names) : 0;
    uint8_t *chosen = calloc(t->ev.steps.n + 1, 1);
    uint64_t *sum = calloc(2 * (size_t)nn + 2, sizeof *sum);
    t->kept = malloc((t->ev.steps.n + 1) * sizeof *t->kept);
    int rc = -1;
    if (!chosen || !sum || !t->kept) goto out;
    if ((rc = choose(t, steps, chosen, first, last))) goto out;
    rc = -1;
    for (size_t i = 0; i < t->ev.cpu.n; i++) {
        const cpu_ev *c = &t->ev.cpu.v[i];
        if (c->name < nn && in_chosen(t, chosen, c->start)) sum[2 * c->name]++, sum[2 * c->name + 1] += (uint64_t)c->dur;
    }
    if (rows_of(t, 0, sum, nn)) goto out;
    memset(sum, 0, (2 * (size_t)nn + 2) * sizeof *sum);
    for (size_t i = 0; i < t->ev.gpu.n; i++) {
        const gpu_ev *g = &t->ev.gpu.v[i];
        int64_t at = t->ev.steps.n ? launch_of(t, g->corr) : 0; /* without steps: every activity */
        if (g->name < nn && at != INT64_MIN && in_chosen(t, chosen, at))
            sum[2 * g->name]++, sum[2 * g->name + 1] += (uint64_t)g->dur;
    }
    if (rows_of(t, 1, sum, nn)) goto out;
    rc = 0;
out:
    events_free(t);
    void *scratch[] = {chosen, sum};
    for (size_t i = 0; i < 2; i++) free(scratch[i]);
    return rc;
}

const int64_t *opscope_trace_ops_steps(const opscope_trace_ops_t *t, size_t *n) {
    *n = t->n_kept;
    return t->kept;
}

const opscope_trace_op *opscope_trace_ops_rows(const opscope_trace_ops_t *t, bool gpu, size_t *n) {
    *n = t->n_rows[gpu];
    return t->rows[gpu];
}

/* ---- two sides ---------------------------------------------------------------------------- */

static uint64_t absdiff(const opscope_trace_op_pair *p) {
    return p->ns[1] > p->ns[0] ? p->ns[1] - p->ns[0] : p->ns[0] - p->ns[1];
}

static int cmp_pair(const void *a, const void *b) {
    const opscope_trace_op_pair *x = a, *y = b;
    uint64_t dx = absdiff(x), dy = absdiff(y);
    if (dx != dy) return dx > dy ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* Rows A (NA) and B (NB), both by name, merged into *OUT. 0, or -1. */
static int merge(const opscope_trace_op *a, size_t na, const opscope_trace_op *b, size_t nb,
                 opscope_trace_op_pair **out, size_t *n_out) {
    opscope_trace_op_pair *p = malloc((na + nb + 1) * sizeof *p);
    if (!p) return -1;
    size_t i = 0, j = 0, n = 0;
    while (i < na || j < nb) {
        int c = i >= na ? 1 : j >= nb ? -1 : strcmp(a[i].name, b[j].name);
        opscope_trace_op_pair q = {c <= 0 ? a[i].name : b[j].name, {0, 0}, {0, 0}};
        if (c <= 0) q.count[0] = a[i].count, q.ns[0] = a[i++].ns;
        if (c >= 0) q.count[1] = b[j].count, q.ns[1] = b[j++].ns;
        p[n++] = q;
    }
    opscope_sort(p, n, sizeof *p, cmp_pair);
    *out = p;
    *n_out = n;
    return 0;
}

int opscope_trace_ops_compare(const opscope_trace_ops_t *base, const opscope_trace_ops_t *newer,
                              opscope_trace_ops_cmp *out) {
    memset(out, 0, sizeof *out);
    const opscope_trace_ops_t *s[2] = {base, newer};
    for (int k = 0; k < 2; k++) out->steps[k] = opscope_trace_ops_steps(s[k], &out->n_steps[k]);
    if (merge(base->rows[0], base->n_rows[0], newer->rows[0], newer->n_rows[0], &out->cpu, &out->n_cpu) ||
        merge(base->rows[1], base->n_rows[1], newer->rows[1], newer->n_rows[1], &out->gpu, &out->n_gpu)) {
        opscope_trace_ops_cmp_free(out);
        return -1;
    }
    return 0;
}

void opscope_trace_ops_cmp_free(opscope_trace_ops_cmp *c) {
    if (!c) return;
    free(c->cpu);
    free(c->gpu);
    memset(c, 0, sizeof *c);
}
