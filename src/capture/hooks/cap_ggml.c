/*
 * cap_ggml.c - the interposed compute entry points (called through the PLT by libggml-base,
 * libllama or the program) and the scheduler hooks:
 *   ggml_backend_sched_graph_compute[_async]  graph id, scheduler id, split counter
 *   ggml_backend_graph_compute[_async]        one backend graph (a split): per-op records
 *   ggml_backend_sched_split_graph / _reset   the scheduler's splits may change
 *   ggml_backend_sched_free                   export when the last scheduler goes
 *   ggml_backend_free                         the backend's address may come back as another
 *   ggml_backend_sched_set_eval_callback      to know when the program's callback runs
 *   ggml_backend_reg_get_proc_address         so "ggml_backend_set_abort_callback" is ours
 *   _exit, _Exit                              programs leave through them from signal handlers
 * See docs/capture.md for the method.
 */
#include "capture/hooks/cap_barrier.h"
#include "capture/hooks/cap_blas.h"
#include "capture/store/cap_buf.h"
#include "capture/store/cap_clock.h"
#include "capture/hooks/cap_copy.h"
#include "capture/gpu/cap_cupti.h"
#include "capture/resolve/cap_devices.h"
#include "capture/store/cap_drops.h"
#include "capture/gpu/cap_gpu.h"
#include "capture/hooks/cap_hooks.h"
#include "capture/life/cap_life.h"
#include "capture/timing/cap_record.h"
#include "capture/resolve/cap_resolve.h"
#include "capture/store/cap_tables.h"
#include "capture/store/cap_window.h"
#include "capture/hooks/cap_tls.h"
#include "capture/timing/cap_walk.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Room for N+1 timestamps at the end of the pool; points w->ts there. */
/* Room for NEED timestamps in W's pools. */
static bool grow_pool(opscope_cap_walk *w, size_t need) {
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
    return true;
}

static bool reserve_ts(opscope_cap_walk *w, int n) {
    if (!grow_pool(w, w->pool_used + (size_t)n + 1)) {
        return false;
    }
    w->st.ts = w->pool + w->pool_used;
    w->st.bar = w->bar_pool + w->pool_used;
    w->st.bar_k = -1;
    w->st.cap = n + 1;
    w->st.n = 0;
    return true;
}

static void emit_pending(opscope_cap_walk *w, const opscope_cap_pend *p) {
    const opscope_cap_compute *c = &p->c;
    if (c->split >= 0) {
        opscope_cap_copy_infer(c); /* cpy_tensor_async */
    }
    opscope_cap_stream st = {w->pool + p->off, w->bar_pool + p->off, p->n_ts, p->cap, -1, NULL, NULL};
    st.nt = p->nt;
    st.thr = p->nt ? w->thr_pool + p->thr_off : NULL;
    if (p->kind == OPSCOPE_CAP_PEND_CPU) {
        opscope_cap_hooks_emit_cpu(w, &st, c);
    } else if (p->kind == OPSCOPE_CAP_PEND_BLAS) {
        if (!opscope_cap_blas_emit(w, &st, c)) {
            opscope_cap_emit_split(c, 0);
        }
    } else if (p->scope == OPSCOPE_GPU_SCOPE_UNTIMED) {
        /* not sampled for device timing: the split's host time, marked so that estimates
         * leave it to the timed computes' weights */
        opscope_cap_emit_split(c, OPSCOPE_CAP_F_SAMPLED_OUT);
    } else if (!p->scope || !opscope_cap_gpu_graph(p->scope, c)) {
        opscope_cap_emit_split(c, 0);
        const opscope_cap_backend *be = c->bi >= 0 ? opscope_cap_backend_at(c->bi) : NULL;
        /* Records full (the memory cap): the graph could not be described, which says nothing
         * of the device timing; the drop warning tells the truth (OPSCOPE_MAX_MB=1 with
         * Vulkan said "timed none of its work" over 2494 device-timed records). */
        if (be && be->device_type == OPSCOPE_DEVICE_GPU && opscope_cap_buf_dropped() == 0) {
            opscope_cap_gpu_note_untimed(be->name);
        }
    }
    uint64_t t2 = opscope_cap_now();
    opscope_cap_graph_rec_write(c, t2);
}

