/* cpu_ops.c - a Kineto trace's CPU slices as records: nesting, self time, groups (cpu_ops.h). */
#include "analyze/kineto/cpu_ops.h"
#include "util/hash.h"
#include "util/heap.h"
#include "util/hindex.h"
#include "util/sort.h"
#include "util/str.h"
#include "util/vec.h"

#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

/* What is kept per slice during the read (32 bytes: with millions of CPU ops this is the
 * analysis's memory). */
typedef struct cslice {
    int64_t start, end;
    uint32_t thread;       /* bits 0-29: thread index; 30-31: opscope_cpu_kind */
    uint32_t name, dims, types;
} cslice;

#define THR_MASK 0x3fffffffu
#define SL_THREAD(s) ((s)->thread & THR_MASK)
#define SL_KIND(s) ((s)->thread >> 30)

/* A thread's slices: their count during the read; at finish the first and last in input order,
 * linked through next[]. */
typedef struct tlist {
    uint32_t head, last, n;
} tlist;

/* Per name id: what the name says (0 unknown, else 1 + class). */
enum { CLS_PLAIN = 1, CLS_DROP, CLS_STEP, CLS_BACKWARD, CLS_OPTIMIZER, CLS_DATA, CLS_FORWARD, CLS_ASYNC };

struct opscope_cpu_ops {
    opscope_strtab_t *names;
    OPSCOPE_VEC(cslice) sl;
    OPSCOPE_VEC(uint8_t) cls;      /* per name id, see CLS_* */
    OPSCOPE_VEC(uint64_t) gpu_ns;  /* per name id: kernels' time linked to it */
    OPSCOPE_VEC(uint64_t) gpu_n;
    OPSCOPE_VEC(int64_t) tids;     /* per thread index: pid, tid */
    OPSCOPE_VEC(tlist) tl;         /* per thread index: its slices, linked through next */
    OPSCOPE_VEC(uint32_t) next;    /* per slice: the thread's next slice, NONE at its end (finish) */
    OPSCOPE_VEC(opscope_cpu_step) steps; /* the ProfilerStep#N slices, as they come */
    bool training;                 /* a backward op or an optimizer range came */
    bool stopped;                  /* opscope_cpu_ops_stop: nothing kept */
    uint32_t step_name;            /* "ProfilerStep*" id, NONE until seen */
    opscope_cpu_ops_results res;
};

opscope_cpu_ops_t *opscope_cpu_ops_new(opscope_strtab_t *names) {
    opscope_cpu_ops_t *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->names = names;
    c->step_name = NONE;
    c->res.step_group_name = NONE;
    return c;
}

void opscope_cpu_ops_free(opscope_cpu_ops_t *c) {
    if (!c) return;
    free(c->sl.v);
    free(c->cls.v);
    free(c->gpu_ns.v);
    free(c->gpu_n.v);
    free(c->tids.v);
    free(c->tl.v);
    free(c->next.v);
    free(c->steps.v);
    free(c->res.recs);
    free(c->res.by_name);
    free(c->res.by_shape);
    free(c->res.threads);
    free(c->res.steps);
    free(c);
}

const opscope_cpu_ops_results *opscope_cpu_ops_results_get(const opscope_cpu_ops_t *c) { return &c->res; }

const char *opscope_cpu_phase_name(int phase) {
    static const char *const n[] = {"none", "forward", "backward", "optimizer", "data_loading"};
    return phase >= 0 && phase < OPSCOPE_CPU_PHASE_COUNT ? n[phase] : "?";
}

const char *opscope_cpu_kind_name(int kind) {
    static const char *const n[] = {"cpu_op", "user_annotation", "python_function", "runtime"};
    return kind >= 0 && kind <= OPSCOPE_CPU_KIND_RUNTIME ? n[kind] : "?";
}

const char *opscope_cpu_ops_label(const opscope_cpu_ops_t *c, uint32_t name) {
    if (name != NONE && name < c->cls.n && c->cls.v[name] == CLS_STEP) return "ProfilerStep*";
    const char *s = name != NONE ? opscope_strtab_get(c->names, name) : NULL;
    return s ? s : "";
}

