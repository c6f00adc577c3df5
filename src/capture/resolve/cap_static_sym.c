/*
 * cap_static_sym.c - opscope_cap_sym for libopscope-ggml-static.a: the addresses of ggml's
 * functions as the program's link resolves them. A function the link wraps (-Wl,--wrap=X,
 * see cap_static.c) is taken as __real_X, the original; naming X itself there would give
 * our own wrapper. Every other function is referenced directly.
 */
#include "capture/resolve/cap_sym.h"

#include "ggml-backend.h"
#include "ggml.h"

#include <stddef.h>
#include <string.h>

/* The originals of the wrapped functions (the linker defines __real_X for --wrap=X). */
enum ggml_status __real_ggml_backend_sched_graph_compute(ggml_backend_sched_t, struct ggml_cgraph *);
enum ggml_status __real_ggml_backend_sched_graph_compute_async(ggml_backend_sched_t, struct ggml_cgraph *);
void __real_ggml_backend_sched_free(ggml_backend_sched_t);
void __real_ggml_backend_sched_reset(ggml_backend_sched_t);
void __real_ggml_backend_sched_set_eval_callback(ggml_backend_sched_t, ggml_backend_sched_eval_callback, void *);
void *__real_ggml_backend_reg_get_proc_address(ggml_backend_reg_t, const char *);
void __real_ggml_backend_tensor_copy(const struct ggml_tensor *, struct ggml_tensor *);
void __real_ggml_backend_tensor_set(struct ggml_tensor *, const void *, size_t, size_t);
void __real_ggml_backend_tensor_get(const struct ggml_tensor *, void *, size_t, size_t);
void __real_ggml_backend_tensor_set_async(ggml_backend_t, struct ggml_tensor *, const void *, size_t, size_t);
void __real_ggml_backend_tensor_get_async(ggml_backend_t, const struct ggml_tensor *, void *, size_t, size_t);
enum ggml_status __real_ggml_backend_graph_compute_async(ggml_backend_t, struct ggml_cgraph *);
enum ggml_status __real_ggml_backend_graph_compute(ggml_backend_t, struct ggml_cgraph *);
/* Weak: a ggml older than the 2d copies leaves them NULL (cap_resolve.c: optional). */
__attribute__((weak)) void __real_ggml_backend_tensor_set_2d(struct ggml_tensor *, const void *, size_t, size_t,
                                                             size_t, size_t, size_t);
__attribute__((weak)) void __real_ggml_backend_tensor_get_2d(const struct ggml_tensor *, void *, size_t, size_t,
                                                             size_t, size_t, size_t);
__attribute__((weak)) void __real_ggml_backend_tensor_set_2d_async(ggml_backend_t, struct ggml_tensor *, const void *,
                                                                   size_t, size_t, size_t, size_t, size_t);
/* Weak too: a program linked with the flags of an older opscope build does not wrap it. */
__attribute__((weak)) void __real_ggml_backend_free(ggml_backend_t);
__attribute__((weak)) void __real_ggml_backend_tensor_get_2d_async(ggml_backend_t, const struct ggml_tensor *, void *,
                                                                   size_t, size_t, size_t, size_t, size_t);

typedef struct sym {
    const char *name;
    void *addr;
    bool wrapped; /* the program's calls reach our __wrap_ */
} sym;

#define WRAPPED(name) {#name, (void *)__real_##name, true}
#define DIRECT(name) {#name, (void *)name, false}

/* Every name cap_resolve.c asks for. */
static const sym g_syms[] = {
    WRAPPED(ggml_backend_sched_graph_compute),
    WRAPPED(ggml_backend_sched_graph_compute_async),
    WRAPPED(ggml_backend_sched_free),
    WRAPPED(ggml_backend_sched_reset),
    WRAPPED(ggml_backend_sched_set_eval_callback),
    WRAPPED(ggml_backend_reg_get_proc_address),
    WRAPPED(ggml_backend_tensor_copy),
    WRAPPED(ggml_backend_tensor_set),
    WRAPPED(ggml_backend_tensor_get),
    WRAPPED(ggml_backend_tensor_set_async),
    WRAPPED(ggml_backend_tensor_get_async),
    WRAPPED(ggml_backend_graph_compute_async),
    WRAPPED(ggml_backend_graph_compute),
    WRAPPED(ggml_backend_tensor_set_2d),
    WRAPPED(ggml_backend_tensor_get_2d),
    WRAPPED(ggml_backend_tensor_set_2d_async),
    WRAPPED(ggml_backend_tensor_get_2d_async),
    WRAPPED(ggml_backend_free),
    DIRECT(ggml_backend_sched_split_graph),
    DIRECT(ggml_op_name),
    DIRECT(ggml_unary_op_name),
    DIRECT(ggml_glu_op_name),
    DIRECT(ggml_nbytes),
    DIRECT(ggml_graph_n_nodes),
    DIRECT(ggml_graph_node),
    DIRECT(ggml_backend_name),
    DIRECT(ggml_backend_get_device),
    DIRECT(ggml_backend_dev_name),
    DIRECT(ggml_backend_dev_description),
    DIRECT(ggml_backend_dev_type),
    DIRECT(ggml_backend_dev_backend_reg),
    DIRECT(ggml_backend_buffer_is_host),
    DIRECT(ggml_backend_buffer_get_type),
    DIRECT(ggml_backend_buft_get_device),
    DIRECT(ggml_version),
    DIRECT(ggml_tensor_overhead),
    DIRECT(ggml_init),
    DIRECT(ggml_free),
    DIRECT(ggml_new_tensor_2d),
    DIRECT(ggml_mul_mat),
    DIRECT(ggml_unary),
};

void *opscope_cap_sym(const char *name) {
    for (size_t i = 0; i < sizeof g_syms / sizeof g_syms[0]; i++) {
        if (strcmp(g_syms[i].name, name) == 0) {
            return g_syms[i].addr;
        }
    }
    return NULL;
}

bool opscope_cap_sym_interposed(const char *name) {
    for (size_t i = 0; i < sizeof g_syms / sizeof g_syms[0]; i++) {
        if (strcmp(g_syms[i].name, name) == 0) {
            return g_syms[i].wrapped && g_syms[i].addr;
        }
    }
    return false;
}