/* Builds the records of every compute deferred during this scheduler compute. */
static void flush_pending(void) {
    opscope_cap_walk *w = opscope_cap_hooks_walk(0);
    if (w->n_pend == 0) {
        return;
    }
    uint64_t a = opscope_cap_now();
    for (int i = 0; i < w->n_pend; i++) {
        emit_pending(w, &w->pend[i]);
    }
    w->n_pend = 0;
    w->pool_used = 0;
    w->thr_used = 0;
    opscope_cap_hooks_count_work(a);
}

static enum ggml_status capture_compute_in(ggml_backend_t backend, struct ggml_cgraph *g,
                                           enum ggml_status (*fn)(ggml_backend_t, struct ggml_cgraph *), int sched);

static enum ggml_status capture_compute(ggml_backend_t backend, struct ggml_cgraph *g,
                                        enum ggml_status (*fn)(ggml_backend_t, struct ggml_cgraph *)) {
    int sched = opscope_cap_thread.in_sched ? opscope_cap_thread.sched_id : -1;
    if (!opscope_cap_should_record(sched)) {
        return fn(backend, g);
    }
    /* outside a scheduler this compute is the graph: recorded when a window is open as it
     * begins (cap_window.h); inside one the scheduler's compute decided */
    bool own = !opscope_cap_thread.in_sched;
    if (own && !opscope_cap_window_enter()) {
        opscope_cap_thread.depth++; /* its copies are not recorded either */
        enum ggml_status st = fn(backend, g);
        opscope_cap_thread.depth--;
        return st;
    }
    enum ggml_status st = capture_compute_in(backend, g, fn, sched);
    if (own) {
        opscope_cap_window_leave();
    }
    return st;
}

static enum ggml_status capture_compute_in(ggml_backend_t backend, struct ggml_cgraph *g,
                                           enum ggml_status (*fn)(ggml_backend_t, struct ggml_cgraph *), int sched) {
    opscope_cap_life_started();
    opscope_cap_thread.depth++;
    int bi = opscope_cap_backend_of(backend);
    int64_t gid = opscope_cap_thread.in_sched ? opscope_cap_thread.graph_id : opscope_cap_hooks_graph_id();
    int split = opscope_cap_thread.in_sched ? opscope_cap_thread.split++ : -1;
    int n = opscope_cap_ggml.graph_n_nodes(g);
    opscope_cap_walk *w = opscope_cap_hooks_walk(0);
    opscope_cap_backend *be = bi >= 0 ? opscope_cap_backend_at(bi) : NULL;
    if (be) {
        opscope_cap_cupti_start(be->name); /* a CUDA backend's first compute: before it runs */
    }
    bool timed = be && (be->set_abort || strncmp(be->name, "BLAS", 4) == 0) && opscope_cap_hooks_walk(n) &&
                 reserve_ts(w, n);
    bool per_op = timed && be->set_abort;
    bool blas = timed && !be->set_abort;
    if (blas) {
        opscope_cap_blas_watch(&w->st);
    }
    bool thr = false;
    if (per_op) {
        opscope_cap_hooks_steps_begin(backend, be, &w->st);
        thr = opscope_cap_barrier_begin(w, n);
    }
    /* a backend without per-op timing of its own: a GPU source may time it on the device */
    uint64_t prev_scope = opscope_cap_gpu_current();
    bool alone = !opscope_cap_thread.in_sched && !per_op && !blas; /* no scheduler decided for it */
    if (alone) {
        opscope_cap_gpu_decide(g, n);
    }
    uint64_t scope = (!per_op && !blas) ? opscope_cap_gpu_open() : 0;
    uint64_t t0 = opscope_cap_now();
    enum ggml_status st = fn(backend, g);
    uint64_t t1 = opscope_cap_now();
    if (scope) {
        opscope_cap_gpu_close(prev_scope);
    }
    if (per_op) {
        opscope_cap_barrier_end(w, t0, t1, thr);
        opscope_cap_hooks_steps_end(backend, be);
    }
    opscope_cap_blas_watch(NULL);
    opscope_cap_pend p = {
        .c = {.g = g, .n = n, .bi = bi, .sched = sched, .gid = gid, .split = split, .t0 = t0, .t1 = t1,
              .aborted = st == GGML_STATUS_ABORTED},
        .kind = per_op ? OPSCOPE_CAP_PEND_CPU : blas ? OPSCOPE_CAP_PEND_BLAS : OPSCOPE_CAP_PEND_SPLIT,
        .n_ts = w->st.n, .cap = w->st.cap, .off = w->pool_used, .scope = scope,
        .nt = per_op ? w->st.nt : 0, .thr_off = w->st.thr_off};
    if (!per_op && !blas) {
        p.n_ts = p.cap = 0;
    }
    bool deferred = false;
    /* Only the scheduler's own split graphs outlive this call for sure; a graph computed
     * from a program's eval callback may be gone before the scheduler compute returns, and
     * with an eval callback the scheduler computes views that live on its stack. */
    if (opscope_cap_hooks_lasting()) {
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
        uint64_t a = opscope_cap_now(), d0 = opscope_cap_buf_dropped_here();
        emit_pending(w, &p);
        if (p.nt) {
            w->thr_used = p.thr_off; /* its pairs were the last added */
        }
        if (!opscope_cap_thread.in_sched) {
            opscope_cap_drops_check(gid, d0); /* in a scheduler: once for its whole compute */
        }
        opscope_cap_hooks_count_work(a);
    }
    if (alone) {
        opscope_cap_gpu_decided();
    }
    opscope_cap_hooks_count(t0, t1);
    opscope_cap_thread.depth--;
    return st;
}

