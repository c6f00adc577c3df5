/*
 * job_rank.c - one rank of a job: a Kineto collector keeping intervals, then the rank's figures
 * (job_rank.h; definitions in docs/job.md). The GPU side (streams, launches, queues) is in
 * job_gpu.c; this file keeps the events and measures busy, compute, communication and overlap.
 */
#include "analyze/job/job_rank.h"

#include "analyze/kineto/collectives.h"
#include "analyze/job/job_annot.h"
#include "analyze/job/job_gpu.h"
#include "analyze/job/job_iv.h"
#include "model/strtab.h"
#include "util/sort.h"
#include "util/vec.h"

#include <stdlib.h>
#include <string.h>

/* What a CPU-side name is, cached per name id (0: not looked at yet). */
enum { NAME_UNSEEN = 0, NAME_PLAIN, NAME_COMM, NAME_INPUT, NAME_STEP, NAME_MODULE };

typedef struct cpu_iv {
    uint64_t thread;
    int64_t s, e;
    uint8_t cls; /* OPSCOPE_JOB_CLS_* */
} cpu_iv;

typedef struct step_ev {
    int64_t num, s, dur;
} step_ev;

struct opscope_job_rank {
    opscope_job_rank_opts opts;
    opscope_kineto_info info;
    const opscope_kineto_info *infop;  /* &info, or the teed collector's (what the reader fills) */
    opscope_strtab_t *own_names;
    opscope_strtab_t *names;           /* own_names, or the teed collector's */
    opscope_kineto_collector col;
    opscope_kineto_collector tee, *next; /* opscope_job_rank_tee */
    OPSCOPE_VEC(opscope_job_act) acts;
    OPSCOPE_VEC(opscope_job_call) calls;
    OPSCOPE_VEC(cpu_iv) cpu;
    OPSCOPE_VEC(step_ev) steps;
    OPSCOPE_VEC(opscope_job_range) ranges; /* user annotations but the steps */
    OPSCOPE_VEC(opscope_job_range) modules; /* "nn.Module: X" python frames (with_stack) */
    OPSCOPE_VEC(uint8_t) name_kind;
    OPSCOPE_VEC(uint8_t) gpu_cls;   /* per name id: 1 + OPSCOPE_JOB_CLS_*, 0 not looked at */
    uint64_t cpu_ops;
    bool gpu_seen;
    opscope_colls_t *colls;         /* collectives with their args, or NULL */
};

static bool has_prefix(const char *s, const char *p) {
    return !strncmp(s, p, strlen(p));
}

/* The kind of CPU-side name ID (cached). Collectives: gloo's and NCCL's own annotations, c10d's
 * ops and record_param_comms; input: the DataLoader's iteration (torch's record_function). */
static int name_kind(opscope_job_rank_t *r, uint32_t id) {
    if (id == UINT32_MAX) return NAME_PLAIN;
    if (id >= r->name_kind.n) {
        size_t n = r->name_kind.n;
        if (opscope_vec_reserve((void **)&r->name_kind.v, &r->name_kind.cap, (size_t)id + 1, 1, 256))
            return -1;
        memset(r->name_kind.v + n, 0, (size_t)id + 1 - n);
        r->name_kind.n = (size_t)id + 1;
    }
    if (r->name_kind.v[id] != NAME_UNSEEN) return r->name_kind.v[id];
    const char *s = opscope_strtab_get(r->names, id);
    int k = NAME_PLAIN;
    if (!s) k = NAME_PLAIN;
    else if (has_prefix(s, "ProfilerStep#")) k = NAME_STEP;
    else if (has_prefix(s, "gloo:") || has_prefix(s, "nccl:") || has_prefix(s, "c10d::") ||
             has_prefix(s, "record_param_comms"))
        k = NAME_COMM;
    else if (has_prefix(s, "enumerate(DataLoader)")) k = NAME_INPUT;
    else if (has_prefix(s, "nn.Module: ")) k = NAME_MODULE;
    r->name_kind.v[id] = (uint8_t)k;
    return k;
}

