/*
 * kineto_filter.c - HTA's profiler-step filter (kineto_filter.h): the scan keeps each CPU-side
 * slice's correlation with its start, the steps' bounds and whether two step names were seen;
 * ready turns them into a sorted array of the kept correlations, searched per GPU-side slice.
 */
#include "read/kineto_filter.h"

#include "util/vec.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef struct corr_at { int64_t corr, start; } corr_at;

struct opscope_kineto_filter {
    opscope_kineto_steps mode;
    OPSCOPE_VEC(corr_at) cpu;   /* scan: CPU-side slices with a correlation */
    int64_t *kept; size_t n_kept; /* ready: the kept correlations, sorted, distinct */
    int64_t none_start;         /* the first start of a CPU-side slice without correlation */
    bool any_cpu, any_step, two_names, active;
    int64_t cpu_first, cpu_last_end;  /* the CPU-side slices' first start, last end */
    int64_t step_start, step_end;     /* the CPU-side steps' greatest start, greatest end */
    char name0[64]; size_t name0_len; /* the first step name (a prefix when longer) */
    int64_t bound;
    int64_t origin;              /* the first start of any slice: HTA's origin of its starts */
    int64_t cpu_last_start;      /* the CPU-side slices' last start */
    bool any, check, drop_always; /* a slice seen; a checked read; it saw a slice dropped anyway */
    bool gpu_none;               /* check: a GPU-side slice without a correlation was seen */
    OPSCOPE_VEC(int64_t) gpu;    /* check: the GPU-side correlations asked about */
};

opscope_kineto_filter_t *opscope_kineto_filter_new(opscope_kineto_steps mode) {
    opscope_kineto_filter_t *f = calloc(1, sizeof *f);
    if (f) {
        f->mode = mode;
        f->none_start = INT64_MAX;
    }
    return f;
}

void opscope_kineto_filter_free(opscope_kineto_filter_t *f) {
    if (!f) return;
    free(f->cpu.v);
    free(f->gpu.v);
    free(f->kept);
    free(f);
}

int opscope_kineto_filter_gpu_side(int64_t stream, int64_t corr, const char *name, size_t name_len) {
    if (stream >= 0 && corr >= 0) return 1;
    return (name_len == 10 && !memcmp(name, "Event Sync", 10)) ||
           (name_len == 12 && !memcmp(name, "Context Sync", 12));
}

/* HTA's step pattern: "ProfilerStep#" then a digit (whatever follows). */
static bool is_step(const char *name, size_t n) {
    return n > 13 && !memcmp(name, "ProfilerStep#", 13) && name[13] >= '0' && name[13] <= '9';
}

/* A second distinct step name seen? Names longer than the kept prefix compare by their prefix
 * and length: step names differ in their number, within the prefix. */
static void step_name(opscope_kineto_filter_t *f, const char *name, size_t n) {
    size_t k = n < sizeof f->name0 ? n : sizeof f->name0;
    if (!f->name0_len) {
        memcpy(f->name0, name, k);
        f->name0_len = n;
        return;
    }
    if (n != f->name0_len || memcmp(f->name0, name, k)) f->two_names = true;
}

int opscope_kineto_filter_see(opscope_kineto_filter_t *f, int gpu_side, int64_t corr, int64_t start_ns,
                              int64_t end_ns, const char *name, size_t name_len) {
    bool step = is_step(name, name_len);
    if (step) step_name(f, name, name_len); /* HTA's step names are every slice's */
    if (!f->any || start_ns < f->origin) f->origin = start_ns;
    f->any = true;
    if (gpu_side) return f->check ? opscope_kineto_filter_note(f, corr) : 0;
    if (!f->any_cpu || start_ns < f->cpu_first) f->cpu_first = start_ns;
    if (!f->any_cpu || end_ns > f->cpu_last_end) f->cpu_last_end = end_ns;
    if (!f->any_cpu || start_ns > f->cpu_last_start) f->cpu_last_start = start_ns;
    f->any_cpu = true;
    if (step) {
        if (!f->any_step || start_ns > f->step_start) f->step_start = start_ns;
        if (!f->any_step || end_ns > f->step_end) f->step_end = end_ns;
        f->any_step = true;
    }
    if (corr == -1) {
        if (start_ns < f->none_start) f->none_start = start_ns;
        return 0;
    }
    return OPSCOPE_VEC_PUSH(f->cpu, ((corr_at){corr, start_ns}));
}

/* HTA compares the step's end in the trace's clock with starts it moved to its origin. */
static bool within(const opscope_kineto_filter_t *f, int64_t start) {
    return f->mode == OPSCOPE_KINETO_STEPS_KEEP_LAST ? start - f->origin <= f->bound : start < f->bound;
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

void opscope_kineto_filter_ready(opscope_kineto_filter_t *f) {
    f->active = f->two_names && f->any_cpu && f->mode != OPSCOPE_KINETO_STEPS_ALL;
    if (f->mode == OPSCOPE_KINETO_STEPS_KEEP_LAST) f->bound = f->any_step ? f->step_end : f->cpu_last_end;
    else f->bound = f->any_step ? f->step_start : f->cpu_first;
    /* the kept correlations, in place of the scan's pairs (8 <= 16 bytes each) */
    int64_t *k = (int64_t *)f->cpu.v;
    size_t n = 0;
    for (size_t i = 0; f->active && i < f->cpu.n; i++)
        if (within(f, f->cpu.v[i].start)) k[n++] = f->cpu.v[i].corr;
    if (n) qsort(k, n, sizeof *k, cmp_i64);
    size_t u = 0;
    for (size_t i = 0; i < n; i++)
        if (!u || k[u - 1] != k[i]) k[u++] = k[i];
    f->kept = k;
    f->n_kept = u;
    f->cpu.v = NULL;
    f->cpu.n = f->cpu.cap = 0;
}

int opscope_kineto_filter_keeps(const opscope_kineto_filter_t *f, int gpu_side, int64_t corr, int64_t start_ns) {
    if (!f || !f->active) return 1;
    if (!gpu_side) return within(f, start_ns);
    if (corr == -1) return f->none_start != INT64_MAX && within(f, f->none_start);
    return bsearch(&corr, f->kept, f->n_kept, sizeof corr, cmp_i64) != NULL;
}

void opscope_kineto_filter_check(opscope_kineto_filter_t *f) { f->check = true; }

int opscope_kineto_filter_note(opscope_kineto_filter_t *f, int64_t corr) {
    if (corr < 0) {
        f->gpu_none = true;
        return 0;
    }
    return OPSCOPE_VEC_PUSH(f->gpu, corr);
}

void opscope_kineto_filter_note_dropped(opscope_kineto_filter_t *f) { f->drop_always = true; }

int opscope_kineto_filter_drops(const opscope_kineto_filter_t *f) {
    if (!f->active) return 0;
    if (f->drop_always || !within(f, f->cpu_last_start)) return 1;
    /* GPU-side slices without a correlation (the syncs) follow the first such CPU-side slice */
    if (f->gpu_none && !(f->none_start != INT64_MAX && within(f, f->none_start))) return 1;
    for (size_t i = 0; i < f->gpu.n; i++)
        if (!bsearch(&f->gpu.v[i], f->kept, f->n_kept, sizeof *f->kept, cmp_i64)) return 1;
    return 0;
}

int opscope_kineto_filter_active(const opscope_kineto_filter_t *f, int64_t *bound_ns) {
    if (bound_ns) *bound_ns = f && f->active ? f->bound : 0;
    return f && f->active;
}
