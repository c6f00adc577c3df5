/*
 * cap_ggml.h - the ggml side of the capture (internal; needs ggml's public headers).
 *
 *   cap_resolve.c  finds ggml at run time and checks its layout (the table opscope_cap_ggml)
 *   cap_devices.c  backends and devices -> the capture's backend entries
 *   cap_ggml.c     the interposed compute entry points, scheduler hooks, _exit
 *   cap_cpu.c      CPU graphs: ggml-cpu's step rules, the per-split plan cache
 *   cap_blas.c     BLAS graphs: cblas_sgemm timing
 *   cap_record.c   shared op descriptions, per-step events, GRAPH and split records
 *   cap_copy.c     the interposed tensor copy functions (the 2d ones where ggml has them)
 *
 * The library never links against ggml: every ggml function it calls is looked up with
 * dlsym, so it loads harmlessly into programs without ggml (a shell started by the profiled
 * program, say) and stays inert there.
 */
#ifndef OPSCOPE_CAP_GGML_H
#define OPSCOPE_CAP_GGML_H

#include "capture/cap_attr.h"
#include "capture/cap_buf.h"
#include "capture/cap_tables.h"

#include "ggml-backend.h"
#include "ggml.h"

#include <stdbool.h>
#include <stdint.h>

#define OPSCOPE_EXPORT __attribute__((visibility("default")))

typedef bool (*opscope_cap_abort_cb)(void *data);
typedef void (*opscope_cap_set_abort_fn)(ggml_backend_t, opscope_cap_abort_cb, void *);

/* ---- ggml functions we call (all through pointers; filled by cap_resolve.c) ---- */

typedef struct opscope_cap_ggml_fns {
    /* interposed: the real ones */
    enum ggml_status (*graph_compute_async)(ggml_backend_t, struct ggml_cgraph *);
    enum ggml_status (*graph_compute)(ggml_backend_t, struct ggml_cgraph *);
    enum ggml_status (*sched_graph_compute_async)(ggml_backend_sched_t, struct ggml_cgraph *);
    enum ggml_status (*sched_graph_compute)(ggml_backend_sched_t, struct ggml_cgraph *);
    void (*sched_free)(ggml_backend_sched_t);
    void (*sched_set_eval_callback)(ggml_backend_sched_t, ggml_backend_sched_eval_callback, void *);
    void (*sched_split_graph)(ggml_backend_sched_t, struct ggml_cgraph *);
    void (*sched_reset)(ggml_backend_sched_t);
    void (*tensor_copy)(const struct ggml_tensor *, struct ggml_tensor *);
    void (*tensor_set)(struct ggml_tensor *, const void *, size_t, size_t);
    void (*tensor_get)(const struct ggml_tensor *, void *, size_t, size_t);
    void (*tensor_set_async)(ggml_backend_t, struct ggml_tensor *, const void *, size_t, size_t);
    void (*tensor_get_async)(ggml_backend_t, const struct ggml_tensor *, void *, size_t, size_t);
    void *(*reg_get_proc_address)(ggml_backend_reg_t, const char *);
    /* helpers */
    const char *(*op_name)(enum ggml_op);
    const char *(*unary_op_name)(enum ggml_unary_op);
    const char *(*glu_op_name)(enum ggml_glu_op);
    size_t (*nbytes)(const struct ggml_tensor *);
    int (*graph_n_nodes)(struct ggml_cgraph *);
    struct ggml_tensor *(*graph_node)(struct ggml_cgraph *, int);
    const char *(*backend_name)(ggml_backend_t);
    ggml_backend_dev_t (*backend_get_device)(ggml_backend_t);
    const char *(*dev_name)(ggml_backend_dev_t);
    const char *(*dev_description)(ggml_backend_dev_t);
    enum ggml_backend_dev_type (*dev_type)(ggml_backend_dev_t);
    ggml_backend_reg_t (*dev_backend_reg)(ggml_backend_dev_t);
    bool (*buffer_is_host)(ggml_backend_buffer_t);
    ggml_backend_buffer_type_t (*buffer_get_type)(ggml_backend_buffer_t);
    ggml_backend_dev_t (*buft_get_device)(ggml_backend_buffer_type_t);
    const char *(*version)(void);
    size_t (*tensor_overhead)(void);
    struct ggml_context *(*init)(struct ggml_init_params);
    void (*free)(struct ggml_context *);
    struct ggml_tensor *(*new_tensor_2d)(struct ggml_context *, enum ggml_type, int64_t, int64_t);
    struct ggml_tensor *(*mul_mat)(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *);
    struct ggml_tensor *(*unary)(struct ggml_context *, struct ggml_tensor *, enum ggml_unary_op);
    /* optional, interposed where this ggml has them (newer API): NULL when absent. Keep them
     * last: cap_resolve.c requires every pointer before tensor_set_2d. */
    void (*tensor_set_2d)(struct ggml_tensor *, const void *, size_t, size_t, size_t, size_t, size_t);
    void (*tensor_get_2d)(const struct ggml_tensor *, void *, size_t, size_t, size_t, size_t, size_t);
    void (*tensor_set_2d_async)(ggml_backend_t, struct ggml_tensor *, const void *, size_t, size_t, size_t,
                                size_t, size_t);
    void (*tensor_get_2d_async)(ggml_backend_t, const struct ggml_tensor *, void *, size_t, size_t, size_t,
                                size_t, size_t);
} opscope_cap_ggml_fns;

