/*
 * cap_static.c - the capture for programs linked with a static ggml (libopscope-ggml-static.a).
 *
 * Inside a static ggml nothing can be interposed: the scheduler calls the backend's graph
 * compute and the tensor copies inside its own object file. What the program gives us is its
 * own calls into ggml, wrapped at link time (-Wl,--wrap=X makes the program call __wrap_X,
 * and __real_X is the original), and ggml's public API at run time:
 *   - the CPU backend's abort callback (set through its registry's
 *     "ggml_backend_set_abort_callback"), called on thread 0 after each computed step;
 *   - once the scheduler compute returns, ggml_backend_sched_get_tensor_backend for every node
 *     of the program's graph: the scheduler's splits are views of that graph, cut where the
 *     backend of a non-view node changes, so the runs rebuilt here are its splits, with the
 *     same node indices (a split cut in two on one backend, when its inputs overflow, is one
 *     run here: the CPU walk's callback count flags a fusion predicted across the cut);
 *   - with several backends, a scheduler eval callback that never asks for data: ggml then
 *     calls it once per node just before computing each split, which dates the start of every
 *     split (and ggml synchronizes the split's backend after it, a no-op for the CPU).
 * CPU runs get one record per computed step (cap_cpu.c's walk on a graph holding the run's
 * nodes; timestamps are assigned to runs by time), other runs one GRAPH_SPLIT record each.
 * See docs/capture.md ("Static ggml") for what this cannot see.
 */
#include "capture/store/cap_clock.h"
#include "capture/store/cap_counters.h"
#include "capture/timing/cap_cpu.h"
#include "capture/resolve/cap_devices.h"
#include "capture/store/cap_drops.h"
#include "capture/hooks/cap_barrier.h"
#include "capture/hooks/cap_hooks.h"
#include "capture/life/cap_life.h"
#include "capture/timing/cap_record.h"
#include "capture/resolve/cap_resolve.h"
#include "capture/store/cap_tables.h"
#include "capture/hooks/cap_tls.h"
#include "capture/timing/cap_walk.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- the originals (defined by the linker for --wrap) and our wrappers ---- */

enum ggml_status __real_ggml_backend_sched_graph_compute(ggml_backend_sched_t, struct ggml_cgraph *);
enum ggml_status __real_ggml_backend_sched_graph_compute_async(ggml_backend_sched_t, struct ggml_cgraph *);
void __real_ggml_backend_sched_free(ggml_backend_sched_t);
/* Weak: a link with the flags of an older opscope build does not wrap it (nor call ours). */
__attribute__((weak)) void __real_ggml_backend_free(ggml_backend_t);
void __real_ggml_backend_sched_reset(ggml_backend_sched_t);
bool __real_ggml_backend_sched_alloc_graph(ggml_backend_sched_t, struct ggml_cgraph *);
bool __real_ggml_backend_sched_reserve(ggml_backend_sched_t, struct ggml_cgraph *);
void __real_ggml_backend_sched_set_eval_callback(ggml_backend_sched_t, ggml_backend_sched_eval_callback, void *);
void *__real_ggml_backend_reg_get_proc_address(ggml_backend_reg_t, const char *);
enum ggml_status __real_ggml_backend_graph_compute(ggml_backend_t, struct ggml_cgraph *);
enum ggml_status __real_ggml_backend_graph_compute_async(ggml_backend_t, struct ggml_cgraph *);

enum ggml_status __wrap_ggml_backend_sched_graph_compute(ggml_backend_sched_t, struct ggml_cgraph *);
enum ggml_status __wrap_ggml_backend_sched_graph_compute_async(ggml_backend_sched_t, struct ggml_cgraph *);
void __wrap_ggml_backend_sched_free(ggml_backend_sched_t);
void __wrap_ggml_backend_free(ggml_backend_t);
void __wrap_ggml_backend_sched_reset(ggml_backend_sched_t);
bool __wrap_ggml_backend_sched_alloc_graph(ggml_backend_sched_t, struct ggml_cgraph *);
bool __wrap_ggml_backend_sched_reserve(ggml_backend_sched_t, struct ggml_cgraph *);
void __wrap_ggml_backend_sched_set_eval_callback(ggml_backend_sched_t, ggml_backend_sched_eval_callback, void *);
void *__wrap_ggml_backend_reg_get_proc_address(ggml_backend_reg_t, const char *);
enum ggml_status __wrap_ggml_backend_graph_compute(ggml_backend_t, struct ggml_cgraph *);
enum ggml_status __wrap_ggml_backend_graph_compute_async(ggml_backend_t, struct ggml_cgraph *);
void __wrap_ggml_backend_cpu_set_abort_callback(ggml_backend_t, ggml_abort_callback, void *);

