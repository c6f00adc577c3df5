/*
 * cap_resolve.c - finding ggml at run time: the real functions behind the interposed ones
 * and the helpers we call (from opscope_cap_sym: dlsym in the shared library, link-time
 * addresses in the static one), and a check of the struct fields and enum values we read,
 * made by building two tensors through the real ggml. Any mismatch disables the
 * capture with one line on stderr; the library then only passes calls through.
 */

#include "capture/resolve/cap_resolve.h"

#include "capture/store/cap_convert.h"
#include "capture/life/cap_env.h"
#include "capture/life/cap_life.h"
#include "capture/resolve/cap_sym.h"
#include "capture/store/cap_tables.h"
#include "model/ggml_vocab.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

opscope_cap_ggml_fns opscope_cap_ggml;

static pthread_once_t g_resolve_once = PTHREAD_ONCE_INIT;
static _Atomic bool g_ready;

#define RESOLVE(field, name) (*(void **)&opscope_cap_ggml.field = opscope_cap_sym(name))

/* Builds two tiny tensors through the real ggml and checks the fields we read. */
static const char *layout_problem(void) {
    size_t ov = opscope_cap_ggml.tensor_overhead();
    if (ov < sizeof(struct ggml_tensor) || ov > sizeof(struct ggml_tensor) + 128) {
        return "ggml_tensor size differs from the headers opscope was built with";
    }
    struct ggml_init_params ip = {ov * 8, NULL, true};
    struct ggml_context *ctx = opscope_cap_ggml.init(ip);
    if (!ctx) {
        return "ggml_init failed";
    }
    const char *why = NULL;
    struct ggml_tensor *a = opscope_cap_ggml.new_tensor_2d(ctx, GGML_TYPE_F32, 3, 5);
    struct ggml_tensor *b = opscope_cap_ggml.new_tensor_2d(ctx, GGML_TYPE_F32, 3, 7);
    struct ggml_tensor *m = a && b ? opscope_cap_ggml.mul_mat(ctx, a, b) : NULL;
    struct ggml_tensor *u = a ? opscope_cap_ggml.unary(ctx, a, GGML_UNARY_OP_SILU) : NULL;
    if (!m || !u) {
        why = "cannot build a test graph";
    } else if (a->ne[0] != 3 || a->ne[1] != 5 || a->nb[1] != 12 || a->type != GGML_TYPE_F32 ||
               opscope_cap_ggml.nbytes(a) != 60) {
        why = "ggml_tensor shape fields moved";
    } else if (m->op != GGML_OP_MUL_MAT || m->src[0] != a || m->src[1] != b || m->ne[0] != 5 ||
               m->ne[1] != 7) {
        why = "ggml_tensor op/src fields moved";
    } else if (!opscope_ggml_op_is(opscope_cap_ggml.op_name(GGML_OP_MUL_MAT), OPSCOPE_GGML_OP_MUL_MAT) ||
               !opscope_ggml_op_is(opscope_cap_ggml.op_name(GGML_OP_RMS_NORM), OPSCOPE_GGML_OP_RMS_NORM) ||
               !opscope_ggml_op_is(opscope_cap_ggml.op_name(GGML_OP_MUL), OPSCOPE_GGML_OP_MUL) ||
               !opscope_ggml_op_is(opscope_cap_ggml.op_name(GGML_OP_GLU), OPSCOPE_GGML_OP_GLU)) {
        why = "ggml_op numbering differs";
    } else if (u->op != GGML_OP_UNARY || u->op_params[0] != GGML_UNARY_OP_SILU ||
               !opscope_ggml_unary_op_is(opscope_cap_ggml.unary_op_name(GGML_UNARY_OP_SILU),
                                         OPSCOPE_GGML_UNARY_OP_SILU)) {
        why = "ggml unary op numbering differs";
    }
    opscope_cap_ggml.free(ctx);
    return why;
}

