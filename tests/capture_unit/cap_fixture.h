/*
 * cap_fixture.h - fakes that the record log's unit tests share (test_cap_log.c and
 * test_cap_split_log.c): a zeroed one-source record on the calling thread's
 * buffer, an OP record of a node, and the op names with one fake CPU backend. Static inline:
 * each test is its own executable, and one that uses a part only compiles without warnings.
 * Thread safety: the calling thread's buffer, as opscope_cap_buf_alloc.
 */
#ifndef OPSCOPE_TEST_CAP_FIXTURE_H
#define OPSCOPE_TEST_CAP_FIXTURE_H

#include "capture/store/cap_buf.h"
#include "capture/store/cap_tables.h"

#include <stdio.h>
#include <string.h>

enum { OP_ADD = 2, OP_MUL_MAT = 29 };

/* A record of KIND with one source, all else zero but its size and n_fused 1; uncommitted.
 * NULL when the buffer is full. */
static inline opscope_cap_rec *fixture_rec(int kind) {
    opscope_cap_rec *r = opscope_cap_buf_alloc(1);
    if (!r) return NULL;
    memset(r, 0, opscope_cap_rec_size(1));
    r->size = (uint16_t)opscope_cap_rec_size(1);
    r->n_src = 1;
    r->kind = (uint8_t)kind;
    r->n_fused = 1;
    return r;
}

/* An OP record, uncommitted: node NODE (tensor "t-NODE") of graph GRAPH on backend 0, thread 1,
 * from T0 to T1, one F32 source and output of 4 x ROWS (16 bytes a row). NULL when full. */
static inline opscope_cap_rec *fixture_op(int64_t graph, int node, int op, uint64_t t0, uint64_t t1,
                                          int64_t rows) {
    opscope_cap_rec *r = fixture_rec(OPSCOPE_CAP_KIND_OP);
    if (!r) return NULL;
    r->op = (int16_t)op;
    r->sched = -1;
    r->thread = 1;
    r->node = node;
    r->graph = graph;
    r->t0 = t0;
    r->t1 = t1;
    r->bytes = (uint64_t)rows * 16;
    r->ne[0] = r->src[0].ne[0] = 4;
    r->ne[1] = r->src[0].ne[1] = rows;
    r->ne[2] = r->ne[3] = 1;
    r->src[0].nb[0] = 4;
    snprintf(r->name, sizeof r->name, "t-%d", node);
    return r;
}

/* ADD and MUL_MAT named; the fake CPU backend (key 0x1000) added when no backend is. */
static inline void fixture_names(void) {
    opscope_cap_names_set(OPSCOPE_CAP_NAMES_OP, OP_ADD, "ADD");
    opscope_cap_names_set(OPSCOPE_CAP_NAMES_OP, OP_MUL_MAT, "MUL_MAT");
    if (opscope_cap_backend_count() == 0) {
        opscope_cap_backend e = {.key = (void *)0x1000, .name = "CPU", .device = "Fake CPU",
                                 .device_type = OPSCOPE_DEVICE_CPU};
        opscope_cap_backend_add(&e);
    }
}

#endif /* OPSCOPE_TEST_CAP_FIXTURE_H */