/* The class of a name (torch's filtered names, the steps, phase markers). */
static int classify(const char *nm, int kind) {
    static const char *const dropped[] = {"[memory]", "[OutOfMemory]", "profiler::_record_function_enter",
                                          "profiler::_record_function_enter_new",
                                          "profiler::_record_function_exit", "aten::is_leaf",
                                          "aten::output_nr", "aten::_version"};
    for (size_t i = 0; i < sizeof dropped / sizeof *dropped; i++)
        if (!strcmp(nm, dropped[i])) return CLS_DROP;
    if (!strncmp(nm, "ProfilerStep#", 13)) return CLS_STEP;
    /* c10d's collective ranges of the gloo backend start on the caller's thread and end on a
     * gloo thread: torch takes them as async (no self time, outside the nesting) */
    if (!strncmp(nm, "gloo:", 5)) return CLS_ASYNC;
    if (!strncmp(nm, "autograd::engine::evaluate_function", 35) || strstr(nm, "Backward"))
        return CLS_BACKWARD;
    if (opscope_str_has_ci(nm, "dataloader") || opscope_str_has_ci(nm, "data_load") ||
        opscope_str_has_ci(nm, "data load"))
        return CLS_DATA;
    /* torch's optimizer ranges ("Optimizer.step#SGD.step"), whatever the trace's category */
    if (!strncmp(nm, "Optimizer.", 10)) return CLS_OPTIMIZER;
    if (kind == OPSCOPE_CPU_KIND_ANNOTATION) { /* record_function ranges name phases */
        if (opscope_str_has_ci(nm, "optimizer")) return CLS_OPTIMIZER;
        if (opscope_str_has_ci(nm, "backward")) return CLS_BACKWARD;
        if (opscope_str_has_ci(nm, "forward")) return CLS_FORWARD;
    }
    return CLS_PLAIN;
}

static int cls_of(opscope_cpu_ops_t *c, uint32_t id, int kind) {
    if (id >= c->cls.n) {
        size_t n = c->cls.n;
        if (opscope_vec_reserve((void **)&c->cls.v, &c->cls.cap, (size_t)id + 1, 1, 256)) return -1;
        memset(c->cls.v + n, 0, (size_t)id + 1 - n);
        c->cls.n = (size_t)id + 1;
    }
    if (!c->cls.v[id]) {
        const char *nm = opscope_strtab_get(c->names, id);
        c->cls.v[id] = (uint8_t)classify(nm ? nm : "", kind);
    }
    return c->cls.v[id];
}

size_t opscope_cpu_ops_n_slices(const opscope_cpu_ops_t *c) { return c->sl.n; }

void opscope_cpu_ops_slice_get(const opscope_cpu_ops_t *c, size_t i, opscope_cpu_slice *out) {
    const cslice *s = &c->sl.v[i];
    *out = (opscope_cpu_slice){s->start, s->end, SL_THREAD(s), s->name, (uint8_t)SL_KIND(s)};
}

bool opscope_cpu_ops_stopped(const opscope_cpu_ops_t *c) { return c->stopped; }

void opscope_cpu_ops_stop(opscope_cpu_ops_t *c) {
    c->stopped = true;
    free(c->next.v);
    free(c->tl.v);
    c->next.v = NULL;
    c->tl.v = NULL;
    c->next.n = c->next.cap = c->tl.n = c->tl.cap = 0;
    free(c->sl.v);
    free(c->steps.v);
    c->sl.v = NULL;
    c->steps.v = NULL;
    c->sl.n = c->sl.cap = c->steps.n = c->steps.cap = 0;
    c->res.dropped = 0;
    c->training = false;
}

