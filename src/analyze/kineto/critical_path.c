/* critical_path.c - the longest path of HTA's critical path graph over one window, and its
 * breakdown (critical_path.h, docs/critical_path.md). */
#include "analyze/kineto/critical_path.h"

#include "analyze/kineto/cpu_ops.h"
#include "analyze/kineto/kineto.h"

#include "util/sort.h"
#include "util/sort_runs.h"
#include "util/vec.h"

#include <stdlib.h>
#include <string.h>

enum { RT_NONE = 0, RT_CALL, RT_BLOCKING }; /* a CPU event: op, runtime call, blocking call */
enum { SY_CONTEXT = 0, SY_STREAM, SY_EVENT, SY_WAIT, SY_OTHER };
enum { E_CPU = 0, E_DEP, E_BLOCK, E_GPU, E_LAUNCH, E_LAUNCH0, E_QUEUE, E_SYNC };

typedef struct cpu_ev {     /* 24 bytes: there is one per CPU op and runtime call */
    int64_t start, end;
    uint32_t thread : 30;   /* its thread (the reader's dense index) */
    uint32_t rt : 2;        /* RT_* */
    uint32_t corr_at;       /* a runtime call's correlation id in rt_corr, NO_CORR none */
} cpu_ev;

#define NO_CORR UINT32_MAX

/* A CPU event the CPU-op slices do not have (no name, a name they leave out, ...): kept here
 * with the number of slices before it, so that the events keep their input order. */
typedef struct cpu_extra { cpu_ev e; size_t at; } cpu_extra;

/* The one thread whose CPU ops or annotations have a name with "forward" (or "autograd"):
 * HTA chains the backward pass's thread into the forward's. */
typedef struct only_thread { uint32_t thread; uint8_t seen, many; } only_thread;
typedef struct gpu_ev {
    int64_t start, end, corr, launch; /* launch: start of its runtime call, INT64_MIN none */
    uint64_t lane;                     /* device << 32 | stream */
    int64_t rt;                        /* index of its runtime call in cpu (sorted), -1 none */
    int64_t prev;                      /* the activity launched before it on its stream, -1 */
    uint8_t comm;
} gpu_ev;
typedef struct sync_ev { int64_t corr, wait_corr, device, stream, wait_stream, rt; uint8_t kind; } sync_ev;
typedef struct corr_ix { int64_t corr; int64_t idx; } corr_ix;

/* One window's working arrays, kept from window to window: a trace has a window per step, and
 * fresh arrays each time cost their page faults again (most of the path's faults, measured). */
enum { SC_TS, SC_SYNC_SRC, SC_ORD, SC_STACK, SC_AT, SC_ITEMS, SC_OFF, SC_ADJ, SC_INDEG, SC_QUEUE,
       SC_DIST, SC_PRED, SC_EDGES, SC_LAST, SC_COUNT };
typedef struct cp_scratch { void *p[SC_COUNT]; size_t cap[SC_COUNT]; } cp_scratch;

struct opscope_cpath {
    opscope_kineto_collector coll, *next;
    OPSCOPE_VEC(cpu_ev) cpu;       /* made at prepare from the CPU-op slices and extra */
    OPSCOPE_VEC(int64_t) rt_corr;  /* every runtime call's correlation id (or -1), in input order, until prepare */
    OPSCOPE_VEC(cpu_extra) extra;  /* the events the slices lack, see cpu_extra */
    const opscope_cpu_ops_t *ops;  /* the read's CPU-op slices (opscope_cpath_share) */
    size_t n_shared;               /* CPU events left in ops' slices */
    OPSCOPE_VEC(gpu_ev) gpu;
    OPSCOPE_VEC(sync_ev) sync;
    OPSCOPE_VEC(uint8_t) name_rt;  /* per name id: 0 unknown, 1 + RT_* class */
    OPSCOPE_VEC(uint8_t) name_pass; /* per name id: 0 unknown, 1 + (1: "forward", 2: "autograd") */
    only_thread fwd, bwd;
    int merge_bwd;                 /* the backward thread's events chain into the forward's */
    corr_ix *rt_by_corr; size_t n_rt;
    int prepared;
    opscope_critical_path *steps; size_t n_steps; /* opscope_cpath_run_steps */
    char *win_name;                /* opscope_cpath_set_window: the annotation, NULL: steps */
    int64_t win_instance;          /* its instance, -1: every one */
    OPSCOPE_VEC(int64_t) wins;     /* the annotation's instances: start, end pairs */
    opscope_cpath_hop *hops; size_t n_hops;
    cp_scratch sc;
    OPSCOPE_VEC(int64_t) thr;      /* per thread index: its pid and tid (the marks' events) */
    int keep_marks;                /* opscope_cpath_keep_marks */
    OPSCOPE_VEC(opscope_cpath_mark) marks;
    OPSCOPE_VEC(opscope_cpath_medge) medges;
};

/* ---- collecting ---- */

/* Calls whose inside is waiting for the GPU (zero weight on the path). HTA lists
 * cudaMemcpyAsync too, but its runtime-lock edges weigh it as CPU time, and so do we. */
static uint8_t rt_class(const char *n) {
    static const char *const blocking[] = {
        "cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventQuery", "cudaEventSynchronize",
        "cudaMemcpy", "hipDeviceSynchronize", "hipStreamSynchronize", "hipEventQuery",
        "hipEventSynchronize", "hipMemcpy"};
    for (size_t i = 0; n && i < sizeof blocking / sizeof blocking[0]; i++)
        if (!strcmp(n, blocking[i])) return RT_BLOCKING;
    return RT_CALL;
}

static uint8_t sync_kind(const char *n) {
    if (!n) return SY_OTHER;
    if (!strcmp(n, "Context Sync")) return SY_CONTEXT;
    if (!strcmp(n, "Stream Sync")) return SY_STREAM;
    if (!strcmp(n, "Event Sync")) return SY_EVENT;
    if (!strcmp(n, "Stream Wait Event")) return SY_WAIT;
    return SY_OTHER;
}

static int runtime_class(opscope_cpath_t *c, uint32_t id, uint8_t *out) {
    if (id == UINT32_MAX) { *out = RT_CALL; return 0; }
    if (id >= c->name_rt.n) {
        if (opscope_vec_reserve((void **)&c->name_rt.v, &c->name_rt.cap, (size_t)id + 1, 1, 256)) return -1;
        memset(c->name_rt.v + c->name_rt.n, 0, (size_t)id + 1 - c->name_rt.n);
        c->name_rt.n = (size_t)id + 1;
    }
    if (!c->name_rt.v[id]) c->name_rt.v[id] = (uint8_t)(1 + rt_class(opscope_strtab_get(c->coll.names, id)));
    *out = (uint8_t)(c->name_rt.v[id] - 1);
    return 0;
}