/* The first GPU activity: a GPU rank is measured on its GPU, so the CPU ops kept for a CPU
 * rank's compute go (Kineto writes the CPU side first: this bounds what a GPU rank keeps). */
static void drop_cpu_compute(opscope_job_rank_t *r) {
    size_t m = 0;
    for (size_t i = 0; i < r->cpu.n; i++)
        if (r->cpu.v[i].cls != OPSCOPE_JOB_CLS_COMPUTE) r->cpu.v[m++] = r->cpu.v[i];
    r->cpu.n = m;
}

/* A kernel's class (cached per name): communication by kernel_rules.def; memory when named as
 * a copy or fill (HTA's Memcpy, Memset, dma prefixes: MTIA's dma_request); else compute. */
static int kernel_cls(opscope_job_rank_t *r, const opscope_kineto_event *ev) {
    uint32_t id = ev->name_id;
    if (id == UINT32_MAX) return ev->kcat == OPSCOPE_KCAT_COMM ? OPSCOPE_JOB_CLS_COMM : OPSCOPE_JOB_CLS_COMPUTE;
    if (id >= r->gpu_cls.n) {
        size_t n = r->gpu_cls.n;
        if (opscope_vec_reserve((void **)&r->gpu_cls.v, &r->gpu_cls.cap, (size_t)id + 1, 1, 256)) return -1;
        memset(r->gpu_cls.v + n, 0, (size_t)id + 1 - n);
        r->gpu_cls.n = (size_t)id + 1;
    }
    if (r->gpu_cls.v[id]) return r->gpu_cls.v[id] - 1;
    const char *s = opscope_strtab_get(r->names, id);
    int c = OPSCOPE_JOB_CLS_COMPUTE;
    if (ev->kcat == OPSCOPE_KCAT_COMM) c = OPSCOPE_JOB_CLS_COMM;
    else if (s && (has_prefix(s, "Memcpy") || has_prefix(s, "Memset") || has_prefix(s, "hipMemcpy") ||
                   has_prefix(s, "hipMemset") || has_prefix(s, "dma")))
        c = OPSCOPE_JOB_CLS_MEMORY;
    r->gpu_cls.v[id] = (uint8_t)(c + 1);
    return c;
}

static int add_gpu(opscope_job_rank_t *r, const opscope_kineto_event *ev) {
    if (!r->gpu_seen) {
        r->gpu_seen = true;
        drop_cpu_compute(r);
    }
    opscope_job_act a = {.s = ev->start_ns, .e = ev->start_ns + ev->dur_ns, .corr = ev->corr,
                         .device = ev->device, .stream = ev->stream, .name = ev->name_id};
    int c = ev->kind != OPSCOPE_KINETO_KERNEL ? OPSCOPE_JOB_CLS_MEMORY : kernel_cls(r, ev);
    if (c < 0) return -1;
    a.cls = (uint8_t)c;
    return OPSCOPE_VEC_PUSH(r->acts, a);
}

static int add_cpu(opscope_job_rank_t *r, const opscope_kineto_event *ev) {
    int k = name_kind(r, ev->name_id);
    if (k < 0) return -1;
    if (k == NAME_STEP) {
        if (ev->kind != OPSCOPE_KINETO_ANNOTATION) return 0;
        const char *s = opscope_strtab_get(r->names, ev->name_id);
        step_ev st = {.num = strtoll(s + strlen("ProfilerStep#"), NULL, 10), .s = ev->start_ns,
                      .dur = ev->dur_ns};
        return OPSCOPE_VEC_PUSH(r->steps, st);
    }
    if (k == NAME_COMM && ev->kind == OPSCOPE_KINETO_ANNOTATION) {
        /* gloo's own annotation of a collective runs on its thread from the call to the
         * peers' answer: its time is what this rank waits (torch writes no sizes for gloo) */
        const char *s = opscope_strtab_get(r->names, ev->name_id);
        if (s && has_prefix(s, "gloo:") &&
            ((!r->colls && !(r->colls = opscope_colls_new())) || opscope_colls_add_span(r->colls, s, ev->dur_ns)))
            return -1;
    }
    if (ev->kind == OPSCOPE_KINETO_ANNOTATION) {
        opscope_job_range g = {.thread = ev->thread, .s = ev->start_ns, .e = ev->start_ns + ev->dur_ns,
                               .name = ev->name_id};
        if (ev->name_id != UINT32_MAX && OPSCOPE_VEC_PUSH(r->ranges, g)) return -1;
    }
    uint8_t cls;
    if (k == NAME_COMM) cls = OPSCOPE_JOB_CLS_COMM;
    else if (k == NAME_INPUT) cls = OPSCOPE_JOB_CLS_INPUT;
    else if (ev->kind == OPSCOPE_KINETO_CPU_OP && !r->gpu_seen) cls = OPSCOPE_JOB_CLS_COMPUTE;
    else return 0;
    cpu_iv c = {.thread = ev->thread, .s = ev->start_ns, .e = ev->start_ns + ev->dur_ns, .cls = cls};
    return OPSCOPE_VEC_PUSH(r->cpu, c);
}

