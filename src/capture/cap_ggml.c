/*
 * cap_ggml.c - the interposed compute entry points (called through the PLT by libggml-base,
 * libllama or the program) and the scheduler hooks:
 *   ggml_backend_sched_graph_compute[_async]  graph id, scheduler id, split counter
 *   ggml_backend_graph_compute[_async]        one backend graph (a split): per-op records
 *   ggml_backend_sched_split_graph / _reset   the scheduler's splits may change
 *   ggml_backend_sched_free                   export when the last scheduler goes
 *   ggml_backend_sched_set_eval_callback      to know when the program's callback runs
 *   ggml_backend_reg_get_proc_address         so "ggml_backend_set_abort_callback" is ours
 *   _exit, _Exit                              programs leave through them from signal handlers
 * See docs/capture.md for the method.
 */
#include "capture/cap_ggml.h"

#include "capture/cap_tables.h"
#include "capture/cap_counters.h"

#include "capture/cap_clock.h"
#include "capture/cap_copy.h"
#include "capture/cap_gpu.h"
#include "capture/cap_life.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

_Thread_local opscope_cap_tls opscope_cap_t = {.sched_id = -1, .graph_id = -1};
static _Thread_local opscope_cap_walk t_walk;
static _Atomic int64_t g_graph_ids;
static bool sched_has_eval_cb(ggml_backend_sched_t sched);

/* Frees a thread's scratch when it exits (its records stay: they belong to the profile). */
static pthread_key_t g_scratch_key;
static pthread_once_t g_scratch_once = PTHREAD_ONCE_INIT;
static bool g_scratch_key_ok;
static void free_scratch(void *p);
static void make_scratch_key(void) {
    g_scratch_key_ok = pthread_key_create(&g_scratch_key, free_scratch) == 0;
}

static bool grow(opscope_cap_walk *w, int n) {
    if (n <= w->nodes_cap) {
        return true;
    }
    if (w->nodes_cap == 0) {
        pthread_once(&g_scratch_once, make_scratch_key);
        if (g_scratch_key_ok) {
            pthread_setspecific(g_scratch_key, w);
        }
    }
    return opscope_cap_walk_grow(w, n);
}

/* Room for N+1 timestamps at the end of the pool; points w->ts there. */
static bool reserve_ts(opscope_cap_walk *w, int n) {
    size_t need = w->pool_used + (size_t)n + 1;
    if (need > w->pool_cap) {
        size_t cap = need < 4096 ? 4096 : need * 2;
        uint64_t *p = realloc(w->pool, cap * sizeof *p);
        if (p) w->pool = p;
        uint64_t *b = realloc(w->bar_pool, cap * sizeof *b);
        if (b) w->bar_pool = b;
        if (!p || !b) {
            return false;
        }
        w->pool_cap = cap;
    }
    w->ts = w->pool + w->pool_used;
    w->bar = w->bar_pool + w->pool_used;
    w->bar_k = -1;
    w->cap = n + 1;
    w->n_ts = 0;
    return true;
}

static void free_scratch(void *p) {
    opscope_cap_walk *w = p;
    opscope_cap_walk_free(w);
    memset(w, 0, sizeof *w);
    opscope_cap_desc_free();
}

/* Called by ggml's CPU backend on thread 0 after each computed step. */
static bool on_step(void *data) {
    opscope_cap_walk *w = data;
    if (w->n_ts < w->cap) {
        w->ts[w->n_ts] = opscope_cap_now();
        w->bar[w->n_ts] = 0;
        w->bar_k = w->n_ts;
    }
    w->n_ts++;
    return w->user_cb ? w->user_cb(w->user_data) : false;
}