static void only_see(only_thread *o, uint32_t thread) {
    if (!o->seen) *o = (only_thread){thread, 1, 0};
    else if (o->thread != thread) o->many = 1;
}

/* Notes the thread of an op or annotation named "...forward..." or "...autograd...", and
 * keeps the interval of one named as the windows' annotation (END: its end). */
static int note_pass(opscope_cpath_t *c, uint32_t id, uint32_t thread, int64_t start, int64_t end) {
    if (id == UINT32_MAX) return 0;
    if (id >= c->name_pass.n) {
        if (opscope_vec_reserve((void **)&c->name_pass.v, &c->name_pass.cap, (size_t)id + 1, 1, 256)) return -1;
        memset(c->name_pass.v + c->name_pass.n, 0, (size_t)id + 1 - c->name_pass.n);
        c->name_pass.n = (size_t)id + 1;
    }
    if (!c->name_pass.v[id]) {
        const char *n = opscope_strtab_get(c->coll.names, id);
        c->name_pass.v[id] = (uint8_t)(1 + (n && strstr(n, "forward") ? 1 : 0) + (n && strstr(n, "autograd") ? 2 : 0) +
                                       (n && c->win_name && !strcmp(n, c->win_name) ? 4 : 0));
    }
    uint8_t f = (uint8_t)(c->name_pass.v[id] - 1);
    if (f & 1) only_see(&c->fwd, thread);
    if (f & 2) only_see(&c->bwd, thread);
    if ((f & 4) && (OPSCOPE_VEC_PUSH(c->wins, start) || OPSCOPE_VEC_PUSH(c->wins, end))) return -1;
    return 0;
}

static uint64_t lane_of(int64_t device, int64_t stream) {
    return ((uint64_t)(uint32_t)device << 32) | (uint32_t)stream;
}

/* The pid and tid of thread index THREAD (first seen), for the marks' events. */
static int note_thread(opscope_cpath_t *c, uint32_t thread, int64_t pid, int64_t tid) {
    size_t need = 2 * ((size_t)thread + 1), old = c->thr.n;
    if (need <= old) return 0;
    if (opscope_vec_reserve((void **)&c->thr.v, &c->thr.cap, need, sizeof *c->thr.v, 64)) return -1;
    for (size_t i = old; i < need; i++) c->thr.v[i] = -1;
    c->thr.n = need;
    c->thr.v[need - 2] = pid;
    c->thr.v[need - 1] = tid;
    return 0;
}

static int keep(opscope_cpath_t *c, const opscope_kineto_event *ev, int shared) {
    int64_t end = ev->start_ns + (ev->dur_ns > 0 ? ev->dur_ns : 0);
    switch (ev->kind) {
    case OPSCOPE_KINETO_CPU_OP:
    case OPSCOPE_KINETO_RUNTIME: {
        if (ev->dur_ns <= 0) return 0; /* HTA leaves zero-length CPU events out */
        if (note_thread(c, (uint32_t)ev->thread & 0x3fffffffu, ev->device, ev->stream)) return -1;
        uint8_t rt = RT_NONE;
        if (ev->kind == OPSCOPE_KINETO_RUNTIME && runtime_class(c, ev->name_id, &rt)) return -1;
        cpu_ev e = {ev->start_ns, end, (uint32_t)ev->thread & 0x3fffffffu, rt, NO_CORR};
        if (ev->kind == OPSCOPE_KINETO_RUNTIME) { /* -1 too: prepare counts them in order */
            if (c->rt_corr.n >= NO_CORR || OPSCOPE_VEC_PUSH(c->rt_corr, ev->corr >= 0 ? ev->corr : -1)) return -1;
        }
        if (ev->kind == OPSCOPE_KINETO_CPU_OP && note_pass(c, ev->name_id, e.thread, ev->start_ns, end)) return -1;
        if (shared) {
            c->n_shared++;
            return 0;
        }
        cpu_extra x = {e, c->ops ? opscope_cpu_ops_n_slices(c->ops) : 0};
        x.e.corr_at = ev->kind == OPSCOPE_KINETO_RUNTIME; /* until make_cpu: a runtime call */
        return OPSCOPE_VEC_PUSH(c->extra, x);
    }
    case OPSCOPE_KINETO_ANNOTATION: return note_pass(c, ev->name_id, (uint32_t)ev->thread, ev->start_ns, end);
    case OPSCOPE_KINETO_KERNEL:
    case OPSCOPE_KINETO_MEMCPY:
    case OPSCOPE_KINETO_MEMSET: {
        if (ev->corr < 0) return 0;
        gpu_ev g = {ev->start_ns, end, ev->corr, INT64_MIN, lane_of(ev->device, ev->stream), -1, -1,
                    ev->kcat == OPSCOPE_KCAT_COMM};
        return OPSCOPE_VEC_PUSH(c->gpu, g);
    }
    case OPSCOPE_KINETO_SYNC: {
        const char *n = ev->name_id != UINT32_MAX ? opscope_strtab_get(c->coll.names, ev->name_id) : NULL;
        sync_ev s = {ev->corr, ev->wait_corr, ev->device, ev->stream, ev->wait_stream, -1, sync_kind(n)};
        if (s.kind == SY_OTHER || s.corr < 0) return 0;
        return OPSCOPE_VEC_PUSH(c->sync, s);
    }
    default: return 0;
    }
}

static int cp_add(void *ud, const opscope_kineto_event *ev) {
    opscope_cpath_t *c = ud;
    size_t n0 = c->ops ? opscope_cpu_ops_n_slices(c->ops) : 0;
    if (c->next && c->next->add(c->next->ud, ev)) return -1;
    /* the CPU-op slices kept it (their count grew by one): the event is theirs */
    return keep(c, ev, c->ops && opscope_cpu_ops_n_slices(c->ops) == n0 + 1);
}

opscope_cpath_t *opscope_cpath_new(opscope_kineto_collector *next) {
    opscope_cpath_t *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->next = next;
    if (next) c->coll = *next;
    c->coll.ud = c;
    c->coll.add = cp_add;
    c->coll.want_links = 1; /* runtime calls keep their names (blocking calls) */
    return c;
}

void opscope_cpath_free(opscope_cpath_t *c) {
    if (!c) return;
    opscope_cpath_release_events(c); /* the events and the walk's scratch */
    free(c->name_rt.v);
    free(c->name_pass.v);
    free(c->steps);
    free(c->hops);
    free(c->win_name);
    free(c->wins.v);
    free(c->thr.v);
    free(c->marks.v);
    free(c->medges.v);
    free(c);
}