/* ---- per-thread scratch ---- */

#define MAX_SB 16 /* GGML_SCHED_MAX_BACKENDS */

/* Nodes [i0, i1) of the program's graph, computed by scheduler backend SB in one split. */
typedef struct run {
    int i0, i1, sb;
} run;

typedef struct scratch {
    opscope_cap_walk *w; /* the walk scratch (cap_hooks.c), NULL before the first compute */
    opscope_cap_stream s[MAX_SB]; /* step timestamps of each scheduler backend with per-op timing */
    int bi[MAX_SB];     /* capture backend index of each scheduler backend (-1: none) */
    bool per_op[MAX_SB];
    /* split starts: one tick per eval-callback question, in node order */
    uint64_t *asks;
    uint8_t *need;
    int n_asks, asks_cap;
    bool asks_broken;   /* the program's callback stopped a split: questions skip nodes */
    ggml_backend_sched_eval_callback user_eval;
    void *user_eval_ud;
    run *runs;
    int runs_cap;
    /* a graph per run slot holding the run's nodes (plans are cached by graph pointer) */
    struct ggml_context **gctx;
    struct ggml_cgraph **gv;
    int *gsize;
    int n_gv;
} scratch;

static _Thread_local scratch t_s;

/* Frees this thread's scratch when it exits (after the walk, by cap_hooks.c). */
static void scratch_free(void) {
    scratch *s = &t_s;
    for (int b = 0; b < MAX_SB; b++) {
        free(s->s[b].ts);
        free(s->s[b].bar);
    }
    free(s->asks);
    free(s->need);
    free(s->runs);
    for (int k = 0; k < s->n_gv; k++) {
        if (s->gctx[k]) ggml_free(s->gctx[k]);
    }
    free(s->gctx);
    free(s->gv);
    free(s->gsize);
    memset(s, 0, sizeof *s);
}

static bool grow_u64(uint64_t **p, int cap) {
    uint64_t *v = realloc(*p, (size_t)cap * sizeof *v);
    if (!v) {
        return false;
    }
    *p = v;
    return true;
}

/* Room for a compute of N nodes on NB scheduler backends. */
static bool prepare(scratch *s, int n, int nb) {
    opscope_cap_hooks_on_thread_exit(scratch_free);
    s->w = opscope_cap_hooks_walk(n);
    if (!s->w) {
        return false;
    }
    for (int b = 0; b < nb; b++) {
        opscope_cap_stream *st = &s->s[b];
        if (st->cap < n + 1) {
            int cap = n + 1 < 1024 ? 1024 : (n + 1) * 2;
            if (!grow_u64(&st->ts, cap) || !grow_u64(&st->bar, cap)) {
                return false;
            }
            st->cap = cap;
        }
        st->n = 0;
        st->bar_k = -1;
    }
    if (s->asks_cap < n || s->runs_cap < n) {
        int cap = n < 1024 ? 1024 : n * 2;
        uint8_t *nd = realloc(s->need, (size_t)cap);
        if (nd) s->need = nd;
        run *r = realloc(s->runs, (size_t)cap * sizeof *r);
        if (r) s->runs = r;
        if (!nd || !r || !grow_u64(&s->asks, cap)) {
            return false;
        }
        s->asks_cap = cap;
        s->runs_cap = cap;
    }
    s->n_asks = 0;
    s->asks_broken = false;
    return true;
}

