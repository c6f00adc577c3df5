/*
 * cap_hooks.h - the hooks the shared library (cap_ggml.c: interposed ggml functions) and the
 * static one (cap_static.c: link-time wrappers) share (internal): graph ids, the per-thread
 * walk scratch, the abort callback that times CPU steps and chains the program's, the table
 * of the program's scheduler eval callbacks, the program's abort-callback setter, and the
 * bookkeeping around a compute. The two libraries differ only in how they get control
 * (interposing vs --wrap) and in how they find a scheduler's splits.
 * Thread safety: every function may be called from any thread unless noted.
 */
#ifndef OPSCOPE_CAP_HOOKS_H
#define OPSCOPE_CAP_HOOKS_H

#include "capture/resolve/cap_resolve.h"
#include "capture/store/cap_tables.h"
#include "capture/timing/cap_walk.h"

#include "ggml-backend.h"
#include "ggml.h"

#include <stdbool.h>
#include <stdint.h>

/* ---- graph ids, scratch ---- */

/* A new graph id (one per scheduler compute, or per backend compute outside a scheduler). */
int64_t opscope_cap_hooks_graph_id(void);
/* The id the next graph will get (llama_decode's hook: the graphs computed inside a call). */
int64_t opscope_cap_hooks_graph_next(void);

/* This thread's walk scratch with room for a graph of N nodes, released (with its plan cache
 * and description cache) when the thread exits. NULL: out of memory. Per thread. */
opscope_cap_walk *opscope_cap_hooks_walk(int n);
/* FN also runs when a thread that used opscope_cap_hooks_walk exits (a library's own
 * per-thread scratch). */
void opscope_cap_hooks_on_thread_exit(void (*fn)(void));

/* ---- CPU step timing through the backend's abort callback ---- */

/* The stream whose step callback thread 0 took last in the compute in progress on this
 * thread (NULL outside one): the OpenMP barrier wrappers (cap_omp.c, cap_static_omp.c) end
 * its step when thread 0 leaves the barrier after it. */
extern _Thread_local opscope_cap_stream *opscope_cap_hooks_watch;

/* BACKEND (entry BE, which has an abort-callback setter) computes with per-step timing: its
 * abort callback becomes ours, which notes each step in ST (ST->ts, bar and cap set by the
 * caller) and then calls the program's callback. */
void opscope_cap_hooks_steps_begin(ggml_backend_t backend, const opscope_cap_backend *be, opscope_cap_stream *st);
/* BACKEND's compute is over: the program's abort callback is given back. */
void opscope_cap_hooks_steps_end(ggml_backend_t backend, const opscope_cap_backend *be);

/* ---- a compute ---- */

/* Whether a graph computed on this thread now lives until its scheduler splits again, so
 * its step plan may be cached by address: inside a scheduler compute, outside a program's
 * eval callback, and without one set (its split graphs are views on the scheduler's stack). */
bool opscope_cap_hooks_lasting(void);
/* Records of CPU compute C from the steps in ST (cap_cpu.h), its callbacks counted. */
void opscope_cap_hooks_emit_cpu(opscope_cap_walk *w, const opscope_cap_stream *st, const opscope_cap_compute *c);
/* A backend compute from tick T0 to T1 was recorded; the capture then worked from tick A to
 * now building its records (OPSCOPE_STATS). */
void opscope_cap_hooks_count(uint64_t t0, uint64_t t1);
void opscope_cap_hooks_count_work(uint64_t a);

/* ---- scheduler lifetime ---- */

/* SCHED (may be NULL) will split again: cached step plans of its graphs are stale. */
void opscope_cap_hooks_sched_changed(ggml_backend_sched_t sched);
/* SCHED is about to be freed: forgets it (C API snapshot, eval callback, plans). Returns
 * whether it was the last live scheduler: pass that to opscope_cap_hooks_sched_gone once
 * ggml freed it. */
bool opscope_cap_hooks_sched_freeing(ggml_backend_sched_t sched);
void opscope_cap_hooks_sched_gone(bool last);

/* ---- the program's scheduler eval callbacks (a table of 64 schedulers) ---- */

typedef struct opscope_cap_eval {
    ggml_backend_sched_t sched;
    ggml_backend_sched_eval_callback cb;
    void *ud;
} opscope_cap_eval;

/* Stores SCHED's callback CB (NULL: forgets SCHED's). Returns the entry (stable, updated in
 * place when SCHED sets another), or NULL when CB is NULL or the table is full; a full table
 * marks the callbacks lost. */
opscope_cap_eval *opscope_cap_eval_put(ggml_backend_sched_t sched, ggml_backend_sched_eval_callback cb, void *ud);
/* SCHED's callback into *CB, *UD (NULL when none). Returns whether SCHED has an entry. */
bool opscope_cap_eval_get(ggml_backend_sched_t sched, ggml_backend_sched_eval_callback *cb, void **ud);
/* Whether SCHED may run a program eval callback: it has one, or one could not be tracked. */
bool opscope_cap_eval_has(ggml_backend_sched_t sched);
/* A program callback could not be tracked (table full, ggml unresolved): from now on every
 * scheduler is assumed to have one. */
void opscope_cap_eval_mark_lost(void);
bool opscope_cap_eval_lost(void);

/* ---- the program's CPU abort callback ---- */

/* What a registry lookup of NAME returned (P, the real function): for
 * "ggml_backend_set_abort_callback", our setter, which keeps the program's callback (chained
 * by the step callback) and passes it on; P itself otherwise. */
void *opscope_cap_hooks_proc_address(void *p, const char *name);
/* Our setter: keeps CB, DATA as BACKEND's program callback and sets them through the real
 * setter (the backend's, or the last one a registry lookup returned). */
void opscope_cap_hooks_set_abort(ggml_backend_t backend, opscope_cap_abort_cb cb, void *data);
/* Whether a real setter was seen; records REAL (non-NULL) as one. */
bool opscope_cap_hooks_abort_setter_known(void);
void opscope_cap_hooks_abort_setter(void *real);

#endif