int opscope_cpath_set_window(opscope_cpath_t *c, const char *name, int64_t instance) {
    free(c->win_name);
    c->win_name = NULL;
    c->win_instance = instance < 0 ? -1 : instance;
    if (!name) return 0;
    size_t n = strlen(name) + 1;
    c->win_name = malloc(n);
    if (!c->win_name) return -1;
    memcpy(c->win_name, name, n);
    return 0;
}

const char *opscope_cpath_window_name(const opscope_cpath_t *c) { return c ? c->win_name : NULL; }

size_t opscope_cpath_window_count(const opscope_cpath_t *c) { return c ? c->wins.n / 2 : 0; }

opscope_kineto_collector *opscope_cpath_collector(opscope_cpath_t *c) { return c ? &c->coll : NULL; }

void opscope_cpath_share(opscope_cpath_t *c, const opscope_cpu_ops_t *ops) {
    if (c && !c->n_shared && !c->extra.n) c->ops = ops;
}

int opscope_cpath_has_events(const opscope_cpath_t *c) {
    return c && (c->cpu.n || c->n_shared || c->extra.n || c->gpu.n);
}

const char *opscope_cpath_part_name(int part) {
    static const char *const n[] = {"cpu", "launch", "kernel", "comm", "queue", "wait", "idle"};
    return part >= 0 && part < OPSCOPE_CPATH_PART_COUNT ? n[part] : "unknown";
}

/* ---- preparing: sorted once, found by binary search per window ---- */

static int cmp_cpu(const void *pa, const void *pb) {
    const cpu_ev *a = pa, *b = pb;
    if (a->start != b->start) return a->start < b->start ? -1 : 1;
    if (a->end != b->end) return a->end > b->end ? -1 : 1; /* the enclosing one first */
    return (a->rt > b->rt) - (a->rt < b->rt);                /* an op before its runtime call */
}

static int cmp_corr(const void *pa, const void *pb) {
    const corr_ix *a = pa, *b = pb;
    if (a->corr != b->corr) return a->corr < b->corr ? -1 : 1;
    return (a->idx > b->idx) - (a->idx < b->idx);
}

static int cmp_gpu_launch(const void *pa, const void *pb) {
    const gpu_ev *a = pa, *b = pb;
    if (a->launch != b->launch) return a->launch < b->launch ? -1 : 1;
    return (a->start > b->start) - (a->start < b->start);
}

static inline int less_cpu(const cpu_ev *a, const cpu_ev *b) {
    if (a->start != b->start) return a->start < b->start;
    if (a->end != b->end) return a->end > b->end;
    return a->rt < b->rt;
}
static inline int less_corr(const corr_ix *a, const corr_ix *b) {
    return a->corr != b->corr ? a->corr < b->corr : a->idx < b->idx;
}
static inline int less_gpu_launch(const gpu_ev *a, const gpu_ev *b) {
    return a->launch != b->launch ? a->launch < b->launch : a->start < b->start;
}
/* the comparisons inlined: these sorts are most of prepare's time on a large trace */
OPSCOPE_SORT_RUNS_DEFINE(sort_cpu, cpu_ev, less_cpu, cmp_cpu)
OPSCOPE_SORT_RUNS_DEFINE(sort_corr, corr_ix, less_corr, cmp_corr)
OPSCOPE_SORT_RUNS_DEFINE(sort_gpu, gpu_ev, less_gpu_launch, cmp_gpu_launch)

static int64_t rt_of(const opscope_cpath_t *c, int64_t corr) {
    size_t lo = 0, hi = c->n_rt;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->rt_by_corr[mid].corr < corr) lo = mid + 1;
        else hi = mid;
    }
    return lo < c->n_rt && c->rt_by_corr[lo].corr == corr ? c->rt_by_corr[lo].idx : -1;
}

static int cmp_sync_rt(const void *pa, const void *pb) {
    const sync_ev *a = pa, *b = pb;
    return (a->rt > b->rt) - (a->rt < b->rt);
}

static int cmp_lane(const void *pa, const void *pb, void *ctx) {
    const gpu_ev *v = ctx;
    uint32_t ia = *(const uint32_t *)pa, ib = *(const uint32_t *)pb;
    if (v[ia].lane != v[ib].lane) return v[ia].lane < v[ib].lane ? -1 : 1;
    return (ia > ib) - (ia < ib); /* launch order: the array's */
}

typedef struct lane_prev { uint64_t lane; int64_t last; } lane_prev;

/* Each activity's predecessor on its stream over the whole trace: whether the stream was
 * empty when it was launched does not depend on the window (HTA's queue length is the full
 * trace's too). */
static int link_lanes(opscope_cpath_t *c) {
    enum { FEW = 64 }; /* streams in a trace are few: the last activity per stream in one pass */
    lane_prev few[FEW];
    size_t nl = 0, i = 0;
    for (; i < c->gpu.n; i++) {
        gpu_ev *g = &c->gpu.v[i];
        size_t l = 0;
        while (l < nl && few[l].lane != g->lane) l++;
        if (l == nl) {
            if (nl == FEW) break;
            few[nl++] = (lane_prev){g->lane, -1};
        }
        g->prev = few[l].last;
        few[l].last = (int64_t)i;
    }
    if (i == c->gpu.n) return 0;
    for (i = 0; i < c->gpu.n; i++) c->gpu.v[i].prev = -1; /* many streams: by a sort */
    uint32_t *ix = malloc((c->gpu.n ? c->gpu.n : 1) * sizeof *ix);
    if (!ix) return -1;
    for (i = 0; i < c->gpu.n; i++) ix[i] = (uint32_t)i;
    opscope_sort_r(ix, c->gpu.n, sizeof *ix, cmp_lane, c->gpu.v);
    for (i = 1; i < c->gpu.n; i++)
        if (c->gpu.v[ix[i]].lane == c->gpu.v[ix[i - 1]].lane) c->gpu.v[ix[i]].prev = ix[i - 1];
    free(ix);
    return 0;
}

/* Appends E, one of N at most (a runtime call takes the next correlation id of rt_corr, at
 * *RT). -1 when the counts disagree (never, as the read kept them). */
static int put_cpu(opscope_cpath_t *c, size_t n, cpu_ev e, int runtime, size_t *rt) {
    if (c->cpu.n >= n || (runtime && *rt >= c->rt_corr.n)) return -1;
    e.corr_at = NO_CORR;
    if (runtime) {
        if (c->rt_corr.v[*rt] >= 0) e.corr_at = (uint32_t)*rt;
        ++*rt;
    }
    c->cpu.v[c->cpu.n++] = e;
    return 0;
}

