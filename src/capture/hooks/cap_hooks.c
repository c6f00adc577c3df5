/* cap_hooks.c - the hooks both capture libraries share (see cap_hooks.h). */
#include "capture/hooks/cap_hooks.h"

#include "capture/hooks/cap_api.h"
#include "capture/store/cap_clock.h"
#include "capture/store/cap_counters.h"
#include "capture/timing/cap_cpu.h"
#include "capture/resolve/cap_devices.h"
#include "capture/life/cap_life.h"
#include "capture/timing/cap_record.h"
#include "capture/hooks/cap_tls.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

/* ---- graph ids, scratch ---- */

static _Atomic int64_t g_graph_ids;

int64_t opscope_cap_hooks_graph_id(void) {
    return atomic_fetch_add(&g_graph_ids, 1);
}

int64_t opscope_cap_hooks_graph_next(void) {
    return atomic_load(&g_graph_ids);
}

static _Thread_local opscope_cap_walk t_walk;
static _Thread_local bool t_walk_kept;

/* Frees a thread's scratch when it exits (its records stay: they belong to the profile). */
static pthread_key_t g_scratch_key;
static pthread_once_t g_scratch_once = PTHREAD_ONCE_INIT;
static bool g_scratch_key_ok;
static void (*_Atomic g_thread_exit)(void);

static void free_scratch(void *p) {
    opscope_cap_walk *w = p;
    opscope_cap_cpu_plans_clear(w, true);
    opscope_cap_walk_free(w);
    memset(w, 0, sizeof *w);
    void (*fn)(void) = atomic_load(&g_thread_exit);
    if (fn) {
        fn();
    }
    opscope_cap_desc_free();
}

static void make_scratch_key(void) {
    g_scratch_key_ok = pthread_key_create(&g_scratch_key, free_scratch) == 0;
}

opscope_cap_walk *opscope_cap_hooks_walk(int n) {
    opscope_cap_walk *w = &t_walk;
    if (!t_walk_kept) { /* once per thread: released at its exit */
        pthread_once(&g_scratch_once, make_scratch_key);
        if (g_scratch_key_ok) {
            pthread_setspecific(g_scratch_key, w);
        }
        t_walk_kept = true;
    }
    if (n <= w->nodes_cap) {
        return w;
    }
    return opscope_cap_walk_grow(w, n) ? w : NULL;
}

void opscope_cap_hooks_on_thread_exit(void (*fn)(void)) {
    if (atomic_load_explicit(&g_thread_exit, memory_order_relaxed) != fn) {
        atomic_store(&g_thread_exit, fn);
    }
}

/* ---- CPU step timing ---- */

_Thread_local opscope_cap_stream *opscope_cap_hooks_watch;

/* Called by ggml's CPU backend on thread 0 after each computed step. */
static bool on_step(void *data) {
    opscope_cap_stream *st = data;
    if (st->n < st->cap) {
        st->ts[st->n] = opscope_cap_now();
        st->bar[st->n] = 0;
        st->bar_k = st->n;
    }
    st->n++;
    opscope_cap_hooks_watch = st; /* thread 0 is the thread that called the compute */
    return st->user_cb ? st->user_cb(st->user_data) : false;
}

void opscope_cap_hooks_steps_begin(ggml_backend_t backend, const opscope_cap_backend *be, opscope_cap_stream *st) {
    st->user_cb = (opscope_cap_abort_cb)be->user_cb;
    st->user_data = be->user_data;
    ((opscope_cap_set_abort_fn)be->set_abort)(backend, on_step, st);
}

void opscope_cap_hooks_steps_end(ggml_backend_t backend, const opscope_cap_backend *be) {
    opscope_cap_hooks_watch = NULL;
    ((opscope_cap_set_abort_fn)be->set_abort)(backend, (opscope_cap_abort_cb)be->user_cb, be->user_data);
}

/* ---- a compute ---- */

bool opscope_cap_hooks_lasting(void) {
    return opscope_cap_thread.in_sched && !opscope_cap_thread.no_defer && !opscope_cap_thread.in_user_cb;
}

void opscope_cap_hooks_emit_cpu(opscope_cap_walk *w, const opscope_cap_stream *st, const opscope_cap_compute *c) {
    opscope_cap_cpu_emit(w, st, c, opscope_cap_hooks_lasting());
    atomic_fetch_add_explicit(&opscope_cap_stats.callbacks, (uint64_t)st->n, memory_order_relaxed);
}

void opscope_cap_hooks_count(uint64_t t0, uint64_t t1) {
    atomic_fetch_add_explicit(&opscope_cap_stats.graphs, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&opscope_cap_stats.graph_ticks, t1 - t0, memory_order_relaxed);
}

