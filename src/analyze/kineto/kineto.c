/* kineto.c - Kineto trace analysis: links, phases, layers, stream breakdown (see kineto.h). */
#include "analyze/kineto/kineto.h"
#include "analyze/intervals/busy_runs.h"
#include "analyze/intervals/busy.h"
#include "analyze/kineto/cpu_ops.h"
#include "analyze/kineto/cupti.h"
#include "analyze/kineto/kgann.h"
#include "analyze/kineto/katen.h"
#include "analyze/kineto/kbreak.h"
#include "analyze/kineto/kmembw.h"
#include "analyze/kineto/kseq.h"
#include "analyze/kineto/kstats.h"
#include "analyze/kineto/kstrag.h"
#include "util/vec.h"
#include "util/hash.h"
#include "util/hindex.h"
#include "util/sort.h"
#include "util/str.h"
#include "util/sort_runs.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define NO_NAME UINT32_MAX
#define LAYER_MIN_KERNELS 70

/* Compact on purpose: these arrays are what the analysis keeps per event (see kineto.h). */
typedef struct iv_t {      /* an interval on a CPU thread (cpu op, python frame, annotation) */
    int64_t start, end;
    uint32_t thread;       /* dense thread index (device for GPU annotations) */
    uint32_t name;         /* name id, or phase for annotations */
    uint32_t dims;         /* CPU ops: input dims text id, NO_NAME when none */
} iv_t;

typedef struct rt_t {      /* a launching call: runtime X event or ac2g flow start */
    int64_t corr;
    int64_t ts, dur;
    int64_t ext;
    uint32_t thread;
    uint32_t is_flow : 1;
    uint32_t name : 31;    /* runtime call name id (kept links only), NAME31 when none */
    uint32_t seq;          /* position in the order the reader handed calls over */
} rt_t;

#define NAME31 0x7fffffffu

typedef struct gpu_t {
    int64_t start, dur;
    int64_t corr, ext;
    int32_t device, stream;
    uint32_t name;
    uint32_t seq;          /* position in the order the reader handed activities over */
    uint32_t cpu_op;       /* attribution, set by finish: CPU op name id, or NO_NAME */
    uint32_t cpu_call;     /* which call of it (see opscope_kineto_gpu_info), 0 none */
    uint32_t cpu_dims;     /* that call's input dims text id, or NO_NAME */
    uint32_t layer;        /* layer ordinal, or NO_NAME */
    uint8_t kind, kcat, phase;
    uint32_t step;         /* the profiler step around its launch (sorted index), or NO_NAME */
} gpu_t;

/* Intervals by thread without moving them: the runs of one thread as they lie in their array
 * (input order), listed by thread. Kineto writes each thread's CPU ops in time order, in a few
 * hundred blocks: reading them through their runs costs nothing, where reordering millions of
 * them in place was 3% of a report (measured on the 200 MB bench trace). */
typedef struct ivseg {
    uint32_t thread;
    uint32_t begin, end;   /* [begin, end) of the array */
} ivseg;

typedef struct ivview {
    ivseg *s;
    size_t n;
    size_t *pos;           /* per run: its first interval's place in view order (n + 1) */
} ivview;

static void ivview_free(ivview *w) {
    free(w->s);
    free(w->pos);
    *w = (ivview){0};
}

typedef struct q_t {       /* an enclosure query: which interval of THREAD contains T */
    int64_t t;
    uint32_t thread;
    uint32_t idx;
} q_t;

struct opscope_kineto {
    opscope_strtab_t *names;
    opscope_kineto_info info;
    OPSCOPE_VEC(iv_t) cpu;
    ivview cpu_view;               /* cpu by thread, then start (finish) */
    OPSCOPE_VEC(int64_t) cpu_ext;  /* parallel to cpu */
    OPSCOPE_VEC(iv_t) py;
    OPSCOPE_VEC(iv_t) ann;         /* CPU annotations with a phase; name = phase */
    OPSCOPE_VEC(iv_t) gann;        /* GPU annotations with a phase; thread = device */
    OPSCOPE_VEC(iv_t) train;       /* backward CPU ops, optimizer steps; name = phase */
    OPSCOPE_VEC(uint8_t) name_cls; /* per name id: 0 unknown, else 1 + its training phase */
    OPSCOPE_VEC(rt_t) rt;
    OPSCOPE_VEC(gpu_t) gpu;
    OPSCOPE_VEC(opscope_kineto_step) steps;
    OPSCOPE_VEC(uint64_t) gpu_rec; /* parallel to gpu, with keep_links: the record ordinal */
    int keep_links;
    opscope_kineto_collector coll; /* what the reader sees of this collector */
    opscope_kineto_link *links; size_t n_links;
    opscope_kineto_launch_call *launch; /* with keep_links: per GPU activity after the finish */
    opscope_cpu_ops_t *cpu_ops;    /* every CPU slice as a record (analyze/kineto/cpu_ops.c) */
    bool cpu_ops_cpu_only;         /* drop them at the first GPU activity */
    bool no_seqs;                  /* opscope_kineto_skip_sequences */
    opscope_kineto_steps_fn on_steps; /* opscope_kineto_on_steps */
    void *on_steps_ud;
    opscope_kineto_results res;
    opscope_colls_t *colls;        /* collectives with their args (collectives.h), or NULL */
    opscope_kstats_t *kstats;      /* kernels and launches by HTA's definitions (kstats.h) */
    opscope_kseq_t *kseq;          /* GPU activity sequences per CPU op call (kseq.h), or NULL */
    opscope_kseq_t *katen;         /* each aten op call's kernels and delays (katen.h), or NULL */
    opscope_cupti_t *cupti;        /* kernels CUPTI's profiler measured (cupti.h), or NULL */
    opscope_kmembw_t *kmembw;      /* memory bandwidth over time by HTA's definitions (kmembw.h) */
    opscope_kgann_t *kgann;        /* GPU-side user annotations and what they hold (kgann.h) */
    opscope_kstrag_t *kstrag;      /* HTA's straggler inputs (kstrag.h), after the finish */
    opscope_kbreak_t *kbreak;      /* GPU time by kernel type by HTA's definitions (kbreak.h) */
    OPSCOPE_VEC(uint8_t) kb_type;  /* per name id: 0 not looked at, else 1 + its kbreak type */
    int64_t t0;                    /* the earliest start of an event with a duration (HTA's origin) */
    OPSCOPE_VEC(gpu_t) sync;       /* cuda_sync events on a stream (start, dur, corr, name): HTA's
                                      kernel sequences hold them */
};

static int collector_add(void *ud, const opscope_kineto_event *ev) {
    return opscope_kineto_add(ud, ev);
}

opscope_kineto_collector *opscope_kineto_collector_of(opscope_kineto_t *k) {
    return k ? &k->coll : NULL;
}

opscope_kineto_t *opscope_kineto_new(opscope_strtab_t *names) {
    opscope_kineto_t *k = calloc(1, sizeof *k);
    if (!k) return NULL;
    k->names = names;
    k->info.rank = -1;
    k->info.world_size = -1;
    k->coll.ud = k;
    k->coll.add = collector_add;
    k->coll.info = &k->info;
    k->coll.names = names;
    k->cpu_ops = opscope_cpu_ops_new(names);
    k->kstats = opscope_kstats_new(0);
    k->kmembw = opscope_kmembw_new(names);
    k->kgann = opscope_kgann_new();
    k->kbreak = opscope_kbreak_new();
    k->t0 = INT64_MAX;
    if (!k->cpu_ops || !k->kstats || !k->kmembw || !k->kgann || !k->kbreak) {
        opscope_cpu_ops_free(k->cpu_ops);
        opscope_kstats_free(k->kstats);
        opscope_kmembw_free(k->kmembw);
        opscope_kgann_free(k->kgann);
        opscope_kbreak_free(k->kbreak);
        free(k);
        return NULL;
    }
    return k;
}

void opscope_kineto_free(opscope_kineto_t *k) {
    if (!k) return;
    free(k->cpu.v);
    ivview_free(&k->cpu_view);
    free(k->cpu_ext.v);
    free(k->py.v);
    free(k->ann.v);
    free(k->gann.v);
    free(k->train.v);
    free(k->name_cls.v);
    free(k->launch);
    free(k->rt.v);
    free(k->gpu.v);
    free(k->gpu_rec.v);
    free(k->links);
    free(k->res.top_cpu_ops);
    free(k->res.top_python);
    free(k->res.streams);
    free(k->res.steps);
    free(k->res.devices);
    free(k->steps.v);
    opscope_cpu_ops_free(k->cpu_ops);
    opscope_colls_free(k->colls);
    opscope_kstats_free(k->kstats);
    opscope_kseq_free(k->kseq);
    opscope_kseq_free(k->katen);
    opscope_cupti_free(k->cupti);
    opscope_kmembw_free(k->kmembw);
    opscope_kgann_free(k->kgann);
    opscope_kstrag_free(k->kstrag);
    opscope_kbreak_free(k->kbreak);
    free(k->kb_type.v);
    free(k->sync.v);
    free(k);
}

opscope_kineto_info *opscope_kineto_info_mut(opscope_kineto_t *k) { return &k->info; }
void opscope_kineto_keep_dims(opscope_kineto_t *k) { k->coll.want_dims = 1; }
void opscope_kineto_keep_links(opscope_kineto_t *k) {
    k->keep_links = 1;
    k->coll.want_links = 1;
}
int opscope_kineto_keep_series(opscope_kineto_t *k) {
    opscope_kmembw_keep_series(k->kmembw);
    return opscope_kstats_keep_series(k->kstats);
}
void opscope_kineto_cpu_ops_without_gpu_only(opscope_kineto_t *k) { k->cpu_ops_cpu_only = true; }
void opscope_kineto_skip_sequences(opscope_kineto_t *k) { k->no_seqs = true; }
void opscope_kineto_on_steps(opscope_kineto_t *k, opscope_kineto_steps_fn fn, void *ud) {
    k->on_steps = fn;
    k->on_steps_ud = ud;
}
int opscope_kineto_wants_links(const opscope_kineto_t *k) { return k && k->keep_links; }
const opscope_kineto_link *opscope_kineto_links(const opscope_kineto_t *k, size_t *n) {
    *n = k->n_links;
    return k->links;
}
const opscope_kineto_info *opscope_kineto_get_info(const opscope_kineto_t *k) { return &k->info; }
const opscope_colls_t *opscope_kineto_colls(const opscope_kineto_t *k) { return k->colls; }
const opscope_kstats_t *opscope_kineto_kstats(const opscope_kineto_t *k) { return k->kstats; }
const opscope_kseq_t *opscope_kineto_kseq(const opscope_kineto_t *k) { return k->kseq; }
const opscope_kseq_t *opscope_kineto_katen(const opscope_kineto_t *k) { return k->katen; }
const opscope_kmembw_t *opscope_kineto_kmembw(const opscope_kineto_t *k) { return k->kmembw; }
const opscope_kgann_t *opscope_kineto_kgann(const opscope_kineto_t *k) { return k->kgann; }
const opscope_kstrag_t *opscope_kineto_kstrag(const opscope_kineto_t *k) { return k->kstrag; }
const opscope_kbreak_t *opscope_kineto_kbreak(const opscope_kineto_t *k) { return k->kbreak; }
const opscope_kineto_results *opscope_kineto_get_results(const opscope_kineto_t *k) { return &k->res; }
const opscope_strtab_t *opscope_kineto_names(const opscope_kineto_t *k) { return k->names; }
opscope_strtab_t *opscope_kineto_names_mut(opscope_kineto_t *k) { return k->names; }