/* Read-only after opscope_cap_ggml_ready() returned true. */
extern opscope_cap_ggml_fns opscope_cap_ggml;

/* Resolves ggml and checks its layout (once). False: ggml absent, or unknown and disabled
 * with one warning. Thread safety: any thread. */
bool opscope_cap_ggml_ready(void);
/* Whether resolving finished and succeeded, without resolving. */
bool opscope_cap_ggml_resolved(void);

/* ---- per-thread state of the compute in progress (cap_ggml.c) ---- */

typedef struct opscope_cap_tls {
    int depth;        /* >0 inside one of our wrappers */
    int in_user_cb;   /* >0 inside a program's scheduler eval callback */
    bool no_defer;    /* this scheduler compute runs an eval callback */
    int in_sched;     /* inside a scheduler compute */
    int sched_id;     /* its scheduler's id (-1 outside) */
    int64_t graph_id; /* its graph id */
    int split;        /* backend computes so far in it */
} opscope_cap_tls;
extern _Thread_local opscope_cap_tls opscope_cap_t;

/* ---- per-thread scratch of the CPU and BLAS walks ---- */

/* A backend compute inside a scheduler compute whose records are built after the scheduler
 * compute returns (the split graphs stay valid until the next one), so the capture's own
 * work is never inside a backend's graph compute. */
enum { OPSCOPE_CAP_PEND_CPU, OPSCOPE_CAP_PEND_BLAS, OPSCOPE_CAP_PEND_SPLIT };
typedef struct opscope_cap_pend {
    struct ggml_cgraph *g;
    int kind, n, bi, sched, split, n_ts, cap;
    bool aborted;
    int64_t gid;
    size_t off;
    uint64_t t0, t1;
    uint64_t scope; /* the GPU source's scope of this compute (cap_gpu.h), 0 none */
} opscope_cap_pend;

typedef struct opscope_cap_plan opscope_cap_plan; /* cap_cpu.c */

typedef struct opscope_cap_walk {
    uint64_t *ts;          /* where the callbacks of the current compute write (into pool) */
    uint64_t *bar;         /* bar[k]: when thread 0 left the barrier after callback k (0: none) */
    int n_ts;
    int cap;
    int bar_k;             /* the callback whose barrier exit is awaited, -1: none */
    uint64_t *pool;        /* timestamps of every compute of the current scheduler compute */
    uint64_t *bar_pool;    /* barrier exits, at the same offsets */
    size_t pool_used, pool_cap;
    opscope_cap_pend *pend;
    int n_pend, pend_cap;
    opscope_cap_abort_cb user_cb;
    void *user_data;
    opscope_cap_node *nodes;
    opscope_cap_step *steps;
    struct ggml_tensor **ptrs; /* the graph's node pointers */
    opscope_cap_event *ev;     /* event templates of the compute being walked */
    int32_t *cand;             /* RMS_NORM nodes followed by a MUL */
    int nodes_cap;
    /* RMS_NORM use counts: open addressing on tensor pointers */
    const void **uk;
    int32_t *uv;
    int ucap;
    opscope_cap_plan *plans; /* cap_cpu.c's cache of step plans per split graph */
} opscope_cap_walk;

/* ---- cap_walk.c ---- */