static void emit_pending(opscope_cap_walk *w, const opscope_cap_pend *p) {
    if (p->split >= 0) {
        opscope_cap_copy_infer(p->g, p->bi, p->sched, p->gid, p->split, p->t0); /* cpy_tensor_async */
    }
    w->ts = w->pool + p->off;
    w->bar = w->bar_pool + p->off;
    w->n_ts = p->n_ts;
    w->cap = p->cap;
    if (p->kind == OPSCOPE_CAP_PEND_CPU) {
        opscope_cap_cpu_emit(w, p->g, p->n, p->bi, p->sched, p->gid, p->split, p->t0, p->t1, p->aborted);
        atomic_fetch_add_explicit(&opscope_cap_stats.callbacks, (uint64_t)p->n_ts, memory_order_relaxed);
    } else if (p->kind == OPSCOPE_CAP_PEND_BLAS) {
        if (!opscope_cap_blas_emit(w, p->g, p->n, p->bi, p->sched, p->gid, p->split, p->t0, p->t1)) {
            opscope_cap_emit_split(p->g, p->n, p->bi, p->sched, p->gid, p->split, p->t0, p->t1);
        }
    } else if (!p->scope ||
               !opscope_cap_gpu_graph(p->scope, p->g, p->n, p->bi, p->sched, p->gid, p->split, p->t0, p->t1)) {
        opscope_cap_emit_split(p->g, p->n, p->bi, p->sched, p->gid, p->split, p->t0, p->t1);
        const opscope_cap_backend *be = p->bi >= 0 ? opscope_cap_backend_at(p->bi) : NULL;
        if (be && be->device_type == OPSCOPE_DEVICE_GPU) {
            opscope_cap_gpu_note_untimed(be->name);
        }
    }
    uint64_t t2 = opscope_cap_now();
    opscope_cap_graph_rec_write(p->bi, p->sched, p->gid, p->split, p->n, p->t0, p->t1, t2);
}

/* Builds the records of every compute deferred during this scheduler compute. */
static void flush_pending(void) {
    opscope_cap_walk *w = &t_walk;
    if (w->n_pend == 0) {
        return;
    }
    uint64_t a = opscope_cap_now();
    for (int i = 0; i < w->n_pend; i++) {
        emit_pending(w, &w->pend[i]);
    }
    w->n_pend = 0;
    w->pool_used = 0;
    atomic_fetch_add_explicit(&opscope_cap_stats.walk_ticks, opscope_cap_now() - a, memory_order_relaxed);
}