const char *opscope_kineto_platform_name(opscope_kineto_platform p) {
    switch (p) {
    case OPSCOPE_KINETO_PLATFORM_NVIDIA: return "NVIDIA";
    case OPSCOPE_KINETO_PLATFORM_AMD: return "AMD";
    case OPSCOPE_KINETO_PLATFORM_OTHER: return "other";
    default: return "unknown";
    }
}

const char *opscope_kineto_phase_name(int phase) {
    static const char *const n[] = {"unannotated", "prefill", "decode", "mixed",
                                    "forward", "backward", "optimizer"};
    return phase >= 0 && phase < OPSCOPE_KINETO_PHASE_COUNT ? n[phase] : "?";
}

/* Reads the number inside the parentheses after WORD ("context_1(512)" -> 1 and 512). */
static int paren_after(const char *s, const char *word, long *count, long *inside) {
    const char *p = strstr(s, word);
    if (!p) return 0;
    p += strlen(word);
    char *e;
    *count = strtol(p, &e, 10);
    if (e == p || *e != '(') return 0;
    p = e + 1;
    *inside = strtol(p, &e, 10);
    return e != p && *e == ')';
}

/*
 * Phase of an annotation name: vLLM's "execute_context_N(T)_generation_M(G)" (prefill when
 * context tokens T > 0 and no generation requests, decode when T == 0, mixed otherwise), or a
 * name containing "prefill" / "decode".
 */
static int phase_of(const char *name) {
    long nc, tc, ng, tg;
    if (paren_after(name, "context_", &nc, &tc) && paren_after(name, "generation_", &ng, &tg)) {
        if (tc > 0 && ng == 0) return OPSCOPE_KINETO_PHASE_PREFILL;
        if (tc == 0) return OPSCOPE_KINETO_PHASE_DECODE;
        return OPSCOPE_KINETO_PHASE_MIXED;
    }
    int pf = opscope_str_has_ci(name, "prefill"), dc = opscope_str_has_ci(name, "decode");
    if (pf && dc) return OPSCOPE_KINETO_PHASE_MIXED;
    if (pf) return OPSCOPE_KINETO_PHASE_PREFILL;
    if (dc) return OPSCOPE_KINETO_PHASE_DECODE;
    return OPSCOPE_KINETO_PHASE_NONE;
}

/* The training phase a CPU op or annotation named NAME marks (cached per name id), or NONE. */
static int train_phase(opscope_kineto_t *k, uint32_t id, int annotation) {
    if (id >= k->name_cls.n) {
        size_t n = k->name_cls.n;
        if (opscope_vec_reserve((void **)&k->name_cls.v, &k->name_cls.cap, (size_t)id + 1, 1, 256))
            return OPSCOPE_KINETO_PHASE_NONE;
        memset(k->name_cls.v + n, 0, (size_t)id + 1 - n);
        k->name_cls.n = (size_t)id + 1;
    }
    if (!k->name_cls.v[id]) {
        const char *nm = opscope_strtab_get(k->names, id);
        int ph = OPSCOPE_KINETO_PHASE_NONE;
        if (nm && annotation && !strncmp(nm, "Optimizer.step#", 15)) ph = OPSCOPE_KINETO_PHASE_OPTIMIZER;
        else if (nm && !annotation && (!strncmp(nm, "autograd::engine::evaluate_function", 35) ||
                                       strstr(nm, "Backward")))
            ph = OPSCOPE_KINETO_PHASE_BACKWARD;
        k->name_cls.v[id] = (uint8_t)(1 + ph);
    }
    return k->name_cls.v[id] - 1;
}

/* Counts an event with a stream into the kernel types (kbreak.h), its name's type cached. */
static int kbreak_add(opscope_kineto_t *k, const opscope_kineto_event *ev) {
    uint32_t id = ev->name_id;
    if (id == NO_NAME) return opscope_kbreak_add(k->kbreak, OPSCOPE_KBREAK_OTHER, ev->start_ns, ev->dur_ns, ev->corr);
    if (id >= k->kb_type.n) {
        size_t n = (size_t)id + 1;
        if (opscope_vec_reserve((void **)&k->kb_type.v, &k->kb_type.cap, n, 1, 64)) return -1;
        memset(k->kb_type.v + k->kb_type.n, 0, n - k->kb_type.n);
        k->kb_type.n = n;
    }
    if (!k->kb_type.v[id]) k->kb_type.v[id] = (uint8_t)(1 + opscope_kbreak_type_of(opscope_strtab_get(k->names, id)));
    return opscope_kbreak_add(k->kbreak, k->kb_type.v[id] - 1, ev->start_ns, ev->dur_ns, ev->corr);
}

