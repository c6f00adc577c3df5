/* cap_convert.c - record conversion (see cap_convert.h). */
#include "capture/store/cap_convert.h"

#include "capture/store/cap_clock.h"
#include "capture/store/cap_tables.h"

#include <stdio.h>
#include <string.h>

/* ---- names ---- */

static char g_names[OPSCOPE_CAP_NAMES_COUNT][OPSCOPE_CAP_MAX_NAMES][32];

void opscope_cap_names_set(int family, int index, const char *name) {
    if (family < 0 || family >= OPSCOPE_CAP_NAMES_COUNT || index < 0 ||
        index >= OPSCOPE_CAP_MAX_NAMES || !name) {
        return;
    }
    snprintf(g_names[family][index], sizeof g_names[family][index], "%s", name);
}

const char *opscope_cap_names_get(int family, int index) {
    if (family < 0 || family >= OPSCOPE_CAP_NAMES_COUNT || index < 0 ||
        index >= OPSCOPE_CAP_MAX_NAMES) {
        return "?";
    }
    char *s = g_names[family][index];
    if (s[0] == '\0') {
        /* Only reached when init did not name this value: a stable fallback. */
        snprintf(s, 32, "%s_%d", family == OPSCOPE_CAP_NAMES_OP ? "OP" : "SUB", index);
    }
    return s;
}

/* ---- conversion ---- */

/* Where a record was computed (backend, scheduler, thread, split, graph): the fields every
 * record kind carries under the same names, copied from SRC (a pointer to any kind) to the
 * record DST. */
#define COPY_PLACE(dst, src)                                                                 \
    ((dst).backend = (src)->backend, (dst).sched = (src)->sched, (dst).thread = (src)->thread, \
     (dst).split = (src)->split, (dst).graph = (src)->graph)

static const char *const k_copy_names[OPSCOPE_CAP_COPY_COUNT] = {
    "copy_H2D", "copy_D2H", "copy_D2D", "copy_H2H"};

static const char *const k_copy_apis[OPSCOPE_CAP_API_COUNT] = {
    [OPSCOPE_CAP_API_TENSOR_COPY] = "tensor_copy",
    [OPSCOPE_CAP_API_SET] = "tensor_set",
    [OPSCOPE_CAP_API_GET] = "tensor_get",
    [OPSCOPE_CAP_API_SET_ASYNC] = "tensor_set_async",
    [OPSCOPE_CAP_API_GET_ASYNC] = "tensor_get_async",
    [OPSCOPE_CAP_API_SET_2D] = "tensor_set_2d",
    [OPSCOPE_CAP_API_GET_2D] = "tensor_get_2d",
    [OPSCOPE_CAP_API_SET_2D_ASYNC] = "tensor_set_2d_async",
    [OPSCOPE_CAP_API_GET_2D_ASYNC] = "tensor_get_2d_async",
    [OPSCOPE_CAP_API_CPY_TENSOR_ASYNC] = "cpy_tensor_async",
};

const char *opscope_cap_copy_api_name(int api) {
    return api >= 0 && api < OPSCOPE_CAP_API_COUNT ? k_copy_apis[api] : NULL;
}

void opscope_cap_convert(const opscope_cap_rec *r, opscope_record *o, opscope_cap_strbuf *buf) {
    opscope_cap_convert_parts(r, r->src, o, buf);
}

/* The first backend (not a copy-only device entry) of TYPE, -1 when none is known yet. */
static int first_backend_of(opscope_device_type type) {
    int nb = opscope_cap_backend_count();
    for (int i = 0; i < nb; i++) {
        const opscope_cap_backend *b = opscope_cap_backend_at(i);
        if (b->device_type == type && !b->is_device_key) {
            return i;
        }
    }
    return -1;
}