/* The CPU events in input order: the shared CPU-op slices (ops and runtime calls of positive
 * length) with the extra ones between them where they came. */
static int make_cpu(opscope_cpath_t *c) {
    if (c->cpu.n || (!c->n_shared && !c->extra.n)) return 0;
    if (c->n_shared && (!c->ops || opscope_cpu_ops_stopped(c->ops))) return -1; /* slices gone */
    size_t n = c->n_shared + c->extra.n, rt = 0, x = 0;
    if (opscope_vec_reserve((void **)&c->cpu.v, &c->cpu.cap, n, sizeof *c->cpu.v, 16)) return -1;
    size_t ns = c->n_shared ? opscope_cpu_ops_n_slices(c->ops) : 0;
    for (size_t i = 0; i < ns; i++) {
        for (; x < c->extra.n && c->extra.v[x].at <= i; x++)
            if (put_cpu(c, n, c->extra.v[x].e, c->extra.v[x].e.corr_at == 1, &rt)) return -1;
        opscope_cpu_slice s;
        opscope_cpu_ops_slice_get(c->ops, i, &s);
        if ((s.kind != OPSCOPE_CPU_KIND_OP && s.kind != OPSCOPE_CPU_KIND_RUNTIME) || s.end_ns <= s.start_ns)
            continue;
        uint8_t rc = RT_NONE;
        if (s.kind == OPSCOPE_CPU_KIND_RUNTIME && runtime_class(c, s.name, &rc)) return -1;
        cpu_ev e = {s.start_ns, s.end_ns, s.thread, rc, NO_CORR};
        if (put_cpu(c, n, e, s.kind == OPSCOPE_CPU_KIND_RUNTIME, &rt)) return -1;
    }
    for (; x < c->extra.n; x++)
        if (put_cpu(c, n, c->extra.v[x].e, c->extra.v[x].e.corr_at == 1, &rt)) return -1;
    free(c->extra.v);
    memset(&c->extra, 0, sizeof c->extra);
    return c->cpu.n == n && rt == c->rt_corr.n ? 0 : -1;
}

static int prepare(opscope_cpath_t *c) {
    if (c->prepared) return 0;
    if (make_cpu(c)) return -1;
    c->merge_bwd = c->fwd.seen && c->bwd.seen && !c->fwd.many && !c->bwd.many && c->fwd.thread != c->bwd.thread;
    /* traces come nearly in time order: their runs are merged */
    sort_cpu(c->cpu.v, c->cpu.n);
    size_t n = 0;
    for (size_t i = 0; i < c->cpu.n; i++) n += c->cpu.v[i].corr_at != NO_CORR;
    c->rt_by_corr = malloc((n ? n : 1) * sizeof *c->rt_by_corr);
    if (!c->rt_by_corr) return -1;
    for (size_t i = 0; i < c->cpu.n; i++)
        if (c->cpu.v[i].corr_at != NO_CORR)
            c->rt_by_corr[c->n_rt++] = (corr_ix){c->rt_corr.v[c->cpu.v[i].corr_at], (int64_t)i};
    free(c->rt_corr.v);
    memset(&c->rt_corr, 0, sizeof c->rt_corr);
    sort_corr(c->rt_by_corr, c->n_rt);
    for (size_t i = 0; i < c->gpu.n; i++) {
        gpu_ev *g = &c->gpu.v[i];
        g->rt = rt_of(c, g->corr);
        g->launch = g->rt >= 0 ? c->cpu.v[g->rt].start : INT64_MIN;
    }
    sort_gpu(c->gpu.v, c->gpu.n);
    if (link_lanes(c)) return -1;
    for (size_t i = 0; i < c->sync.n; i++) c->sync.v[i].rt = rt_of(c, c->sync.v[i].corr);
    opscope_sort(c->sync.v, c->sync.n, sizeof *c->sync.v, cmp_sync_rt);
    c->prepared = 1;
    return 0;
}

/* The first index in [0, N) whose key is >= T (keys ascending). */
#define LOWER_BOUND(arr, n, key, t, out)                                                     \
    do {                                                                                     \
        size_t lo_ = 0, hi_ = (n);                                                           \
        while (lo_ < hi_) {                                                                  \
            size_t mid_ = lo_ + (hi_ - lo_) / 2;                                             \
            if ((arr)[mid_].key < (t)) lo_ = mid_ + 1;                                       \
            else hi_ = mid_;                                                                 \
        }                                                                                    \
        (out) = lo_;                                                                         \
    } while (0)

/* ---- one window's graph ---- */

/* Scratch SLOT with room for BYTES (its old contents are not kept); NULL when out of memory. */
static void *sc_get(cp_scratch *sc, int slot, size_t bytes) {
    if (bytes > sc->cap[slot] || !sc->p[slot]) {
        size_t want = bytes + bytes / 4 + 64;
        free(sc->p[slot]);
        sc->p[slot] = malloc(want);
        sc->cap[slot] = sc->p[slot] ? want : 0;
    }
    return sc->p[slot];
}

static void *sc_zero(cp_scratch *sc, int slot, size_t bytes) {
    void *p = sc_get(sc, slot, bytes);
    if (p) memset(p, 0, bytes);
    return p;
}

typedef struct edge { uint32_t src, dst; uint8_t type; } edge;
typedef struct lane_last { uint64_t lane; uint32_t node; } lane_last;

typedef struct graph {
    const opscope_cpath_t *c;
    cp_scratch *sc;             /* the arrays below live there */
    size_t c0, nc, g0, ng;      /* CPU events [c0, c0+nc), GPU activities [g0, g0+ng) */
    int64_t *ts;                /* per node */
    OPSCOPE_VEC(edge) e;
    OPSCOPE_VEC(lane_last) last; /* per stream: end node of its last activity so far */
    int64_t *sync_src;          /* per GPU activity in the window: activity it waits for, -1 */
} graph;

/* Nodes: CPU event i -> 2*(i-c0) (start), +1 (end); GPU activity j -> 2*nc + 2*(j-g0), +1. */
static uint32_t cpu_node(const graph *g, size_t i, int end) { return (uint32_t)(2 * (i - g->c0) + (size_t)end); }
static uint32_t gpu_node(const graph *g, size_t j, int end) {
    return (uint32_t)(2 * g->nc + 2 * (j - g->g0) + (size_t)end);
}
static int in_cpu(const graph *g, int64_t i) { return i >= (int64_t)g->c0 && i < (int64_t)(g->c0 + g->nc); }
static int in_gpu(const graph *g, int64_t j) { return j >= (int64_t)g->g0 && j < (int64_t)(g->g0 + g->ng); }