int opscope_cpu_ops_add(opscope_cpu_ops_t *c, const opscope_kineto_event *ev) {
    if (c->stopped) return 0;
    uint8_t kind;
    switch (ev->kind) {
    case OPSCOPE_KINETO_CPU_OP: kind = OPSCOPE_CPU_KIND_OP; break;
    case OPSCOPE_KINETO_ANNOTATION: kind = OPSCOPE_CPU_KIND_ANNOTATION; break;
    case OPSCOPE_KINETO_PYTHON: kind = OPSCOPE_CPU_KIND_PYTHON; break;
    case OPSCOPE_KINETO_RUNTIME: kind = OPSCOPE_CPU_KIND_RUNTIME; break;
    default: return 0;
    }
    if (ev->name_id == NONE || c->sl.n >= NONE || ev->thread > THR_MASK) return 0;
    int cl = cls_of(c, ev->name_id, kind);
    if (cl < 0) return -1;
    if (cl == CLS_DROP) {
        c->res.dropped++;
        return 0;
    }
    size_t th = (size_t)ev->thread;
    while (c->tl.n <= th) {
        if (OPSCOPE_VEC_PUSH(c->tl, ((tlist){NONE, NONE, 0})) || OPSCOPE_VEC_PUSH(c->tids, -1) ||
            OPSCOPE_VEC_PUSH(c->tids, -1))
            return -1;
    }
    c->tids.v[2 * th] = ev->device;
    c->tids.v[2 * th + 1] = ev->stream;
    cslice s = {.start = ev->start_ns, .end = ev->start_ns + (ev->dur_ns > 0 ? ev->dur_ns : 0),
                .thread = (uint32_t)ev->thread | (uint32_t)kind << 30, .name = ev->name_id,
                .dims = ev->dims_id, .types = ev->types_id};
    if (cl == CLS_BACKWARD || cl == CLS_OPTIMIZER) c->training = true;
    if (cl == CLS_STEP) {
        if (c->step_name == NONE) c->step_name = ev->name_id;
        opscope_cpu_step st = {.name = ev->name_id, .start_ns = s.start, .end_ns = s.end, .top_group = NONE};
        if (OPSCOPE_VEC_PUSH(c->steps, st)) return -1;
    }
    if (OPSCOPE_VEC_PUSH(c->sl, s)) return -1;
    c->tl.v[th].n++; /* linked at finish (link_threads): 4 bytes a slice less during the read */
    return 0;
}