int opscope_kineto_add(opscope_kineto_t *k, const opscope_kineto_event *ev) {
    if (ev->comm && ((!k->colls && !(k->colls = opscope_colls_new())) || opscope_colls_add(k->colls, ev))) return -1;
    int64_t end = ev->start_ns + (ev->dur_ns > 0 ? ev->dur_ns : 0);
    if (ev->kind != OPSCOPE_KINETO_FLOW_START && ev->start_ns < k->t0) k->t0 = ev->start_ns;
    if (opscope_cpu_ops_add(k->cpu_ops, ev)) return -1;
    switch (ev->kind) {
    case OPSCOPE_KINETO_KERNEL:
    case OPSCOPE_KINETO_MEMCPY:
    case OPSCOPE_KINETO_MEMSET: {
        if (k->gpu.n >= UINT32_MAX) return -1; /* activity numbers are 32-bit */
        if (!k->gpu.n && k->cpu_ops_cpu_only) opscope_cpu_ops_stop(k->cpu_ops);
        gpu_t g = {.start = ev->start_ns, .dur = ev->dur_ns > 0 ? ev->dur_ns : 0, .corr = ev->corr,
                   .ext = ev->ext, .device = (int32_t)ev->device, .stream = (int32_t)ev->stream,
                   .name = ev->name_id, .seq = (uint32_t)k->gpu.n, .cpu_op = NO_NAME, .cpu_dims = NO_NAME,
                   .layer = NO_NAME, .kind = (uint8_t)ev->kind, .kcat = (uint8_t)ev->kcat};
        opscope_kineto_results *r = &k->res;
        if (ev->kind == OPSCOPE_KINETO_KERNEL) {
            r->kernels++;
            r->kernel_ns += (uint64_t)g.dur;
            r->cat_count[ev->kcat]++;
            r->cat_ns[ev->kcat] += (uint64_t)g.dur;
        } else if (ev->kind == OPSCOPE_KINETO_MEMCPY) {
            r->memcpy_n++;
            r->memcpy_ns += (uint64_t)g.dur;
            r->memcpy_bytes += ev->bytes;
        } else {
            r->memset_n++;
            r->memset_ns += (uint64_t)g.dur;
        }
        if (k->keep_links && OPSCOPE_VEC_PUSH(k->gpu_rec, ev->record)) return -1;
        if (opscope_kstats_add(k->kstats, ev->name_id, ev->kind, g.dur) || kbreak_add(k, ev) ||
            opscope_kmembw_add(k->kmembw, ev->name_id, ev->device, ev->start_ns, g.dur, ev->bw_gbps))
            return -1;
        return OPSCOPE_VEC_PUSH(k->gpu, g);
    }
    case OPSCOPE_KINETO_CPU_OP: {
        iv_t iv = {.start = ev->start_ns, .end = end, .thread = (uint32_t)ev->thread, .name = ev->name_id,
                   .dims = ev->dims_id};
        if (OPSCOPE_VEC_PUSH(k->cpu, iv)) return -1;
        int tp = train_phase(k, ev->name_id, 0);
        if (tp != OPSCOPE_KINETO_PHASE_NONE) {
            iv_t t = {.start = ev->start_ns, .end = end, .thread = (uint32_t)ev->thread, .name = (uint32_t)tp};
            if (OPSCOPE_VEC_PUSH(k->train, t)) return -1;
        }
        return OPSCOPE_VEC_PUSH(k->cpu_ext, ev->ext);
    }
    case OPSCOPE_KINETO_PYTHON: {
        iv_t iv = {.start = ev->start_ns, .end = end, .thread = (uint32_t)ev->thread, .name = ev->name_id};
        return OPSCOPE_VEC_PUSH(k->py, iv);
    }
    case OPSCOPE_KINETO_ANNOTATION:
    case OPSCOPE_KINETO_GPU_ANNOTATION: {
        if (ev->kind == OPSCOPE_KINETO_GPU_ANNOTATION &&
            opscope_kgann_add(k->kgann, ev->name_id, ev->device, ev->stream, ev->start_ns, ev->dur_ns))
            return -1;
        const char *name = opscope_strtab_get(k->names, ev->name_id);
        /* The profiler marks each training or inference step on the CPU side. */
        if (ev->kind == OPSCOPE_KINETO_ANNOTATION && name && !strncmp(name, "ProfilerStep#", 13)) {
            k->res.n_iterations++;
            char *e;
            long long num = strtoll(name + 13, &e, 10);
            opscope_kineto_step st = {e != name + 13 && !*e ? num : -1, (uint64_t)ev->start_ns,
                                      end > ev->start_ns ? (uint64_t)(end - ev->start_ns) : 0};
            if (OPSCOPE_VEC_PUSH(k->steps, st)) return -1;
        }
        if (ev->kind == OPSCOPE_KINETO_ANNOTATION &&
            train_phase(k, ev->name_id, 1) == OPSCOPE_KINETO_PHASE_OPTIMIZER) {
            iv_t t = {.start = ev->start_ns, .end = end, .thread = (uint32_t)ev->thread,
                      .name = OPSCOPE_KINETO_PHASE_OPTIMIZER};
            return OPSCOPE_VEC_PUSH(k->train, t);
        }
        int ph = name ? phase_of(name) : OPSCOPE_KINETO_PHASE_NONE;
        if (ph == OPSCOPE_KINETO_PHASE_NONE) return 0;
        k->res.n_phase_annotations++;
        if (ev->kind == OPSCOPE_KINETO_ANNOTATION) {
            iv_t iv = {.start = ev->start_ns, .end = end, .thread = 0, .name = (uint32_t)ph};
            return OPSCOPE_VEC_PUSH(k->ann, iv);
        }
        iv_t iv = {.start = ev->start_ns, .end = end, .thread = (uint32_t)ev->device, .name = (uint32_t)ph};
        return OPSCOPE_VEC_PUSH(k->gann, iv);
    }
    case OPSCOPE_KINETO_RUNTIME:
    case OPSCOPE_KINETO_FLOW_START: {
        if (ev->corr < 0) return 0;
        rt_t rt = {.corr = ev->corr, .ts = ev->start_ns, .dur = ev->dur_ns > 0 ? ev->dur_ns : 0, .ext = ev->ext, .thread = (uint32_t)ev->thread,
                   .is_flow = ev->kind == OPSCOPE_KINETO_FLOW_START,
                   .name = ev->kind == OPSCOPE_KINETO_RUNTIME && ev->name_id < NAME31 ? ev->name_id : NAME31,
                   .seq = (uint32_t)k->rt.n};
        if (k->rt.n >= UINT32_MAX) return -1; /* call numbers are 32-bit */
        return OPSCOPE_VEC_PUSH(k->rt, rt);
    }
    case OPSCOPE_KINETO_COUNTERS: /* a kernel CUPTI's profiler measured (cupti.h) */
        return (!k->cupti && !(k->cupti = opscope_cupti_new())) || opscope_cupti_add(k->cupti, ev) ? -1 : 0;
    case OPSCOPE_KINETO_SYNC: { /* the critical path's (critical_path.c); HTA's span and sequences */
        if (ev->stream == -1) return 0;
        gpu_t g = {.start = ev->start_ns, .dur = ev->dur_ns > 0 ? ev->dur_ns : 0, .corr = ev->corr, .name = ev->name_id};
        return kbreak_add(k, ev) || OPSCOPE_VEC_PUSH(k->sync, g) ? -1 : 0;
    }
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* Sorting and the enclosure sweep.                                                          */

static int cmp_i64(int64_t a, int64_t b) { return (a > b) - (a < b); }
static int cmp_u64(uint64_t a, uint64_t b) { return (a > b) - (a < b); }

/* By thread, start ascending, end descending: for equal starts the shorter is pushed last. */
static int iv_cmp(const void *pa, const void *pb) {
    const iv_t *a = pa, *b = pb;
    int c = cmp_u64(a->thread, b->thread);
    if (!c) c = cmp_i64(a->start, b->start);
    if (!c) c = cmp_i64(b->end, a->end);
    return c;
}

static int q_cmp(const void *pa, const void *pb) {
    const q_t *a = pa, *b = pb;
    int c = cmp_u64(a->thread, b->thread);
    if (!c) c = cmp_i64(a->t, b->t);
    if (!c) c = (a->idx > b->idx) - (a->idx < b->idx);
    return c;
}

static int rt_cmp(const void *pa, const void *pb) {
    const rt_t *a = pa, *b = pb;
    int c = cmp_i64(a->corr, b->corr);
    if (!c) c = (a->is_flow > b->is_flow) - (a->is_flow < b->is_flow);
    return c;
}

static void sort_checked(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));

static inline int less_rt(const rt_t *a, const rt_t *b) {
    return a->corr != b->corr ? a->corr < b->corr : a->is_flow < b->is_flow;
}
/* the comparisons inlined: runtime calls come in a few hundred runs of rising correlation ids,
 * which qsort through a function pointer sorted in 4% of a report */
OPSCOPE_SORT_RUNS_DEFINE(sort_rt, rt_t, less_rt, rt_cmp)

static inline int less_q(const q_t *a, const q_t *b) {
    if (a->thread != b->thread) return a->thread < b->thread;
    return a->t != b->t ? a->t < b->t : a->idx < b->idx;
}
OPSCOPE_SORT_RUNS_DEFINE(sort_q, q_t, less_q, q_cmp)

/*
 * Stable counting sort of N elements of SIZE bytes (at most 32) on the uint32 thread at byte
 * KEY (each below NB - 1), in place: it keeps each element's destination (4 bytes) and follows
 * the permutation's cycles, where a sorted copy would cost the array's size again at the
 * finish's memory peak (12 MB and 3K page faults on the 200 MB bench trace, measured).
 * 0, or -1 when out of memory (nothing moved).
 */
static int by_thread(void *base, size_t n, size_t size, size_t key, size_t nb) {
    if (n > UINT32_MAX || size > 32) return -1;
    size_t *off = calloc(nb, sizeof *off);
    uint32_t *dest = malloc((n ? n : 1) * sizeof *dest);
    if (!off || !dest) {
        free(off);
        free(dest);
        return -1;
    }
    char *b = base;
    uint32_t th;
    for (size_t i = 0; i < n; i++) {
        memcpy(&th, b + i * size + key, sizeof th);
        off[th + 1]++;
    }
    for (size_t i = 1; i < nb; i++) off[i] += off[i - 1];
    for (size_t i = 0; i < n; i++) {
        memcpy(&th, b + i * size + key, sizeof th);
        dest[i] = (uint32_t)off[th]++;
    }
    free(off);
    unsigned char t[32];
    for (size_t i = 0; i < n; i++) {
        while (dest[i] != i) { /* the element at i goes to j; j's comes to i */
            uint32_t j = dest[i];
            memcpy(t, b + (size_t)j * size, size);
            memcpy(b + (size_t)j * size, b + i * size, size);
            memcpy(b + i * size, t, size);
            dest[i] = dest[j];
            dest[j] = j;
        }
    }
    free(dest);
    return 0;
}

/*
 * Sorts intervals (or queries) by thread, then by the per-thread order: a counting sort on
 * the dense thread index, then a check per thread, since Kineto writes each thread's events
 * in time order and a full comparison sort of millions of CPU ops would dominate the report.
 */
static int iv_sort(iv_t *v, size_t n) {
    uint64_t max_thr = 0;
    int sorted = 1;
    for (size_t i = 0; i < n; i++) {
        if (v[i].thread > max_thr) max_thr = v[i].thread;
        if (i && sorted && iv_cmp(&v[i - 1], &v[i]) > 0) sorted = 0;
    }
    if (sorted) return 0;
    if (max_thr > n || max_thr > (1u << 24)) {
        opscope_sort(v, n, sizeof *v, iv_cmp);
        return 0;
    }
    if (by_thread(v, n, sizeof *v, offsetof(iv_t, thread), (size_t)max_thr + 2)) {
        opscope_sort(v, n, sizeof *v, iv_cmp);
        return 0;
    }
    for (size_t i = 0; i < n;) {
        size_t j = i + 1, ok = 1;
        for (; j < n && v[j].thread == v[i].thread; j++)
            if (ok && iv_cmp(&v[j - 1], &v[j]) > 0) ok = 0;
        if (!ok) sort_checked(v + i, j - i, sizeof *v, iv_cmp);
        i = j;
    }
    return 0;
}

static int seg_cmp(const void *pa, const void *pb) {
    const ivseg *a = pa, *b = pb;
    if (a->thread != b->thread) return a->thread < b->thread ? -1 : 1;
    return (a->begin > b->begin) - (a->begin < b->begin);
}

/* W: V's runs of one thread, by thread (a run per thread once V is sorted). */
static int view_runs(const iv_t *v, size_t n, ivview *w) {
    size_t ns = 0;
    for (size_t i = 0; i < n; i++) ns += !i || v[i].thread != v[i - 1].thread;
    w->s = malloc((ns ? ns : 1) * sizeof *w->s);
    w->pos = malloc((ns + 1) * sizeof *w->pos);
    if (!w->s || !w->pos) return -1;
    w->n = 0;
    for (size_t i = 0; i < n; i++) {
        if (!i || v[i].thread != v[i - 1].thread) w->s[w->n++] = (ivseg){v[i].thread, (uint32_t)i, (uint32_t)i};
        w->s[w->n - 1].end = (uint32_t)(i + 1);
    }
    opscope_sort(w->s, w->n, sizeof *w->s, seg_cmp);
    w->pos[0] = 0;
    for (size_t i = 0; i < w->n; i++) w->pos[i + 1] = w->pos[i] + (w->s[i].end - w->s[i].begin);
    return 0;
}

/*
 * W: V (N intervals) in iv_cmp order. Read through its runs when each thread's intervals are
 * in order across them and the runs are long (8 or more intervals on average); else V is
 * sorted first (iv_sort) and the view has a run per thread. 0, or -1 when out of memory.
 */
static int iv_order(iv_t *v, size_t n, ivview *w) {
    ivview_free(w);
    if (n >= UINT32_MAX) return -1;
    size_t ns = 0;
    int in_runs = 1;
    for (size_t i = 0; i < n; i++) {
        if (!i || v[i].thread != v[i - 1].thread) ns++;
        else if (in_runs && iv_cmp(&v[i - 1], &v[i]) > 0) in_runs = 0;
    }
    if (in_runs && ns <= n / 8 + 1) {
        if (view_runs(v, n, w)) return -1;
        for (size_t i = 1; i < w->n && in_runs; i++) /* where a thread goes on in its next run */
            if (w->s[i].thread == w->s[i - 1].thread && iv_cmp(&v[w->s[i - 1].end - 1], &v[w->s[i].begin]) > 0)
                in_runs = 0;
        if (in_runs) return 0;
        ivview_free(w);
    }
    if (iv_sort(v, n)) return -1;
    return view_runs(v, n, w);
}

/* A reader of a view in its order: at run SI, interval P. */
typedef struct ivcur {
    const ivview *w;
    size_t si, p;
} ivcur;

static inline ivcur ivcur_begin(const ivview *w) { return (ivcur){w, 0, w->n ? w->s[0].begin : 0}; }
static inline bool ivcur_ok(const ivcur *c) { return c->si < c->w->n; }
static inline uint32_t ivcur_thread(const ivcur *c) { return c->w->s[c->si].thread; }
static inline void ivcur_next(ivcur *c) {
    if (++c->p == c->w->s[c->si].end && ++c->si < c->w->n) c->p = c->w->s[c->si].begin;
}
/* To the first interval of the first run of a thread >= TH. */
static inline void ivcur_to_thread(ivcur *c, uint64_t th) {
    if (!ivcur_ok(c) || ivcur_thread(c) >= th) return;
    while (ivcur_ok(c) && ivcur_thread(c) < th) c->si++;
    if (ivcur_ok(c)) c->p = c->w->s[c->si].begin;
}

static void q_sort(q_t *q, size_t n) {
    uint64_t max_thr = 0;
    int sorted = 1;
    for (size_t i = 0; i < n; i++) {
        if (q[i].thread > max_thr) max_thr = q[i].thread;
        if (i && sorted && q_cmp(&q[i - 1], &q[i]) > 0) sorted = 0;
    }
    if (sorted) return;
    size_t nb = max_thr < n && max_thr < (1u << 24) ? (size_t)max_thr + 2 : 0;
    if (!nb || by_thread(q, n, sizeof *q, offsetof(q_t, thread), nb)) {
        opscope_sort(q, n, sizeof *q, q_cmp);
        return;
    }
    for (size_t i = 0; i < n;) {
        size_t j = i + 1, ok = 1;
        for (; j < n && q[j].thread == q[i].thread; j++)
            if (ok && q_cmp(&q[j - 1], &q[j]) > 0) ok = 0;
        if (!ok) sort_q(q + i, j - i);
        i = j;
    }
}

/*
 * Natural merge sort: Kineto output is nearly sorted (a few ascending runs from interleaved
 * threads or streams), so merging the runs beats a comparison sort from scratch. Falls back
 * to qsort when there are many runs or no memory for the merge buffer.
 */
static void sort_checked(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *)) {
    char *b = base;
    size_t cap = 64, nr = 0;
    size_t *run = malloc((cap + 1) * sizeof *run);
    if (!run) {
        opscope_sort(base, n, size, cmp);
        return;
    }
    run[nr++] = 0;
    for (size_t i = 1; i < n; i++) {
        if (cmp(b + (i - 1) * size, b + i * size) <= 0) continue;
        if (nr == cap) { /* too many runs: not worth merging */
            free(run);
            opscope_sort(base, n, size, cmp);
            return;
        }
        run[nr++] = i;
    }
    if (nr == 1) {
        free(run);
        return;
    }
    run[nr] = n;
    char *tmp = malloc(n * size);
    if (!tmp) {
        free(run);
        opscope_sort(base, n, size, cmp);
        return;
    }
    char *src = b, *dst = tmp;
    while (nr > 1) {
        size_t out = 0;
        for (size_t r = 0; r < nr; r += 2) {
            size_t lo = run[r], mid = run[r + 1], hi = r + 2 <= nr ? run[r + 2] : mid;
            if (r + 1 >= nr) { /* odd run out: copy */
                memcpy(dst + lo * size, src + lo * size, (mid - lo) * size);
                run[out++] = lo;
                continue;
            }
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) {
                if (cmp(src + j * size, src + i * size) < 0) memcpy(dst + k++ * size, src + j++ * size, size);
                else memcpy(dst + k++ * size, src + i++ * size, size);
            }
            memcpy(dst + k * size, src + i * size, (mid - i) * size);
            k += mid - i;
            memcpy(dst + k * size, src + j * size, (hi - j) * size);
            run[out++] = lo;
        }
        run[out] = n;
        nr = out;
        char *t = src;
        src = dst;
        dst = t;
    }
    if (src != b) memcpy(b, src, n * size);
    free(tmp);
    free(run);
}