static int add_edge(graph *g, uint32_t src, uint32_t dst, uint8_t type) {
    if (src == dst || g->ts[dst] < g->ts[src]) return 0; /* time only runs forward */
    edge e = {src, dst, type};
    return OPSCOPE_VEC_PUSH(g->e, e);
}

/* Per thread, the call stack's order: enter (parent start or previous sibling's end ->
 * start), exit (last node -> end). Consecutive top-level events: a zero-weight dependency;
 * the inside of a blocking call: zero weight (waiting, not working). */
static uint32_t chain_of(const opscope_cpath_t *c, uint32_t thread) {
    return c->merge_bwd && thread == c->bwd.thread ? c->fwd.thread : thread;
}

static int cpu_edges(graph *g) {
    const cpu_ev *v = g->c->cpu.v;
    uint32_t *ord = sc_get(g->sc, SC_ORD, g->nc * sizeof *ord), *stack = sc_get(g->sc, SC_STACK, g->nc * sizeof *stack);
    uint32_t max_th = 0, *at = NULL;
    int rc = -1;
    if (!ord || !stack) goto out;
    for (size_t i = 0; i < g->nc; i++) max_th = v[g->c0 + i].thread > max_th ? v[g->c0 + i].thread : max_th;
    if (g->c->merge_bwd && g->c->fwd.thread > max_th) max_th = g->c->fwd.thread;
    at = sc_zero(g->sc, SC_AT, ((size_t)max_th + 2) * sizeof *at); /* by thread (dense ids), start order kept */
    if (!at) goto out;
    for (size_t i = 0; i < g->nc; i++) at[chain_of(g->c, v[g->c0 + i].thread) + 1]++;
    for (uint32_t t = 0; t <= max_th; t++) at[t + 1] += at[t];
    for (size_t i = 0; i < g->nc; i++) ord[at[chain_of(g->c, v[g->c0 + i].thread)]++] = (uint32_t)(g->c0 + i);
    size_t i = 0;
    while (i < g->nc) {
        uint32_t th = chain_of(g->c, v[ord[i]].thread);
        size_t depth = 0;
        int64_t last = -1;
        for (; i <= g->nc; i++) {
            int more = i < g->nc && chain_of(g->c, v[ord[i]].thread) == th;
            while (depth && (!more || v[stack[depth - 1]].end <= v[ord[i]].start)) {
                uint32_t x = stack[--depth];
                if (last >= 0 && add_edge(g, (uint32_t)last, cpu_node(g, x, 1), v[x].rt == RT_BLOCKING ? E_BLOCK : E_CPU))
                    goto out;
                last = cpu_node(g, x, 1);
            }
            if (!more) break;
            if (last >= 0 && add_edge(g, (uint32_t)last, cpu_node(g, ord[i], 0), depth ? E_CPU : E_DEP)) goto out;
            last = cpu_node(g, ord[i], 0);
            stack[depth++] = ord[i];
        }
    }
    rc = 0;
out:
    return rc;
}

static lane_last *last_of(graph *g, uint64_t lane) {
    for (size_t i = 0; i < g->last.n; i++)
        if (g->last.v[i].lane == lane) return &g->last.v[i];
    return NULL;
}

/* The activity on LANE launched last before T (from), or first at or after T (!from); -1. */
static int64_t launch_near(const opscope_cpath_t *c, uint64_t lane, int64_t t, int before) {
    size_t k;
    LOWER_BOUND(c->gpu.v, c->gpu.n, launch, t, k);
    if (before) {
        for (size_t i = k; i-- > 0;)
            if (c->gpu.v[i].lane == lane) return (int64_t)i;
    } else {
        for (size_t i = k; i < c->gpu.n; i++)
            if (c->gpu.v[i].lane == lane) return (int64_t)i;
    }
    return -1;
}

typedef struct item { int64_t key; int64_t idx; uint8_t is_sync; } item;

static int cmp_item(const void *pa, const void *pb) {
    const item *a = pa, *b = pb;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    if (a->is_sync != b->is_sync) return a->is_sync < b->is_sync ? -1 : 1;
    return (a->idx > b->idx) - (a->idx < b->idx);
}

/* A synchronization (in end order among the kernels' starts): GPU -> CPU edges to the end of
 * the runtime call that waited, or the waited-for kernel noted for the next one on a stream. */
static int sync_edges(graph *g, const sync_ev *s) {
    const opscope_cpath_t *c = g->c;
    if (!in_cpu(g, s->rt)) return 0;
    uint32_t call_end = cpu_node(g, (size_t)s->rt, 1);
    if (s->kind == SY_CONTEXT) {
        for (size_t i = 0; i < g->last.n; i++)
            if (add_edge(g, g->last.v[i].node, call_end, E_SYNC)) return -1;
        return 0;
    }
    if (s->kind == SY_STREAM) {
        lane_last *l = last_of(g, lane_of(s->device, s->stream));
        return l ? add_edge(g, l->node, call_end, E_SYNC) : 0;
    }
    int64_t rec = rt_of(c, s->wait_corr); /* the cudaEventRecord call */
    if (rec < 0 || s->wait_stream < 0) return 0;
    int64_t src = launch_near(c, lane_of(s->device, s->wait_stream), c->cpu.v[rec].start, 1);
    if (!in_gpu(g, src)) return 0; /* recorded before the window */
    if (s->kind == SY_EVENT) return add_edge(g, gpu_node(g, (size_t)src, 1), call_end, E_SYNC);
    int64_t dst = launch_near(c, lane_of(s->device, s->stream), c->cpu.v[s->rt].start, 0);
    if (in_gpu(g, dst)) g->sync_src[dst - (int64_t)g->g0] = src;
    return 0;
}

/* One activity J: its duration; a GPU -> GPU wait; then the launch delay when its stream was
 * empty when it was launched (and the wait, if any, was over), else the kernel-kernel delay
 * behind the previous activity on the stream (under 1.5 ms, as HTA), and always a zero-weight
 * launch edge that keeps it after its launch. */
