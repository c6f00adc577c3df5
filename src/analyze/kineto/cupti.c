/* cupti.c - CUPTI profiler ranges attributed to their operators (see cupti.h). */
#include "analyze/kineto/cupti.h"
#include "util/sort.h"
#include "util/vec.h"

#include <stdlib.h>
#include <string.h>

#define NONE32 UINT32_MAX

typedef struct raw_row { /* a range as read: its counters are pairs[first..first+n] */
    uint32_t kernel;
    int64_t start_ns, dur_ns;
    size_t first, n;
} raw_row;

struct opscope_cupti {
    OPSCOPE_VEC(raw_row) raw;
    OPSCOPE_VEC(opscope_kineto_counter) pairs;
    opscope_cupti_results res;
};

opscope_cupti_t *opscope_cupti_new(void) { return calloc(1, sizeof(opscope_cupti_t)); }

void opscope_cupti_free(opscope_cupti_t *c) {
    if (!c) return;
    opscope_cupti_results *r = &c->res;
    void *own[] = {c->raw.v, c->pairs.v, r->rows, r->counters, r->values, r->totals, r->stack, r->groups, r->sums};
    for (size_t i = 0; i < sizeof own / sizeof *own; i++) free(own[i]);
    free(c);
}

int opscope_cupti_add(opscope_cupti_t *c, const opscope_kineto_event *ev) {
    if (ev->kind != OPSCOPE_KINETO_COUNTERS) return 0;
    raw_row r = {ev->name_id, ev->start_ns, ev->dur_ns, c->pairs.n, ev->n_counters};
    for (uint32_t i = 0; i < ev->n_counters; i++)
        if (OPSCOPE_VEC_PUSH(c->pairs, ev->counters[i])) return -1;
    return OPSCOPE_VEC_PUSH(c->raw, r);
}

double opscope_cupti_flop_weight(const char *name) {
    static const char pre[] = "smsp__sass_thread_inst_executed_op_", post[] = "_pred_on.sum";
    static const char *const ops[] = {"ffma", "fmul", "fadd", "hfma", "hmul", "hadd", "dfma", "dmul", "dadd"};
    size_t np = sizeof pre - 1, nq = sizeof post - 1, n = strlen(name);
    if (n != np + 4 + nq || memcmp(name, pre, np) || memcmp(name + np + 4, post, nq)) return 0;
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        if (!memcmp(name + np, ops[i], 4)) return ops[i][1] == 'f' && ops[i][2] == 'm' ? 2 : 1;
    return 0;
}

/* ---- sorting ---------------------------------------------------------------------------- */

static int cmp_raw(const void *a, const void *b) {
    const raw_row *x = a, *y = b;
    if (x->start_ns != y->start_ns) return x->start_ns < y->start_ns ? -1 : 1;
    return x->first < y->first ? -1 : x->first > y->first;
}

static int cmp_name(const void *a, const void *b, void *ctx) {
    const opscope_strtab_t *names = ctx;
    return strcmp(opscope_strtab_get(names, *(const uint32_t *)a), opscope_strtab_get(names, *(const uint32_t *)b));
}

typedef struct launch { int64_t start_ns; uint32_t rec; } launch;

static int cmp_launch(const void *a, const void *b) {
    const launch *x = a, *y = b;
    if (x->start_ns != y->start_ns) return x->start_ns < y->start_ns ? -1 : 1;
    return x->rec < y->rec ? -1 : x->rec > y->rec;
}

/* ---- finish ----------------------------------------------------------------------------- */

/* The counter columns: every distinct name id of the pairs, by name. */
static int columns(opscope_cupti_t *c, const opscope_strtab_t *names) {
    opscope_cupti_results *r = &c->res;
    uint32_t nn = opscope_strtab_count(names);
    uint8_t *seen = calloc(nn ? nn : 1, 1);
    r->counters = malloc((c->pairs.n ? c->pairs.n : 1) * sizeof *r->counters);
    if (!seen || !r->counters) return free(seen), -1;
    for (size_t i = 0; i < c->pairs.n; i++) {
        uint32_t id = c->pairs.v[i].name_id;
        if (id < nn && !seen[id]) seen[id] = 1, r->counters[r->n_counters++] = id;
    }
    free(seen);
    opscope_sort_r(r->counters, r->n_counters, sizeof *r->counters, cmp_name, (void *)names);
    return 0;
}