int opscope_cpu_ops_add_gpu(opscope_cpu_ops_t *c, uint32_t name, uint64_t dur_ns) {
    if (name == NONE) return 0;
    if (name >= c->gpu_ns.n) {
        size_t n = c->gpu_ns.n, need = (size_t)name + 1;
        if (opscope_vec_reserve((void **)&c->gpu_ns.v, &c->gpu_ns.cap, need, sizeof *c->gpu_ns.v, 256) ||
            opscope_vec_reserve((void **)&c->gpu_n.v, &c->gpu_n.cap, need, sizeof *c->gpu_n.v, 256))
            return -1;
        memset(c->gpu_ns.v + n, 0, (need - n) * sizeof *c->gpu_ns.v);
        memset(c->gpu_n.v + n, 0, (need - n) * sizeof *c->gpu_n.v);
        c->gpu_ns.n = c->gpu_n.n = need;
    }
    c->gpu_ns.v[name] += dur_ns;
    c->gpu_n.v[name]++;
    return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* Order: thread, start, longest first (torch sorts by [start, -end], stably; slices with the  */
/* same interval are then in the order of its event list, which the trace does not keep: here */
/* by kind and name, so the result does not depend on the file's order).                      */

static inline int sl_cmp(const cslice *a, const cslice *b) {
    if (a->start != b->start) return a->start < b->start ? -1 : 1;
    if (a->end != b->end) return a->end > b->end ? -1 : 1;
    if (a->thread != b->thread) return a->thread < b->thread ? -1 : 1; /* the kind, in the high bits */
    return (a->name > b->name) - (a->name < b->name);
}


static void rec_of(opscope_cpu_op_rec *r, const cslice *s) {
    *r = (opscope_cpu_op_rec){.start_ns = s->start, .end_ns = s->end, .thread = SL_THREAD(s), .name = s->name,
                              .dims = s->dims, .types = s->types, .parent = NONE, .kind = (uint8_t)SL_KIND(s)};
}

#define MAX_RUNS 4096 /* sorted runs overlapping in time merged at once; more: a comparison sort */

typedef struct run {
    uint32_t at, last; /* the run's head (advancing as it merges) and last slice */
    size_t left;       /* slices not merged yet */
} run;

/* Runs by their first slice (CTX: the slices). */
static int run_cmp(const void *pa, const void *pb, void *ctx) {
    const run *a = pa, *b = pb;
    const cslice *v = ctx;
    int c = sl_cmp(&v[a->at], &v[b->at]);
    return c ? c : (a->at > b->at) - (a->at < b->at);
}

/* Whether run A's head comes before run B's (ties: the earlier slice, so the merge is stable). */
static inline bool head_less(const cslice *v, const run *a, const run *b) {
    int c = sl_cmp(&v[a->at], &v[b->at]);
    return c < 0 || (c == 0 && a->at < b->at);
}
OPSCOPE_HEAP_DEFINE(run_heap, run, const cslice *, head_less)

/* Merges runs R[0, K) of V (linked through NEXT) into OUT: a binary heap of the runs by their
 * heads (K compares per slice would dominate with the tens of runs of a long capture). */
static void merge_runs(const cslice *v, const uint32_t *next, run *r, size_t k, cslice *out) {
    run_heap_build(r, k, v);
    while (k) {
        *out++ = v[r[0].at];
        if (--r[0].left) {
            r[0].at = next[r[0].at];
            run_heap_sift_down(r, k, 0, v);
        } else {
            run_heap_pop(r, &k, v);
        }
    }
}

static int slice_qcmp(const void *a, const void *b) { return sl_cmp(a, b); }

/* One thread's slices (T: linked through NEXT, in input order) into OUT, sorted.
 * Kineto writes each category of a thread in time order, so a thread is a few sorted runs
 * (cpu_op, runtime, user_annotation...), and a file made of several captures repeats them
 * later in time: the runs, ordered by their first slice, fall into groups that overlap in
 * time, each merged in one pass; a group of more than MAX_RUNS runs (unordered input) sends
 * the thread to opscope_sort. 0, or -1 when out of memory. */
static int thread_records(const cslice *v, const uint32_t *next, const tlist *t, cslice *out) {
    OPSCOPE_VEC(run) r = {0};
    run cur = {t->head, t->head, 1};
    for (uint32_t i = t->head; next[i] != NONE; i = next[i]) {
        if (sl_cmp(&v[i], &v[next[i]]) > 0) {
            if (OPSCOPE_VEC_PUSH(r, cur)) return -1;
            cur = (run){next[i], next[i], 0};
        }
        cur.last = next[i];
        cur.left++;
    }
    if (OPSCOPE_VEC_PUSH(r, cur)) return -1;
    opscope_sort_r(r.v, r.n, sizeof *r.v, run_cmp, (void *)v);
    bool merge = true;
    for (size_t g = 0; g < r.n && merge;) { /* groups of runs that overlap in time */
        size_t h = g + 1;
        uint32_t last = r.v[g].last;
        while (h < r.n && sl_cmp(&v[r.v[h].at], &v[last]) < 0) {
            if (sl_cmp(&v[r.v[h].last], &v[last]) > 0) last = r.v[h].last;
            h++;
        }
        merge = h - g <= MAX_RUNS;
        g = h;
    }
    if (!merge) {
        size_t j = 0;
        for (uint32_t i = t->head; i != NONE; i = next[i]) out[j++] = v[i];
        opscope_sort(out, j, sizeof *out, slice_qcmp);
        free(r.v);
        return 0;
    }
    for (size_t g = 0; g < r.n;) {
        size_t h = g + 1, n = r.v[g].left;
        uint32_t last = r.v[g].last;
        while (h < r.n && sl_cmp(&v[r.v[h].at], &v[last]) < 0) {
            if (sl_cmp(&v[r.v[h].last], &v[last]) > 0) last = r.v[h].last;
            n += r.v[h].left;
            h++;
        }
        merge_runs(v, next, r.v + g, h - g, out);
        out += n;
        g = h;
    }
    free(r.v);
    return 0;
}

/* The records, by thread index and in each thread by start, longest first: the slices sorted
 * into a second array (each thread's linked in input order first), the slices freed, then that
 * array grown in place into the records, from the end (a record is larger than a slice, so
 * record i covers only slices at i and after, already turned). The slices and the records
 * never live at once: with millions of CPU ops they are the report's peak memory. */
/* Links each thread's slices in input order (next, tl's heads). 0, or -1 when out of memory. */
static int link_threads(opscope_cpu_ops_t *c) {
    size_t n = c->sl.n;
    c->next.v = malloc((n ? n : 1) * sizeof *c->next.v);
    if (!c->next.v) return -1;
    c->next.n = c->next.cap = n;
    for (size_t t = 0; t < c->tl.n; t++) c->tl.v[t].head = c->tl.v[t].last = NONE;
    for (size_t i = n; i-- > 0;) {
        tlist *t = &c->tl.v[SL_THREAD(&c->sl.v[i])];
        if (t->last == NONE) t->last = (uint32_t)i;
        c->next.v[i] = t->head;
        t->head = (uint32_t)i;
    }
    return 0;
}

static int sort_records(opscope_cpu_ops_t *c) {
    size_t n = c->sl.n;
    if (link_threads(c)) return -1;
    cslice *o = malloc((n ? n : 1) * sizeof *o);
    if (!o) return -1;
    size_t at = 0;
    for (size_t t = 0; t < c->tl.n; t++) {
        if (!c->tl.v[t].n) continue;
        if (thread_records(c->sl.v, c->next.v, &c->tl.v[t], o + at)) {
            free(o);
            return -1;
        }
        at += c->tl.v[t].n;
    }
    free(c->sl.v);
    free(c->next.v);
    c->sl.v = NULL;
    c->next.v = NULL;
    c->sl.n = c->sl.cap = c->next.n = c->next.cap = 0;
    opscope_cpu_op_rec *r = realloc(o, (n ? n : 1) * sizeof *r);
    if (!r) {
        free(o);
        return -1;
    }
    _Static_assert(sizeof(opscope_cpu_op_rec) >= sizeof(cslice), "records grow in place");
    for (size_t i = n; i-- > 0;) {
        cslice s;
        memcpy(&s, (const char *)r + i * sizeof s, sizeof s);
        rec_of(&r[i], &s);
    }
    c->res.recs = r;
    c->res.n_recs = n;
    return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* Nesting: parents by torch's stack per thread, then one pass that folds torch's duplicate  */
/* nodes, compacts and takes each child's time out of its parent's self time.                */

static bool is_async(const opscope_cpu_ops_t *c, uint32_t name) { return c->cls.v[name] == CLS_ASYNC; }

/* Per thread, a record is a child of the innermost open one that holds it whole (one that
 * ends beyond it is no child), as torch's stack. While nesting, a record's step field counts
 * its children. */
static void records_nest(opscope_cpu_ops_t *c, uint32_t *stack) {
    opscope_cpu_op_rec *r = c->res.recs;
    size_t n = c->res.n_recs, top = 0;
    for (size_t x = 0; x < n; x++) {
        if (x && r[x].thread != r[x - 1].thread) top = 0;
        if (is_async(c, r[x].name)) continue; /* neither parent nor child */
        while (top) {
            opscope_cpu_op_rec *p = &r[stack[top - 1]];
            if (r[x].start_ns >= p->end_ns || r[x].end_ns > p->end_ns) {
                top--;
                continue;
            }
            r[x].parent = stack[top - 1];
            p->step++;
            break;
        }
        stack[top++] = (uint32_t)x;
    }
}

/* torch's _remove_dup_nodes: a record with its parent's name that is the parent's only child
 * is folded into the parent (its children become the parent's). Parents come before their
 * children, so one pass in order reaches torch's fixed point; the same pass compacts the
 * records (TO: old index -> the new index of the record standing for it) and subtracts each
 * child's inclusive time from its parent's self time (signed while it runs: overlapping
 * siblings may take more than their parent; clamped at 0 after). Depth and phase too. */
static void records_fold(opscope_cpu_ops_t *c, uint32_t *to) {
    opscope_cpu_ops_results *res = &c->res;
    opscope_cpu_op_rec *r = res->recs;
    size_t n = res->n_recs, m = 0;
    for (size_t x = 0; x < n; x++) {
        opscope_cpu_op_rec v = r[x];
        uint32_t p = v.parent != NONE ? to[v.parent] : NONE;
        if (p != NONE && r[p].name == v.name && r[p].step == 1) {
            r[p].step = v.step;
            to[x] = p;
            res->dropped++;
            continue;
        }
        int64_t d = v.end_ns - v.start_ns;
        v.parent = p;
        v.self_ns = is_async(c, v.name) ? 0 : (uint64_t)d;
        const opscope_cpu_op_rec *pr = NULL;
        if (p != NONE) {
            r[p].self_ns -= (uint64_t)d; /* wraps below 0: read as signed in records_sum */
            pr = &r[p];
        }
        v.depth = pr ? (uint16_t)(pr->depth < UINT16_MAX ? pr->depth + 1 : UINT16_MAX) : 0;
        int ph = pr ? pr->phase : OPSCOPE_CPU_PHASE_NONE;
        switch (c->cls.v[v.name]) {
        case CLS_BACKWARD: ph = OPSCOPE_CPU_PHASE_BACKWARD; break;
        case CLS_OPTIMIZER: ph = OPSCOPE_CPU_PHASE_OPTIMIZER; break;
        case CLS_DATA: ph = OPSCOPE_CPU_PHASE_DATA; break;
        case CLS_FORWARD: ph = OPSCOPE_CPU_PHASE_FORWARD; break;
        case CLS_STEP: ph = OPSCOPE_CPU_PHASE_NONE; break;
        default:
            /* in a training trace, the rest of a step is its forward pass */
            if (ph == OPSCOPE_CPU_PHASE_NONE && c->training) ph = OPSCOPE_CPU_PHASE_FORWARD;
            break;
        }
        v.phase = (uint8_t)ph;
        to[x] = (uint32_t)m;
        r[m++] = v;
    }
    res->n_recs = m;
}

/* ---------------------------------------------------------------------------------------- */
/* Groups, threads, steps, phases: one pass over the records.                                */

typedef struct gkey {
    uint32_t name, dims, types;
} gkey;

typedef struct gtab {
    opscope_cpu_op_group *v;
    size_t n, cap;
    opscope_hindex ix;
} gtab;

static bool g_eq(const void *ctx, uint32_t i, const void *key) {
    const opscope_cpu_op_group *g = &((const gtab *)ctx)->v[i];
    const gkey *k = key;
    return g->name == k->name && g->dims == k->dims && g->types == k->types;
}

static uint64_t g_hash(gkey k) {
    return opscope_mix64(opscope_hash_word(opscope_hash_word(opscope_hash_word(OPSCOPE_FNV_BASIS, k.name), k.dims),
                                           k.types));
}

static opscope_cpu_op_group *g_find(gtab *t, gkey k, uint8_t kind) {
    uint64_t h = g_hash(k);
    uint32_t i = opscope_hindex_find(&t->ix, h, &k, g_eq, t);
    if (i != OPSCOPE_HINDEX_NONE) return &t->v[i];
    if (t->n >= OPSCOPE_HINDEX_NONE || opscope_vec_reserve((void **)&t->v, &t->cap, t->n + 1, sizeof *t->v, 64) ||
        opscope_hindex_add(&t->ix, h, (uint32_t)t->n))
        return NULL;
    opscope_cpu_op_group *g = &t->v[t->n++];
    *g = (opscope_cpu_op_group){.name = k.name, .dims = k.dims, .types = k.types, .kind = kind,
                                .min_ns = UINT64_MAX};
    return g;
}

static void g_add(opscope_cpu_op_group *g, const opscope_cpu_op_rec *r) {
    uint64_t d = (uint64_t)(r->end_ns - r->start_ns);
    g->count++;
    g->self_ns += r->self_ns;
    g->total_ns += d;
    if (d < g->min_ns) g->min_ns = d;
    if (d > g->max_ns) g->max_ns = d;
}

static int g_cmp(const void *pa, const void *pb) {
    const opscope_cpu_op_group *a = pa, *b = pb;
    if (a->self_ns != b->self_ns) return a->self_ns > b->self_ns ? -1 : 1;
    if (a->total_ns != b->total_ns) return a->total_ns > b->total_ns ? -1 : 1;
    if (a->name != b->name) return a->name < b->name ? -1 : 1;
    if (a->dims != b->dims) return a->dims < b->dims ? -1 : 1;
    return (a->types > b->types) - (a->types < b->types);
}

static void g_merge(opscope_cpu_op_group *g, const opscope_cpu_op_group *s) {
    g->count += s->count;
    g->self_ns += s->self_ns;
    g->total_ns += s->total_ns;
    if (s->min_ns < g->min_ns) g->min_ns = s->min_ns;
    if (s->max_ns > g->max_ns) g->max_ns = s->max_ns;
}

/* The group name of a record: the steps share "ProfilerStep*" (the first step's id). */
static uint32_t group_name(const opscope_cpu_ops_t *c, uint32_t name) {
    return c->cls.v[name] == CLS_STEP ? c->step_name : name;
}

static int step_cmp(const void *pa, const void *pb) {
    const opscope_cpu_step *a = pa, *b = pb;
    if (a->start_ns != b->start_ns) return a->start_ns < b->start_ns ? -1 : 1;
    return (a->end_ns > b->end_ns) - (a->end_ns < b->end_ns);
}

/* Self times final (clamped), totals, threads, phases, the step of each record and the groups
 * by name and shape. */
static int records_sum(opscope_cpu_ops_t *c, gtab *bys) {
    opscope_cpu_ops_results *res = &c->res;
    size_t nt = 0;
    for (size_t i = 0; i < res->n_recs; i++)
        if (!i || res->recs[i].thread != res->recs[i - 1].thread) nt++;
    res->threads = calloc(nt ? nt : 1, sizeof *res->threads);
    if (!res->threads) return -1;
    uint32_t *hint = malloc((c->cls.n ? c->cls.n : 1) * sizeof *hint); /* per name: a group */
    if (!hint) return -1;
    for (size_t i = 0; i < c->cls.n; i++) hint[i] = NONE;
    size_t cur = 0;
    for (size_t i = 0; i < res->n_recs; i++) {
        opscope_cpu_op_rec *r = &res->recs[i];
        if ((int64_t)r->self_ns < 0) r->self_ns = 0;
        res->self_ns += r->self_ns;
        res->phase[r->phase].records++;
        res->phase[r->phase].self_ns += r->self_ns;
        if (!i || r->start_ns < res->first_ns) res->first_ns = r->start_ns;
        if (!i || r->end_ns > res->last_ns) res->last_ns = r->end_ns;
        if (!i || r->thread != res->recs[i - 1].thread)
            res->threads[res->n_threads++] = (opscope_cpu_thread){
                .thread = r->thread, .pid = c->tids.v[2 * (size_t)r->thread],
                .tid = c->tids.v[2 * (size_t)r->thread + 1], .first_ns = r->start_ns, .last_ns = r->end_ns};
        opscope_cpu_thread *t = &res->threads[res->n_threads - 1];
        t->records++;
        t->top_level += r->parent == NONE;
        t->self_ns += r->self_ns;
        if (r->end_ns > t->last_ns) t->last_ns = r->end_ns;
        /* a thread's records come by start: its step found by a cursor, not a search */
        if (!i || r->thread != res->recs[i - 1].thread) cur = 0;
        while (cur < res->n_steps && res->steps[cur].start_ns <= r->start_ns) cur++;
        r->step = cur && r->start_ns < res->steps[cur - 1].end_ns ? (uint32_t)(cur - 1) : NONE;
        if (r->step != NONE && c->cls.v[r->name] != CLS_STEP) {
            res->steps[r->step].records++;
            res->steps[r->step].self_ns += r->self_ns;
        }
        /* the group: the last one of this name when its shape is the same (an op's calls
         * mostly repeat their shapes), else through the table */
        gkey k = {group_name(c, r->name), r->dims, r->types};
        uint32_t gi = hint[k.name];
        if (gi == NONE || bys->v[gi].dims != k.dims || bys->v[gi].types != k.types) {
            const opscope_cpu_op_group *g = g_find(bys, k, r->kind);
            if (!g) goto fail;
            gi = hint[k.name] = (uint32_t)(g - bys->v);
        }
        g_add(&bys->v[gi], r);
    }
    free(hint);
    return 0;
fail:
    free(hint);
    return -1;
}

/* By name from the groups by name and shape: its shape is the one with the most self time. */
static int groups_by_name(opscope_cpu_ops_t *c, gtab *bys) {
    opscope_cpu_ops_results *res = &c->res;
    opscope_sort(bys->v, bys->n, sizeof *bys->v, g_cmp);
    uint32_t *slot = malloc((c->cls.n ? c->cls.n : 1) * sizeof *slot);
    opscope_cpu_op_group *byn = malloc((bys->n ? bys->n : 1) * sizeof *byn);
    if (!slot || !byn) {
        free(slot);
        free(byn);
        return -1;
    }
    for (size_t i = 0; i < c->cls.n; i++) slot[i] = NONE;
    size_t nn = 0;
    for (size_t i = 0; i < bys->n; i++) { /* by self time: a name's first shape is its top one */
        const opscope_cpu_op_group *g = &bys->v[i];
        if (slot[g->name] == NONE) {
            slot[g->name] = (uint32_t)nn;
            byn[nn++] = *g;
        } else {
            g_merge(&byn[slot[g->name]], g);
        }
    }
    free(slot);
    for (size_t i = 0; i < nn; i++) {
        opscope_cpu_op_group *g = &byn[i];
        g->gpu_kernels = g->name < c->gpu_n.n ? c->gpu_n.v[g->name] : 0;
        g->gpu_ns = g->name < c->gpu_ns.n ? c->gpu_ns.v[g->name] : 0;
    }
    opscope_sort(byn, nn, sizeof *byn, g_cmp);
    res->step_group_name = c->step_name;
    res->by_name = byn;
    res->n_by_name = nn;
    res->by_shape = bys->v;
    res->n_by_shape = bys->n;
    bys->v = NULL;
    return 0;
}

#define STEP_TOP_CELLS (1u << 22) /* steps x names tallied for each step's top op */

/* Each step's top op by self time (a dense steps x names tally while it stays small). */
static int steps_top(opscope_cpu_ops_t *c) {
    opscope_cpu_ops_results *res = &c->res;
    size_t ns = res->n_steps, ng = res->n_by_name;
    if (!ns || !ng || ns * ng > STEP_TOP_CELLS) return 0;
    uint32_t *gi = malloc((c->cls.n ? c->cls.n : 1) * sizeof *gi);
    uint64_t *acc = calloc(ns * ng, sizeof *acc);
    uint8_t *seen = calloc(ns * ng, 1);
    int rc = -1;
    if (!gi || !acc || !seen) goto done;
    for (size_t i = 0; i < c->cls.n; i++) gi[i] = NONE;
    for (size_t g = 0; g < ng; g++) gi[res->by_name[g].name] = (uint32_t)g;
    for (size_t i = 0; i < res->n_recs; i++) {
        const opscope_cpu_op_rec *r = &res->recs[i];
        if (r->step == NONE || c->cls.v[r->name] == CLS_STEP) continue;
        size_t cell = (size_t)r->step * ng + gi[group_name(c, r->name)];
        acc[cell] += r->self_ns;
        seen[cell] = 1;
    }
    for (size_t s = 0; s < ns; s++) {
        opscope_cpu_step *st = &res->steps[s];
        for (size_t g = 0; g < ng; g++) { /* groups by self time: the first of a tie wins */
            size_t cell = s * ng + g;
            if (seen[cell] && (st->top_group == NONE || acc[cell] > st->top_self_ns)) {
                st->top_group = (uint32_t)g;
                st->top_self_ns = acc[cell];
            }
        }
    }
    rc = 0;
done:
    free(gi);
    free(acc);
    free(seen);
    return rc;
}

int opscope_cpu_ops_finish(opscope_cpu_ops_t *c) {
    opscope_cpu_ops_results *res = &c->res;
    res->training = c->training;
    opscope_sort(c->steps.v, c->steps.n, sizeof *c->steps.v, step_cmp);
    res->steps = c->steps.v;
    res->n_steps = c->steps.n;
    c->steps.v = NULL;
    c->steps.n = c->steps.cap = 0;
    if (sort_records(c)) return -1;
    uint32_t *tmp = malloc((c->res.n_recs ? c->res.n_recs : 1) * sizeof *tmp);
    gtab bys = {0};
    int rc = -1;
    if (!tmp) goto done;
    records_nest(c, tmp);
    records_fold(c, tmp);
    if (opscope_hindex_init(&bys.ix, 256) || records_sum(c, &bys) || groups_by_name(c, &bys) || steps_top(c))
        goto done;
    rc = 0;
done:
    free(tmp);
    free(bys.v);
    opscope_hindex_free(&bys.ix);
    return rc;
}
