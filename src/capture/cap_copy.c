/*
 * cap_copy.c - COPY records: the interposed ggml_backend_tensor_copy/_set/_get/_set_async/
 * _get_async. The direction comes from ggml_backend_buffer_is_host of both sides.
 */
#include "cap_ggml.h"

#include "cap_clock.h"

#include <stdatomic.h>
#include <string.h>

enum { API_COPY = 0, API_SET, API_GET, API_SET_ASYNC, API_GET_ASYNC };

static void emit_copy(int api, int dir, int bi, const struct ggml_tensor *t, uint64_t bytes,
                      uint64_t t0, uint64_t t1) {
    opscope_cap_rec *r = opscope_cap_buf_alloc(1);
    if (!r) {
        return;
    }
    r->kind = OPSCOPE_CAP_KIND_COPY;
    r->op = (int16_t)dir;
    r->sub_kind = 0;
    r->sub_op = 0;
    r->api = (int16_t)api;
    r->n_fused = 1;
    r->flags = 0;
    r->backend = (int16_t)bi;
    r->sched = (int16_t)(opscope_cap_t.in_sched ? opscope_cap_t.sched_id : -1);
    r->thread = (int16_t)opscope_cap_buf_thread_id();
    r->split = opscope_cap_t.in_sched ? opscope_cap_t.split : -1;
    r->node = -1;
    r->graph = opscope_cap_t.in_sched ? opscope_cap_t.graph_id : -1;
    r->t0 = t0;
    r->t1 = t1;
    r->bytes = bytes;
    r->flops = 0;
    r->out_type = (int32_t)t->type;
    memcpy(r->ne, t->ne, sizeof r->ne);
    memset(r->op_params, 0, sizeof r->op_params);
    memcpy(r->name, t->name, OPSCOPE_CAP_NAME);
    r->name[OPSCOPE_CAP_NAME - 1] = '\0';
    memcpy(r->src[0].ne, t->ne, sizeof r->src[0].ne);
    memcpy(r->src[0].nb, t->nb, sizeof r->src[0].nb);
    r->src[0].type = (int32_t)t->type;
    r->src[0].pad_ = 0;
    opscope_cap_buf_commit(r);
    atomic_fetch_add_explicit(&opscope_cap_stats.records, 1, memory_order_relaxed);
}

static bool is_host(ggml_backend_buffer_t b) {
    return !b || G.buffer_is_host(b);
}

static int direction(bool src_host, bool dst_host) {
    if (src_host) {
        return dst_host ? OPSCOPE_CAP_COPY_H2H : OPSCOPE_CAP_COPY_H2D;
    }
    return dst_host ? OPSCOPE_CAP_COPY_D2H : OPSCOPE_CAP_COPY_D2D;
}

static bool copy_on(void) {
    return opscope_cap_ggml_ready() && !opscope_cap_t.depth && opscope_cap_should_record(opscope_cap_t.in_sched ? opscope_cap_t.sched_id : -1);
}

OPSCOPE_EXPORT void ggml_backend_tensor_copy(const struct ggml_tensor *src, struct ggml_tensor *dst) {
    if (!copy_on() || !src || !dst) {
        if (G.tensor_copy) G.tensor_copy(src, dst);
        return;
    }
    opscope_cap_t.depth++;
    uint64_t t0 = opscope_cap_now();
    G.tensor_copy(src, dst);
    uint64_t t1 = opscope_cap_now();
    bool sh = is_host(src->buffer), dh = is_host(dst->buffer);
    int bi = opscope_cap_backend_of_buffer(!dh ? dst->buffer : !sh ? src->buffer : dst->buffer);
    emit_copy(API_COPY, direction(sh, dh), bi, dst, G.nbytes(src), t0, t1);
    opscope_cap_t.depth--;
}

OPSCOPE_EXPORT void ggml_backend_tensor_set(struct ggml_tensor *t, const void *data, size_t offset, size_t size) {
    if (!copy_on() || !t) {
        if (G.tensor_set) G.tensor_set(t, data, offset, size);
        return;
    }
    opscope_cap_t.depth++;
    uint64_t t0 = opscope_cap_now();
    G.tensor_set(t, data, offset, size);
    uint64_t t1 = opscope_cap_now();
    emit_copy(API_SET, direction(true, is_host(t->buffer)), opscope_cap_backend_of_buffer(t->buffer), t, size, t0, t1);
    opscope_cap_t.depth--;
}

OPSCOPE_EXPORT void ggml_backend_tensor_get(const struct ggml_tensor *t, void *data, size_t offset, size_t size) {
    if (!copy_on() || !t) {
        if (G.tensor_get) G.tensor_get(t, data, offset, size);
        return;
    }
    opscope_cap_t.depth++;
    uint64_t t0 = opscope_cap_now();
    G.tensor_get(t, data, offset, size);
    uint64_t t1 = opscope_cap_now();
    emit_copy(API_GET, direction(is_host(t->buffer), true), opscope_cap_backend_of_buffer(t->buffer), t, size, t0, t1);
    opscope_cap_t.depth--;
}

OPSCOPE_EXPORT void ggml_backend_tensor_set_async(ggml_backend_t backend, struct ggml_tensor *t,
                                          const void *data, size_t offset, size_t size) {
    if (!copy_on() || !t || !backend) {
        if (G.tensor_set_async) G.tensor_set_async(backend, t, data, offset, size);
        return;
    }
    opscope_cap_t.depth++;
    uint64_t t0 = opscope_cap_now();
    G.tensor_set_async(backend, t, data, offset, size);
    uint64_t t1 = opscope_cap_now();
    emit_copy(API_SET_ASYNC, direction(true, is_host(t->buffer)), opscope_cap_backend_of(backend), t, size, t0, t1);
    opscope_cap_t.depth--;
}

OPSCOPE_EXPORT void ggml_backend_tensor_get_async(ggml_backend_t backend, const struct ggml_tensor *t,
                                          void *data, size_t offset, size_t size) {
    if (!copy_on() || !t || !backend) {
        if (G.tensor_get_async) G.tensor_get_async(backend, t, data, offset, size);
        return;
    }
    opscope_cap_t.depth++;
    uint64_t t0 = opscope_cap_now();
    G.tensor_get_async(backend, t, data, offset, size);
    uint64_t t1 = opscope_cap_now();
    emit_copy(API_GET_ASYNC, direction(is_host(t->buffer), true), opscope_cap_backend_of(backend), t, size, t0, t1);
    opscope_cap_t.depth--;
}