/*
 * For each query (sorted by thread, t), OUT[q.idx] = name of the interval of the same thread
 * that contains t with the latest start (ties: the shortest); untouched when none. OUT_IDX (may
 * be NULL) gets that interval's index in IV, + 1. IV is read in the order of W (iv_order). A
 * stack of open intervals makes it exact even for improper nesting: an interval leaves the
 * stack only once it ended before a later query time.
 */
static int sweep(const iv_t *iv, const ivview *w, const q_t *q, size_t nq, uint32_t *out, uint32_t *out_idx) {
    size_t cap = 64, top = 0;
    const iv_t **st = malloc(cap * sizeof *st);
    if (!st) return -1;
    ivcur c = ivcur_begin(w);
    uint64_t cur = UINT64_MAX;
    for (size_t k = 0; k < nq; k++) {
        if (q[k].thread != cur) {
            cur = q[k].thread;
            top = 0;
            ivcur_to_thread(&c, cur);
        }
        int64_t t = q[k].t;
        while (ivcur_ok(&c) && ivcur_thread(&c) == cur && iv[c.p].start <= t) {
            const iv_t *x = &iv[c.p];
            while (top && st[top - 1]->end < x->start) top--;
            if (top == cap) {
                const iv_t **ns = realloc(st, cap * 2 * sizeof *st);
                if (!ns) {
                    free(st);
                    return -1;
                }
                st = ns;
                cap *= 2;
            }
            st[top++] = x;
            ivcur_next(&c);
        }
        while (top && st[top - 1]->end < t) top--;
        if (top) {
            out[q[k].idx] = st[top - 1]->name;
            if (out_idx) out_idx[q[k].idx] = (uint32_t)(st[top - 1] - iv) + 1;
        }
    }
    free(st);
    return 0;
}

/* SWEEP over V's N intervals in a view of its own, made and freed here (the CPU ops keep
 * theirs: k->cpu_view). 0, or -1 when out of memory. */
static int sweep_once(iv_t *v, size_t n, const q_t *q, size_t nq, uint32_t *out) {
    ivview w = {0};
    int rc = iv_order(v, n, &w) || sweep(v, &w, q, nq, out, NULL) ? -1 : 0;
    ivview_free(&w);
    return rc;
}

/* ---------------------------------------------------------------------------------------- */
/* External id -> CPU op name: the names in a vector, a hash index over them. The hash of an
 * id is opscope_mix64 of it, a bijection, so an equal hash is an equal id: the index's slots
 * are the keys and the entries keep only the names (a trace has ~1e5 CPU ops). */

typedef struct xmap {
    OPSCOPE_VEC(uint32_t) val;
    opscope_hindex index;
} xmap;

static int xmap_init(xmap *m, size_t n) {
    return opscope_hindex_init(&m->index, n) ||
           opscope_vec_reserve((void **)&m->val.v, &m->val.cap, n, sizeof *m->val.v, 16) ? -1 : 0;
}

static void xmap_free(xmap *m) {
    free(m->val.v);
    opscope_hindex_free(&m->index);
}

static bool xmap_eq(const void *ctx, uint32_t id, const void *key) {
    (void)ctx, (void)id, (void)key;
    return true; /* the hashes matched: the ids are equal */
}

/* KEY's value becomes VAL (the last put wins). 0, or -1 when out of memory. */
static int xmap_put(xmap *m, int64_t key, uint32_t val) {
    uint64_t h = opscope_mix64((uint64_t)key);
    uint32_t id = opscope_hindex_find(&m->index, h, NULL, xmap_eq, NULL);
    if (id != OPSCOPE_HINDEX_NONE) {
        m->val.v[id] = val;
        return 0;
    }
    if (OPSCOPE_VEC_PUSH(m->val, val)) return -1;
    if (!opscope_hindex_add(&m->index, h, (uint32_t)(m->val.n - 1))) return 0;
    m->val.n--;
    return -1;
}

/* The value of KEY, or NO_NAME; *SLOT (may be NULL) gets the key's entry, which identifies it. */
static uint32_t xmap_get(const xmap *m, int64_t key, size_t *slot) {
    if (key < 0) return NO_NAME;
    uint32_t id = opscope_hindex_find(&m->index, opscope_mix64((uint64_t)key), NULL, xmap_eq, NULL);
    if (id == OPSCOPE_HINDEX_NONE) return NO_NAME;
    if (slot) *slot = id;
    return m->val.v[id];
}

/* ---------------------------------------------------------------------------------------- */

static int agg_cmp(const void *pa, const void *pb) {
    const opscope_kineto_agg *a = pa, *b = pb;
    if (a->ns != b->ns) return a->ns < b->ns ? 1 : -1;
    return (a->name_id > b->name_id) - (a->name_id < b->name_id);
}

/* Top OPSCOPE_KINETO_TOP names by ns from per-name arrays (index n_names = "(none)"). */
static int top_of(const uint64_t *cnt, const uint64_t *ns, size_t n_names,
                  opscope_kineto_agg **out, size_t *n_out) {
    size_t n = 0;
    for (size_t i = 0; i <= n_names; i++) n += cnt[i] != 0;
    opscope_kineto_agg *a = malloc((n ? n : 1) * sizeof *a);
    if (!a) return -1;
    n = 0;
    for (size_t i = 0; i <= n_names; i++)
        if (cnt[i]) a[n++] = (opscope_kineto_agg){i == n_names ? NO_NAME : (uint32_t)i, cnt[i], ns[i]};
    opscope_sort(a, n, sizeof *a, agg_cmp);
    *n_out = n < OPSCOPE_KINETO_TOP ? n : OPSCOPE_KINETO_TOP;
    *out = a;
    return 0;
}

static int gpu_time_cmp(const void *pa, const void *pb) {
    const gpu_t *a = pa, *b = pb;
    int c = cmp_i64(a->device, b->device);
    if (!c) c = cmp_i64(a->stream, b->stream);
    if (!c) c = cmp_i64(a->start, b->start);
    if (!c) c = cmp_i64(a->dur, b->dur);
    return c;
}

static int corr_idx_cmp(const void *pa, const void *pb, void *ud) {
    const gpu_t *g = ud;
    size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
    int c = cmp_i64(g[a].corr, g[b].corr);
    return c ? c : (a > b) - (a < b);
}

static void gap_offer(opscope_kineto_results *r, int64_t dev, int64_t stream, uint64_t start,
                      uint64_t len) {
    if (!len) return;
    size_t n = r->n_gaps;
    if (n == OPSCOPE_KINETO_TOP && r->gaps[n - 1].len_ns >= len) return;
    if (n < OPSCOPE_KINETO_TOP) r->n_gaps = ++n;
    size_t i = n - 1;
    while (i > 0 && r->gaps[i - 1].len_ns < len) {
        r->gaps[i] = r->gaps[i - 1];
        i--;
    }
    r->gaps[i] = (opscope_kineto_gap){dev, stream, start, len};
}

/* Class of a GPU activity for the stream breakdown: 0 compute, 1 communication, 2 memory. */
static int gpu_class(const gpu_t *g) {
    if (g->kind != OPSCOPE_KINETO_KERNEL) return 2;
    if (g->kcat == OPSCOPE_KCAT_COMM) return 1;
    if (g->kcat == OPSCOPE_KCAT_MEMORY) return 2;
    return 0;
}

