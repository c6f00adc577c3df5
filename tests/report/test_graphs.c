/* test_graphs.c - per graph aggregates and the groups by batch (analyze/ggml/graphs.h) against
 * figures worked out by hand below. */
#include "analyze/ggml/graph_filter.h"
#include "analyze/ggml/graphs.h"
#include "opscope.h"
#include "test.h"

#include <stdint.h>
#include <string.h>

static opscope_record rec(const char *name, int64_t graph, uint64_t start, uint64_t dur) {
    opscope_record r;
    opscope_record_init(&r);
    r.name = name;
    r.graph_id = graph;
    r.has |= OPSCOPE_HAS_GRAPH;
    r.start_ns = start;
    r.duration_ns = dur;
    return r;
}

static opscope_record matmul(const char *name, int64_t graph, uint64_t start, uint64_t dur, int64_t ne1,
                             int64_t ne2) {
    opscope_record r = rec(name, graph, start, dur);
    r.n_src = 2;
    r.ne_src[0][0] = 64;
    r.ne_src[0][1] = 64;
    r.ne_src[1][0] = 64;
    r.ne_src[1][1] = ne1;
    r.ne_src[1][2] = ne2;
    r.ne_src[1][3] = 1;
    return r;
}

static int test_record_batch(void) {
    opscope_record r = matmul("MUL_MAT", 0, 0, 1, 7, 8);
    ASSERT_EQ_INT((int)opscope_record_batch(&r), 7);  /* ne[1] of src1 */
    r = matmul("MUL_MAT_ID", 0, 0, 1, 2, 9);
    ASSERT_EQ_INT((int)opscope_record_batch(&r), 9);  /* ne[2]: the tokens */
    r = matmul("ADD", 0, 0, 1, 7, 8);
    ASSERT_EQ_INT((int)opscope_record_batch(&r), 0);
    r = matmul("MUL_MAT", 0, 0, 1, 7, 8);
    r.n_src = 1;                                      /* no src1 known */
    ASSERT_EQ_INT((int)opscope_record_batch(&r), 0);
    r = matmul("MUL_MAT", 0, 0, 1, 7, 8);
    r.type = OPSCOPE_RECORD_COPY;
    ASSERT_EQ_INT((int)opscope_record_batch(&r), 0);
    return 0;
}

/*
 * Graph 5 (prompt, batch 12): MUL_MAT [64,12] 100..400, ADD 400..450, a copy 450..470,
 *   MUL_MAT [64,1] (the output row) 470..520.          ops 300+50+50 = 400, copy 20, wall 420
 * Graphs 6, 7, 8 (generation, batch 1): MUL_MAT [64,1] of 60, 80, 40 ns and ADD 10 each;
 *   graph 7's ADD starts 5 ns after its MUL_MAT ends.  ops 70, 90, 50; walls 70, 95, 50
 * Graph 9: one MUL_MAT_ID src1 [64,1,12]: batch 12.      ops 30, wall 30
 * Graph 10: no matrix product: batch 0.                 ops 5, wall 5
 * A record without a graph id: not counted.
 * Batch 12: graphs 5 and 9: op 430, wall 450, medians (lower middle of 2) op 30, wall 30.
 * Batch 1: op 210, wall 210 (graph 7's 5 ns gap between its records is not its work: the
 * union of its records, 90 of its 95 ns span), span 215, median op 70, wall 70. Batch 0: op 5.
 * By op time: 12, 1, 0.
 */