void opscope_cap_convert_parts(const opscope_cap_rec *r, const opscope_cap_src *src, opscope_record *o,
                               opscope_cap_strbuf *buf) {
    opscope_record_init(o);
    o->type = r->kind == OPSCOPE_CAP_KIND_COPY ? OPSCOPE_RECORD_COPY : OPSCOPE_RECORD_OP;
    memcpy(buf->name, r->name, OPSCOPE_CAP_NAME);
    buf->name[OPSCOPE_CAP_NAME] = '\0';
    o->tensor_name = buf->name[0] ? buf->name : NULL;
    o->backend_id = r->backend;
    if (r->backend == OPSCOPE_CAP_BACKEND_HOST) {
        /* host memory whose buffer named no device: the CPU backend, once one is known */
        o->backend_id = first_backend_of(OPSCOPE_DEVICE_CPU);
    }
    o->split_id = r->split;
    o->thread_id = r->thread;
    o->has = OPSCOPE_HAS_THREAD | OPSCOPE_HAS_HOST_TIME;
    uint64_t t0 = opscope_cap_ticks_to_ns(r->t0), t1 = opscope_cap_ticks_to_ns(r->t1);
    o->start_ns = o->host_start_ns = t0;
    o->host_end_ns = t1 > t0 ? t1 : t0;
    o->duration_ns = o->host_end_ns - t0;
    o->bytes = r->bytes;
    if (r->graph >= 0) {
        o->graph_id = r->graph;
        o->has |= OPSCOPE_HAS_GRAPH;
    }
    if (r->kind == OPSCOPE_CAP_KIND_COPY) {
        o->name = (r->op >= 0 && r->op < OPSCOPE_CAP_COPY_COUNT) ? k_copy_names[r->op] : "copy";
        o->extra = opscope_cap_copy_api_name(r->api);
    } else {
        o->name = opscope_cap_names_get(OPSCOPE_CAP_NAMES_OP, r->op);
        if (r->sub_kind == OPSCOPE_CAP_SUB_UNARY) {
            o->sub_op = opscope_cap_names_get(OPSCOPE_CAP_NAMES_UNARY, r->sub_op);
        } else if (r->sub_kind == OPSCOPE_CAP_SUB_GLU) {
            o->sub_op = opscope_cap_names_get(OPSCOPE_CAP_NAMES_GLU, r->sub_op);
        }
        if (r->sub_kind == OPSCOPE_CAP_SUB_UNARY || r->sub_kind == OPSCOPE_CAP_SUB_GLU) {
            /* the running ggml's own enum value, beside its own name */
            o->sub_op_value = r->sub_op;
            o->has |= OPSCOPE_HAS_SUB_OP;
        }
        o->n_fused = r->n_fused ? r->n_fused : 1;
        if ((r->flags & OPSCOPE_CAP_F_SYNC) && (r->flags & OPSCOPE_CAP_F_SPLIT_ONLY)) {
            o->name = "SYNCHRONIZE"; /* a wait, no fused group: no extra */
        } else if (r->flags & OPSCOPE_CAP_F_SPLIT_ONLY) {
            o->name = "GRAPH_SPLIT";
            snprintf(buf->extra, sizeof buf->extra, "%d nodes, no per-op timing", r->n_fused);
            o->extra = buf->extra;
            o->batch = r->batch;
            o->queries = r->queries;
            o->has |= OPSCOPE_HAS_BATCH;
            if (r->flags & OPSCOPE_CAP_F_SAMPLED_OUT) o->has |= OPSCOPE_HAS_SAMPLED_OUT;
        } else if (r->n_fused > 1) {
            size_t off = 0;
            buf->extra[0] = '\0';
            for (int i = 0; i < r->n_fused && i < OPSCOPE_CAP_MAX_FUSED; i++) {
                int m = snprintf(buf->extra + off, sizeof buf->extra - off, "%s%s", i ? "+" : "",
                                 opscope_cap_names_get(OPSCOPE_CAP_NAMES_OP, r->fused[i]));
                if (m < 0 || (size_t)m >= sizeof buf->extra - off) {
                    break;
                }
                off += (size_t)m;
            }
            o->extra = buf->extra;
        }
        o->node_index = r->node;
        o->has |= OPSCOPE_HAS_NODE | OPSCOPE_HAS_OUT | OPSCOPE_HAS_OP_PARAMS;
        o->out_type = r->out_type;
        memcpy(o->ne, r->ne, sizeof o->ne);
        memcpy(o->op_params, r->op_params, sizeof o->op_params);
    }
    o->n_src = r->n_src;
    if (r->n_src) {
        o->has |= OPSCOPE_HAS_STRIDES | OPSCOPE_HAS_SRC_TYPES;
    }
    for (int s = 0; s < r->n_src && s < OPSCOPE_MAX_SRC; s++) {
        memcpy(o->ne_src[s], src[s].ne, sizeof o->ne_src[s]);
        memcpy(o->nb_src[s], src[s].nb, sizeof o->nb_src[s]);
        o->type_src[s] = src[s].type;
    }
    /* No flops: the capture measures none, and OPSCOPE_HAS_FLOPS means "given by the input";
     * consumers derive them from the shapes (opscope_record_flops), like any input's. */
}

/* Step T of compute C (times T0, T1) as an OP record: T's description with the step's and
 * the compute's fields over it; the sources follow the description's header. */
static void convert_step(const opscope_cap_tmpl *t, const opscope_cap_call *c, uint64_t t0, uint64_t t1,
                         opscope_record *o, opscope_cap_strbuf *buf) {
    opscope_cap_rec head;
    memcpy(&head, t->desc, sizeof head);
    head.kind = OPSCOPE_CAP_KIND_OP;
    head.n_fused = t->n_fused;
    memcpy(head.fused, t->fused, sizeof head.fused);
    head.node = t->node;
    head.bytes = t->bytes;
    head.flags = c->flags;
    COPY_PLACE(head, c);
    head.t0 = t0;
    head.t1 = t1;
    opscope_cap_convert_parts(&head, t->desc->src, o, buf);
}

/* A device-timed group (cap_gpu.c): its main node's description, the device interval as the
 * record's time, the compute's host interval as host time. */