static void resolve(void) {
    RESOLVE(graph_compute_async, "ggml_backend_graph_compute_async");
    RESOLVE(graph_compute, "ggml_backend_graph_compute");
    RESOLVE(sched_graph_compute_async, "ggml_backend_sched_graph_compute_async");
    RESOLVE(sched_graph_compute, "ggml_backend_sched_graph_compute");
    RESOLVE(sched_free, "ggml_backend_sched_free");
    RESOLVE(sched_set_eval_callback, "ggml_backend_sched_set_eval_callback");
    RESOLVE(sched_split_graph, "ggml_backend_sched_split_graph");
    RESOLVE(sched_reset, "ggml_backend_sched_reset");
    RESOLVE(tensor_copy, "ggml_backend_tensor_copy");
    RESOLVE(tensor_set, "ggml_backend_tensor_set");
    RESOLVE(tensor_get, "ggml_backend_tensor_get");
    RESOLVE(tensor_set_async, "ggml_backend_tensor_set_async");
    RESOLVE(tensor_get_async, "ggml_backend_tensor_get_async");
    RESOLVE(reg_get_proc_address, "ggml_backend_reg_get_proc_address");
    RESOLVE(op_name, "ggml_op_name");
    RESOLVE(unary_op_name, "ggml_unary_op_name");
    RESOLVE(glu_op_name, "ggml_glu_op_name");
    RESOLVE(nbytes, "ggml_nbytes");
    RESOLVE(graph_n_nodes, "ggml_graph_n_nodes");
    RESOLVE(graph_node, "ggml_graph_node");
    RESOLVE(backend_name, "ggml_backend_name");
    RESOLVE(backend_get_device, "ggml_backend_get_device");
    RESOLVE(dev_name, "ggml_backend_dev_name");
    RESOLVE(dev_description, "ggml_backend_dev_description");
    RESOLVE(dev_type, "ggml_backend_dev_type");
    RESOLVE(dev_backend_reg, "ggml_backend_dev_backend_reg");
    RESOLVE(buffer_is_host, "ggml_backend_buffer_is_host");
    RESOLVE(buffer_get_type, "ggml_backend_buffer_get_type");
    RESOLVE(buft_get_device, "ggml_backend_buft_get_device");
    RESOLVE(version, "ggml_version");
    RESOLVE(tensor_overhead, "ggml_tensor_overhead");
    RESOLVE(init, "ggml_init");
    RESOLVE(free, "ggml_free");
    RESOLVE(new_tensor_2d, "ggml_new_tensor_2d");
    RESOLVE(mul_mat, "ggml_mul_mat");
    RESOLVE(unary, "ggml_unary");
    RESOLVE(tensor_set_2d, "ggml_backend_tensor_set_2d");
    RESOLVE(tensor_get_2d, "ggml_backend_tensor_get_2d");
    RESOLVE(tensor_set_2d_async, "ggml_backend_tensor_set_2d_async");
    RESOLVE(tensor_get_2d_async, "ggml_backend_tensor_get_2d_async");
    RESOLVE(synchronize, "ggml_backend_synchronize");
    RESOLVE(backend_free, "ggml_backend_free");

    bool on = opscope_cap_life_init();
    if (!opscope_cap_ggml.graph_compute_async) {
        return; /* not a ggml program: stay inert, say nothing */
    }
    void **p = (void **)&opscope_cap_ggml;
    for (size_t i = 0; i < offsetof(opscope_cap_ggml_fns, tensor_set_2d) / sizeof(void *); i++) {
        if (!p[i]) {
            if (on) {
                opscope_cap_life_disable("this ggml lacks a function opscope needs (unknown version)");
            }
            return;
        }
    }
#ifdef OPSCOPE_GGML_BUILD_VERSION
    bool force = on && opscope_cap_env_flag("OPSCOPE_FORCE", false); /* read whenever profiling: a bad value is said */
    if (strcmp(opscope_cap_ggml.version(), OPSCOPE_GGML_BUILD_VERSION) != 0 && !force) {
        if (on) {
            char why[160];
            snprintf(why, sizeof why, "ggml %s is not the version opscope was built for (%s; "
                     "OPSCOPE_FORCE=1 overrides)", opscope_cap_ggml.version(), OPSCOPE_GGML_BUILD_VERSION);
            opscope_cap_life_disable(why);
        }
        return;
    }
#endif
    const char *why = layout_problem();
    if (why) {
        char msg[200];
        snprintf(msg, sizeof msg, "unknown ggml layout (%s)", why);
        opscope_cap_life_disable(msg);
        return;
    }
    for (int i = 0; i < GGML_OP_COUNT && i < OPSCOPE_CAP_MAX_NAMES; i++) {
        opscope_cap_names_set(OPSCOPE_CAP_NAMES_OP, i, opscope_cap_ggml.op_name((enum ggml_op)i));
    }
    for (int i = 0; i < GGML_UNARY_OP_COUNT && i < OPSCOPE_CAP_MAX_NAMES; i++) {
        opscope_cap_names_set(OPSCOPE_CAP_NAMES_UNARY, i, opscope_cap_ggml.unary_op_name((enum ggml_unary_op)i));
    }
    for (int i = 0; i < GGML_GLU_OP_COUNT && i < OPSCOPE_CAP_MAX_NAMES; i++) {
        opscope_cap_names_set(OPSCOPE_CAP_NAMES_GLU, i, opscope_cap_ggml.glu_op_name((enum ggml_glu_op)i));
    }
    if (opscope_cap_ggml.backend_free && opscope_cap_sym_interposed("ggml_backend_free")) {
        opscope_cap_backend_track_frees(); /* the backend lookup may go by address alone */
    }
    atomic_store(&g_ready, true);
}

bool opscope_cap_ggml_ready(void) {
    pthread_once(&g_resolve_once, resolve);
    return atomic_load_explicit(&g_ready, memory_order_acquire);
}

bool opscope_cap_ggml_resolved(void) {
    return atomic_load_explicit(&g_ready, memory_order_acquire);
}