/* The records above into RS (room for 16); returns how many (13). */
static int make_records(opscope_record *rs) {
    int n = 0;
    rs[n++] = matmul("MUL_MAT", 5, 100, 300, 12, 1);
    rs[n++] = rec("ADD", 5, 400, 50);
    rs[n] = rec("copy_D2H", 5, 450, 20);
    rs[n++].type = OPSCOPE_RECORD_COPY;
    rs[n++] = matmul("MUL_MAT", 5, 470, 50, 1, 1);
    uint64_t t = 1000, mm[3] = {60, 80, 40};
    for (int k = 0; k < 3; k++) {
        rs[n++] = matmul("MUL_MAT", 8 - k, t, mm[k], 1, 1); /* graphs 8, 7, 6: ids out of order */
        t += mm[k] + (k == 1 ? 5 : 0);
        rs[n++] = rec("ADD", 8 - k, t, 10);
        t += 10;
    }
    rs[n++] = matmul("MUL_MAT_ID", 9, 2000, 30, 1, 12);
    rs[n++] = rec("SCALE", 10, 3000, 5);
    rs[n] = rec("SCALE", 0, 4000, 1000);
    rs[n++].has = 0;
    return n;
}

static int feed(opscope_graphs_t *g) {
    opscope_record rs[16];
    int n = make_records(rs);
    for (int i = 0; i < n; i++) {
        if (opscope_graphs_add(g, &rs[i], 0)) return -1;
    }
    return 0;
}

static int test_graphs_and_batches(void) {
    opscope_graphs_t *g = opscope_graphs_new();
    ASSERT_NOT_NULL(g);
    ASSERT_EQ_INT(feed(g), 0);
    ASSERT_EQ_INT(opscope_graphs_finish(g), 0);
    ASSERT_EQ_U64(opscope_graphs_n(g), 6);
    const opscope_graph_stats *s = opscope_graphs_at(g, 0);
    ASSERT_EQ_INT((int)s->id, 5);
    ASSERT_EQ_U64(s->n, 4);
    ASSERT_EQ_U64(s->n_ops, 3);
    ASSERT_EQ_U64(s->n_copies, 1);
    ASSERT_EQ_U64(s->op_ns, 400);
    ASSERT_EQ_U64(s->copy_ns, 20);
    ASSERT_EQ_U64(s->start_ns, 100);
    ASSERT_EQ_U64(s->end_ns, 520);
    ASSERT_EQ_INT((int)s->batch, 12);
    s = opscope_graphs_at(g, 2);
    ASSERT_EQ_INT((int)s->id, 7);
    ASSERT_EQ_U64(s->end_ns - s->start_ns, 95);
    ASSERT_EQ_INT((int)s->batch, 1);
    ASSERT_EQ_INT((int)opscope_graphs_at(g, 5)->batch, 0);

    ASSERT_EQ_U64(opscope_graphs_n_batches(g), 3);
    const opscope_graph_batch *b = opscope_graphs_batch_at(g, 0);
    ASSERT_EQ_INT((int)b->batch, 12);
    ASSERT_EQ_U64(b->graphs, 2);
    ASSERT_EQ_U64(b->records, 5);
    ASSERT_EQ_U64(b->n_ops, 4);
    ASSERT_EQ_U64(b->op_ns, 430);
    ASSERT_EQ_U64(b->copy_ns, 20);
    ASSERT_EQ_U64(b->wall_ns, 450);
    ASSERT_EQ_U64(b->median_op_ns, 30);
    ASSERT_EQ_U64(b->median_wall_ns, 30);
    ASSERT_EQ_INT((int)b->first_graph, 5);
    b = opscope_graphs_batch_at(g, 1);
    ASSERT_EQ_INT((int)b->batch, 1);
    ASSERT_EQ_U64(b->graphs, 3);
    ASSERT_EQ_U64(b->op_ns, 210);
    ASSERT_EQ_U64(b->wall_ns, 210);
    ASSERT_EQ_U64(b->span_ns, 215);
    ASSERT_EQ_U64(opscope_graphs_find(g, 7)->wall_ns, 90);
    ASSERT_EQ_U64(b->median_op_ns, 70);
    ASSERT_EQ_U64(b->median_wall_ns, 70);
    ASSERT_EQ_INT((int)b->first_graph, 6);
    b = opscope_graphs_batch_at(g, 2);
    ASSERT_EQ_INT((int)b->batch, 0);
    ASSERT_EQ_U64(b->op_ns, 5);
    ASSERT_NULL(opscope_graphs_batch_at(g, 3));

    /* fed again after finish: the results are rebuilt */
    opscope_record more = matmul("MUL_MAT", 11, 5000, 1000, 1, 1);
    ASSERT_EQ_INT(opscope_graphs_add(g, &more, 0), 0);
    ASSERT_EQ_INT(opscope_graphs_finish(g), 0);
    ASSERT_EQ_INT((int)opscope_graphs_batch_at(g, 0)->batch, 1);
    ASSERT_EQ_U64(opscope_graphs_batch_at(g, 0)->graphs, 4);
    ASSERT_EQ_U64(opscope_graphs_batch_at(g, 0)->median_op_ns, 70);
    opscope_graphs_free(g);
    return 0;
}