static int kernel_edges(graph *g, size_t j) {
    const gpu_ev *k = &g->c->gpu.v[j];
    uint32_t s = gpu_node(g, j, 0), e = gpu_node(g, j, 1);
    if (add_edge(g, s, e, E_GPU)) return -1;
    int64_t src = g->sync_src[j - g->g0];
    int64_t sync_end = in_gpu(g, src) ? g->ts[gpu_node(g, (size_t)src, 1)] : INT64_MIN;
    if (sync_end != INT64_MIN && add_edge(g, gpu_node(g, (size_t)src, 1), s, E_SYNC)) return -1;
    lane_last *l = last_of(g, k->lane);
    int has_rt = in_cpu(g, k->rt);
    int64_t launch = has_rt ? g->c->cpu.v[k->rt].start : INT64_MIN;
    int launched = 0;
    /* queued behind an activity launched before the window: neither edge, as HTA */
    int queued = k->prev >= 0 && !in_gpu(g, k->prev) && g->c->gpu.v[k->prev].end >= launch;
    if (has_rt && !queued && (!l || g->ts[l->node] < launch) && sync_end < launch) {
        if (add_edge(g, cpu_node(g, (size_t)k->rt, 0), s, E_LAUNCH)) return -1;
        launched = 1;
    } else if (l && g->ts[s] - g->ts[l->node] < 1500000 && sync_end < g->ts[l->node]) {
        if (add_edge(g, l->node, s, E_QUEUE)) return -1;
    }
    if (has_rt && !launched && add_edge(g, cpu_node(g, (size_t)k->rt, 0), s, E_LAUNCH0)) return -1;
    if (l) {
        l->node = e;
        return 0;
    }
    lane_last nl = {k->lane, e};
    return OPSCOPE_VEC_PUSH(g->last, nl);
}

static int gpu_edges(graph *g, size_t s0, size_t ns) {
    const opscope_cpath_t *c = g->c;
    item *it = sc_get(g->sc, SC_ITEMS, (g->ng + ns + 1) * sizeof *it);
    if (!it) return -1;
    size_t n = 0;
    for (size_t j = g->g0; j < g->g0 + g->ng; j++) it[n++] = (item){c->gpu.v[j].start, (int64_t)j, 0};
    for (size_t i = s0; i < s0 + ns; i++) it[n++] = (item){c->cpu.v[c->sync.v[i].rt].end, (int64_t)i, 1};
    opscope_sort(it, n, sizeof *it, cmp_item);
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++)
        rc = it[i].is_sync ? sync_edges(g, &c->sync.v[it[i].idx]) : kernel_edges(g, (size_t)it[i].idx);
    return rc;
}

/* ---- the longest path and its breakdown ---- */

static uint64_t weight_of(const graph *g, const edge *e) {
    if (e->type == E_DEP || e->type == E_BLOCK || e->type == E_SYNC || e->type == E_LAUNCH0) return 0;
    return (uint64_t)(g->ts[e->dst] - g->ts[e->src]);
}

/* The part an edge's time counts as (its weight's, or for zero-weight edges what the path
 * does meanwhile: waits, or nothing between two top-level ops). */
static int part_of(const graph *g, const edge *e) {
    switch (e->type) {
    case E_CPU: return OPSCOPE_CPATH_CPU;
    case E_GPU: return g->c->gpu.v[g->g0 + (e->src - 2 * g->nc) / 2].comm ? OPSCOPE_CPATH_COMM : OPSCOPE_CPATH_KERNEL;
    case E_LAUNCH: return OPSCOPE_CPATH_LAUNCH;
    case E_QUEUE: return OPSCOPE_CPATH_QUEUE;
    case E_DEP: return OPSCOPE_CPATH_IDLE;
    default: return OPSCOPE_CPATH_WAIT;
    }
}

static opscope_cpath_lane lane_at(const graph *g, uint32_t node) {
    opscope_cpath_lane l = {0, 0, -1, -1, -1, 0};
    if (node < 2 * g->nc) {
        l.thread = g->c->cpu.v[g->c0 + node / 2].thread;
    } else {
        const gpu_ev *k = &g->c->gpu.v[g->g0 + (node - 2 * g->nc) / 2];
        l.gpu = 1;
        l.device = (int32_t)(uint32_t)(k->lane >> 32);
        l.stream = (int32_t)(uint32_t)k->lane;
        l.corr = k->corr;
        l.act_start = k->start;
    }
    return l;
}

/* Kahn's order over the edges (all run forward in time), the longest distance per node and
 * the edge it came by; then the path back from the farthest node. */
static int longest(graph *g, size_t n_nodes, uint32_t **path_edges, size_t *n_path) {
    size_t ne = g->e.n;
    cp_scratch *sc = g->sc;
    uint32_t *off = sc_zero(sc, SC_OFF, (n_nodes + 1) * sizeof *off), *adj = sc_get(sc, SC_ADJ, ne * sizeof *adj);
    uint32_t *indeg = sc_zero(sc, SC_INDEG, n_nodes * sizeof *indeg), *queue = sc_get(sc, SC_QUEUE, n_nodes * sizeof *queue);
    uint64_t *dist = sc_zero(sc, SC_DIST, n_nodes * sizeof *dist);
    uint32_t *pred = sc_get(sc, SC_PRED, n_nodes * sizeof *pred);
    int rc = -1;
    if (!off || !adj || !indeg || !queue || !dist || !pred) goto out;
    for (size_t i = 0; i < ne; i++) off[g->e.v[i].src + 1]++;
    for (size_t i = 0; i < n_nodes; i++) off[i + 1] += off[i];
    for (size_t i = 0; i < n_nodes; i++) queue[i] = off[i]; /* the queue, first as a cursor */
    for (size_t i = 0; i < ne; i++) adj[queue[g->e.v[i].src]++] = (uint32_t)i;
    for (size_t i = 0; i < ne; i++) indeg[g->e.v[i].dst]++;
    size_t qh = 0, qt = 0;
    for (size_t i = 0; i < n_nodes; i++) {
        pred[i] = UINT32_MAX;
        if (!indeg[i]) queue[qt++] = (uint32_t)i;
    }
    while (qh < qt) {
        uint32_t u = queue[qh++];
        for (uint32_t k = off[u]; k < off[u + 1]; k++) {
            const edge *e = &g->e.v[adj[k]];
            uint64_t d = dist[u] + weight_of(g, e);
            if (pred[e->dst] == UINT32_MAX || d > dist[e->dst]) dist[e->dst] = d, pred[e->dst] = adj[k];
            if (!--indeg[e->dst]) queue[qt++] = e->dst;
        }
    }
    uint32_t best = UINT32_MAX;
    for (size_t i = 0; i < qt; i++) {
        uint32_t v = queue[i];
        if (best == UINT32_MAX || dist[v] > dist[best] || (dist[v] == dist[best] && g->ts[v] > g->ts[best])) best = v;
    }
    size_t n = 0;
    for (uint32_t v = best; v != UINT32_MAX && pred[v] != UINT32_MAX; v = g->e.v[pred[v]].src) n++;
    *path_edges = malloc((n ? n : 1) * sizeof **path_edges);
    if (!*path_edges) goto out;
    *n_path = n;
    for (uint32_t v = best; v != UINT32_MAX && pred[v] != UINT32_MAX; v = g->e.v[pred[v]].src) (*path_edges)[--n] = pred[v];
    rc = 0;
out:
    return rc;
}