static int collect(void *ud, const opscope_kineto_event *ev) {
    opscope_job_rank_t *r = ud;
    if (ev->comm && ((!r->colls && !(r->colls = opscope_colls_new())) || opscope_colls_add(r->colls, ev))) return -1;
    switch (ev->kind) {
    case OPSCOPE_KINETO_KERNEL:
    case OPSCOPE_KINETO_MEMCPY:
    case OPSCOPE_KINETO_MEMSET: return add_gpu(r, ev);
    case OPSCOPE_KINETO_RUNTIME: {
        if (ev->corr < 0) return 0;
        opscope_job_call c = {.corr = ev->corr, .s = ev->start_ns, .dur = ev->dur_ns, .thread = ev->thread};
        return OPSCOPE_VEC_PUSH(r->calls, c);
    }
    case OPSCOPE_KINETO_CPU_OP: r->cpu_ops++; return add_cpu(r, ev);
    case OPSCOPE_KINETO_ANNOTATION: return add_cpu(r, ev);
    case OPSCOPE_KINETO_PYTHON: {
        int k = name_kind(r, ev->name_id);
        if (k != NAME_MODULE) return k < 0 ? -1 : 0;
        opscope_job_range g = {.thread = ev->thread, .s = ev->start_ns, .e = ev->start_ns + ev->dur_ns,
                               .name = ev->name_id};
        return OPSCOPE_VEC_PUSH(r->modules, g);
    }
    default: return 0;
    }
}

opscope_job_rank_t *opscope_job_rank_new(const opscope_job_rank_opts *opts) {
    opscope_job_rank_t *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->names = r->own_names = opscope_strtab_new();
    if (!r->names) {
        free(r);
        return NULL;
    }
    if (opts) r->opts = *opts;
    if (r->opts.delay_cutoff_ns <= 0) r->opts.delay_cutoff_ns = 100000;
    if (r->opts.cpu_cutoff_ns <= 0) r->opts.cpu_cutoff_ns = 50000;
    r->info.rank = r->info.world_size = -1;
    r->infop = &r->info;
    r->col = (opscope_kineto_collector){.ud = r, .add = collect, .info = &r->info, .names = r->names};
    return r;
}

uint64_t opscope_job_rank_events(const opscope_job_rank_t *r) {
    return r->infop->n_events;
}

opscope_kineto_collector *opscope_job_rank_collector(opscope_job_rank_t *r) {
    return &r->col;
}

static int tee_add(void *ud, const opscope_kineto_event *ev) {
    opscope_job_rank_t *r = ud;
    if (r->next->add(r->next->ud, ev)) return -1;
    return collect(r, ev);
}

opscope_kineto_collector *opscope_job_rank_tee(opscope_job_rank_t *r, opscope_kineto_collector *next) {
    if (!next || !next->names || !next->info) return NULL;
    r->next = next;
    r->names = next->names;
    r->infop = next->info;
    r->tee = *next;
    r->tee.ud = r;
    r->tee.add = tee_add;
    return &r->tee;
}