static enum ggml_status capture_compute(ggml_backend_t backend, struct ggml_cgraph *g,
                                        enum ggml_status (*fn)(ggml_backend_t, struct ggml_cgraph *)) {
    int sched = opscope_cap_t.in_sched ? opscope_cap_t.sched_id : -1;
    if (!opscope_cap_should_record(sched)) {
        return fn(backend, g);
    }
    opscope_cap_life_started();
    opscope_cap_t.depth++;
    int bi = opscope_cap_backend_of(backend);
    int64_t gid = opscope_cap_t.in_sched ? opscope_cap_t.graph_id : atomic_fetch_add(&g_graph_ids, 1);
    int split = opscope_cap_t.in_sched ? opscope_cap_t.split++ : -1;
    int n = opscope_cap_ggml.graph_n_nodes(g);
    opscope_cap_walk *w = &t_walk;
    opscope_cap_backend *be = bi >= 0 ? opscope_cap_backend_at(bi) : NULL;
    opscope_cap_set_abort_fn set_abort = be ? (opscope_cap_set_abort_fn)be->set_abort : NULL;
    bool per_op = set_abort && grow(w, n) && reserve_ts(w, n);
    bool blas = !set_abort && be && strncmp(be->name, "BLAS", 4) == 0 && grow(w, n) && reserve_ts(w, n);
    if (blas) {
        opscope_cap_blas_watch(w);
    }
    if (per_op) {
        w->user_cb = (opscope_cap_abort_cb)be->user_cb;
        w->user_data = be->user_data;
        set_abort(backend, on_step, w);
        opscope_cap_omp_watch(w);
    }
    /* a backend without per-op timing of its own: a GPU source may time it on the device */
    uint64_t prev_scope = opscope_cap_gpu_current();
    uint64_t scope = (!per_op && !blas) ? opscope_cap_gpu_open() : 0;
    uint64_t t0 = opscope_cap_now();
    enum ggml_status st = fn(backend, g);
    uint64_t t1 = opscope_cap_now();
    if (scope) {
        opscope_cap_gpu_close(prev_scope);
    }
    if (per_op) {
        set_abort(backend, (opscope_cap_abort_cb)be->user_cb, be->user_data);
    }
    opscope_cap_blas_watch(NULL);
    opscope_cap_omp_watch(NULL);
    opscope_cap_pend p = {g, per_op ? OPSCOPE_CAP_PEND_CPU : blas ? OPSCOPE_CAP_PEND_BLAS : OPSCOPE_CAP_PEND_SPLIT, n, bi, sched, split,
              w->n_ts, w->cap, st == GGML_STATUS_ABORTED, gid, w->pool_used, t0, t1, scope};
    if (!per_op && !blas) {
        p.n_ts = p.cap = 0;
    }
    bool deferred = false;
    /* Only the scheduler's own split graphs outlive this call for sure; a graph computed
     * from a program's eval callback may be gone before the scheduler compute returns, and
     * with an eval callback the scheduler computes views that live on its stack. */
    if (opscope_cap_t.in_sched && !opscope_cap_t.in_user_cb && !opscope_cap_t.no_defer) {
        if (w->n_pend == w->pend_cap) {
            int nc = w->pend_cap ? w->pend_cap * 2 : 64;
            opscope_cap_pend *np = realloc(w->pend, (size_t)nc * sizeof *np);
            if (np) {
                w->pend = np;
                w->pend_cap = nc;
            }
        }
        if (w->n_pend < w->pend_cap) {
            w->pend[w->n_pend++] = p;
            if (per_op || blas) {
                w->pool_used += (size_t)(p.n_ts < p.cap ? p.n_ts : p.cap);
            }
            deferred = true;
        }
    }
    if (!deferred) {
        uint64_t a = opscope_cap_now();
        emit_pending(w, &p);
        atomic_fetch_add_explicit(&opscope_cap_stats.walk_ticks, opscope_cap_now() - a, memory_order_relaxed);
    }
    atomic_fetch_add_explicit(&opscope_cap_stats.graphs, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&opscope_cap_stats.graph_ticks, t1 - t0, memory_order_relaxed);
    opscope_cap_t.depth--;
    return st;
}

/* ---- interposed functions ---- */

OPSCOPE_EXPORT enum ggml_status ggml_backend_graph_compute_async(ggml_backend_t backend, struct ggml_cgraph *g) {
    if (!opscope_cap_ggml_ready() || opscope_cap_t.depth) {
        return opscope_cap_ggml.graph_compute_async ? opscope_cap_ggml.graph_compute_async(backend, g) : GGML_STATUS_FAILED;
    }
    return capture_compute(backend, g, opscope_cap_ggml.graph_compute_async);
}

OPSCOPE_EXPORT enum ggml_status ggml_backend_graph_compute(ggml_backend_t backend, struct ggml_cgraph *g) {
    if (!opscope_cap_ggml_ready() || opscope_cap_t.depth) {
        return opscope_cap_ggml.graph_compute ? opscope_cap_ggml.graph_compute(backend, g) : GGML_STATUS_FAILED;
    }
    return capture_compute(backend, g, opscope_cap_ggml.graph_compute);
}

static enum ggml_status sched_compute(ggml_backend_sched_t sched, struct ggml_cgraph *g,
                                      enum ggml_status (*fn)(ggml_backend_sched_t, struct ggml_cgraph *)) {
    if (!fn) {
        return GGML_STATUS_FAILED;
    }
    if (!opscope_cap_ggml_ready() || opscope_cap_t.in_sched || !atomic_load_explicit(&opscope_cap_on, memory_order_relaxed)) {
        return fn(sched, g);
    }
    /* one-time start-up (the export watcher thread: ~0.1 ms, more on a loaded machine) here,
     * not inside the first backend compute, whose wall time it would inflate */
    opscope_cap_life_started();
    opscope_cap_t.in_sched = 1;
    opscope_cap_t.no_defer = sched_has_eval_cb(sched);
    opscope_cap_t.sched_id = opscope_cap_sched_id(sched);
    opscope_cap_t.graph_id = atomic_fetch_add(&g_graph_ids, 1);
    opscope_cap_t.split = 0;
    enum ggml_status st = fn(sched, g);
    opscope_cap_t.depth++;
    flush_pending();
    opscope_cap_t.depth--;
    opscope_cap_t.in_sched = 0;
    opscope_cap_t.sched_id = -1;
    return st;
}