static int build(graph *g, int64_t ws, int64_t we, size_t *s0, size_t *ns) {
    const opscope_cpath_t *c = g->c;
    size_t c1, g1, s1;
    LOWER_BOUND(c->cpu.v, c->cpu.n, start, ws, g->c0);
    LOWER_BOUND(c->cpu.v, c->cpu.n, start, we + 1, c1); /* HTA: events starting in [ws, we] */
    LOWER_BOUND(c->gpu.v, c->gpu.n, launch, ws, g->g0);
    LOWER_BOUND(c->gpu.v, c->gpu.n, launch, we + 1, g1);
    LOWER_BOUND(c->sync.v, c->sync.n, rt, (int64_t)g->c0, *s0);
    LOWER_BOUND(c->sync.v, c->sync.n, rt, (int64_t)c1, s1);
    g->nc = c1 - g->c0;
    g->ng = g1 - g->g0;
    *ns = s1 - *s0;
    size_t n_nodes = 2 * (g->nc + g->ng);
    g->ts = sc_get(g->sc, SC_TS, n_nodes * sizeof *g->ts);
    g->sync_src = sc_get(g->sc, SC_SYNC_SRC, g->ng * sizeof *g->sync_src);
    if (!g->ts || !g->sync_src) return -1;
    for (size_t i = 0; i < g->nc; i++) {
        g->ts[2 * i] = c->cpu.v[g->c0 + i].start;
        g->ts[2 * i + 1] = c->cpu.v[g->c0 + i].end;
    }
    for (size_t j = 0; j < g->ng; j++) {
        g->ts[2 * g->nc + 2 * j] = c->gpu.v[g->g0 + j].start;
        g->ts[2 * g->nc + 2 * j + 1] = c->gpu.v[g->g0 + j].end;
        g->sync_src[j] = -1;
    }
    /* room for the usual edges at once: 2 per CPU event, 4 per GPU activity */
    if (opscope_vec_reserve((void **)&g->e.v, &g->e.cap, 2 * g->nc + 4 * g->ng + 2 * *ns + 16, sizeof *g->e.v, 64))
        return -1;
    if (cpu_edges(g)) return -1;
    return gpu_edges(g, *s0, *ns);
}

/* The event of NODE as a mark (its thread's pid and tid, or its stream). */
static opscope_cpath_mark mark_at(const graph *g, uint32_t node) {
    const opscope_cpath_t *c = g->c;
    if (node < 2 * g->nc) {
        const cpu_ev *e = &c->cpu.v[g->c0 + node / 2];
        size_t t = 2 * (size_t)e->thread;
        return (opscope_cpath_mark){t < c->thr.n ? c->thr.v[t] : -1, t < c->thr.n ? c->thr.v[t + 1] : -1, e->start,
                                    e->end, 0};
    }
    const gpu_ev *k = &c->gpu.v[g->g0 + (node - 2 * g->nc) / 2];
    return (opscope_cpath_mark){(int32_t)(uint32_t)(k->lane >> 32), (int32_t)(uint32_t)k->lane, k->start, k->end, 1};
}

/* The path's events (both ends of each edge, once along the path) and its launch, sync and
 * dependency edges and any other that changes lane, into C's marks. */
static int keep_marks(opscope_cpath_t *c, const graph *g, const uint32_t *path, size_t np) {
    uint32_t last = UINT32_MAX; /* the node whose event was marked last */
    for (size_t i = 0; i < np; i++) {
        const edge *e = &g->e.v[path[i]];
        uint32_t ends[2] = {e->src, e->dst}, at[2];
        for (int k = 0; k < 2; k++) {
            if (last != UINT32_MAX && last / 2 == ends[k] / 2) {
                at[k] = (uint32_t)c->marks.n - 1;
                continue;
            }
            if (OPSCOPE_VEC_PUSH(c->marks, mark_at(g, ends[k]))) return -1;
            at[k] = (uint32_t)c->marks.n - 1;
            last = ends[k];
        }
        const opscope_cpath_mark *a = &c->marks.v[at[0]], *b = &c->marks.v[at[1]];
        int kind = e->type == E_LAUNCH || e->type == E_LAUNCH0 ? OPSCOPE_CPATH_EDGE_LAUNCH
                   : e->type == E_SYNC                         ? OPSCOPE_CPATH_EDGE_SYNC
                   : e->type == E_DEP                          ? OPSCOPE_CPATH_EDGE_DEPENDENCY
                                                               : OPSCOPE_CPATH_EDGE_OTHER;
        if (kind == OPSCOPE_CPATH_EDGE_OTHER && a->gpu == b->gpu && a->pid == b->pid && a->tid == b->tid) continue;
        opscope_cpath_medge m = {at[0], at[1], (uint8_t)(e->src & 1), (uint8_t)(e->dst & 1), (uint8_t)part_of(g, e),
                                 (uint8_t)kind, weight_of(g, e)};
        if (OPSCOPE_VEC_PUSH(c->medges, m)) return -1;
    }
    return 0;
}

static void add_part(opscope_critical_path *out, int part, uint64_t ns) {
    uint64_t *slot[] = {&out->cpu_ns, &out->launch_ns, &out->kernel_ns, &out->comm_ns,
                        &out->queue_ns, &out->wait_ns, &out->idle_ns};
    *slot[part] += ns;
}

