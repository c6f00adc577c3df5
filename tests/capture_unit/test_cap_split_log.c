/* A whole split's record (GRAPH_SPLIT: a backend without per-op timing, or a compute that
 * sampled device timing left untimed) keeps, through the record log (capture/store/cap_log.c
 * writing, read/oplog_read.c reading), the batch and attention queries of the nodes it stands
 * for and whether sampling left it untimed (issue 32). Expected values are the ones put here. */
#include "capture/store/cap_buf.h"
#include "capture/store/cap_clock.h"
#include "capture/store/cap_convert.h"
#include "capture/store/cap_log.h"
#include "capture/store/cap_tables.h"
#include "read/readers.h"
#include "test.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

enum { OP_ADD = 2, OP_MUL_MAT = 29 };

/* An OP record of node 0 of graph GRAPH from T0 to T1, one source of ROWS rows, uncommitted. */
static opscope_cap_rec *new_op(int64_t graph, int op, uint64_t t0, uint64_t t1, int64_t rows) {
    opscope_cap_rec *r = opscope_cap_buf_alloc(1);
    if (!r) return NULL;
    memset(r, 0, opscope_cap_rec_size(1));
    r->size = (uint16_t)opscope_cap_rec_size(1);
    r->n_src = 1;
    r->kind = OPSCOPE_CAP_KIND_OP;
    r->op = (int16_t)op;
    r->n_fused = 1;
    r->sched = -1;
    r->thread = 1;
    r->graph = graph;
    r->t0 = t0;
    r->t1 = t1;
    r->ne[0] = r->src[0].ne[0] = 4;
    r->ne[1] = r->src[0].ne[1] = rows;
    r->src[0].nb[0] = 4;
    return r;
}

typedef struct got {
    int n;
    char name[8][16];
    int64_t batch[8], queries[8], rows[8];
    uint32_t has[8];
} got;

static int g_record(void *ud, const opscope_record *r) {
    got *g = ud;
    if (g->n >= 8) return 1;
    int i = g->n++;
    snprintf(g->name[i], sizeof g->name[i], "%s", r->name);
    g->batch[i] = r->batch;
    g->queries[i] = r->queries;
    g->rows[i] = r->ne_src[0][1];
    g->has[i] = r->has;
    return 0;
}

/* A sampled-out split of batch 7, queries 7, then a plain one of batch 1, queries 1 (another
 * template), then an op without either. */
static int test_split_batch_through_the_log(void) {
    opscope_cap_clock_init("monotonic");
    opscope_cap_buf_reset_all();
    opscope_cap_names_set(OPSCOPE_CAP_NAMES_OP, OP_ADD, "ADD");
    opscope_cap_names_set(OPSCOPE_CAP_NAMES_OP, OP_MUL_MAT, "MUL_MAT");
    if (opscope_cap_backend_count() == 0) {
        opscope_cap_backend e = {.key = (void *)0x1000, .name = "CPU", .device = "Fake CPU",
                                 .device_type = OPSCOPE_DEVICE_CPU};
        opscope_cap_backend_add(&e);
    }
    char path[256];
    snprintf(path, sizeof path, "/tmp/opscope-caplog-split-%ld.log", (long)getpid());
    unlink(path);
    opscope_cap_log_start(path, 0);
    const int32_t batch[2] = {7, 1};
    for (int k = 0; k < 2; k++) {
        opscope_cap_rec *r = new_op(20 + k, OP_ADD, 1000 + 1000 * (uint64_t)k, 1500 + 1000 * (uint64_t)k, 3);
        ASSERT_NOT_NULL(r);
        r->flags = (uint8_t)(OPSCOPE_CAP_F_SPLIT_ONLY | (k == 0 ? OPSCOPE_CAP_F_SAMPLED_OUT : 0));
        r->n_fused = 40;
        r->batch = batch[k];
        r->queries = batch[k];
        opscope_cap_buf_commit(r);
    }
    opscope_cap_rec *m = new_op(22, OP_MUL_MAT, 3000, 3100, 5);
    ASSERT_NOT_NULL(m);
    opscope_cap_buf_commit(m);
    char why[128];
    ASSERT_EQ_INT(opscope_cap_log_flush("exit", NULL, why, sizeof why), 0);
    got g;
    memset(&g, 0, sizeof g);
    opscope_sink sink = {&g, NULL, NULL, g_record, NULL};
    opscope_error err;
    ASSERT_EQ_INT(opscope_read_file(path, OPSCOPE_FORMAT_AUTO, &sink, &err), 0);
    unlink(path);
    ASSERT_EQ_INT(g.n, 3);
    ASSERT_EQ_STR(g.name[0], "GRAPH_SPLIT");
    ASSERT_EQ_INT((int)g.batch[0], 7);
    ASSERT_EQ_INT((int)g.queries[0], 7);
    ASSERT_TRUE((g.has[0] & OPSCOPE_HAS_BATCH) && (g.has[0] & OPSCOPE_HAS_SAMPLED_OUT));
    ASSERT_EQ_STR(g.name[1], "GRAPH_SPLIT");
    ASSERT_EQ_INT((int)g.batch[1], 1);
    ASSERT_EQ_INT((int)g.queries[1], 1);
    ASSERT_TRUE((g.has[1] & OPSCOPE_HAS_BATCH) && !(g.has[1] & OPSCOPE_HAS_SAMPLED_OUT));
    ASSERT_EQ_STR(g.name[2], "MUL_MAT");
    ASSERT_TRUE(!(g.has[2] & (OPSCOPE_HAS_BATCH | OPSCOPE_HAS_SAMPLED_OUT)));
    ASSERT_EQ_INT((int)g.rows[2], 5);
    return 0;
}

TEST_MAIN(TEST(test_split_batch_through_the_log))
