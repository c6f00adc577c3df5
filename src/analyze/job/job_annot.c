/*
 * job_annot.c - time per user annotation (job_annot.h): each GPU activity is credited to every
 * range open on its launching thread at its launch call's start (inclusive), and to the
 * innermost one (self).
 */
#include "analyze/job/job_annot.h"

#include "util/sort.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct point {
    uint64_t thread;
    int64_t t, dur;
} point;

typedef struct agg {
    uint64_t count, kernels;
    int64_t cpu_ns, gpu_ns, self_ns;
} agg;

static int by_thread_time(const void *a, const void *b) {
    const point *x = a, *y = b;
    if (x->thread != y->thread) return x->thread < y->thread ? -1 : 1;
    return (x->t > y->t) - (x->t < y->t);
}

/* By thread, then start, the enclosing range (longer) first. */
static int by_thread_start(const void *a, const void *b) {
    const opscope_job_range *x = a, *y = b;
    if (x->thread != y->thread) return x->thread < y->thread ? -1 : 1;
    if (x->s != y->s) return x->s < y->s ? -1 : 1;
    return (x->e < y->e) - (x->e > y->e);
}

/* Credits the points of one thread P[0..NP) to the ranges R[0..NR) of that thread. STACK: room
 * for NR indices. */
static void credit_thread(const opscope_job_range *r, size_t nr, const point *p, size_t np, size_t *stack,
                          agg *a) {
    size_t top = 0, ri = 0;
    for (size_t k = 0; k < np; k++) {
        int64_t t = p[k].t;
        while (ri < nr && r[ri].s <= t) {
            while (top && r[stack[top - 1]].e <= r[ri].s) top--;
            stack[top++] = ri++;
        }
        while (top && r[stack[top - 1]].e <= t) top--;
        /* ranges on one thread nest: every open one holds T (an outer one ended early is
         * skipped by the test below) */
        for (size_t i = 0; i < top; i++) {
            const opscope_job_range *x = &r[stack[i]];
            if (x->e <= t) continue;
            a[x->name].gpu_ns += p[k].dur;
            a[x->name].kernels++;
        }
        if (top) a[r[stack[top - 1]].name].self_ns += p[k].dur;
    }
}

/* Launch points of the activities with a known call, sorted by thread and time. */
static point *launch_points(const opscope_job_annot_in *in, size_t *np) {
    point *p = malloc((in->n_acts ? in->n_acts : 1) * sizeof *p);
    if (!p) return NULL;
    size_t m = 0;
    for (size_t i = 0; i < in->n_acts; i++) {
        const opscope_job_act *a = &in->acts[i];
        const opscope_job_call *c = a->corr >= 0 ? opscope_job_call_find(in->calls, in->n_calls, a->corr) : NULL;
        if (c) p[m++] = (point){c->thread, c->s, a->e - a->s};
    }
    opscope_sort(p, m, sizeof *p, by_thread_time);
    *np = m;
    return p;
}

static bool ahead(const opscope_job_annot *x, const opscope_job_annot *y, bool gpu) {
    int64_t a = gpu ? x->gpu_ns : x->cpu_ns, b = gpu ? y->gpu_ns : y->cpu_ns;
    return a != b ? a > b : strcmp(x->name, y->name) < 0;
}

/* Keeps the OPSCOPE_JOB_ANNOTS largest names of A (N names) in OUT[0..*NO). */
static void keep_top(const agg *a, size_t n, const opscope_strtab_t *names, bool gpu, opscope_job_annot *out,
                     int *no) {
    for (uint32_t id = 0; id < n; id++) {
        if (!a[id].count) continue;
        opscope_job_annot x = {.count = a[id].count, .kernels = a[id].kernels, .cpu_ns = a[id].cpu_ns,
                               .gpu_ns = a[id].gpu_ns, .self_gpu_ns = a[id].self_ns};
        const char *s = opscope_strtab_get(names, id);
        snprintf(x.name, sizeof x.name, "%s", s ? s : "?");
        int i;
        if (*no < OPSCOPE_JOB_ANNOTS) i = (*no)++;
        else if (ahead(&x, &out[OPSCOPE_JOB_ANNOTS - 1], gpu)) i = OPSCOPE_JOB_ANNOTS - 1;
        else continue;
        out[i] = x;
        for (; i > 0 && ahead(&out[i], &out[i - 1], gpu); i--) {
            opscope_job_annot t = out[i - 1];
            out[i - 1] = out[i];
            out[i] = t;
        }
    }
}

int opscope_job_annot_measure(const opscope_job_annot_in *in, opscope_job_annot *out, int *n_out) {
    *n_out = 0;
    size_t nn = 0, np = 0;
    for (size_t i = 0; i < in->n_ranges; i++)
        if (in->ranges[i].name + (size_t)1 > nn) nn = in->ranges[i].name + (size_t)1;
    agg *a = calloc(nn ? nn : 1, sizeof *a);
    size_t *stack = malloc((in->n_ranges ? in->n_ranges : 1) * sizeof *stack);
    point *p = launch_points(in, &np);
    if (!a || !stack || !p) {
        free(a);
        free(stack);
        free(p);
        return -1;
    }
    opscope_job_range *r = in->ranges;
    size_t nr = in->n_ranges;
    opscope_sort(r, nr, sizeof *r, by_thread_start);
    for (size_t i = 0; i < nr; i++) {
        a[r[i].name].count++;
        a[r[i].name].cpu_ns += r[i].e - r[i].s;
    }
    for (size_t i = 0, k = 0; i < nr;) {
        size_t j = i;
        while (j < nr && r[j].thread == r[i].thread) j++;
        while (k < np && p[k].thread < r[i].thread) k++;
        size_t k2 = k;
        while (k2 < np && p[k2].thread == r[i].thread) k2++;
        credit_thread(r + i, j - i, p + k, k2 - k, stack, a);
        i = j;
        k = k2;
    }
    keep_top(a, nn, in->names, in->n_acts > 0, out, n_out);
    free(a);
    free(stack);
    free(p);
    return 0;
}
