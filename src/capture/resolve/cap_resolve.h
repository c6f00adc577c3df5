/*
 * cap_resolve.h - the ggml functions the capture calls, found at run time (internal).
 *
 * The library never links against ggml: cap_resolve.c fills the table opscope_cap_ggml by
 * name through opscope_cap_sym (cap_sym.h: dlsym for the shared library, link-time addresses
 * for the static one), so it loads harmlessly into programs without ggml (a shell started by
 * the profiled program, say) and stays inert there; then it checks ggml's version and the
 * struct layout it reads.
 */
#ifndef OPSCOPE_CAP_RESOLVE_H
#define OPSCOPE_CAP_RESOLVE_H

#include "ggml-backend.h"
#include "ggml.h"

#include <stdbool.h>
#include <stdint.h>

/* Marks the functions the shared library defines in ggml's (or libgomp's, BLAS's) name. */
#define OPSCOPE_EXPORT __attribute__((visibility("default")))

/* A backend's abort callback and its setter ("ggml_backend_set_abort_callback"). */
typedef bool (*opscope_cap_abort_cb)(void *data);
typedef void (*opscope_cap_set_abort_fn)(ggml_backend_t, opscope_cap_abort_cb, void *);

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
    void (*synchronize)(ggml_backend_t); /* interposed by the preload only (cap_sync.c) */
    void (*backend_free)(ggml_backend_t); /* interposed; NULL in a static link without its wrap */
} opscope_cap_ggml_fns;

/* Read-only after opscope_cap_ggml_ready() returned true. */
extern opscope_cap_ggml_fns opscope_cap_ggml;

/* Resolves ggml and checks its layout (once). False: ggml absent, or unknown and disabled
 * with one warning. Thread safety: any thread. */
bool opscope_cap_ggml_ready(void);
/* Whether resolving finished and succeeded, without resolving. */
bool opscope_cap_ggml_resolved(void);

#endif