static void free_events(opscope_job_rank_t *r) {
    free(r->acts.v);
    free(r->calls.v);
    free(r->cpu.v);
    free(r->steps.v);
    free(r->ranges.v);
    memset(&r->ranges, 0, sizeof r->ranges);
    free(r->modules.v);
    memset(&r->modules, 0, sizeof r->modules);
    free(r->name_kind.v);
    free(r->gpu_cls.v);
    memset(&r->gpu_cls, 0, sizeof r->gpu_cls);
    memset(&r->acts, 0, sizeof r->acts);
    memset(&r->calls, 0, sizeof r->calls);
    memset(&r->cpu, 0, sizeof r->cpu);
    memset(&r->steps, 0, sizeof r->steps);
    memset(&r->name_kind, 0, sizeof r->name_kind);
}

void opscope_job_rank_free(opscope_job_rank_t *r) {
    if (!r) return;
    free_events(r);
    opscope_colls_free(r->colls);
    opscope_strtab_free(r->own_names);
    free(r);
}

/* ------------------------------------------------------------------------------------------ */
/* The rank's figures.                                                                        */

/* The merged sets a rank is measured on: everything busy, compute, communication, memory,
 * input (each opscope_job_iv_merge'd). */
typedef struct sets {
    opscope_job_iv *all, *compute, *comm, *memory, *input;
    size_t n_all, n_compute, n_comm, n_memory, n_input;
} sets;