int opscope_critical_path_compute(opscope_cpath_t *c, int64_t start_ns, int64_t end_ns,
                                  opscope_critical_path *out, opscope_cpath_hop **hops, size_t *n_hops) {
    memset(out, 0, sizeof *out);
    out->step = -1;
    if (end_ns < start_ns) end_ns = start_ns;
    out->start_ns = start_ns;
    out->window_ns = out->length_ns = (uint64_t)(end_ns - start_ns);
    if (prepare(c)) return -1;
    graph g = {.c = c, .sc = &c->sc};
    g.e.v = c->sc.p[SC_EDGES]; /* the edge and stream vectors keep their room too */
    g.e.cap = c->sc.cap[SC_EDGES];
    g.last.v = c->sc.p[SC_LAST];
    g.last.cap = c->sc.cap[SC_LAST];
    uint32_t *path = NULL;
    size_t s0 = 0, ns = 0, np = 0;
    int rc = -1;
    if (build(&g, start_ns, end_ns, &s0, &ns)) goto out;
    out->n_events = g.nc + g.ng;
    if (longest(&g, 2 * (g.nc + g.ng), &path, &np)) goto out;
    int64_t first = start_ns, last = start_ns;
    if (np) {
        first = g.ts[g.e.v[path[0]].src];
        last = g.ts[g.e.v[path[np - 1]].dst];
    }
    int64_t end = last > end_ns ? last : end_ns, begin = first < start_ns ? first : start_ns;
    out->length_ns = (uint64_t)(end - begin); /* GPU clocks may run a little before the CPU's */
    out->n_edges = np;
    out->idle_ns = (uint64_t)(first - begin) + (uint64_t)(end - last);
    for (size_t i = 0; i < np; i++) {
        const edge *e = &g.e.v[path[i]];
        int part = part_of(&g, e);
        add_part(out, part, (uint64_t)(g.ts[e->dst] - g.ts[e->src]));
        if (!hops) continue;
        if (e->src < 2 * g.nc && e->dst < 2 * g.nc &&
            c->cpu.v[g.c0 + e->src / 2].thread == c->cpu.v[g.c0 + e->dst / 2].thread)
            continue; /* most of a path: along one thread, no hop */
        opscope_cpath_lane a = lane_at(&g, e->src), b = lane_at(&g, e->dst);
        if ( (a.gpu == b.gpu && a.thread == b.thread && a.device == b.device && a.stream == b.stream))
            continue;
        if (!(*n_hops & (*n_hops - 1))) { /* 0, 1, 2, 4...: room doubles */
            opscope_cpath_hop *h = realloc(*hops, (*n_hops ? 2 * *n_hops : 16) * sizeof **hops);
            if (!h) goto out;
            *hops = h;
        }
        (*hops)[(*n_hops)++] = (opscope_cpath_hop){g.ts[e->src], g.ts[e->dst], a, b, (uint8_t)part};
    }
    out->gpu_ns = out->kernel_ns + out->comm_ns;
    if (c->keep_marks && keep_marks(c, &g, path, np)) goto out;
    rc = 0;
out:
    c->sc.p[SC_EDGES] = g.e.v; /* capacities in elements for these two */
    c->sc.cap[SC_EDGES] = g.e.cap;
    c->sc.p[SC_LAST] = g.last.v;
    c->sc.cap[SC_LAST] = g.last.cap;
    free(path);
    return rc;
}

/* The annotation's instances (start, end pairs) by start, longest first. */
static int win_cmp(const void *pa, const void *pb) {
    const int64_t *a = pa, *b = pb;
    if (a[0] != b[0]) return a[0] < b[0] ? -1 : 1;
    return (a[1] < b[1]) - (a[1] > b[1]);
}

int opscope_cpath_run_steps(opscope_cpath_t *c, const struct opscope_kineto_results *r) {
    size_t n = r->n_steps ? r->n_steps : 1, first = 0, nw = c->wins.n / 2;
    if (c->win_name) { /* the annotation's instances: every one, or the one asked for */
        opscope_sort(c->wins.v, nw, 2 * sizeof *c->wins.v, win_cmp);
        first = c->win_instance < 0 ? 0 : (size_t)c->win_instance;
        n = c->win_instance < 0 ? nw : first < nw ? 1 : 0;
    } else if (c->win_instance >= 0) { /* one profiler step by order; a trace without is one */
        first = (size_t)c->win_instance;
        n = first < n ? 1 : 0;
    }
    free(c->steps);
    free(c->hops);
    c->hops = NULL;
    c->n_hops = c->n_steps = 0;
    c->marks.n = c->medges.n = 0;
    c->steps = calloc(n ? n : 1, sizeof *c->steps);
    if (!c->steps) return -1;
    for (size_t i = 0; i < n; i++) {
        int64_t s, e, step;
        if (c->win_name) {
            s = c->wins.v[2 * (first + i)];
            e = c->wins.v[2 * (first + i) + 1];
            step = (int64_t)(first + i);
        } else {
            size_t k = first + i;
            s = r->n_steps ? (int64_t)r->steps[k].start_ns : (int64_t)r->window_start_ns;
            e = s + (r->n_steps ? (int64_t)r->steps[k].dur_ns : (int64_t)r->window_ns);
            step = r->n_steps ? r->steps[k].number : -1;
        }
        if (opscope_critical_path_compute(c, s, e, &c->steps[i], &c->hops, &c->n_hops)) {
            free(c->steps);
            free(c->hops);
            c->steps = NULL;
            c->hops = NULL;
            c->n_hops = 0;
            return -1;
        }
        c->steps[i].step = step;
    }
    c->n_steps = n;
    return 0;
}

void opscope_cpath_release_events(opscope_cpath_t *c) {
    if (!c) return;
    free(c->cpu.v);
    free(c->rt_corr.v);
    free(c->extra.v);
    free(c->gpu.v);
    free(c->sync.v);
    free(c->rt_by_corr);
    memset(&c->extra, 0, sizeof c->extra);
    c->n_shared = 0;
    memset(&c->cpu, 0, sizeof c->cpu);
    memset(&c->rt_corr, 0, sizeof c->rt_corr);
    memset(&c->gpu, 0, sizeof c->gpu);
    memset(&c->sync, 0, sizeof c->sync);
    c->rt_by_corr = NULL;
    c->n_rt = 0;
    for (int i = 0; i < SC_COUNT; i++) {
        free(c->sc.p[i]);
        c->sc.p[i] = NULL;
        c->sc.cap[i] = 0;
    }
}

const opscope_critical_path *opscope_cpath_steps(const opscope_cpath_t *c, size_t *n) {
    *n = c ? c->n_steps : 0;
    return c ? c->steps : NULL;
}

void opscope_cpath_keep_marks(opscope_cpath_t *c) {
    if (c) c->keep_marks = 1;
}

const opscope_cpath_mark *opscope_cpath_marks(const opscope_cpath_t *c, size_t *n) {
    *n = c ? c->marks.n : 0;
    return c ? c->marks.v : NULL;
}

const opscope_cpath_medge *opscope_cpath_medges(const opscope_cpath_t *c, size_t *n) {
    *n = c ? c->medges.n : 0;
    return c ? c->medges.v : NULL;
}

const opscope_cpath_hop *opscope_cpath_hops(const opscope_cpath_t *c, size_t *n) {
    *n = c ? c->n_hops : 0;
    return c ? c->hops : NULL;
}