static int streams_finish(opscope_kineto_t *k) {
    opscope_kineto_results *r = &k->res;
    gpu_t *g = k->gpu.v;
    size_t n = k->gpu.n;
    sort_checked(g, n, sizeof *g, gpu_time_cmp);
    size_t ns = 0;
    for (size_t i = 0; i < n; i++)
        if (!i || g[i].device != g[i - 1].device || g[i].stream != g[i - 1].stream) ns++;
    r->streams = calloc(ns ? ns : 1, sizeof *r->streams);
    if (!r->streams) return -1;
    size_t i = 0;
    while (i < n) {
        opscope_kineto_stream *s = &r->streams[r->n_streams++];
        s->device = g[i].device;
        s->stream = g[i].stream;
        s->first_ns = (uint64_t)g[i].start;
        int64_t u_s = g[i].start, u_e = g[i].start; /* current merged run (all classes) */
        int64_t c_s[3], c_e[3];
        uint64_t c_tot[3] = {0, 0, 0};
        int c_open[3] = {0, 0, 0};
        int64_t max_end = g[i].start;
        size_t j = i;
        for (; j < n && g[j].device == s->device && g[j].stream == s->stream; j++) {
            int64_t a = g[j].start, b = g[j].start + g[j].dur;
            s->n++;
            if (j > i && a < max_end) s->overlapped++;
            if (b > max_end) max_end = b;
            if (a > u_e) {
                s->busy_ns += (uint64_t)(u_e - u_s);
                if (j > i) gap_offer(r, s->device, s->stream, (uint64_t)u_e, (uint64_t)(a - u_e));
                u_s = a;
                u_e = b;
            } else if (b > u_e) {
                u_e = b;
            }
            int c = gpu_class(&g[j]);
            if (!c_open[c] || a > c_e[c]) {
                if (c_open[c]) c_tot[c] += (uint64_t)(c_e[c] - c_s[c]);
                c_s[c] = a;
                c_e[c] = b;
                c_open[c] = 1;
            } else if (b > c_e[c]) {
                c_e[c] = b;
            }
        }
        s->busy_ns += (uint64_t)(u_e - u_s);
        for (int c = 0; c < 3; c++)
            if (c_open[c]) c_tot[c] += (uint64_t)(c_e[c] - c_s[c]);
        s->compute_ns = c_tot[0];
        s->comm_ns = c_tot[1];
        s->memory_ns = c_tot[2];
        s->last_ns = (uint64_t)max_end;
        s->idle_ns = s->last_ns - s->first_ns - s->busy_ns;
        i = j;
    }
    return 0;
}

/* opscope_busy_get_fn over the GPU activities (UD: gpu_t[]). */
static void gpu_iv(const void *ud, size_t i, int64_t *start, int64_t *end) {
    const gpu_t *g = (const gpu_t *)ud + i;
    *start = g->start;
    *end = g->start + g->dur;
}

static int step_cmp(const void *pa, const void *pb) {
    const opscope_kineto_step *a = pa, *b = pb;
    return a->start_ns < b->start_ns ? -1 : a->start_ns > b->start_ns;
}

/* Steps, the window, GPU busy per device and top-level CPU time in it. Runs after
 * streams_finish (GPU activities sorted by device) and the CPU op sort (by thread, start). */
static int cpu_side_finish(opscope_kineto_t *k) {
    opscope_kineto_results *r = &k->res;
    const gpu_t *g = k->gpu.v;
    size_t n = k->gpu.n;
    sort_checked(k->steps.v, k->steps.n, sizeof *k->steps.v, step_cmp);
    r->steps = k->steps.v;
    r->n_steps = k->steps.n;
    k->steps.v = NULL;
    k->steps.n = k->steps.cap = 0;
    int64_t ws = 0, we = 0;
    if (r->n_steps) {
        ws = (int64_t)r->steps[0].start_ns;
        for (size_t i = 0; i < r->n_steps; i++)
            if ((int64_t)(r->steps[i].start_ns + r->steps[i].dur_ns) > we)
                we = (int64_t)(r->steps[i].start_ns + r->steps[i].dur_ns);
    } else if (n) {
        ws = g[0].start;
        for (size_t i = 0; i < n; i++) {
            if (g[i].start < ws) ws = g[i].start;
            if (g[i].start + g[i].dur > we) we = g[i].start + g[i].dur;
        }
    } else if (k->cpu.n) { /* a CPU-only trace without steps: its CPU ops' span */
        ws = k->cpu.v[0].start;
        for (size_t i = 0; i < k->cpu.n; i++) {
            if (k->cpu.v[i].start < ws) ws = k->cpu.v[i].start;
            if (k->cpu.v[i].end > we) we = k->cpu.v[i].end;
        }
    }
    if (we < ws) we = ws;
    r->window_start_ns = (uint64_t)ws;
    r->window_ns = (uint64_t)(we - ws);
    size_t nd = 0;
    for (size_t i = 0; i < n; i++)
        if (!i || g[i].device != g[i - 1].device) nd++;
    r->devices = calloc(nd ? nd : 1, sizeof *r->devices);
    if (!r->devices) return -1;
    /* each device's streams are runs sorted by start (streams_finish): their exact union */
    opscope_busy_run *runs = malloc((r->n_streams ? r->n_streams : 1) * sizeof *runs);
    if (!runs) return -1;
    uint64_t gpu_busy_max = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i, nr = 0;
        for (; j < n && g[j].device == g[i].device; j++)
            if (j == i || g[j].stream != g[j - 1].stream) {
                if (nr) runs[nr - 1].end = j;
                runs[nr++] = (opscope_busy_run){j, n};
            }
        runs[nr - 1].end = j;
        opscope_kineto_device_busy *d = &r->devices[r->n_devices++];
        d->device = g[i].device;
        if (opscope_busy_runs_total(runs, nr, gpu_iv, g, ws, we, &d->busy_ns)) {
            free(runs);
            return -1;
        }
        d->idle_ns = r->window_ns - d->busy_ns;
        if (d->busy_ns > gpu_busy_max) gpu_busy_max = d->busy_ns;
        i = j;
    }
    free(runs);
    /* top-level CPU op time: CPU ops by thread, then start (outer ops first) */
    const iv_t *c = k->cpu.v;
    for (ivcur i = ivcur_begin(&k->cpu_view); ivcur_ok(&i);) {
        uint64_t t = 0;
        int64_t cur_s = 0, cur_e = INT64_MIN;
        uint32_t th = ivcur_thread(&i);
        for (; ivcur_ok(&i) && ivcur_thread(&i) == th; ivcur_next(&i)) {
            const iv_t *x = &c[i.p];
            int64_t a = x->start > ws ? x->start : ws, e = x->end < we ? x->end : we;
            if (e <= a) continue;
            if (a > cur_e) {
                if (cur_e > cur_s) t += (uint64_t)(cur_e - cur_s);
                cur_s = a;
                cur_e = e;
            } else if (e > cur_e) {
                cur_e = e;
            }
        }
        if (cur_e > cur_s) t += (uint64_t)(cur_e - cur_s);
        if (t > r->cpu_top_ns) r->cpu_top_ns = t;
    }
    r->cpu_bound = r->window_ns && r->n_devices && 2 * gpu_busy_max < r->window_ns &&
                   2 * r->cpu_top_ns > r->window_ns;
    if (!n && k->cpu.n) r->cpu_bound = true; /* a CPU-only job: its CPU is all it runs on */
    return 0;
}

static int layers_finish(opscope_kineto_t *k) {
    opscope_kineto_results *r = &k->res;
    gpu_t *g = k->gpu.v;
    size_t m = 0;
    size_t *idx = malloc((k->gpu.n ? k->gpu.n : 1) * sizeof *idx);
    if (!idx) return -1;
    for (size_t i = 0; i < k->gpu.n; i++)
        if (g[i].kind == OPSCOPE_KINETO_KERNEL && g[i].corr >= 0) idx[m++] = i;
    for (size_t i = 1; i < m; i++)
        if (corr_idx_cmp(&idx[i - 1], &idx[i], (void *)g) > 0) {
            opscope_sort_r(idx, m, sizeof *idx, corr_idx_cmp, (void *)g);
            break;
        }
    size_t i = 0;
    while (i < m) {
        size_t j = i;
        uint64_t cnt = 0, ns = 0;
        int attn = 0, gemm = 0;
        for (; j < m && g[idx[j]].corr == g[idx[i]].corr; j++) {
            const gpu_t *x = &g[idx[j]];
            cnt++;
            ns += (uint64_t)x->dur;
            if (x->kcat == OPSCOPE_KCAT_ATTN_PREFILL || x->kcat == OPSCOPE_KCAT_ATTN_DECODE) attn = 1;
            if (x->kcat == OPSCOPE_KCAT_GEMM || x->kcat == OPSCOPE_KCAT_MOE_GEMM) gemm = 1;
        }
        if (cnt >= LAYER_MIN_KERNELS && attn && gemm) {
            r->layer_method = 1;
            for (size_t x = i; x < j; x++) g[idx[x]].layer = (uint32_t)r->n_layers;
            if (!r->n_layers || ns < r->layer_min_ns) r->layer_min_ns = ns;
            if (ns > r->layer_max_ns) r->layer_max_ns = ns;
            r->n_layers++;
            r->layer_kernels += cnt;
            r->layer_ns += ns;
        }
        i = j;
    }
    free(idx);
    return 0;
}

static int is_attn(const gpu_t *g) {
    return g->kind == OPSCOPE_KINETO_KERNEL &&
           (g->kcat == OPSCOPE_KCAT_ATTN_PREFILL || g->kcat == OPSCOPE_KCAT_ATTN_DECODE);
}

static void layer_add(opscope_kineto_results *r, uint64_t cnt, uint64_t ns) {
    if (!r->n_layers || ns < r->layer_min_ns) r->layer_min_ns = ns;
    if (ns > r->layer_max_ns) r->layer_max_ns = ns;
    r->n_layers++;
    r->layer_kernels += cnt;
    r->layer_ns += ns;
}

/*
 * Eager traces (one launch per kernel): on the stream with the most attention kernels, each
 * attention kernel opens a layer that runs to the next attention kernel (or the stream's end)
 * and counts when it holds a GEMM. GPU activities must be sorted by (device, stream, start).
 */