/* ---- interposed functions ---- */

OPSCOPE_EXPORT enum ggml_status ggml_backend_graph_compute_async(ggml_backend_t backend, struct ggml_cgraph *g) {
    if (!opscope_cap_ggml_ready() || opscope_cap_thread.depth) {
        return opscope_cap_ggml.graph_compute_async ? opscope_cap_ggml.graph_compute_async(backend, g) : GGML_STATUS_FAILED;
    }
    return capture_compute(backend, g, opscope_cap_ggml.graph_compute_async);
}

OPSCOPE_EXPORT enum ggml_status ggml_backend_graph_compute(ggml_backend_t backend, struct ggml_cgraph *g) {
    if (!opscope_cap_ggml_ready() || opscope_cap_thread.depth) {
        return opscope_cap_ggml.graph_compute ? opscope_cap_ggml.graph_compute(backend, g) : GGML_STATUS_FAILED;
    }
    return capture_compute(backend, g, opscope_cap_ggml.graph_compute);
}

static enum ggml_status sched_compute_in(ggml_backend_sched_t sched, struct ggml_cgraph *g,
                                         enum ggml_status (*fn)(ggml_backend_sched_t, struct ggml_cgraph *));

static enum ggml_status sched_compute(ggml_backend_sched_t sched, struct ggml_cgraph *g,
                                      enum ggml_status (*fn)(ggml_backend_sched_t, struct ggml_cgraph *)) {
    if (!fn) {
        return GGML_STATUS_FAILED;
    }
    if (!opscope_cap_ggml_ready() || opscope_cap_thread.in_sched || !atomic_load_explicit(&opscope_cap_on, memory_order_relaxed)) {
        return fn(sched, g);
    }
    /* one-time start-up (the export watcher thread: ~0.1 ms, more on a loaded machine) here,
     * not inside the first backend compute, whose wall time it would inflate. */
    opscope_cap_life_started();
    /* a window opens and closes between scheduler computes (cap_window.h): one begun while
     * paused runs untouched, its backend computes and copies passed through */
    if (!opscope_cap_window_enter()) {
        opscope_cap_thread.depth++;
        enum ggml_status st = fn(sched, g);
        opscope_cap_thread.depth--;
        return st;
    }
    enum ggml_status st = sched_compute_in(sched, g, fn);
    opscope_cap_window_leave();
    return st;
}

