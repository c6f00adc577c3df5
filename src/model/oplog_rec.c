/* oplog_rec.c - templates and instances of the record log (see oplog_rec.h). */
#include "model/oplog_rec.h"
#include "model/record.h"

#include <string.h>

/* Fields in this order; a source's fields only for the N_SRC sources. */
int opscope_oplog_put_tmpl(opscope_oplog_buf *b, const opscope_record *r) {
    int e = 0;
    e |= opscope_oplog_put_u(b, (uint64_t)r->type);
    e |= opscope_oplog_put_u(b, r->has);
    e |= opscope_oplog_put_str(b, r->name);
    e |= opscope_oplog_put_str(b, r->sub_op);
    e |= opscope_oplog_put_i(b, r->sub_op_value);
    e |= opscope_oplog_put_str(b, r->extra);
    e |= opscope_oplog_put_str(b, r->tensor_name);
    e |= opscope_oplog_put_str(b, r->category);
    e |= opscope_oplog_put_str(b, r->kernel);
    e |= opscope_oplog_put_i(b, r->n_kernels);
    e |= opscope_oplog_put_u(b, r->weight);
    e |= opscope_oplog_put_i(b, r->backend_id);
    e |= opscope_oplog_put_i(b, r->split_id);
    e |= opscope_oplog_put_i(b, r->node_index);
    e |= opscope_oplog_put_i(b, r->n_fused);
    e |= opscope_oplog_put_i(b, r->thread_id);
    e |= opscope_oplog_put_u(b, r->bytes);
    e |= opscope_oplog_put_u(b, r->flops);
    e |= opscope_oplog_put_i(b, r->out_type);
    for (int d = 0; d < OPSCOPE_MAX_DIMS; d++) e |= opscope_oplog_put_i(b, r->ne[d]);
    int n_src = opscope_record_n_src(r);
    e |= opscope_oplog_put_u(b, (uint64_t)n_src);
    for (int s = 0; s < n_src; s++) {
        for (int d = 0; d < OPSCOPE_MAX_DIMS; d++) e |= opscope_oplog_put_i(b, r->ne_src[s][d]);
        for (int d = 0; d < OPSCOPE_MAX_DIMS; d++) e |= opscope_oplog_put_u(b, r->nb_src[s][d]);
        e |= opscope_oplog_put_i(b, r->type_src[s]);
    }
    for (int k = 0; k < OPSCOPE_MAX_OP_PARAMS; k++) e |= opscope_oplog_put_i(b, r->op_params[k]);
    if (r->has & OPSCOPE_HAS_BATCH) { /* after every older field: an older log has none */
        e |= opscope_oplog_put_i(b, r->batch);
        e |= opscope_oplog_put_i(b, r->queries);
    }
    return e ? -1 : 0;
}

int opscope_oplog_get_tmpl(opscope_oplog_cur *c, opscope_record *r) {
    opscope_record_init(r);
    uint64_t type = opscope_oplog_get_u(c);
    r->type = type == OPSCOPE_RECORD_COPY ? OPSCOPE_RECORD_COPY : OPSCOPE_RECORD_OP;
    r->has = (uint32_t)opscope_oplog_get_u(c);
    r->name = opscope_oplog_get_cstr(c);
    r->sub_op = opscope_oplog_get_cstr(c);
    r->sub_op_value = opscope_oplog_get_i32(c);
    r->extra = opscope_oplog_get_cstr(c);
    r->tensor_name = opscope_oplog_get_cstr(c);
    r->category = opscope_oplog_get_cstr(c);
    r->kernel = opscope_oplog_get_cstr(c);
    r->n_kernels = opscope_oplog_get_i32(c);
    r->weight = (uint32_t)opscope_oplog_get_u(c);
    r->backend_id = opscope_oplog_get_i32(c);
    r->split_id = opscope_oplog_get_i32(c);
    r->node_index = opscope_oplog_get_i32(c);
    r->n_fused = opscope_oplog_get_i32(c);
    r->thread_id = opscope_oplog_get_i32(c);
    r->bytes = opscope_oplog_get_u(c);
    r->flops = opscope_oplog_get_u(c);
    r->out_type = opscope_oplog_get_i32(c);
    for (int d = 0; d < OPSCOPE_MAX_DIMS; d++) r->ne[d] = opscope_oplog_get_i(c);
    uint64_t n_src = opscope_oplog_get_u(c);
    if (n_src > OPSCOPE_MAX_SRC) return -1;
    r->n_src = (int32_t)n_src;
    for (int s = 0; s < r->n_src; s++) {
        for (int d = 0; d < OPSCOPE_MAX_DIMS; d++) r->ne_src[s][d] = opscope_oplog_get_i(c);
        for (int d = 0; d < OPSCOPE_MAX_DIMS; d++) r->nb_src[s][d] = opscope_oplog_get_u(c);
        r->type_src[s] = opscope_oplog_get_i32(c);
    }
    for (int k = 0; k < OPSCOPE_MAX_OP_PARAMS; k++) r->op_params[k] = opscope_oplog_get_i32(c);
    if (r->has & OPSCOPE_HAS_BATCH) {
        r->batch = opscope_oplog_get_i(c);
        r->queries = opscope_oplog_get_i(c);
        if (r->batch < 0 || r->queries < 0) c->bad = true;
    }
    if (!r->name || r->n_fused < 1 || type > OPSCOPE_RECORD_COPY) c->bad = true;
    return c->bad ? -1 : 0;
}