OPSCOPE_EXPORT enum ggml_status ggml_backend_sched_graph_compute_async(ggml_backend_sched_t sched, struct ggml_cgraph *g) {
    opscope_cap_ggml_ready();
    return sched_compute(sched, g, opscope_cap_ggml.sched_graph_compute_async);
}

OPSCOPE_EXPORT enum ggml_status ggml_backend_sched_graph_compute(ggml_backend_sched_t sched, struct ggml_cgraph *g) {
    opscope_cap_ggml_ready();
    return sched_compute(sched, g, opscope_cap_ggml.sched_graph_compute);
}

/* The scheduler rebuilds its splits: plans of its split graphs are stale. */
OPSCOPE_EXPORT void ggml_backend_sched_split_graph(ggml_backend_sched_t sched, struct ggml_cgraph *g) {
    if (opscope_cap_ggml_ready() && sched) {
        opscope_cap_cpu_sched_changed(opscope_cap_sched_id(sched));
    }
    if (opscope_cap_ggml.sched_split_graph) {
        opscope_cap_ggml.sched_split_graph(sched, g);
    }
}

OPSCOPE_EXPORT void ggml_backend_sched_reset(ggml_backend_sched_t sched) {
    if (opscope_cap_ggml_ready() && sched) {
        opscope_cap_cpu_sched_changed(opscope_cap_sched_id(sched));
    }
    if (opscope_cap_ggml.sched_reset) {
        opscope_cap_ggml.sched_reset(sched);
    }
}

void opscope_cap_api_sched_freed(const void *sched); /* cap_api.c */
static void eval_cb_forget(ggml_backend_sched_t sched);

OPSCOPE_EXPORT void ggml_backend_sched_free(ggml_backend_sched_t sched) {
    opscope_cap_ggml_ready();
    bool last = sched && opscope_cap_sched_freed(sched);
    if (sched) {
        opscope_cap_api_sched_freed(sched);
    }
    if (opscope_cap_ggml.sched_free) {
        opscope_cap_ggml.sched_free(sched);
    }
    if (sched) {
        eval_cb_forget(sched);
    }
    if (last) {
        opscope_cap_life_export(false);
    }
}

/* ---- the scheduler's eval callback: wrapped so we know when the program's code runs ---- */

#define MAX_EVAL_CB 64
typedef struct eval_cb {
    ggml_backend_sched_t sched;
    ggml_backend_sched_eval_callback cb;
    void *ud;
} eval_cb;
static eval_cb g_eval_cbs[MAX_EVAL_CB];
static _Atomic bool g_eval_unknown; /* an eval callback we could not track: never defer */
static pthread_mutex_t g_eval_lock = PTHREAD_MUTEX_INITIALIZER;

static bool eval_trampoline(struct ggml_tensor *t, bool ask, void *data) {
    eval_cb *e = data;
    opscope_cap_t.in_user_cb++;
    bool r = e->cb(t, ask, e->ud);
    opscope_cap_t.in_user_cb--;
    return r;
}