/* A graph holding nodes [I0, I1) of G, kept in run slot K (NULL: out of memory). */
static struct ggml_cgraph *run_graph(scratch *s, int k, struct ggml_cgraph *g, int i0, int i1) {
    if (k >= s->n_gv) {
        int nc = k + 16;
        struct ggml_context **c = realloc(s->gctx, (size_t)nc * sizeof *c);
        if (c) s->gctx = c;
        struct ggml_cgraph **v = realloc(s->gv, (size_t)nc * sizeof *v);
        if (v) s->gv = v;
        int *z = realloc(s->gsize, (size_t)nc * sizeof *z);
        if (z) s->gsize = z;
        if (!c || !v || !z) {
            return NULL;
        }
        for (int j = s->n_gv; j < nc; j++) {
            s->gctx[j] = NULL;
            s->gv[j] = NULL;
            s->gsize[j] = 0;
        }
        s->n_gv = nc;
    }
    int n = i1 - i0;
    if (s->gsize[k] < n) {
        int size = n < 256 ? 256 : n * 2;
        struct ggml_init_params ip = {ggml_graph_overhead_custom((size_t)size, false), NULL, true};
        struct ggml_context *ctx = ggml_init(ip);
        if (!ctx) {
            return NULL;
        }
        if (s->gctx[k]) {
            ggml_free(s->gctx[k]);
        }
        s->gctx[k] = ctx;
        s->gv[k] = ggml_new_graph_custom(ctx, (size_t)size, false);
        s->gsize[k] = size;
    }
    struct ggml_cgraph *r = s->gv[k];
    ggml_graph_clear(r);
    for (int i = i0; i < i1; i++) {
        ggml_graph_add_node(r, ggml_graph_node(g, i));
    }
    return r;
}

/* ---- callbacks ggml calls during a compute ---- */

/* The scheduler, before computing each split: one question per node, in order, right before
 * the split's compute (or the part the program's own callback wants to see). */
static bool on_eval(struct ggml_tensor *t, bool ask, void *data) {
    scratch *s = data;
    if (ask) {
        bool need = s->user_eval ? s->user_eval(t, true, s->user_eval_ud) : false;
        if (s->n_asks < s->asks_cap) {
            s->asks[s->n_asks] = opscope_cap_now();
            s->need[s->n_asks] = need;
        }
        s->n_asks++;
        return need;
    }
    opscope_cap_thread.in_user_cb++;
    bool go = s->user_eval ? s->user_eval(t, false, s->user_eval_ud) : true;
    opscope_cap_thread.in_user_cb--;
    if (!go) {
        s->asks_broken = true;
    }
    return go;
}

/* ---- the program's eval callbacks, per scheduler (kept in cap_hooks.c's table) ---- */

void __wrap_ggml_backend_sched_set_eval_callback(ggml_backend_sched_t sched,
                                                 ggml_backend_sched_eval_callback cb, void *ud) {
    opscope_cap_eval_put(sched, cb, ud); /* a full table marks callbacks lost: splits not dated */
    __real_ggml_backend_sched_set_eval_callback(sched, cb, ud);
}

/* ---- records after a compute ---- */

/* The scheduler's splits of G as runs: the first starts at node 0, a new one at each non-view
 * node whose backend differs from the current one (views stay in the split before them).
 * Returns the number of runs, or -1 when a node has no backend (G is not the graph the
 * scheduler split: ggml_backend_sched_get_tensor_backend finds G's nodes in the hash set the
 * split pass filled, which stays until the next reset). */
static int build_runs(scratch *s, ggml_backend_sched_t sched, struct ggml_cgraph *g, int n, int nb) {
    int nr = 0, cur = -1;
    for (int i = 0; i < n; i++) {
        struct ggml_tensor *t = ggml_graph_node(g, i);
        if (t->op == GGML_OP_VIEW || t->op == GGML_OP_RESHAPE || t->op == GGML_OP_PERMUTE ||
            t->op == GGML_OP_TRANSPOSE) {
            continue;
        }
        ggml_backend_t be = ggml_backend_sched_get_tensor_backend(sched, t);
        int sb = -1;
        for (int b = 0; b < nb && sb < 0; b++) {
            if (ggml_backend_sched_get_backend(sched, b) == be) sb = b;
        }
        if (sb < 0) {
            return -1;
        }
        if (sb != cur) {
            if (nr > 0) {
                s->runs[nr - 1].i1 = i;
            }
            s->runs[nr].i0 = nr == 0 ? 0 : i;
            s->runs[nr].sb = sb;
            nr++;
            cur = sb;
        }
    }
    if (nr > 0) {
        s->runs[nr - 1].i1 = n;
    }
    return nr;
}

/* When run R's compute started: the last question before it (the split's own questions come
 * first; with the program's callback, the first node it asked for ends the first part). */
static uint64_t run_start(const scratch *s, const run *r) {
    for (int j = r->i0; j < r->i1; j++) {
        if (s->need[j]) {
            return s->asks[j];
        }
    }
    return s->asks[r->i1 - 1];
}