/* Room in W's per-node arrays for a graph of N nodes. False: out of memory. */
bool opscope_cap_walk_grow(opscope_cap_walk *w, int n);
/* Frees everything W holds (W itself belongs to the caller; zero it to reuse it). */
void opscope_cap_walk_free(opscope_cap_walk *w);

/* ---- cap_devices.c ---- */

/* The capture's backend index for BACKEND, adding an entry (and probing its abort-callback
 * setter) the first time. -1 when the table is full. */
int opscope_cap_backend_of(ggml_backend_t backend);
/* The backend index for a copy touching BUF (by its device), adding a device entry. */
int opscope_cap_backend_of_buffer(ggml_backend_buffer_t buf);
/* Whether computes of scheduler SCHED (-1: none) are recorded now. */
bool opscope_cap_should_record(int sched);

/* ---- cap_record.c ---- */

static inline bool opscope_cap_op_is_empty(enum ggml_op op) {
    return op == GGML_OP_NONE || op == GGML_OP_RESHAPE || op == GGML_OP_TRANSPOSE ||
           op == GGML_OP_VIEW || op == GGML_OP_PERMUTE;
}
/* The shared description of node T (written once while its fields stay the same); NULL
 * when the record buffer is full. */
const opscope_cap_rec *opscope_cap_desc_for(const struct ggml_tensor *t);
/* The parts of step S's event that depend only on the graph whose node pointers are NODES
 * (description, node, fused ops, bytes) into *E. False when the record buffer is full. */
bool opscope_cap_event_make(struct ggml_tensor *const *nodes, const opscope_cap_step *s, opscope_cap_event *e);
/* Appends the N events TMPL[k] timed by STEPS[k] in one go. Returns how many were written. */
int opscope_cap_event_put_all(const opscope_cap_event *tmpl, const opscope_cap_step *steps, int n,
                              uint8_t flags, int bi, int sched, int tid, int64_t gid, int split);
/* One timed step S of graph G. Returns false when dropped. */
bool opscope_cap_emit_event(struct ggml_cgraph *g, const opscope_cap_step *s, uint8_t flags, int bi,
                            int sched, int tid, int64_t gid, int split);
/* One record for a whole split (backends without per-op timing). */
void opscope_cap_emit_split(struct ggml_cgraph *g, int n, int bi, int sched, int64_t gid, int split,
                            uint64_t t0, uint64_t t1);
/* The GRAPH record of a compute: _add notes its outcome (TAIL: ticks after the last step that
 * are no node's), _write writes it once the capture's own work is done (T2), so it can say
 * how long that took. */
void opscope_cap_graph_rec_add(int steps, int attr, uint64_t tail);
void opscope_cap_graph_rec_write(int bi, int sched, int64_t gid, int split, int n_nodes, uint64_t t0,
                                 uint64_t t1, uint64_t t2);
/* Frees this thread's description cache. */
void opscope_cap_desc_free(void);

/* ---- cap_cpu.c ---- */

/* Records of one CPU graph from the step timestamps in W. */
void opscope_cap_cpu_emit(opscope_cap_walk *w, struct ggml_cgraph *g, int n, int bi, int sched,
                          int64_t gid, int split, uint64_t t0, uint64_t t1, bool aborted);
/* Drops every cached plan of W (and frees them with FREE_ALL). */
void opscope_cap_cpu_plans_clear(opscope_cap_walk *w, bool free_all);
/* Scheduler SCHED may have new split graphs (split_graph, reset, alloc): plans made before
 * are stale. Thread safety: any thread. */
void opscope_cap_cpu_sched_changed(int sched);

/* ---- cap_omp.c ---- */

/* While set (non-NULL), the first OpenMP barrier this thread leaves after callback W->bar_k
 * stores its exit time in W->bar[W->bar_k]. */
void opscope_cap_omp_watch(opscope_cap_walk *w);

/* ---- cap_blas.c ---- */

/* While set (non-NULL), cblas_sgemm calls on this thread append their end tick to W. */
void opscope_cap_blas_watch(opscope_cap_walk *w);
/* Records of one BLAS graph; false when the calls did not match the graph. */
bool opscope_cap_blas_emit(opscope_cap_walk *w, struct ggml_cgraph *g, int n, int bi, int sched,
                           int64_t gid, int split, uint64_t t0, uint64_t t1);

#endif