/* Each row's counter values into the dense matrix, and the totals. */
static int values(opscope_cupti_t *c, const opscope_strtab_t *names) {
    opscope_cupti_results *r = &c->res;
    uint32_t nn = opscope_strtab_count(names);
    uint32_t *col_of = malloc((nn ? nn : 1) * sizeof *col_of);
    size_t nc = r->n_counters ? r->n_counters : 1;
    r->values = calloc(c->raw.n * nc + 1, sizeof *r->values);
    r->totals = calloc(nc, sizeof *r->totals);
    if (!col_of || !r->values || !r->totals) return free(col_of), -1;
    for (size_t j = 0; j < r->n_counters; j++) {
        col_of[r->counters[j]] = (uint32_t)j;
        double w = opscope_cupti_flop_weight(opscope_strtab_get(names, r->counters[j]));
        r->has_flops |= w > 0;
    }
    for (size_t i = 0; i < c->raw.n; i++) {
        const raw_row *w = &c->raw.v[i];
        for (size_t p = w->first; p < w->first + w->n; p++) {
            size_t j = col_of[c->pairs.v[p].name_id];
            r->values[i * r->n_counters + j] = c->pairs.v[p].value;
            r->totals[j] += c->pairs.v[p].value;
        }
    }
    free(col_of);
    return 0;
}

/* Pairs the rows with the cudaLaunchKernel calls of CPU and gives each its operator stack. */
static int attribute(opscope_cupti_t *c, const opscope_cpu_ops_results *cpu, const opscope_strtab_t *names) {
    opscope_cupti_results *r = &c->res;
    OPSCOPE_VEC(launch) ls = {0};
    OPSCOPE_VEC(uint32_t) st = {0};
    int rc = -1;
    for (size_t i = 0; cpu && i < cpu->n_recs; i++) {
        const opscope_cpu_op_rec *x = &cpu->recs[i];
        if (x->kind != OPSCOPE_CPU_KIND_RUNTIME) continue;
        /* HTA matches the name "cudaLaunchKernel" at its start (so cudaLaunchKernelExC too) */
        if (strncmp(opscope_strtab_get(names, x->name), "cudaLaunchKernel", 16)) continue;
        launch l = {x->start_ns, (uint32_t)i};
        if (OPSCOPE_VEC_PUSH(ls, l)) goto out;
    }
    r->n_launches = ls.n;
    r->attributed = ls.n == r->n_rows && ls.n > 0;
    if (!r->attributed) { rc = 0; goto out; }
    opscope_sort(ls.v, ls.n, sizeof *ls.v, cmp_launch);
    for (size_t i = 0; i < r->n_rows; i++) {
        opscope_cupti_row *w = &r->rows[i];
        size_t at = st.n;
        /* the ancestors innermost first, then turned outer first in place */
        for (uint32_t p = cpu->recs[ls.v[i].rec].parent; p != NONE32; p = cpu->recs[p].parent)
            if (cpu->recs[p].kind == OPSCOPE_CPU_KIND_OP && OPSCOPE_VEC_PUSH(st, cpu->recs[p].name)) goto out;
        size_t n = st.n - at;
        for (size_t a = at, b = st.n; a + 1 < b; a++, b--) {
            uint32_t x = st.v[a];
            st.v[a] = st.v[b - 1];
            st.v[b - 1] = x;
        }
        w->stack = (uint32_t)at;
        w->n_stack = (uint32_t)n;
        w->top_op = n ? st.v[at] : NONE32;
        w->bottom_op = n ? st.v[st.n - 1] : NONE32;
    }
    r->stack = st.v;
    r->n_stack = st.n;
    st.v = NULL;
    rc = 0;
out:
    free(ls.v);
    free(st.v);
    return rc;
}