static void layers_by_attention(opscope_kineto_t *k) {
    opscope_kineto_results *r = &k->res;
    gpu_t *g = k->gpu.v;
    size_t n = k->gpu.n, best_lo = 0, best_hi = 0;
    uint64_t best = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        uint64_t a = 0;
        for (; j < n && g[j].device == g[i].device && g[j].stream == g[i].stream; j++) a += is_attn(&g[j]);
        if (a > best) {
            best = a;
            best_lo = i;
            best_hi = j;
        }
        i = j;
    }
    if (best < 2) return;
    size_t i = best_lo;
    while (i < best_hi && !is_attn(&g[i])) i++;
    while (i < best_hi) {
        uint64_t cnt = 0, ns = 0;
        int gemm = 0;
        size_t j = i;
        do {
            if (g[j].kind == OPSCOPE_KINETO_KERNEL) {
                cnt++;
                ns += (uint64_t)g[j].dur;
                gemm |= g[j].kcat == OPSCOPE_KCAT_GEMM || g[j].kcat == OPSCOPE_KCAT_MOE_GEMM;
            }
            j++;
        } while (j < best_hi && !is_attn(&g[j]));
        if (gemm) {
            for (size_t x = i; x < j; x++)
                if (g[x].kind == OPSCOPE_KINETO_KERNEL) g[x].layer = (uint32_t)r->n_layers;
            layer_add(r, cnt, ns);
        }
        i = j;
    }
    if (r->n_layers) r->layer_method = 2;
}

/* The index of the profiler step (k->steps, sorted) whose window holds T, or NO_NAME. */
static uint32_t step_at(const opscope_kineto_t *k, int64_t t) {
    size_t lo = 0, hi = k->steps.n;
    while (lo < hi) { /* the last step starting at or before T */
        size_t mid = lo + (hi - lo) / 2;
        if ((int64_t)k->steps.v[mid].start_ns <= t) lo = mid + 1;
        else hi = mid;
    }
    if (!lo) return NO_NAME;
    const opscope_kineto_step *st = &k->steps.v[lo - 1];
    return t <= (int64_t)(st->start_ns + st->dur_ns) ? (uint32_t)(lo - 1) : NO_NAME;
}

/*
 * Layer ordinals folded over repeated passes: the layers found (numbered in time order) are
 * cut into runs of one profiler step and one phase, and each run numbers its layers from 0;
 * backward runs from the last (the backward pass visits layer 11 first). A 12-layer model
 * trained for 3 steps has layers 0-11, each with its forward and backward kernels of every
 * step, not 72. The first kernel of a layer gives its step and phase.
 */
static int layers_fold(opscope_kineto_t *k) {
    size_t nl = (size_t)k->res.n_layers, ng = k->gpu.n;
    uint32_t *step = malloc(nl * sizeof *step), *fold = malloc(nl * sizeof *fold);
    uint8_t *phase = malloc(nl), *seen = calloc(nl, 1);
    int rc = -1;
    if (!step || !fold || !phase || !seen) goto out;
    for (size_t i = 0; i < ng; i++) {
        const gpu_t *g = &k->gpu.v[i];
        if (g->layer == NO_NAME || g->layer >= nl || seen[g->layer]) continue;
        seen[g->layer] = 1;
        step[g->layer] = g->step;
        phase[g->layer] = g->phase;
    }
    for (size_t a = 0; a < nl;) {
        size_t b = a;
        while (b < nl && seen[b] == seen[a] && step[b] == step[a] && phase[b] == phase[a]) b++;
        for (size_t x = a; x < b; x++)
            fold[x] = (uint32_t)(phase[a] == OPSCOPE_KINETO_PHASE_BACKWARD ? b - 1 - x : x - a);
        a = b;
    }
    uint32_t most = 0;
    for (size_t i = 0; i < ng; i++) {
        gpu_t *g = &k->gpu.v[i];
        if (g->layer == NO_NAME || g->layer >= nl) continue;
        g->layer = fold[g->layer];
        if (g->layer + 1 > most) most = g->layer + 1;
    }
    k->res.n_layers_folded = most;
    rc = 0;
out:
    free(step);
    free(fold);
    free(phase);
    free(seen);
    return rc;
}

/* Per GPU activity, the training phase of the innermost backward op or optimizer step
 * around its launch (LAUNCH_T on thread LAUNCH_THR, UINT64_MAX: unknown), NO_NAME when none.
 * Q: scratch for one query per activity. NULL when the trace marks no training phase (or
 * out of memory: the caller tells them apart by k->train.n). */
static uint32_t *train_phases(opscope_kineto_t *k, const int64_t *launch_t, const uint64_t *launch_thr,
                              q_t *q) {
    size_t ng = k->gpu.n, nq = 0;
    if (!k->train.n) return NULL;
    uint32_t *out = malloc((ng ? ng : 1) * sizeof *out);
    if (!out) return NULL;
    for (size_t i = 0; i < ng; i++) {
        out[i] = NO_NAME;
        if (launch_thr[i] != UINT64_MAX)
            q[nq++] = (q_t){.t = launch_t[i], .thread = (uint32_t)launch_thr[i], .idx = (uint32_t)i};
    }
    q_sort(q, nq);
    if (sweep_once(k->train.v, k->train.n, q, nq, out)) {
        free(out);
        return NULL;
    }
    return out;
}

/* The finish's per-GPU-activity scratch, indexed like k->gpu. */
typedef struct fin_t {
    uint32_t *cpu_of, *cpu_idx, *py_of, *ph_of, *gph_of;
    q_t *q;
    size_t nq;              /* queries in q from step 1 (activities with a launching call) */
    int64_t *launch_t;      /* launching call's start, else the activity's own */
    uint64_t *launch_thr;   /* launching call's thread, UINT64_MAX: none */
    opscope_kineto_link *lk; /* k->links while it is being filled, NULL when not kept */
    xmap xm;
} fin_t;

static void fin_free(fin_t *f) {
    xmap_free(&f->xm);
    free(f->q);
    free(f->cpu_of);
    free(f->cpu_idx);
    free(f->py_of);
    free(f->ph_of);
    free(f->gph_of);
    free(f->launch_t);
    free(f->launch_thr);
}

static int fin_alloc(opscope_kineto_t *k, fin_t *f) {
    size_t ng = k->gpu.n, n = ng ? ng : 1;
    if (ng >= UINT32_MAX) return -1; /* query indices are 32-bit */
    f->cpu_of = malloc(n * sizeof *f->cpu_of);
    f->cpu_idx = calloc(n, sizeof *f->cpu_idx);
    f->py_of = malloc(n * sizeof *f->py_of);
    f->ph_of = malloc(n * sizeof *f->ph_of);
    f->gph_of = malloc(n * sizeof *f->gph_of);
    f->q = malloc(n * sizeof *f->q);
    f->launch_t = malloc(n * sizeof *f->launch_t);
    f->launch_thr = malloc(n * sizeof *f->launch_thr);
    if (!f->cpu_of || !f->cpu_idx || !f->py_of || !f->ph_of || !f->gph_of || !f->q || !f->launch_t ||
        !f->launch_thr)
        return -1;
    /* per GPU activity while computing (kernels only are kept, compacted at the end) */
    if (k->keep_links) {
        free(k->links);
        k->links = NULL;
        k->n_links = 0;
        f->lk = calloc(n, sizeof *f->lk);
        if (!f->lk || k->gpu_rec.n != ng) {
            free(f->lk);
            f->lk = NULL;
            return -1;
        }
        k->links = f->lk; /* freed with the collector whatever happens below */
    }
    return 0;
}