/* Many graph ids (the table grows several times), each looked up again out of order. */
static int test_many_graphs(void) {
    opscope_graphs_t *g = opscope_graphs_new();
    ASSERT_NOT_NULL(g);
    enum { N = 5000 };
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < N; i++) {
            int64_t id = (int64_t)((i * 7919) % N);
            opscope_record r = matmul("MUL_MAT", id, (uint64_t)id * 100, 10, 1 + id % 3, 1);
            ASSERT_EQ_INT(opscope_graphs_add(g, &r, 0), 0);
        }
    }
    ASSERT_EQ_INT(opscope_graphs_finish(g), 0);
    ASSERT_EQ_U64(opscope_graphs_n(g), N);
    for (size_t i = 0; i < N; i++) {
        const opscope_graph_stats *s = opscope_graphs_at(g, i);
        ASSERT_EQ_INT((int)s->id, (int)i);
        ASSERT_EQ_U64(s->n, 2);
        ASSERT_EQ_U64(s->op_ns, 20);
        ASSERT_EQ_INT((int)s->batch, 1 + (int)i % 3);
    }
    ASSERT_EQ_U64(opscope_graphs_n_batches(g), 3);
    /* equal op time per graph: batch 1 has ids 0, 3, ... (1667 graphs), the others 1666 */
    ASSERT_EQ_INT((int)opscope_graphs_batch_at(g, 0)->batch, 1);
    ASSERT_EQ_U64(opscope_graphs_batch_at(g, 0)->graphs, 1667);
    ASSERT_EQ_INT((int)opscope_graphs_batch_at(g, 1)->batch, 2);
    ASSERT_EQ_INT((int)opscope_graphs_batch_at(g, 2)->batch, 3);
    opscope_graphs_free(g);
    return 0;
}

static int test_empty(void) {
    opscope_graphs_t *g = opscope_graphs_new();
    ASSERT_NOT_NULL(g);
    opscope_record r = rec("ADD", 0, 0, 1);
    r.has = 0;
    ASSERT_EQ_INT(opscope_graphs_add(g, &r, 0), 0);
    ASSERT_EQ_INT(opscope_graphs_finish(g), 0);
    ASSERT_EQ_U64(opscope_graphs_n(g), 0);
    ASSERT_EQ_U64(opscope_graphs_n_batches(g), 0);
    ASSERT_NULL(opscope_graphs_at(g, 0));
    opscope_graphs_free(g);
    opscope_graphs_free(NULL);
    return 0;
}

static int test_range_parse(void) {
    opscope_range r = {-7, -7};
    ASSERT_TRUE(opscope_range_parse("12", &r));
    ASSERT_EQ_INT((int)r.lo, 12);
    ASSERT_EQ_INT((int)r.hi, 12);
    ASSERT_TRUE(opscope_range_parse("3-40", &r));
    ASSERT_EQ_INT((int)r.lo, 3);
    ASSERT_EQ_INT((int)r.hi, 40);
    ASSERT_TRUE(opscope_range_parse("5-", &r));
    ASSERT_EQ_INT((int)r.lo, 5);
    ASSERT_TRUE(r.hi == INT64_MAX);
    ASSERT_TRUE(opscope_range_parse("0", &r));
    ASSERT_EQ_INT((int)r.hi, 0);
    static const char *const bad[] = {"", "-", "-3", "4-2", "1x", "x", "1--2", "1-2-3", " 1",
                                      "99999999999999999999", "+1"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        r.lo = r.hi = 77;
        if (opscope_range_parse(bad[i], &r)) TEST_FAIL_("'%s' parsed", bad[i]);
        ASSERT_EQ_INT((int)r.lo, 77); /* untouched */
    }
    ASSERT_TRUE(!opscope_range_parse(NULL, &r));
    return 0;
}