/* The rows' groups by (top, bottom) op, their counters summed, HTA's FLOPs. */
static int groups(opscope_cupti_t *c, const opscope_strtab_t *names) {
    opscope_cupti_results *r = &c->res;
    size_t nc = r->n_counters;
    double *wt = calloc(nc ? nc : 1, sizeof *wt);
    r->groups = malloc((r->n_rows ? r->n_rows : 1) * sizeof *r->groups);
    r->sums = calloc(r->n_rows * nc + 1, sizeof *r->sums);
    if (!wt || !r->groups || !r->sums) return free(wt), -1;
    for (size_t j = 0; j < nc; j++) wt[j] = opscope_cupti_flop_weight(opscope_strtab_get(names, r->counters[j]));
    for (size_t i = 0; i < r->n_rows; i++) {
        opscope_cupti_row *w = &r->rows[i];
        const double *v = &r->values[i * nc];
        double fl = 0;
        for (size_t j = 0; j < nc; j++) fl += wt[j] * v[j];
        r->flops += fl;
        if (!r->attributed) continue;
        size_t g = 0; /* groups are few: a linear look-up */
        while (g < r->n_groups && (r->groups[g].top_op != w->top_op || r->groups[g].bottom_op != w->bottom_op)) g++;
        if (g == r->n_groups)
            r->groups[r->n_groups++] = (opscope_cupti_group){w->top_op, w->bottom_op, 0, (uint32_t)(g * nc), 0, (uint32_t)i};
        opscope_cupti_group *gr = &r->groups[g];
        gr->kernels++;
        gr->flops += fl;
        for (size_t j = 0; j < nc; j++) r->sums[gr->sums + j] += v[j];
        w->group = (uint32_t)g;
    }
    free(wt);
    return 0;
}

static int cmp_group(const void *a, const void *b) {
    const opscope_cupti_group *x = a, *y = b;
    if (x->kernels != y->kernels) return x->kernels > y->kernels ? -1 : 1;
    if (x->flops != y->flops) return x->flops > y->flops ? -1 : 1;
    return x->first_row < y->first_row ? -1 : x->first_row > y->first_row;
}

int opscope_cupti_finish(opscope_cupti_t *c, const opscope_cpu_ops_results *cpu, const opscope_strtab_t *names) {
    opscope_cupti_results *r = &c->res;
    opscope_sort(c->raw.v, c->raw.n, sizeof *c->raw.v, cmp_raw);
    r->rows = malloc((c->raw.n ? c->raw.n : 1) * sizeof *r->rows);
    if (!r->rows) return -1;
    r->n_rows = c->raw.n;
    for (size_t i = 0; i < c->raw.n; i++) {
        const raw_row *w = &c->raw.v[i];
        r->rows[i] = (opscope_cupti_row){w->kernel, w->start_ns, w->dur_ns, NONE32, NONE32, 0, 0, NONE32};
    }
    if (columns(c, names) || values(c, names) || attribute(c, cpu, names) || groups(c, names)) return -1;
    /* groups by kernels: each row's group index follows its group */
    uint32_t *to = malloc((r->n_groups ? r->n_groups : 1) * sizeof *to);
    if (!to) return -1;
    opscope_sort(r->groups, r->n_groups, sizeof *r->groups, cmp_group);
    for (size_t g = 0; g < r->n_groups; g++) to[r->rows[r->groups[g].first_row].group] = (uint32_t)g;
    for (size_t i = 0; i < r->n_rows; i++)
        if (r->rows[i].group != NONE32) r->rows[i].group = to[r->rows[i].group];
    free(to);
    free(c->raw.v);
    free(c->pairs.v);
    memset(&c->raw, 0, sizeof c->raw);
    memset(&c->pairs, 0, sizeof c->pairs);
    return 0;
}

const opscope_cupti_results *opscope_cupti_results_get(const opscope_cupti_t *c) { return c ? &c->res : NULL; }