static enum ggml_status sched_compute_in(ggml_backend_sched_t sched, struct ggml_cgraph *g,
                                         enum ggml_status (*fn)(ggml_backend_sched_t, struct ggml_cgraph *)) {
    /* This thread's scratch for the splits, sized here too: a first allocation took 0.15-0.4 ms
     * on this machine, which inside the first split's compute was 5-7% of its wall time. */
    int n_all = opscope_cap_ggml.graph_n_nodes(g);
    opscope_cap_walk *w = opscope_cap_hooks_walk(n_all);
    if (w) {
        grow_pool(w, (size_t)n_all + 64);
    }
    opscope_cap_thread.in_sched = 1;
    opscope_cap_thread.no_defer = opscope_cap_eval_has(sched);
    opscope_cap_thread.sched_id = opscope_cap_sched_id(sched);
    opscope_cap_thread.graph_id = opscope_cap_hooks_graph_id();
    opscope_cap_thread.split = 0;
    uint64_t d0 = opscope_cap_buf_dropped_here(); /* its copies count too */
    opscope_cap_gpu_decide(g, n_all); /* its GPU splits and copies: device-timed or not */
    enum ggml_status st = fn(sched, g);
    opscope_cap_thread.depth++;
    flush_pending();
    opscope_cap_gpu_decided();
    opscope_cap_drops_check(opscope_cap_thread.graph_id, d0);
    opscope_cap_thread.depth--;
    opscope_cap_thread.in_sched = 0;
    opscope_cap_thread.sched_id = -1;
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
    opscope_cap_hooks_sched_changed(sched);
    if (opscope_cap_ggml.sched_split_graph) {
        opscope_cap_ggml.sched_split_graph(sched, g);
    }
}

OPSCOPE_EXPORT void ggml_backend_sched_reset(ggml_backend_sched_t sched) {
    opscope_cap_hooks_sched_changed(sched);
    if (opscope_cap_ggml.sched_reset) {
        opscope_cap_ggml.sched_reset(sched);
    }
}

OPSCOPE_EXPORT void ggml_backend_sched_free(ggml_backend_sched_t sched) {
    bool last = opscope_cap_hooks_sched_freeing(sched);
    if (last) {
        opscope_cap_gpu_poll(); /* a source that buffers (CUPTI) hands in what it holds */
    }
    if (opscope_cap_ggml.sched_free) {
        opscope_cap_ggml.sched_free(sched);
    }
    opscope_cap_hooks_sched_gone(last);
}

/* Marked before the real free: from then on another thread may get the same address. */
OPSCOPE_EXPORT void ggml_backend_free(ggml_backend_t backend) {
    if (backend) {
        opscope_cap_backend_freed(backend);
    }
    void (*fn)(ggml_backend_t) = opscope_cap_ggml.backend_free;
    if (!fn) {
        *(void **)&fn = dlsym(RTLD_NEXT, "ggml_backend_free"); /* before the resolver ran */
    }
    if (fn) {
        fn(backend);
    }
}

/* ---- the scheduler's eval callback: wrapped so we know when the program's code runs ---- */

static bool eval_trampoline(struct ggml_tensor *t, bool ask, void *data) {
    opscope_cap_eval *e = data;
    opscope_cap_thread.in_user_cb++;
    bool r = e->cb(t, ask, e->ud);
    opscope_cap_thread.in_user_cb--;
    return r;
}

OPSCOPE_EXPORT void ggml_backend_sched_set_eval_callback(ggml_backend_sched_t sched,
                                                 ggml_backend_sched_eval_callback cb, void *ud) {
    opscope_cap_ggml_ready();
    if (!opscope_cap_ggml.sched_set_eval_callback) {
        return;
    }
    if (!cb) {
        opscope_cap_eval_put(sched, NULL, NULL);
        opscope_cap_ggml.sched_set_eval_callback(sched, cb, ud);
        return;
    }
    if (!opscope_cap_ggml_resolved()) {
        opscope_cap_eval_mark_lost();
        opscope_cap_ggml.sched_set_eval_callback(sched, cb, ud);
        return;
    }
    opscope_cap_eval *slot = opscope_cap_eval_put(sched, cb, ud);
    if (slot) {
        opscope_cap_ggml.sched_set_eval_callback(sched, eval_trampoline, slot);
    } else {
        opscope_cap_ggml.sched_set_eval_callback(sched, cb, ud); /* table full: unwrapped, nothing deferred */
    }
}

/* ---- the CPU backend's abort callback: what the program gets for
 * "ggml_backend_set_abort_callback" is our setter (cap_hooks.c) ---- */

OPSCOPE_EXPORT void *ggml_backend_reg_get_proc_address(ggml_backend_reg_t reg, const char *name) {
    opscope_cap_ggml_ready();
    void *p = opscope_cap_ggml.reg_get_proc_address ? opscope_cap_ggml.reg_get_proc_address(reg, name) : NULL;
    return opscope_cap_hooks_proc_address(p, name);
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