/* Records of run R (run slot K) of the compute RC: its whole graph (rc.g, rc.n nodes), with
 * the run's split index (-1 outside a scheduler), ticks and abort; the step timestamps TS. */
static void emit_run(scratch *s, const run *r, int k, opscope_cap_compute rc, const uint64_t *ts, int n_ts) {
    rc.g = r->i0 == 0 && r->i1 == rc.n ? rc.g : run_graph(s, k, rc.g, r->i0, r->i1);
    if (!rc.g) {
        return;
    }
    rc.n = r->i1 - r->i0;
    rc.bi = s->bi[r->sb];
    if (s->per_op[r->sb]) {
        const opscope_cap_stream *all = &s->s[r->sb];
        opscope_cap_stream st = {(uint64_t *)ts, all->bar + (ts - all->ts), n_ts, n_ts, -1, NULL, NULL};
        opscope_cap_hooks_emit_cpu(s->w, &st, &rc);
    } else {
        opscope_cap_emit_split(&rc, 0);
    }
    opscope_cap_graph_rec_write(&rc, opscope_cap_now());
    opscope_cap_hooks_count(rc.t0, rc.t1);
}

/* The records of scheduler compute C (its graph, scheduler entry, graph id, ticks; NB
 * backends) that returned ST. */
static void emit_compute(scratch *s, ggml_backend_sched_t sched, int nb, const opscope_cap_compute *c,
                         enum ggml_status st, bool dated) {
    if (st != GGML_STATUS_SUCCESS && st != GGML_STATUS_ABORTED) {
        return; /* nothing ran (allocation failed) or a backend failed: no reliable steps */
    }
    int n = c->n;
    int nr = build_runs(s, sched, c->g, n, nb);
    if (nr <= 0) {
        return;
    }
    bool aborted = c->aborted;
    int nts[MAX_SB] = {0}; /* timestamps of each stream taken so far */
    for (int b = 0; b < nb; b++) {
        nts[b] = s->s[b].n < s->s[b].cap ? s->s[b].n : s->s[b].cap;
    }
    if (nr == 1) {
        const run *r = &s->runs[0];
        opscope_cap_compute one = *c;
        one.split = 0;
        emit_run(s, r, 0, one, s->s[r->sb].ts, nts[r->sb]);
        return;
    }
    /* several runs: dated by the questions of our eval callback, one per node in order */
    if (!dated || s->asks_broken || s->n_asks > n || s->n_asks > s->asks_cap) {
        /* not recorded: counted with the computes whose steps could not be attributed */
        atomic_fetch_add_explicit(&opscope_cap_stats.inexact_graphs, 1, memory_order_relaxed);
        return;
    }
    int used[MAX_SB] = {0};
    for (int k = 0; k < nr; k++) {
        const run *r = &s->runs[k];
        if (r->i1 > s->n_asks) {
            break; /* never started (an earlier split aborted) */
        }
        bool last = k + 1 == nr || s->runs[k + 1].i1 > s->n_asks;
        uint64_t a = k == 0 ? c->t0 : run_start(s, r);
        uint64_t next = last ? UINT64_MAX : s->asks[s->runs[k + 1].i0];
        int b = r->sb;
        int first = used[b], cnt = 0;
        while (first + cnt < nts[b] && s->s[b].ts[first + cnt] < next) {
            cnt++;
        }
        used[b] += cnt;
        /* A run ends where the next one starts (the last where the compute returned): a CPU
         * run's last step then holds its final thread barrier, another backend's record its
         * device work (ggml synchronizes the backend after the split while our eval callback
         * is set); either holds the next split's input copies, which happen in between. */
        opscope_cap_compute part = *c;
        part.split = k;
        part.t0 = a;
        part.t1 = last ? c->t1 : next;
        part.aborted = aborted && last;
        emit_run(s, r, k, part, s->s[b].ts + first, cnt);
        if (last) {
            break;
        }
    }
}

/* ---- the wrapped scheduler calls ---- */