void opscope_cap_hooks_count_work(uint64_t a) {
    atomic_fetch_add_explicit(&opscope_cap_stats.walk_ticks, opscope_cap_now() - a, memory_order_relaxed);
}

/* ---- scheduler lifetime ---- */

void opscope_cap_hooks_sched_changed(ggml_backend_sched_t sched) {
    if (sched && opscope_cap_ggml_ready()) {
        opscope_cap_cpu_sched_changed(opscope_cap_sched_id(sched));
    }
}

bool opscope_cap_hooks_sched_freeing(ggml_backend_sched_t sched) {
    bool ready = opscope_cap_ggml_ready();
    if (!sched) {
        return false;
    }
    bool last = ready && opscope_cap_sched_freed(sched);
    opscope_cap_api_sched_freed(sched);
    opscope_cap_hooks_sched_changed(sched);
    opscope_cap_eval_put(sched, NULL, NULL);
    return last;
}

void opscope_cap_hooks_sched_gone(bool last) {
    if (last) {
        opscope_cap_life_export(false);
    }
}

/* ---- the program's scheduler eval callbacks ---- */

#define MAX_EVAL 64
static opscope_cap_eval g_eval[MAX_EVAL];
static pthread_mutex_t g_eval_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic bool g_eval_lost;

opscope_cap_eval *opscope_cap_eval_put(ggml_backend_sched_t sched, ggml_backend_sched_eval_callback cb, void *ud) {
    opscope_cap_eval *slot = NULL;
    pthread_mutex_lock(&g_eval_lock);
    for (int i = 0; i < MAX_EVAL && !slot; i++) {
        if (g_eval[i].sched == sched) slot = &g_eval[i];
    }
    for (int i = 0; i < MAX_EVAL && !slot && cb; i++) {
        if (!g_eval[i].sched) slot = &g_eval[i];
    }
    if (slot) {
        /* the scheduler only calls back from its compute, on the thread that set it up;
         * replacing the entry while it runs is what the program asked for */
        slot->sched = cb ? sched : NULL;
        slot->cb = cb;
        slot->ud = ud;
    }
    pthread_mutex_unlock(&g_eval_lock);
    if (!cb) {
        return NULL;
    }
    if (!slot) {
        opscope_cap_eval_mark_lost();
    }
    return slot;
}

bool opscope_cap_eval_get(ggml_backend_sched_t sched, ggml_backend_sched_eval_callback *cb, void **ud) {
    bool found = false;
    *cb = NULL;
    *ud = NULL;
    pthread_mutex_lock(&g_eval_lock);
    for (int i = 0; i < MAX_EVAL && !found; i++) {
        if (g_eval[i].sched == sched) {
            *cb = g_eval[i].cb;
            *ud = g_eval[i].ud;
            found = true;
        }
    }
    pthread_mutex_unlock(&g_eval_lock);
    return found;
}

bool opscope_cap_eval_has(ggml_backend_sched_t sched) {
    if (opscope_cap_eval_lost()) {
        return true;
    }
    ggml_backend_sched_eval_callback cb;
    void *ud;
    return opscope_cap_eval_get(sched, &cb, &ud) && cb;
}

void opscope_cap_eval_mark_lost(void) {
    atomic_store(&g_eval_lost, true);
}

bool opscope_cap_eval_lost(void) {
    return atomic_load_explicit(&g_eval_lost, memory_order_relaxed);
}

/* ---- the program's CPU abort callback ---- */

static _Atomic(opscope_cap_set_abort_fn) g_real_set_abort; /* for a backend not in our table */

void opscope_cap_hooks_set_abort(ggml_backend_t backend, opscope_cap_abort_cb cb, void *data) {
    int bi = backend && opscope_cap_ggml_ready() ? opscope_cap_backend_of(backend) : -1;
    opscope_cap_backend *b = bi >= 0 ? opscope_cap_backend_at(bi) : NULL;
    if (b) {
        b->user_cb = (void *)cb;
        b->user_data = data;
    }
    opscope_cap_set_abort_fn real = b && b->set_abort ? (opscope_cap_set_abort_fn)b->set_abort
                                                      : atomic_load(&g_real_set_abort);
    if (real) {
        real(backend, cb, data);
    }
}

void *opscope_cap_hooks_proc_address(void *p, const char *name) {
    if (p && name && strcmp(name, "ggml_backend_set_abort_callback") == 0 && opscope_cap_ggml_ready()) {
        opscope_cap_hooks_abort_setter(p);
        return (void *)opscope_cap_hooks_set_abort;
    }
    return p;
}

bool opscope_cap_hooks_abort_setter_known(void) {
    return atomic_load(&g_real_set_abort) != NULL;
}

void opscope_cap_hooks_abort_setter(void *real) {
    if (real) {
        atomic_store(&g_real_set_abort, (opscope_cap_set_abort_fn)real);
    }
}