/* A record the common way: start and host start at the key, host end at the key's end. */
static bool plain(const opscope_oplog_inst *i) {
    uint64_t dur = i->key_end > i->key ? i->key_end - i->key : 0;
    return i->start_ns == i->key && i->host_start_ns == i->key && i->duration_ns == dur &&
           i->host_end_ns == i->key + dur;
}

int opscope_oplog_put_inst(opscope_oplog_buf *b, opscope_oplog_state *st, const opscope_oplog_inst *i,
                           bool has_graph) {
    bool ext = !plain(i);
    int e = opscope_oplog_put_u(b, (uint64_t)i->tmpl << 1 | ext);
    e |= opscope_oplog_put_i(b, (int64_t)(i->key - st->key));
    e |= opscope_oplog_put_i(b, (int64_t)(i->key_end - i->key));
    st->key = i->key;
    if (has_graph) {
        e |= opscope_oplog_put_i(b, i->graph - st->graph);
        st->graph = i->graph;
    }
    if (ext) {
        e |= opscope_oplog_put_i(b, (int64_t)(i->start_ns - i->key));
        e |= opscope_oplog_put_u(b, i->duration_ns);
        e |= opscope_oplog_put_i(b, (int64_t)(i->host_start_ns - i->key));
        e |= opscope_oplog_put_i(b, (int64_t)(i->host_end_ns - i->key));
    }
    return e ? -1 : 0;
}

int opscope_oplog_put_threads(opscope_oplog_buf *b, const opscope_oplog_inst *i) {
    int e = opscope_oplog_put_u(b, (uint64_t)i->n_threads);
    for (int32_t k = 0; k < 2 * i->n_threads; k++) e |= opscope_oplog_put_u(b, i->threads[k]);
    for (int32_t k = 0; k < i->n_threads; k++) {
        int32_t cpu = i->thread_cpus ? i->thread_cpus[k] : -1;
        e |= opscope_oplog_put_u(b, cpu >= 0 ? (uint64_t)cpu + 1 : 0);
    }
    return e ? -1 : 0;
}

/* Reads the count, the pairs and the CPUs from C into OUT and CPUS (NULL: skipped). Returns
 * the count, -1 bad. */
static int get_threads(opscope_oplog_cur *c, uint32_t *out, int32_t *cpus) {
    uint64_t n = opscope_oplog_get_u(c);
    if (c->bad || n > OPSCOPE_MAX_THREADS) return -1;
    for (uint64_t k = 0; k < 2 * n; k++) {
        uint64_t v = opscope_oplog_get_u(c);
        if (v > UINT32_MAX) c->bad = true;
        if (out) out[k] = (uint32_t)v;
    }
    for (uint64_t k = 0; k < n; k++) {
        uint64_t v = opscope_oplog_get_u(c);
        if (v > INT32_MAX) c->bad = true;
        if (cpus) cpus[k] = (int32_t)v - 1;
    }
    return c->bad ? -1 : (int)n;
}

int opscope_oplog_get_threads(const unsigned char *at, const unsigned char *end, uint32_t *out, int32_t *cpus) {
    opscope_oplog_cur c = {at, end, false};
    return get_threads(&c, out, cpus);
}

uint32_t opscope_oplog_get_inst_tmpl(opscope_oplog_cur *c, unsigned *parts) {
    uint64_t v = opscope_oplog_get_u(c);
    *parts = v & 1 ? OPSCOPE_OPLOG_INST_EXT : 0;
    if ((v >> 1) > UINT32_MAX) c->bad = true;
    return (uint32_t)(v >> 1);
}

void opscope_oplog_get_inst_rest(opscope_oplog_cur *c, opscope_oplog_state *st, unsigned parts,
                                 opscope_oplog_inst *i) {
    i->key = st->key + (uint64_t)opscope_oplog_get_i(c);
    i->key_end = i->key + (uint64_t)opscope_oplog_get_i(c);
    st->key = i->key;
    i->graph = 0;
    if (parts & OPSCOPE_OPLOG_INST_GRAPH) {
        i->graph = st->graph + opscope_oplog_get_i(c);
        st->graph = i->graph;
    }
    if (parts & OPSCOPE_OPLOG_INST_EXT) {
        i->start_ns = i->key + (uint64_t)opscope_oplog_get_i(c);
        i->duration_ns = opscope_oplog_get_u(c);
        i->host_start_ns = i->key + (uint64_t)opscope_oplog_get_i(c);
        i->host_end_ns = i->key + (uint64_t)opscope_oplog_get_i(c);
    } else {
        uint64_t dur = i->key_end > i->key ? i->key_end - i->key : 0;
        i->start_ns = i->host_start_ns = i->key;
        i->duration_ns = dur;
        i->host_end_ns = i->key + dur;
    }
    i->thr_at = NULL;
    i->n_threads = 0;
    if (parts & OPSCOPE_OPLOG_INST_THREADS) { /* decoded when delivered: skipped here */
        i->thr_at = c->p;
        i->n_threads = get_threads(c, NULL, NULL);
        if (i->n_threads < 0) c->bad = true;
    }
}