/* Index in k->rt (sorted by corr) of the runtime call with correlation id CORR, k->rt.n if none. */
static size_t rt_find(const opscope_kineto_t *k, int64_t corr) {
    size_t lo = 0, hi = k->rt.n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (k->rt.v[mid].corr < corr) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* 1. kernel -> launching call by correlation id (a runtime event before a flow start).
 * Memcpys and memsets are linked the same way (for the diff's attribution), but every
 * count of the report is over kernels. */
static void fin_link_runtime(opscope_kineto_t *k, fin_t *f) {
    opscope_kineto_results *r = &k->res;
    sort_rt(k->rt.v, k->rt.n);
    f->nq = 0;
    for (size_t i = 0; i < k->gpu.n; i++) {
        const gpu_t *g = &k->gpu.v[i];
        f->cpu_of[i] = f->py_of[i] = f->ph_of[i] = f->gph_of[i] = NO_NAME;
        f->launch_t[i] = g->start;
        f->launch_thr[i] = UINT64_MAX;
        if (f->lk)
            f->lk[i] = (opscope_kineto_link){.record = k->gpu_rec.v[i], .corr = g->corr, .launch_ns = -1,
                                             .launch_name = NO_NAME, .cpu_op = NO_NAME, .python = NO_NAME};
        if (g->corr < 0) continue;
        size_t lo = rt_find(k, g->corr);
        if (lo < k->rt.n && k->rt.v[lo].corr == g->corr) {
            if (g->kind == OPSCOPE_KINETO_KERNEL) r->link_runtime++;
            f->launch_t[i] = k->rt.v[lo].ts;
            f->launch_thr[i] = k->rt.v[lo].thread;
            if (f->lk) {
                f->lk[i].launch_ns = k->rt.v[lo].ts;
                f->lk[i].launch_name = k->rt.v[lo].name != NAME31 ? k->rt.v[lo].name : NO_NAME;
            }
            f->q[f->nq++] = (q_t){.t = f->launch_t[i], .thread = (uint32_t)f->launch_thr[i], .idx = (uint32_t)i};
        }
    }
}

/* 2. innermost CPU op enclosing the launching call on its thread; 4. python frames enclosing
 * it, for kernels still without a CPU op. The External id map is built first, while cpu_ext
 * is still parallel to cpu (the sort below reorders cpu). */
static int fin_enclose(opscope_kineto_t *k, fin_t *f) {
    if (xmap_init(&f->xm, k->cpu.n)) return -1;
    for (size_t i = 0; i < k->cpu.n; i++)
        if (k->cpu_ext.v[i] >= 0 && xmap_put(&f->xm, k->cpu_ext.v[i], k->cpu.v[i].name)) return -1;
    free(k->cpu_ext.v); /* read no more: its memory goes before the finish's peak */
    k->cpu_ext.v = NULL;
    k->cpu_ext.n = k->cpu_ext.cap = 0;
    q_sort(f->q, f->nq);
    if (iv_order(k->cpu.v, k->cpu.n, &k->cpu_view) ||
        sweep(k->cpu.v, &k->cpu_view, f->q, f->nq, f->cpu_of, f->cpu_idx))
        return -1;
    return k->py.n ? sweep_once(k->py.v, k->py.n, f->q, f->nq, f->py_of) : 0;
}

/* Activity I's CPU op: the enclosing one, else (3.) the op of the External id of the launching
 * call, then of the activity itself. Sets g->cpu_call and the link's kind; NO_NAME when none. */
static uint32_t fin_cpu_op(opscope_kineto_t *k, fin_t *f, size_t i) {
    opscope_kineto_results *r = &k->res;
    gpu_t *g = &k->gpu.v[i];
    int is_kernel = g->kind == OPSCOPE_KINETO_KERNEL;
    uint32_t op = f->cpu_of[i];
    /* A call is told apart by its interval (enclosure) or its External id's slot. */
    if (op != NO_NAME) {
        if (is_kernel) r->link_cpu_enclose++;
        if (f->lk) f->lk[i].cpu_link = OPSCOPE_KINETO_CPU_LINK_ENCLOSING;
        g->cpu_call = f->cpu_idx[i] & 0x7fffffffu;
        g->cpu_dims = k->cpu.v[f->cpu_idx[i] - 1].dims;
        return op;
    }
    size_t xslot = 0;
    if (f->launch_thr[i] != UINT64_MAX) op = xmap_get(&f->xm, k->rt.v[rt_find(k, g->corr)].ext, &xslot);
    if (op == NO_NAME) op = xmap_get(&f->xm, g->ext, &xslot);
    if (op != NO_NAME) {
        if (is_kernel) r->link_cpu_ext++;
        f->cpu_of[i] = op;
        if (f->lk) f->lk[i].cpu_link = OPSCOPE_KINETO_CPU_LINK_EXTERNAL_ID;
        g->cpu_call = 0x80000000u | (uint32_t)(xslot & 0x7fffffffu);
    }
    return op;
}

/* Every activity's CPU op, and the top CPU ops and python frames by kernel time. */
static int fin_cpu_ops(opscope_kineto_t *k, fin_t *f) {
    opscope_kineto_results *r = &k->res;
    size_t ng = k->gpu.n, n_names = opscope_strtab_count(k->names);
    int rc = -1;
    uint64_t *cnt = calloc(n_names + 1, sizeof *cnt), *nsum = calloc(n_names + 1, sizeof *nsum);
    if (!cnt || !nsum) goto done;
    for (size_t i = 0; i < ng; i++) {
        gpu_t *g = &k->gpu.v[i];
        uint32_t op = fin_cpu_op(k, f, i);
        g->cpu_op = op;
        if (g->kind != OPSCOPE_KINETO_KERNEL) continue;
        size_t slot = op == NO_NAME ? n_names : op;
        cnt[slot]++;
        nsum[slot] += (uint64_t)g->dur;
        if (op == NO_NAME) {
            if (f->py_of[i] != NO_NAME) r->link_python++;
            else r->link_none++;
        }
    }
    r->link_cpu = r->link_cpu_enclose + r->link_cpu_ext;
    if (top_of(cnt, nsum, n_names, &r->top_cpu_ops, &r->n_top_cpu_ops)) goto done;
    memset(cnt, 0, (n_names + 1) * sizeof *cnt);
    memset(nsum, 0, (n_names + 1) * sizeof *nsum);
    for (size_t i = 0; i < ng; i++) {
        if (k->gpu.v[i].kind != OPSCOPE_KINETO_KERNEL || f->cpu_of[i] != NO_NAME) continue;
        if (f->py_of[i] == NO_NAME) continue;
        cnt[f->py_of[i]]++;
        nsum[f->py_of[i]] += (uint64_t)k->gpu.v[i].dur;
    }
    if (top_of(cnt, nsum, n_names, &r->top_python, &r->n_top_python)) goto done;
    if (r->n_top_python && r->top_python[0].name_id == NO_NAME) r->n_top_python = 0;
    rc = 0;
done:
    free(cnt);
    free(nsum);
    return rc;
}

/* 5. phases: a GPU annotation around the kernel, else a CPU annotation around its launch, else
 * (training) the innermost backward op or optimizer step around the launch, else forward. */
static int fin_phases(opscope_kineto_t *k, fin_t *f) {
    opscope_kineto_results *r = &k->res;
    size_t ng = k->gpu.n;
    q_t *q = f->q;
    if (k->ann.n || k->gann.n) {
        for (size_t i = 0; i < ng; i++) q[i] = (q_t){.t = f->launch_t[i], .thread = 0, .idx = (uint32_t)i};
        q_sort(q, ng);
        if (sweep_once(k->ann.v, k->ann.n, q, ng, f->ph_of)) return -1;
        for (size_t i = 0; i < ng; i++)
            q[i] = (q_t){.t = k->gpu.v[i].start, .thread = (uint32_t)k->gpu.v[i].device, .idx = (uint32_t)i};
        q_sort(q, ng);
        if (sweep_once(k->gann.v, k->gann.n, q, ng, f->gph_of)) return -1;
    }
    sort_checked(k->steps.v, k->steps.n, sizeof *k->steps.v, step_cmp);
    for (size_t i = 0; i < ng; i++) k->gpu.v[i].step = step_at(k, f->launch_t[i]);
    uint32_t *tr_of = train_phases(k, f->launch_t, f->launch_thr, q);
    if (k->train.n && !tr_of) return -1;
    for (size_t i = 0; i < ng; i++) {
        gpu_t *g = &k->gpu.v[i];
        uint32_t ph = f->gph_of[i] != NO_NAME ? f->gph_of[i] : f->ph_of[i];
        if (ph == NO_NAME && tr_of) ph = tr_of[i] != NO_NAME ? tr_of[i] : OPSCOPE_KINETO_PHASE_FORWARD;
        if (ph == NO_NAME) ph = OPSCOPE_KINETO_PHASE_NONE;
        g->phase = (uint8_t)ph;
        if (g->kind != OPSCOPE_KINETO_KERNEL) continue;
        if (f->lk) {
            f->lk[i].cpu_op = f->cpu_of[i];
            f->lk[i].python = f->cpu_of[i] == NO_NAME ? f->py_of[i] : NO_NAME;
            f->lk[i].phase = (uint8_t)ph;
        }
        opscope_kineto_phase_stats *ps = &r->phase[ph];
        ps->kernels++;
        ps->ns += (uint64_t)g->dur;
        ps->cat_ns[g->kcat] += (uint64_t)g->dur;
    }
    free(tr_of);
    return 0;
}

/* The GPU activity sequences of every CPU op call (kseq.h); A[i] is activity i with its call. */
static int kseq_finish(opscope_kineto_t *k, const opscope_kstats_act *a, size_t n) {
    opscope_kseq_launch *l = malloc((n + k->sync.n + 1) * sizeof *l);
    if (!l) return -1;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (a[i].call_start == INT64_MIN) continue;
        const rt_t *c = &k->rt.v[rt_find(k, k->gpu.v[i].corr)];
        l[m++] = (opscope_kseq_launch){c->thread, k->gpu.v[i].name, c->ts, a[i].start, a[i].dur};
    }
    /* the sync events by the runtime call they come from, as the activities (HTA's sequences) */
    for (size_t i = 0; i < k->sync.n; i++) {
        const gpu_t *g = &k->sync.v[i];
        size_t r = g->corr >= 0 ? rt_find(k, g->corr) : k->rt.n;
        if (r >= k->rt.n || k->rt.v[r].corr != g->corr || k->rt.v[r].is_flow) continue;
        l[m++] = (opscope_kseq_launch){k->rt.v[r].thread, g->name, k->rt.v[r].ts, g->start, g->dur};
    }
    k->kseq = opscope_kseq_new(l, m);
    int rc = k->kseq ? 0 : -1;
    for (size_t i = 0; !rc && i < k->cpu.n; i++)
        rc = opscope_kseq_call(k->kseq, k->cpu.v[i].thread, k->cpu.v[i].name, k->cpu.v[i].start, k->cpu.v[i].end);
    if (!rc) rc = opscope_kseq_finish(k->kseq);
    free(l);
    return rc;
}

/* Each aten op call's kernels and delays (katen.h) over the "aten::" CPU ops and the kernel
 * launches among A (A[i]: activity i with its call). */
static int katen_finish(opscope_kineto_t *k, const opscope_kstats_act *a, size_t n) {
    size_t n_names = opscope_strtab_count(k->names), m = 0, no = 0;
    uint8_t *aten = calloc(n_names ? n_names : 1, 1); /* per name id: 0 unknown, 1 no, 2 aten */
    opscope_katen_op *ops = malloc((k->cpu.n ? k->cpu.n : 1) * sizeof *ops);
    opscope_katen_launch *l = malloc((n ? n : 1) * sizeof *l);
    int rc = aten && ops && l ? 0 : -1;
    for (size_t i = 0; !rc && i < k->cpu.n; i++) {
        uint32_t nm = k->cpu.v[i].name;
        if (nm >= n_names) continue;
        if (!aten[nm]) aten[nm] = (uint8_t)(1 + !strncmp(opscope_strtab_get(k->names, nm), "aten::", 6));
        if (aten[nm] == 2) ops[no++] = (opscope_katen_op){k->cpu.v[i].start, k->cpu.v[i].end, nm, (uint32_t)i};
    }
    for (size_t i = 0; !rc && i < n; i++)
        if (a[i].call_start != INT64_MIN && (a[i].call_kind & OPSCOPE_KSTATS_CALL_KERNEL))
            l[m++] = (opscope_katen_launch){a[i].call_start, a[i].call_start + a[i].call_dur, a[i].start,
                                            k->gpu.v[i].name};
    if (!rc) rc = (k->katen = opscope_katen_make(ops, no, l, m)) ? 0 : -1;
    free(aten);
    free(ops);
    free(l);
    return rc;
}

/* NS as HTA reads it (kstats.h's HTA starts): the difference of its doubles from origin T0,
 * plus T0. */
static int64_t hta_ns(int64_t t0, int64_t ns) { return t0 + opscope_kbreak_delta_ns(t0, ns); }

/* The kernel and launch statistics (kstats.h) over every GPU activity with its launching
 * runtime call (K->rt sorted by correlation); a flow start is no call. */
static int kstats_finish(opscope_kineto_t *k) {
    size_t n = k->gpu.n, n_names = opscope_strtab_count(k->names);
    int64_t t0 = k->t0 != INT64_MAX ? k->t0 : 0;
    opscope_kstats_act *a = malloc((n ? n : 1) * sizeof *a);
    uint8_t *kind = calloc(n_names ? n_names : 1, 1); /* per name id: 0 unknown, else 1 + kind */
    if (!a || !kind) {
        free(a);
        free(kind);
        return -1;
    }
    free(k->launch); /* the launching calls outlive k->rt only when links are kept */
    k->launch = k->keep_links ? malloc((n ? n : 1) * sizeof *k->launch) : NULL;
    if (k->keep_links && !k->launch) {
        free(a);
        free(kind);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        const gpu_t *g = &k->gpu.v[i];
        if (k->launch) k->launch[i] = (opscope_kineto_launch_call){.corr = -1, .start_ns = -1, .dur_ns = -1, .name = UINT32_MAX};
        a[i] = (opscope_kstats_act){.start = g->start, .dur = g->dur, .device = g->device, .stream = g->stream,
                                    .call_start = INT64_MIN, .hta_start = hta_ns(t0, g->start), .seq = g->seq};
        size_t r = g->corr >= 0 ? rt_find(k, g->corr) : k->rt.n;
        if (r >= k->rt.n || k->rt.v[r].corr != g->corr || k->rt.v[r].is_flow) continue;
        const rt_t *c = &k->rt.v[r];
        a[i].call_start = c->ts;
        a[i].call_dur = c->dur;
        a[i].hta_call_start = hta_ns(t0, c->ts);
        a[i].call_seq = c->seq;
        if (k->launch)
            k->launch[i] = (opscope_kineto_launch_call){.corr = c->corr, .start_ns = c->ts, .dur_ns = c->dur,
                                                        .hta_delay_ns = a[i].hta_start - a[i].hta_call_start - c->dur,
                                                        .name = c->name != NAME31 ? c->name : UINT32_MAX};
        if (c->name < n_names) {
            if (!kind[c->name]) kind[c->name] = (uint8_t)(1 + opscope_kstats_call_kind(opscope_strtab_get(k->names, c->name)));
            a[i].call_kind = kind[c->name] - 1;
        }
    }
    free(kind);
    opscope_kstats_set_origin(k->kstats, t0);
    bool seqs = k->no_seqs || (!kseq_finish(k, a, n) && !katen_finish(k, a, n));
    int rc = seqs && !opscope_kstats_finish(k->kstats, a, n) ? 0 : -1;
    free(a);
    return rc;
}

/* HTA's straggler inputs (kstrag.h): the steps' spans over the CPU records (python frames
 * left out) and the activities launched in them, and the NCCL kernels. */
static int kstrag_finish(opscope_kineto_t *k) {
    size_t n = k->res.n_steps; /* the steps by start, as the activities' step indexes them */
    const opscope_kineto_step *st = k->res.steps;
    int64_t *v = malloc((3 * n + 1) * sizeof *v);
    for (size_t i = 0; v && i < n; i++) {
        v[i] = st[i].number;
        v[n + i] = (int64_t)st[i].start_ns;
        v[2 * n + i] = (int64_t)(st[i].start_ns + st[i].dur_ns);
    }
    k->kstrag = v ? opscope_kstrag_new(v, v + n, v + 2 * n, n) : NULL;
    free(v);
    if (!k->kstrag) return -1;
    if (!n) return 0;
    const opscope_cpu_ops_results *cr = opscope_cpu_ops_results_get(k->cpu_ops);
    for (size_t i = 0; cr && i < cr->n_recs; i++)
        if (cr->recs[i].kind != OPSCOPE_CPU_KIND_PYTHON) opscope_kstrag_cpu(k->kstrag, cr->recs[i].start_ns, cr->recs[i].end_ns);
    size_t n_names = opscope_strtab_count(k->names);
    uint8_t *nccl = calloc(n_names ? n_names : 1, 1); /* per name id: 0 unknown, 1 no, 2 an NCCL kernel */
    int rc = nccl ? 0 : -1;
    for (size_t i = 0; !rc && i < k->gpu.n; i++) {
        const gpu_t *g = &k->gpu.v[i];
        if (g->step == NO_NAME || g->name >= n_names) continue;
        if (!nccl[g->name]) nccl[g->name] = (uint8_t)(1 + !strncmp(opscope_strtab_get(k->names, g->name), "ncclKernel", 10));
        rc = opscope_kstrag_gpu(k->kstrag, g->step, nccl[g->name] == 2, g->name, g->stream, g->start, g->dur);
    }
    free(nccl);
    return rc;
}

/* The GPU-side annotations' hold on every GPU activity, in the activities' final order. */
static int kgann_finish(opscope_kineto_t *k) {
    size_t n_rows;
    if (!opscope_kgann_rows(k->kgann, &n_rows) || !n_rows) return opscope_kgann_finish(k->kgann, NULL, k->gpu.n);
    opscope_kgann_act *a = malloc((k->gpu.n ? k->gpu.n : 1) * sizeof *a);
    if (!a) return -1;
    for (size_t i = 0; i < k->gpu.n; i++) {
        const gpu_t *g = &k->gpu.v[i];
        a[i] = (opscope_kgann_act){g->start, g->start + g->dur, g->device, g->stream};
    }
    int rc = opscope_kgann_finish(k->kgann, a, k->gpu.n);
    free(a);
    return rc;
}

/* HTA's GPU side in a trace of two steps or more: an event whose correlation id CORR is a
 * runtime call's (with include_last_profiler_step its filter keeps every CPU event). */
static int kb_launched(const void *ud, int64_t corr) {
    const opscope_kineto_t *k = ud;
    for (size_t r = corr >= 0 ? rt_find(k, corr) : k->rt.n; r < k->rt.n && k->rt.v[r].corr == corr; r++)
        if (!k->rt.v[r].is_flow) return 1;
    return 0;
}

/* The kernel types' finish, filtered as HTA filters (kbreak.h) when the steps have two
 * numbers or more. */
static int kbreak_finish(opscope_kineto_t *k) {
    bool two = false;
    for (size_t i = 1; i < k->res.n_steps; i++) two |= k->res.steps[i].number != k->res.steps[0].number;
    if (two) opscope_kbreak_keep(k->kbreak, kb_launched, k);
    return opscope_kbreak_finish(k->kbreak, k->t0 != INT64_MAX ? k->t0 : 0);
}

int opscope_kineto_finish(opscope_kineto_t *k) {
    fin_t f = {0};
    int rc = -1;
    if (fin_alloc(k, &f)) goto done;
    fin_link_runtime(k, &f);
    if (fin_enclose(k, &f) || fin_cpu_ops(k, &f) || fin_phases(k, &f)) goto done;
    if (f.lk) { /* kernels only, in input order */
        size_t m = 0;
        for (size_t i = 0; i < k->gpu.n; i++)
            if (k->gpu.v[i].kind == OPSCOPE_KINETO_KERNEL) f.lk[m++] = f.lk[i];
        k->n_links = m;
    }
    /* 6. layers, 7. streams (this sorts gpu by time: keep it last) */
    if (layers_finish(k) || streams_finish(k) || cpu_side_finish(k)) goto done;
    if (!k->res.n_layers) layers_by_attention(k);
    if (k->res.n_layers && layers_fold(k)) goto done;
    /* the per-activity scratch and whatever waits for the steps (the critical path) are done
     * before the CPU-op records are made: not alive with them at the report's peak */
    fin_free(&f);
    memset(&f, 0, sizeof f);
    if (kstats_finish(k) || opscope_kmembw_finish(k->kmembw) || kgann_finish(k) || kbreak_finish(k)) goto done;
    /* the runtime calls, python frames and sync events served the links above, the launch
     * statistics and the sequences */
    free(k->rt.v);
    free(k->py.v);
    free(k->sync.v);
    memset(&k->sync, 0, sizeof k->sync);
    memset(&k->rt, 0, sizeof k->rt);
    memset(&k->py, 0, sizeof k->py);
    if (k->on_steps) (void)k->on_steps(k->on_steps_ud, &k->res);
    /* the CPU-op records, with the GPU time of the kernels each CPU op launched */
    for (size_t i = 0; i < k->gpu.n; i++) {
        const gpu_t *g = &k->gpu.v[i];
        if (g->kind == OPSCOPE_KINETO_KERNEL && opscope_cpu_ops_add_gpu(k->cpu_ops, g->cpu_op, (uint64_t)g->dur))
            goto done;
    }
    if (opscope_cpu_ops_finish(k->cpu_ops)) goto done;
    if (k->cupti && opscope_cupti_finish(k->cupti, opscope_cpu_ops_results_get(k->cpu_ops), k->names)) goto done;
    if (kstrag_finish(k)) goto done;
    rc = 0;
done:
    fin_free(&f);
    return rc;
}

/* ---------------------------------------------------------------------------------------- */

size_t opscope_kineto_n_gpu(const opscope_kineto_t *k) { return k->gpu.n; }

int opscope_kineto_gpu_launch(const opscope_kineto_t *k, size_t i, opscope_kineto_launch_call *out) {
    if (!k->launch || i >= k->gpu.n || k->launch[i].corr < 0) return -1;
    *out = k->launch[i];
    return 0;
}

void opscope_kineto_gpu_get(const opscope_kineto_t *k, size_t i, opscope_kineto_gpu_info *out) {
    const gpu_t *g = &k->gpu.v[i];
    out->seq = g->seq;
    out->kind = (opscope_kineto_kind)g->kind;
    out->kcat = (opscope_kernel_category)g->kcat;
    out->name_id = g->name;
    out->device = g->device;
    out->stream = g->stream;
    out->start_ns = g->start;
    out->dur_ns = g->dur;
    out->cpu_op = g->cpu_op;
    out->cpu_call = g->cpu_call;
    out->cpu_dims = g->cpu_dims;
    out->layer = g->layer;
    out->phase = g->phase;
}

size_t opscope_kineto_n_cpu_ops(const opscope_kineto_t *k) { return k->cpu.n; }

const opscope_cpu_ops_t *opscope_kineto_cpu_ops(const opscope_kineto_t *k) { return k->cpu_ops; }

const opscope_cupti_t *opscope_kineto_cupti(const opscope_kineto_t *k) { return k->cupti; }

void opscope_kineto_cpu_op_get(const opscope_kineto_t *k, size_t i, opscope_kineto_cpu_op *out) {
    const ivview *w = &k->cpu_view;
    if (w->n) { /* the I-th in view order: its run by the runs' places */
        size_t lo = 0, hi = w->n;
        while (hi - lo > 1) {
            size_t mid = lo + (hi - lo) / 2;
            if (w->pos[mid] <= i) lo = mid;
            else hi = mid;
        }
        i = w->s[lo].begin + (i - w->pos[lo]);
    }
    const iv_t *c = &k->cpu.v[i];
    *out = (opscope_kineto_cpu_op){c->thread, c->name, c->start, c->end};
}