static void sets_free(sets *z) {
    free(z->all);
    free(z->compute);
    free(z->comm);
    free(z->memory);
    free(z->input);
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int by_step_start(const void *a, const void *b) {
    const step_ev *x = a, *y = b;
    return (x->s > y->s) - (x->s < y->s);
}

/* Input intervals (DataLoader iterations) of R, merged, into Z; clipped to [LO, HI). */
static int input_set(opscope_job_rank_t *r, sets *z, int64_t lo, int64_t hi) {
    z->input = malloc((r->cpu.n ? r->cpu.n : 1) * sizeof *z->input);
    if (!z->input) return -1;
    for (size_t i = 0; i < r->cpu.n; i++) {
        const cpu_iv *c = &r->cpu.v[i];
        if (c->cls != OPSCOPE_JOB_CLS_INPUT) continue;
        z->input[z->n_input++] = (opscope_job_iv){c->s > lo ? c->s : lo, c->e < hi ? c->e : hi};
    }
    z->n_input = opscope_job_iv_merge(z->input, z->n_input);
    return 0;
}

/* A GPU rank: its activities' sets, HTA's classes. */
static int gpu_sets(opscope_job_rank_t *r, sets *z, int64_t *lo, int64_t *hi) {
    size_t n = r->acts.n;
    z->all = malloc(n * sizeof *z->all);
    z->compute = malloc(n * sizeof *z->compute);
    z->comm = malloc(n * sizeof *z->comm);
    z->memory = malloc(n * sizeof *z->memory);
    if (!z->all || !z->compute || !z->comm || !z->memory) return -1;
    *lo = INT64_MAX;
    *hi = INT64_MIN;
    for (size_t i = 0; i < n; i++) {
        const opscope_job_act *a = &r->acts.v[i];
        opscope_job_iv iv = {a->s, a->e};
        if (a->s < *lo) *lo = a->s;
        if (a->e > *hi) *hi = a->e;
        z->all[z->n_all++] = iv;
        if (a->cls == OPSCOPE_JOB_CLS_COMM) z->comm[z->n_comm++] = iv;
        else if (a->cls == OPSCOPE_JOB_CLS_MEMORY) z->memory[z->n_memory++] = iv;
        else z->compute[z->n_compute++] = iv;
    }
    z->n_all = opscope_job_iv_merge(z->all, z->n_all);
    z->n_compute = opscope_job_iv_merge(z->compute, z->n_compute);
    z->n_comm = opscope_job_iv_merge(z->comm, z->n_comm);
    z->n_memory = opscope_job_iv_merge(z->memory, z->n_memory);
    return input_set(r, z, *lo, *hi);
}

static int by_thread_start(const void *a, const void *b) {
    const cpu_iv *x = a, *y = b;
    if (x->thread != y->thread) return x->thread < y->thread ? -1 : 1;
    return (x->s > y->s) - (x->s < y->s);
}

/* A CPU rank's compute: per thread, its ops minus its own collectives and input (an op that
 * encloses a collective waits in it); then the union over threads. CPU intervals sorted by
 * thread, clipped to [LO, HI). */
static int cpu_compute(opscope_job_rank_t *r, sets *z, int64_t lo, int64_t hi) {
    size_t n = r->cpu.n;
    opscope_job_iv *ops = malloc((n ? n : 1) * sizeof *ops), *ex = malloc((n ? n : 1) * sizeof *ex);
    z->compute = malloc((2 * n + 1) * sizeof *z->compute);
    if (!ops || !ex || !z->compute) {
        free(ops);
        free(ex);
        return -1;
    }
    for (size_t i = 0; i < n;) {
        size_t j = i, no = 0, nx = 0;
        for (; j < n && r->cpu.v[j].thread == r->cpu.v[i].thread; j++) {
            const cpu_iv *c = &r->cpu.v[j];
            opscope_job_iv iv = {c->s > lo ? c->s : lo, c->e < hi ? c->e : hi};
            if (c->cls == OPSCOPE_JOB_CLS_COMPUTE) ops[no++] = iv;
            else ex[nx++] = iv;
        }
        no = opscope_job_iv_merge(ops, no);
        nx = opscope_job_iv_merge(ex, nx);
        z->n_compute += opscope_job_iv_sub(ops, no, ex, nx, z->compute + z->n_compute);
        i = j;
    }
    free(ops);
    free(ex);
    z->n_compute = opscope_job_iv_merge(z->compute, z->n_compute);
    return 0;
}

/* A CPU rank: the window is its profiler steps (else its CPU intervals' span). */
static int cpu_sets(opscope_job_rank_t *r, sets *z, int64_t *lo, int64_t *hi) {
    *lo = INT64_MAX;
    *hi = INT64_MIN;
    for (size_t i = 0; i < r->steps.n; i++) {
        if (r->steps.v[i].s < *lo) *lo = r->steps.v[i].s;
        if (r->steps.v[i].s + r->steps.v[i].dur > *hi) *hi = r->steps.v[i].s + r->steps.v[i].dur;
    }
    for (size_t i = 0; !r->steps.n && i < r->cpu.n; i++) {
        if (r->cpu.v[i].s < *lo) *lo = r->cpu.v[i].s;
        if (r->cpu.v[i].e > *hi) *hi = r->cpu.v[i].e;
    }
    if (*lo > *hi) *lo = *hi = 0;
    opscope_sort(r->cpu.v, r->cpu.n, sizeof *r->cpu.v, by_thread_start);
    if (cpu_compute(r, z, *lo, *hi) || input_set(r, z, *lo, *hi)) return -1;
    size_t n = r->cpu.n;
    z->comm = malloc((n ? n : 1) * sizeof *z->comm);
    z->memory = malloc(sizeof *z->memory);
    z->all = malloc((z->n_compute + n + 1) * sizeof *z->all);
    if (!z->comm || !z->memory || !z->all) return -1;
    for (size_t i = 0; i < n; i++) {
        const cpu_iv *c = &r->cpu.v[i];
        if (c->cls == OPSCOPE_JOB_CLS_COMM)
            z->comm[z->n_comm++] = (opscope_job_iv){c->s > *lo ? c->s : *lo, c->e < *hi ? c->e : *hi};
    }
    z->n_comm = opscope_job_iv_merge(z->comm, z->n_comm);
    memcpy(z->all, z->compute, z->n_compute * sizeof *z->all);
    memcpy(z->all + z->n_compute, z->comm, z->n_comm * sizeof *z->all);
    memcpy(z->all + z->n_compute + z->n_comm, z->input, z->n_input * sizeof *z->all);
    z->n_all = opscope_job_iv_merge(z->all, z->n_compute + z->n_comm + z->n_input);
    return 0;
}

/* The steps, each with the rank's figures inside its window. */
static int fill_steps(opscope_job_rank_t *r, const sets *z, opscope_job_rank_summary *out) {
    size_t n = r->steps.n;
    opscope_sort(r->steps.v, n, sizeof *r->steps.v, by_step_start);
    out->steps = calloc(n ? n : 1, sizeof *out->steps);
    int64_t *durs = malloc((n ? n : 1) * sizeof *durs);
    if (!out->steps || !durs) {
        free(durs);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        const step_ev *e = &r->steps.v[i];
        int64_t s = e->s, t = e->s + e->dur;
        out->steps[i] = (opscope_job_step){
            .num = e->num, .start_ns = s, .dur_ns = e->dur,
            .busy_ns = opscope_job_iv_len_in(z->all, z->n_all, s, t),
            .compute_ns = opscope_job_iv_len_in(z->compute, z->n_compute, s, t),
            .comm_ns = opscope_job_iv_len_in(z->comm, z->n_comm, s, t),
            .input_ns = opscope_job_iv_len_in(z->input, z->n_input, s, t),
            .overlap_ns = opscope_job_iv_inter_len_in(z->comm, z->n_comm, z->compute, z->n_compute, s, t)};
        durs[i] = e->dur;
    }
    out->n_steps = n;
    opscope_sort(durs, n, sizeof *durs, cmp_i64);
    out->step_median_ns = n ? durs[(n - 1) / 2] : 0;
    free(durs);
    return 0;
}

int opscope_job_rank_finish(opscope_job_rank_t *r, opscope_job_rank_summary *out) {
    memset(out, 0, sizeof *out);
    out->rank = r->infop->rank;
    out->world_size = r->infop->world_size;
    memcpy(out->backend, r->infop->dist_backend, sizeof out->backend);
    out->backend[sizeof out->backend - 1] = '\0';
    out->gpu = r->acts.n > 0;
    out->gpu_activities = r->acts.n;
    out->cpu_ops = r->cpu_ops;
    sets z;
    memset(&z, 0, sizeof z);
    int64_t lo, hi;
    int rc = out->gpu ? gpu_sets(r, &z, &lo, &hi) : cpu_sets(r, &z, &lo, &hi);
    if (!rc) {
        out->span_ns = hi - lo;
        out->busy_ns = opscope_job_iv_len(z.all, z.n_all);
        out->idle_ns = out->span_ns - out->busy_ns;
        out->compute_ns = opscope_job_iv_len(z.compute, z.n_compute);
        out->comm_ns = opscope_job_iv_len(z.comm, z.n_comm);
        out->memory_ns = opscope_job_iv_len(z.memory, z.n_memory);
        out->input_ns = opscope_job_iv_len(z.input, z.n_input);
        out->overlap_ns = opscope_job_iv_inter_len(z.comm, z.n_comm, z.compute, z.n_compute);
        rc = fill_steps(r, &z, out);
    }
    sets_free(&z);
    if (!rc && out->gpu) {
        opscope_job_gpu_in in = {.acts = r->acts.v, .n_acts = r->acts.n, .calls = r->calls.v,
                                 .n_calls = r->calls.n, .names = r->names,
                                 .delay_cutoff_ns = r->opts.delay_cutoff_ns,
                                 .cpu_cutoff_ns = r->opts.cpu_cutoff_ns};
        rc = opscope_job_gpu_measure(&in, out);
    }
    if (!rc) {
        opscope_job_annot_in ai = {.ranges = r->ranges.v, .n_ranges = r->ranges.n, .acts = r->acts.v,
                                   .n_acts = r->acts.n, .calls = r->calls.v, .n_calls = r->calls.n,
                                   .names = r->names};
        rc = opscope_job_annot_measure(&ai, out->annots, &out->n_annots);
        ai.ranges = r->modules.v;
        ai.n_ranges = r->modules.n;
        if (!rc) rc = opscope_job_annot_measure(&ai, out->modules, &out->n_modules);
    }
    if (!rc) rc = opscope_colls_copy(r->colls, &out->colls, &out->n_colls, &out->colls_on_kernels,
                                     &out->colls_unsized);
    free_events(r);
    if (rc) opscope_job_rank_summary_free(out);
    return rc;
}