static void convert_gpu(const opscope_cap_gpu *e, opscope_record *o, opscope_cap_strbuf *buf) {
    if (e->desc) {
        opscope_cap_rec head;
        memcpy(&head, e->desc, sizeof head);
        /* a copy call's description carries its api (>= 0); an op's has -1 */
        head.kind = e->desc->api >= 0 ? OPSCOPE_CAP_KIND_COPY : OPSCOPE_CAP_KIND_OP;
        head.n_fused = 1;
        head.flags = 0;
        COPY_PLACE(head, e);
        head.node = e->node;
        head.bytes = e->bytes;
        head.t0 = e->tick0;
        head.t1 = e->tick1;
        opscope_cap_convert_parts(&head, e->desc->src, o, buf);
        o->n_fused = e->n_fused > 0 ? e->n_fused : 1;
        if (e->fused || head.kind == OPSCOPE_CAP_KIND_OP) {
            o->extra = e->fused;
        }
    } else {
        opscope_cap_rec head;
        memset(&head, 0, sizeof head);
        head.kind = e->copy_dir >= 0 ? OPSCOPE_CAP_KIND_COPY : OPSCOPE_CAP_KIND_OP;
        head.op = (int16_t)(e->copy_dir >= 0 ? e->copy_dir : 0);
        head.api = -1;
        COPY_PLACE(head, e);
        head.node = -1;
        head.bytes = e->bytes;
        opscope_cap_convert_parts(&head, NULL, o, buf);
        o->extra = e->fused;
        if (e->copy_dir < 0) {
            o->name = e->kernels ? e->kernels : "kernel";
            o->has &= ~(uint32_t)(OPSCOPE_HAS_NODE | OPSCOPE_HAS_OUT | OPSCOPE_HAS_OP_PARAMS);
        }
        if (e->graph < 0) {
            o->has &= ~(uint32_t)OPSCOPE_HAS_GRAPH;
        }
    }
    if (e->backend < 0) {
        /* device work from before any compute (buffer clears at load): the first GPU backend */
        o->backend_id = first_backend_of(OPSCOPE_DEVICE_GPU);
    }
    o->start_ns = e->ns0;
    o->duration_ns = e->ns1 > e->ns0 ? e->ns1 - e->ns0 : 0;
    o->host_start_ns = opscope_cap_ticks_to_ns(e->host0);
    o->host_end_ns = opscope_cap_ticks_to_ns(e->host1);
    o->has |= OPSCOPE_HAS_DEVICE_TIME | OPSCOPE_HAS_KERNEL;
    if (e->flags & OPSCOPE_CAP_F_ALIGNED) {
        o->has |= OPSCOPE_HAS_CLOCK_ALIGNED;
    }
    o->kernel = e->kernels;
    o->n_kernels = e->n_kernels;
    if (e->weight) { /* sampled timing (0: every compute timed) */
        o->weight = e->weight;
        o->has |= OPSCOPE_HAS_WEIGHT;
    }
    if (!e->kernels) {
        /* a copy that recorded device work that never got timed: host time */
        o->has &= ~(uint32_t)(OPSCOPE_HAS_DEVICE_TIME | OPSCOPE_HAS_KERNEL | OPSCOPE_HAS_CLOCK_ALIGNED);
    }
}

void opscope_cap_convert_any(const opscope_cap_rec *r, int32_t step, opscope_record *o,
                             opscope_cap_strbuf *buf) {
    if (r->kind == OPSCOPE_CAP_KIND_GPU) {
        convert_gpu((const opscope_cap_gpu *)r, o, buf);
    } else if (r->kind == OPSCOPE_CAP_KIND_CALL) {
        const opscope_cap_call *c = (const opscope_cap_call *)r;
        convert_step(&c->page->step[c->first + step], c, c->t[2 * step], c->t[2 * step + 1], o, buf);
        const uint32_t *thr = opscope_cap_call_threads(c, step);
        if (thr) { /* pointing into C: valid while the buffers are */
            o->threads = thr;
            o->n_threads = c->n_threads;
            o->thread_cpus = opscope_cap_call_cpus(c);
            o->has |= OPSCOPE_HAS_THREADS;
        }
    } else if (r->kind == OPSCOPE_CAP_KIND_EVENT) {
        /* an event is a one-step compute with its own template */
        const opscope_cap_event *e = (const opscope_cap_event *)r;
        opscope_cap_tmpl t = {.desc = e->desc, .bytes = e->bytes, .node = e->node, .n_fused = e->n_fused};
        memcpy(t.fused, e->fused, sizeof t.fused);
        opscope_cap_call c = {.flags = e->flags};
        COPY_PLACE(c, e);
        convert_step(&t, &c, e->t0, e->t1, o, buf);
        if (e->n_threads) { /* pointing into E: valid while the buffers are */
            o->threads = opscope_cap_event_threads(e);
            o->n_threads = e->n_threads;
            o->thread_cpus = opscope_cap_event_cpus(e);
            o->has |= OPSCOPE_HAS_THREADS;
        }
    } else {
        opscope_cap_convert(r, o, buf);
    }
}
