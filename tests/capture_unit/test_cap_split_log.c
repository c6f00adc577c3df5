/* A whole split's record (GRAPH_SPLIT: a backend without per-op timing, or a compute that
 * sampled device timing left untimed) keeps, through the record log (capture/store/cap_log.c
 * writing, read/oplog_read.c reading), the batch and attention queries of the nodes it stands
 * for and whether sampling left it untimed. Expected values are the ones put here. */
#include "capture/store/cap_buf.h"
#include "capture/store/cap_clock.h"
#include "capture/store/cap_convert.h"
#include "capture/store/cap_log.h"
#include "capture/store/cap_tables.h"
#include "cap_fixture.h"
#include "read/readers.h"
#include "test.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

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
    fixture_names();
    char path[256];
    snprintf(path, sizeof path, "/tmp/opscope-caplog-split-%ld.log", (long)getpid());
    unlink(path);
    opscope_cap_log_start(path, 0);
    const int32_t batch[2] = {7, 1};
    for (int k = 0; k < 2; k++) {
        opscope_cap_rec *r = fixture_op(20 + k, 0, OP_ADD, 1000 + 1000 * (uint64_t)k, 1500 + 1000 * (uint64_t)k, 3);
        ASSERT_NOT_NULL(r);
        r->flags = (uint8_t)(OPSCOPE_CAP_F_SPLIT_ONLY | (k == 0 ? OPSCOPE_CAP_F_SAMPLED_OUT : 0));
        r->n_fused = 40;
        r->batch = batch[k];
        r->queries = batch[k];
        opscope_cap_buf_commit(r);
    }
    opscope_cap_rec *m = fixture_op(22, 0, OP_MUL_MAT, 3000, 3100, 5);
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