typedef struct counts {
    int records, metas;
    uint64_t meta_total;
    int64_t graphs[16];
} counts;

static int count_record(void *ud, const opscope_record *r) {
    counts *c = ud;
    c->graphs[c->records++ % 16] = r->graph_id; /* at most 12 pass */
    return 0;
}

static int count_meta(void *ud, const opscope_meta *m) {
    counts *c = ud;
    c->metas++;
    c->meta_total = m->total_records;
    return 0;
}

/* The graphs of feed(): 5 and 9 batch 12, 6-8 batch 1, 10 batch 0; one record without a graph. */
static int test_filter(void) {
    opscope_graphs_t *idx = opscope_graphs_new();
    ASSERT_NOT_NULL(idx);
    ASSERT_EQ_INT(feed(idx), 0);
    ASSERT_EQ_INT(opscope_graphs_finish(idx), 0);
    ASSERT_EQ_INT((int)opscope_graphs_find(idx, 7)->batch, 1);
    ASSERT_NULL(opscope_graphs_find(idx, 4));
    ASSERT_NULL(opscope_graphs_find(idx, 11));

    struct {
        bool by_graph, by_batch;
        opscope_range graphs, batch;
        int kept;
    } cases[] = {
        {false, true, {0, 0}, {1, 1}, 6},             /* graphs 6-8: two records each */
        {false, true, {0, 0}, {12, 12}, 5},           /* graph 5 (4) and 9 (1) */
        {false, true, {0, 0}, {0, INT64_MAX}, 12},    /* every record with a graph */
        {true, false, {6, 7}, {0, 0}, 4},
        {true, true, {0, 8}, {1, 12}, 10},            /* 5, 6, 7, 8 */
        {false, true, {0, 0}, {2, 11}, 0},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        counts c = {0};
        opscope_sink next = {&c, count_meta, NULL, count_record, NULL};
        opscope_graph_filter f = {.by_graph = cases[k].by_graph, .by_batch = cases[k].by_batch,
                                  .graphs = cases[k].graphs, .batch = cases[k].batch, .index = idx,
                                  .next = next};
        opscope_sink s = opscope_graph_filter_sink(&f);
        opscope_meta m = {.total_records = 13, .total_ns = 5};
        ASSERT_EQ_INT(s.on_meta(s.ud, &m), 0);
        ASSERT_EQ_INT(c.metas, 1);
        ASSERT_EQ_U64(c.meta_total, 0); /* the file's count is not the kept records' */
        opscope_record rs[16];
        int n = make_records(rs);
        ASSERT_EQ_INT(n, 13);
        for (int i = 0; i < n; i++) ASSERT_EQ_INT(s.on_record(s.ud, &rs[i]), 0);
        ASSERT_EQ_INT(c.records, cases[k].kept);
        ASSERT_EQ_U64(f.kept, (uint64_t)cases[k].kept);
        ASSERT_EQ_U64(f.kept + f.dropped, 13);
        /* and each passed record is of a chosen graph (batches of feed(): 5, 9: 12; 6-8: 1; 10: 0) */
        for (int i = 0; i < c.records; i++) {
            int64_t id = c.graphs[i];
            int64_t batch = id == 5 || id == 9 ? 12 : id == 10 ? 0 : 1;
            if (cases[k].by_graph) {
                ASSERT_GE_INT(id, cases[k].graphs.lo);
                ASSERT_LE_INT(id, cases[k].graphs.hi);
            }
            if (cases[k].by_batch) {
                ASSERT_GE_INT(batch, cases[k].batch.lo);
                ASSERT_LE_INT(batch, cases[k].batch.hi);
            }
        }
    }
    opscope_graphs_free(idx);
    return 0;
}

