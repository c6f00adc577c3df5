/* oplog_dec.c - the record log's DECODES chunk (see oplog_dec.h). */
#include "model/oplog_dec.h"

int opscope_oplog_put_decode(opscope_oplog_buf *b, const opscope_run_decode *d) {
    int e = opscope_oplog_put_u(b, d->start_ns) | opscope_oplog_put_u(b, d->end_ns) |
            opscope_oplog_put_i(b, d->graph) | opscope_oplog_put_u(b, d->n_graphs) |
            opscope_oplog_put_u(b, d->n_tokens) | opscope_oplog_put_u(b, d->n_outputs) |
            opscope_oplog_put_i(b, d->context) | opscope_oplog_put_i(b, d->ret) |
            opscope_oplog_put_u(b, d->n_seqs);
    for (size_t i = 0; i < d->n_seqs && !e; i++) {
        const opscope_run_seq *q = &d->seqs[i];
        e = opscope_oplog_put_i(b, q->seq) | opscope_oplog_put_u(b, q->request) |
            opscope_oplog_put_u(b, q->n_tokens) | opscope_oplog_put_u(b, q->n_prompt) |
            opscope_oplog_put_u(b, q->n_outputs);
    }
    return e ? -1 : 0;
}

int opscope_oplog_get_decode(opscope_oplog_cur *c, opscope_run_decode *d, opscope_run_seq *seqs) {
    d->start_ns = opscope_oplog_get_u(c);
    d->end_ns = opscope_oplog_get_u(c);
    d->graph = opscope_oplog_get_i(c);
    d->n_graphs = opscope_oplog_get_u32(c);
    d->n_tokens = opscope_oplog_get_u32(c);
    d->n_outputs = opscope_oplog_get_u32(c);
    d->context = opscope_oplog_get_i32(c);
    d->ret = opscope_oplog_get_i32(c);
    d->wiped = 0; /* from the chunk's end (oplog_dec.h) */
    uint64_t n = opscope_oplog_get_u(c);
    if (c->bad || n > OPSCOPE_OPLOG_DEC_MAX_SEQS || d->end_ns < d->start_ns) return -1;
    for (uint64_t i = 0; i < n; i++) {
        seqs[i].seq = opscope_oplog_get_i32(c);
        seqs[i].request = opscope_oplog_get_u32(c);
        seqs[i].n_tokens = opscope_oplog_get_u32(c);
        seqs[i].n_prompt = opscope_oplog_get_u32(c);
        seqs[i].n_outputs = opscope_oplog_get_u32(c);
    }
    d->n_seqs = (size_t)n;
    d->seqs = seqs;
    return c->bad ? -1 : 0;
}