static enum ggml_status sched_compute(ggml_backend_sched_t sched, struct ggml_cgraph *g,
                                      enum ggml_status (*fn)(ggml_backend_sched_t, struct ggml_cgraph *)) {
    if (!opscope_cap_ggml_ready() || opscope_cap_thread.in_sched || !sched || !g ||
        !atomic_load_explicit(&opscope_cap_on, memory_order_relaxed)) {
        return fn(sched, g);
    }
    int sid = opscope_cap_sched_id(sched);
    scratch *s = &t_s;
    int n = ggml_graph_n_nodes(g);
    int nb = ggml_backend_sched_get_n_backends(sched);
    if (!opscope_cap_should_record(sid) || nb > MAX_SB || !prepare(s, n, nb)) {
        return fn(sched, g);
    }
    opscope_cap_life_started();
    for (int b = 0; b < nb; b++) {
        ggml_backend_t backend = ggml_backend_sched_get_backend(sched, b);
        int bi = opscope_cap_backend_of(backend);
        opscope_cap_backend *be = bi >= 0 ? opscope_cap_backend_at(bi) : NULL;
        s->bi[b] = bi;
        s->per_op[b] = be && be->set_abort;
        if (s->per_op[b]) {
            opscope_cap_hooks_steps_begin(backend, be, &s->s[b]);
        }
    }
    /* with several backends, date the splits (unless a program callback could not be kept) */
    bool dated = nb > 1 && !opscope_cap_eval_lost();
    if (dated) {
        opscope_cap_eval_get(sched, &s->user_eval, &s->user_eval_ud);
        __real_ggml_backend_sched_set_eval_callback(sched, on_eval, s);
    }
    int64_t gid = opscope_cap_hooks_graph_id();
    opscope_cap_thread.in_sched = 1;
    opscope_cap_thread.sched_id = sid;
    opscope_cap_thread.graph_id = gid;
    opscope_cap_thread.split = 0;
    uint64_t d0 = opscope_cap_buf_dropped_here();
    uint64_t t0 = opscope_cap_now();
    enum ggml_status st = fn(sched, g);
    uint64_t t1 = opscope_cap_now();
    if (dated) {
        __real_ggml_backend_sched_set_eval_callback(sched, s->user_eval, s->user_eval_ud);
    }
    for (int b = 0; b < nb; b++) {
        if (s->per_op[b]) {
            opscope_cap_hooks_steps_end(ggml_backend_sched_get_backend(sched, b), opscope_cap_backend_at(s->bi[b]));
            opscope_cap_barrier_untimed(s->s[b].n);
        }
    }
    opscope_cap_thread.depth++;
    uint64_t a = opscope_cap_now();
    opscope_cap_compute c = {.g = g, .n = n, .bi = -1, .sched = sid, .gid = gid, .split = -1, .t0 = t0, .t1 = t1,
                             .aborted = st == GGML_STATUS_ABORTED};
    emit_compute(s, sched, nb, &c, st, dated);
    opscope_cap_drops_check(gid, d0);
    opscope_cap_hooks_count_work(a);
    opscope_cap_thread.depth--;
    opscope_cap_thread.in_sched = 0;
    opscope_cap_thread.sched_id = -1;
    return st;
}

enum ggml_status __wrap_ggml_backend_sched_graph_compute(ggml_backend_sched_t sched, struct ggml_cgraph *g) {
    return sched_compute(sched, g, __real_ggml_backend_sched_graph_compute);
}

enum ggml_status __wrap_ggml_backend_sched_graph_compute_async(ggml_backend_sched_t sched, struct ggml_cgraph *g) {
    return sched_compute(sched, g, __real_ggml_backend_sched_graph_compute_async);
}

/* A backend compute the program makes itself, outside a scheduler (recorded with GGML_PROFILE
 * only, as with the shared library: the C API works per scheduler). Inside a static ggml the
 * scheduler's own backend computes never come here. */