/* llama-server decoding 4 sequences at once: its graphs multiply 4 rows, but the
 * attention's queries are 1 token in each of 4 sequences (src0 ne [32, 1, 8, 4], as captured):
 * decode steps, not prompts. Graph 0: a 104-token prompt over 4 sequences (26 queries each),
 * prefill. Graphs 1, 2: batch 4, decode. Graph 3: no attention, 1 row: decode; graph 4: no
 * attention, 3 rows: prefill; graph 5: no matrix product nor attention: no phase. */
static int test_phase_per_sequence(void) {
    opscope_graphs_t *g = opscope_graphs_new();
    ASSERT_NOT_NULL(g);
    const int64_t rows[6] = {104, 4, 4, 1, 3, 0}, queries[6] = {26, 1, 1, 0, 0, 0};
    for (int64_t id = 0; id < 6; id++) {
        opscope_record m = rows[id] ? matmul("MUL_MAT", id, (uint64_t)(100 * id), 10, rows[id], 1)
                                    : rec("ADD", id, (uint64_t)(100 * id), 10);
        ASSERT_EQ_INT(opscope_graphs_add(g, &m, 0), 0);
        if (queries[id]) {
            opscope_record f = rec("FLASH_ATTN_EXT", id, (uint64_t)(100 * id + 20), 10);
            f.n_src = 4;
            f.ne_src[0][0] = 32;
            f.ne_src[0][1] = queries[id];
            f.ne_src[0][2] = 8;
            f.ne_src[0][3] = 4;
            ASSERT_EQ_INT(opscope_graphs_add(g, &f, 0), 0);
        }
    }
    ASSERT_EQ_INT(opscope_graphs_finish(g), 0);
    const opscope_graph_phase want[6] = {OPSCOPE_GRAPH_PHASE_PREFILL, OPSCOPE_GRAPH_PHASE_DECODE,
                                         OPSCOPE_GRAPH_PHASE_DECODE,  OPSCOPE_GRAPH_PHASE_DECODE,
                                         OPSCOPE_GRAPH_PHASE_PREFILL, OPSCOPE_GRAPH_PHASE_NONE};
    for (int64_t id = 0; id < 6; id++) ASSERT_EQ_INT((int)opscope_graphs_find(g, id)->phase, (int)want[id]);
    ASSERT_EQ_STR(opscope_graph_phase_name(OPSCOPE_GRAPH_PHASE_DECODE), "decode");
    /* the groups: batch 104 prefill, 4 decode (2 graphs), 1 decode, 3 prefill, 0 none */
    ASSERT_EQ_INT((int)opscope_graphs_n_batches(g), 5);
    bool found = false;
    for (size_t i = 0; i < opscope_graphs_n_batches(g); i++) {
        const opscope_graph_batch *b = opscope_graphs_batch_at(g, i);
        if (b->batch != 4) continue;
        found = true;
        ASSERT_EQ_INT((int)b->phase, (int)OPSCOPE_GRAPH_PHASE_DECODE);
        ASSERT_EQ_U64(b->graphs, 2);
    }
    ASSERT_TRUE(found);
    /* --batch decode: the records of graphs 1, 2 and 3 (3 each but graph 3's 1) */
    counts c = {0};
    opscope_sink next = {&c, count_meta, NULL, count_record, NULL};
    opscope_graph_filter f = {.by_phase = true, .phase = OPSCOPE_GRAPH_PHASE_DECODE, .index = g, .next = next};
    opscope_sink s = opscope_graph_filter_sink(&f);
    for (int64_t id = 0; id < 6; id++) {
        opscope_record r = rec("ADD", id, (uint64_t)(100 * id + 50), 1);
        ASSERT_EQ_INT(s.on_record(s.ud, &r), 0);
    }
    ASSERT_EQ_INT(c.records, 3);
    ASSERT_EQ_U64(f.dropped, 3);
    opscope_graphs_free(g);
    return 0;
}