OPSCOPE_EXPORT void ggml_backend_sched_set_eval_callback(ggml_backend_sched_t sched,
                                                 ggml_backend_sched_eval_callback cb, void *ud) {
    opscope_cap_ggml_ready();
    if (!opscope_cap_ggml.sched_set_eval_callback) {
        return;
    }
    if (!cb) {
        eval_cb_forget(sched);
        opscope_cap_ggml.sched_set_eval_callback(sched, cb, ud);
        return;
    }
    if (!opscope_cap_ggml_resolved()) {
        atomic_store(&g_eval_unknown, true);
        opscope_cap_ggml.sched_set_eval_callback(sched, cb, ud);
        return;
    }
    pthread_mutex_lock(&g_eval_lock);
    eval_cb *slot = NULL;
    for (int i = 0; i < MAX_EVAL_CB && !slot; i++) {
        if (g_eval_cbs[i].sched == sched) slot = &g_eval_cbs[i];
    }
    for (int i = 0; i < MAX_EVAL_CB && !slot; i++) {
        if (!g_eval_cbs[i].sched) slot = &g_eval_cbs[i];
    }
    if (slot) {
        /* the scheduler only calls back from its compute, on the thread that set it up;
         * replacing the entry while it runs is what the program asked for */
        slot->sched = sched;
        slot->cb = cb;
        slot->ud = ud;
    }
    pthread_mutex_unlock(&g_eval_lock);
    if (slot) {
        opscope_cap_ggml.sched_set_eval_callback(sched, eval_trampoline, slot);
    } else {
        atomic_store(&g_eval_unknown, true); /* table full: unwrapped, nothing deferred */
        opscope_cap_ggml.sched_set_eval_callback(sched, cb, ud);
    }
}

static bool sched_has_eval_cb(ggml_backend_sched_t sched) {
    if (atomic_load_explicit(&g_eval_unknown, memory_order_relaxed)) {
        return true;
    }
    bool found = false;
    pthread_mutex_lock(&g_eval_lock);
    for (int i = 0; i < MAX_EVAL_CB && !found; i++) {
        found = g_eval_cbs[i].sched == sched && g_eval_cbs[i].cb != NULL;
    }
    pthread_mutex_unlock(&g_eval_lock);
    return found;
}

static void eval_cb_forget(ggml_backend_sched_t sched) {
    pthread_mutex_lock(&g_eval_lock);
    for (int i = 0; i < MAX_EVAL_CB; i++) {
        if (g_eval_cbs[i].sched == sched) {
            memset(&g_eval_cbs[i], 0, sizeof g_eval_cbs[i]);
        }
    }
    pthread_mutex_unlock(&g_eval_lock);
}

/* ---- the CPU backend's abort callback ---- */

/* What llama.cpp (and any program) gets for "ggml_backend_set_abort_callback": we keep the
 * program's callback to chain it, and pass it on to ggml as before. */
static void opscope_set_abort_callback(ggml_backend_t backend, opscope_cap_abort_cb cb, void *data) {
    int bi = backend ? opscope_cap_backend_of(backend) : -1;
    if (bi >= 0) {
        opscope_cap_backend *b = opscope_cap_backend_at(bi);
        b->user_cb = (void *)cb;
        b->user_data = data;
        if (b->set_abort) {
            ((opscope_cap_set_abort_fn)b->set_abort)(backend, cb, data);
        }
    }
}

OPSCOPE_EXPORT void *ggml_backend_reg_get_proc_address(ggml_backend_reg_t reg, const char *name) {
    opscope_cap_ggml_ready();
    void *p = opscope_cap_ggml.reg_get_proc_address ? opscope_cap_ggml.reg_get_proc_address(reg, name) : NULL;
    if (p && name && opscope_cap_ggml_resolved() &&
        strcmp(name, "ggml_backend_set_abort_callback") == 0) {
        return (void *)opscope_set_abort_callback;
    }
    return p;
}

/* ---- _exit: programs leave through it from their SIGINT handlers ---- */

OPSCOPE_EXPORT void _exit(int status) __attribute__((noreturn));
OPSCOPE_EXPORT void _Exit(int status) __attribute__((noreturn));

static inline void syscall_exit_group(int status) {
    syscall(SYS_exit_group, status);
}

static void exit_via(const char *name, int status) __attribute__((noreturn));
static void exit_via(const char *name, int status) {
    opscope_cap_life_exit_hook();
    void (*real)(int) = (void (*)(int))dlsym(RTLD_NEXT, name);
    if (real) {
        real(status);
    }
    for (;;) { /* unreachable in practice: libc always has _exit */
        syscall_exit_group(status);
    }
}

OPSCOPE_EXPORT void _exit(int status) {
    exit_via("_exit", status);
}

OPSCOPE_EXPORT void _Exit(int status) {
    exit_via("_Exit", status);
}