static enum ggml_status direct_compute(ggml_backend_t backend, struct ggml_cgraph *g,
                                       enum ggml_status (*fn)(ggml_backend_t, struct ggml_cgraph *)) {
    if (!opscope_cap_ggml_ready() || opscope_cap_thread.in_sched || opscope_cap_thread.depth || !backend || !g ||
        !opscope_cap_should_record(-1)) {
        return fn(backend, g);
    }
    scratch *s = &t_s;
    int n = ggml_graph_n_nodes(g);
    if (!prepare(s, n, 1)) {
        return fn(backend, g);
    }
    opscope_cap_life_started();
    int bi = opscope_cap_backend_of(backend);
    opscope_cap_backend *be = bi >= 0 ? opscope_cap_backend_at(bi) : NULL;
    s->bi[0] = bi;
    s->per_op[0] = be && be->set_abort;
    if (s->per_op[0]) {
        opscope_cap_hooks_steps_begin(backend, be, &s->s[0]);
    }
    int64_t gid = opscope_cap_hooks_graph_id();
    uint64_t d0 = opscope_cap_buf_dropped_here();
    opscope_cap_thread.depth++;
    uint64_t t0 = opscope_cap_now();
    enum ggml_status st = fn(backend, g);
    uint64_t t1 = opscope_cap_now();
    if (s->per_op[0]) {
        opscope_cap_hooks_steps_end(backend, be);
        opscope_cap_barrier_untimed(s->s[0].n);
    }
    if ((st == GGML_STATUS_SUCCESS || st == GGML_STATUS_ABORTED) && n > 0) {
        uint64_t a = opscope_cap_now();
        run r = {0, n, 0};
        int n_ts = s->s[0].n < s->s[0].cap ? s->s[0].n : s->s[0].cap;
        opscope_cap_compute c = {.g = g, .n = n, .bi = bi, .sched = -1, .gid = gid, .split = -1, .t0 = t0, .t1 = t1,
                                 .aborted = st == GGML_STATUS_ABORTED};
        emit_run(s, &r, 0, c, s->s[0].ts, n_ts);
        opscope_cap_drops_check(gid, d0);
        opscope_cap_hooks_count_work(a);
    }
    opscope_cap_thread.depth--;
    return st;
}

enum ggml_status __wrap_ggml_backend_graph_compute(ggml_backend_t backend, struct ggml_cgraph *g) {
    return direct_compute(backend, g, __real_ggml_backend_graph_compute);
}

enum ggml_status __wrap_ggml_backend_graph_compute_async(ggml_backend_t backend, struct ggml_cgraph *g) {
    return direct_compute(backend, g, __real_ggml_backend_graph_compute_async);
}

/* The scheduler will split again: cached step plans of its graphs are stale. (A compute
 * splits on its own only after a reset, or on a fresh scheduler.) */
void __wrap_ggml_backend_sched_reset(ggml_backend_sched_t sched) {
    opscope_cap_hooks_sched_changed(sched);
    __real_ggml_backend_sched_reset(sched);
}

bool __wrap_ggml_backend_sched_alloc_graph(ggml_backend_sched_t sched, struct ggml_cgraph *g) {
    opscope_cap_hooks_sched_changed(sched);
    return __real_ggml_backend_sched_alloc_graph(sched, g);
}

bool __wrap_ggml_backend_sched_reserve(ggml_backend_sched_t sched, struct ggml_cgraph *g) {
    opscope_cap_hooks_sched_changed(sched);
    return __real_ggml_backend_sched_reserve(sched, g);
}

void __wrap_ggml_backend_sched_free(ggml_backend_sched_t sched) {
    bool last = opscope_cap_hooks_sched_freeing(sched);
    __real_ggml_backend_sched_free(sched);
    opscope_cap_hooks_sched_gone(last);
}

/* Marked before the real free (cap_ggml.c's interposer does the same). */
void __wrap_ggml_backend_free(ggml_backend_t backend) {
    if (backend) {
        opscope_cap_backend_freed(backend);
    }
    if (__real_ggml_backend_free) {
        __real_ggml_backend_free(backend);
    }
}

/* ---- the CPU backend's abort callback, as the program sets it: our setter (cap_hooks.c) ---- */

void *__wrap_ggml_backend_reg_get_proc_address(ggml_backend_reg_t reg, const char *name) {
    return opscope_cap_hooks_proc_address(__real_ggml_backend_reg_get_proc_address(reg, name), name);
}

/* A program linked with a static ggml-cpu may set its callback directly: the same bookkeeping.
 * The setter itself comes from the CPU registry (no __real_: the flag is harmless in a program
 * that cannot call this function, like one using ggml's CPU backend as a loadable module). */
void __wrap_ggml_backend_cpu_set_abort_callback(ggml_backend_t backend, ggml_abort_callback cb, void *data) {
    if (!opscope_cap_hooks_abort_setter_known() && backend) {
        ggml_backend_dev_t dev = ggml_backend_get_device(backend);
        ggml_backend_reg_t reg = dev ? ggml_backend_dev_backend_reg(dev) : NULL;
        opscope_cap_hooks_abort_setter(reg ? __real_ggml_backend_reg_get_proc_address(reg, "ggml_backend_set_abort_callback")
                                           : NULL);
    }
    opscope_cap_hooks_set_abort(backend, cb, data);
}