/* Sampled device timing, the same two computes both ways. Graph 1 timed: MUL_MAT [64,4]
 * weight 3 (90 ns) and FLASH_ATTN_EXT with 1 query per sequence (30 ns, weight 3); graph 2
 * sampled out: one GRAPH_SPLIT (host 500 ns) whose nodes' batch 4 and queries 1 the host
 * knew; graph 3 the same with batch 7, queries 7. Graphs 1 and 2: batch 4 decode (as if both
 * were timed), estimate 90x3 + 30x3 = 360, graph 2's 500 ns measured only; graph 3: batch 7
 * prefill, estimate 0 (its device work is in another compute's weight). */
static int test_sampled_out_split(void) {
    opscope_graphs_t *g = opscope_graphs_new();
    ASSERT_NOT_NULL(g);
    opscope_record m = matmul("MUL_MAT", 1, 0, 90, 4, 1), f = rec("FLASH_ATTN_EXT", 1, 100, 30);
    f.n_src = 1;
    f.ne_src[0][1] = 1;
    f.ne_src[0][3] = 4;
    opscope_record *timed[2] = {&m, &f};
    for (int i = 0; i < 2; i++) {
        timed[i]->weight = 3;
        timed[i]->has |= OPSCOPE_HAS_WEIGHT;
        ASSERT_EQ_INT(opscope_graphs_add(g, timed[i], 0), 0);
    }
    const int64_t batch[2] = {4, 7};
    for (int k = 0; k < 2; k++) {
        opscope_record sp = rec("GRAPH_SPLIT", 2 + k, 1000 + 1000 * (uint64_t)k, 500);
        sp.n_src = 1; /* the first node's (RMS_NORM [64,4]): no matrix product */
        sp.ne_src[0][1] = 3;
        sp.batch = batch[k];
        sp.queries = batch[k] == 4 ? 1 : 7;
        sp.has |= OPSCOPE_HAS_BATCH | OPSCOPE_HAS_SAMPLED_OUT;
        ASSERT_EQ_INT((int)opscope_record_batch(&sp), (int)batch[k]);
        ASSERT_EQ_INT(opscope_graphs_add(g, &sp, 0), 0);
    }
    ASSERT_EQ_INT(opscope_graphs_finish(g), 0);
    ASSERT_EQ_INT((int)opscope_graphs_find(g, 2)->phase, (int)OPSCOPE_GRAPH_PHASE_DECODE);
    ASSERT_EQ_INT((int)opscope_graphs_find(g, 3)->phase, (int)OPSCOPE_GRAPH_PHASE_PREFILL);
    ASSERT_EQ_INT((int)opscope_graphs_n_batches(g), 2);
    const opscope_graph_batch *b = opscope_graphs_batch_at(g, 0); /* by op time: 620 then 500 */
    ASSERT_EQ_INT((int)b->batch, 4);
    ASSERT_EQ_INT((int)b->phase, (int)OPSCOPE_GRAPH_PHASE_DECODE);
    ASSERT_EQ_U64(b->graphs, 2);
    ASSERT_EQ_U64(b->op_ns, 620);
    ASSERT_EQ_U64(b->est_op_ns, 360);
    ASSERT_EQ_U64(b->device_timed_graphs, 1);
    ASSERT_EQ_U64(b->sampled_out_graphs, 1);
    b = opscope_graphs_batch_at(g, 1);
    ASSERT_EQ_INT((int)b->batch, 7);
    ASSERT_EQ_INT((int)b->phase, (int)OPSCOPE_GRAPH_PHASE_PREFILL);
    ASSERT_EQ_U64(b->op_ns, 500);
    ASSERT_EQ_U64(b->est_op_ns, 0);
    ASSERT_EQ_U64(b->device_timed_graphs, 0);
    ASSERT_EQ_U64(b->sampled_out_graphs, 1);
    opscope_graphs_free(g);
    return 0;
}

TEST_MAIN(TEST(test_record_batch), TEST(test_range_parse), TEST(test_filter), TEST(test_graphs_and_batches), TEST(test_many_graphs), TEST(test_empty),
          TEST(test_phase_per_sequence), TEST(test_sampled_out_split))
