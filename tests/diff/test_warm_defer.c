/*
 * test_warm_defer.c - warm-up apart decided in the one read (analyze/ggml/warm_defer.h) on record
 * streams made by hand: which records reach the steady-state filter and in what order, the
 * hand-counted answer (the load and the first compute of each topology left out), the same
 * as the two-pass way (graphs, then the filter with the list), and the check that refuses
 * a guess the end proves wrong (a stall, decisions forced by the byte bound); the held
 * copies (analyze/ggml/rec_fifo.h) equal to what was pushed, per-thread times included, through
 * wrap-arounds.
 */
#include "analyze/ggml/graph_filter.h"
#include "analyze/ggml/graphs.h"
#include "analyze/ggml/rec_fifo.h"
#include "analyze/ggml/warm_apart.h"
#include "analyze/ggml/warm_defer.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RECS 256

/* A stream: records with graph ids (-1: none), op names and durations. */
typedef struct stream {
    opscope_record r[MAX_RECS];
    size_t n;
    uint64_t t;
} stream;

static void add_rec(stream *s, int64_t graph, const char *name, uint64_t dur) {
    opscope_record *r = &s->r[s->n++];
    opscope_record_init(r);
    r->type = strncmp(name, "copy", 4) ? OPSCOPE_RECORD_OP : OPSCOPE_RECORD_COPY;
    r->name = name;
    r->tensor_name = "t";
    r->backend_id = 0;
    r->start_ns = s->t;
    r->duration_ns = dur;
    s->t += dur + 10;
    if (graph >= 0) {
        r->has |= OPSCOPE_HAS_GRAPH;
        r->graph_id = graph;
    }
    if (!strcmp(name, "MUL_MAT")) { /* batch 1: every graph in one group */
        r->n_src = 2;
        r->ne_src[1][0] = 64;
        r->ne_src[1][1] = 1;
    }
}

/* Topology A: MUL_MAT, ADD; B: MUL_MAT, ADD, SOFT_MAX. */
static void add_graph(stream *s, int64_t id, bool b, uint64_t dur) {
    add_rec(s, id, "MUL_MAT", dur);
    add_rec(s, id, "ADD", dur);
    if (b) add_rec(s, id, "SOFT_MAX", dur);
}

/* What passed: the starts of the records, in order. */
typedef struct seen {
    uint64_t start[MAX_RECS];
    size_t n, plain;
} seen;

static int seen_record(void *ud, const opscope_record *r) {
    seen *s = ud;
    if (s->n < MAX_RECS) s->start[s->n++] = r->start_ns;
    return 0;
}

static int plain_record(void *ud, const opscope_record *r) {
    ((seen *)ud)->plain++;
    return seen_record(ud, r);
}

/* S through the defer and the steady filter into *OUT (and PLAIN's into it, counted); *HELD
 * and *APART as the check gives them. */
static int run_defer(const stream *s, size_t max_bytes, seen *out, bool *held, opscope_warm_apart *apart) {
    memset(out, 0, sizeof *out);
    opscope_sink got = {out, NULL, NULL, seen_record, NULL}, plain = {out, NULL, NULL, plain_record, NULL};
    opscope_graph_filter f;
    memset(&f, 0, sizeof f);
    f.steady = true;
    f.next = got;
    opscope_warm_defer_t *w = opscope_warm_defer_new(opscope_graph_filter_sink(&f), plain, max_bytes, NULL);
    if (!w) return -1;
    f.warm_of = opscope_warm_defer_verdict;
    f.warm_ctx = w;
    opscope_sink in = opscope_warm_defer_sink(w);
    int rc = 0;
    for (size_t i = 0; i < s->n && !rc; i++) rc = in.on_record(in.ud, &s->r[i]);
    if (!rc) rc = in.on_end(in.ud);
    if (!rc) rc = opscope_warm_defer_check(w, apart, held);
    opscope_warm_defer_free(w);
    return rc;
}

/* The two-pass way: the graphs first, then the filter with their warm-up list. */
static int run_two_pass(const stream *s, seen *out) {
    memset(out, 0, sizeof *out);
    opscope_graphs_t *g = opscope_graphs_new();
    opscope_warm_apart a;
    if (!g) return -1;
    for (size_t i = 0; i < s->n; i++) opscope_graphs_add(g, &s->r[i], 0);
    if (opscope_graphs_finish(g) || opscope_warm_apart_from(&a, g, NULL, NULL)) return -1;
    opscope_graph_filter f;
    memset(&f, 0, sizeof f);
    f.steady = true;
    f.apart = &a;
    f.next = (opscope_sink){out, NULL, NULL, seen_record, NULL};
    opscope_sink fs = opscope_graph_filter_sink(&f);
    for (size_t i = 0; i < s->n; i++) fs.on_record(fs.ud, &s->r[i]);
    opscope_warm_apart_free(&a);
    opscope_graphs_free(g);
    return 0;
}

/* Two load records, graphs 1..8 (A A B A B A A A), a copy without a graph after graph 4. */
static void make_run(stream *s, uint64_t g7_dur) {
    memset(s, 0, sizeof *s);
    s->t = 1000;
    add_rec(s, -1, "copy_H2D", 50);
    add_rec(s, -1, "copy_H2D", 50);
    const bool b[9] = {0, 0, 0, 1, 0, 1, 0, 0, 0};
    for (int64_t id = 1; id <= 8; id++) {
        add_graph(s, id, b[id], id == 7 ? g7_dur : 100);
        if (id == 4) add_rec(s, -1, "copy_D2H", 20);
    }
}

static int test_contiguous(void) {
    static stream s;
    static seen d, two;
    make_run(&s, 100);
    bool held = false;
    opscope_warm_apart a;
    ASSERT_EQ_INT(run_defer(&s, 1u << 20, &d, &held, &a), 0);
    ASSERT_TRUE(held);
    /* by hand: graph 1 (first A, records 2-3) and graph 3 (first B, 6-8) and the load (0-1) out */
    size_t want[MAX_RECS], n = 0;
    for (size_t i = 0; i < s.n; i++)
        if (i >= 4 && !(i >= 6 && i <= 8)) want[n++] = i;
    ASSERT_EQ_U64(d.n, n);
    for (size_t i = 0; i < n; i++) ASSERT_EQ_U64(d.start[i], s.r[want[i]].start_ns);
    ASSERT_EQ_U64(d.plain, 0);
    ASSERT_EQ_U64(a.n, 2);
    ASSERT_EQ_INT((int)opscope_warm_apart_find(&a, 1), OPSCOPE_GRAPH_WARMUP);
    ASSERT_EQ_INT((int)opscope_warm_apart_find(&a, 3), OPSCOPE_GRAPH_WARMUP);
    ASSERT_EQ_INT(run_two_pass(&s, &two), 0);
    ASSERT_EQ_U64(two.n, d.n);
    for (size_t i = 0; i < d.n; i++) ASSERT_EQ_U64(two.start[i], d.start[i]);
    opscope_warm_apart_free(&a);
    return 0;
}

static int test_interleaved(void) {
    /* graph 2's second record after graph 3's and graph 4's first (pipelined computes) */
    static stream s, t;
    static seen d, two;
    make_run(&s, 100);
    memset(&t, 0, sizeof t);
    const size_t order[] = {0, 1, 2, 3, 4, 6, 9, 5, 7, 8, 10, 11};
    for (size_t i = 0; i < sizeof order / sizeof *order; i++) t.r[t.n++] = s.r[order[i]];
    for (size_t i = 12; i < s.n; i++) t.r[t.n++] = s.r[i];
    bool held = false;
    opscope_warm_apart a;
    ASSERT_EQ_INT(run_defer(&t, 1u << 20, &d, &held, &a), 0);
    ASSERT_TRUE(held);
    ASSERT_EQ_INT(run_two_pass(&t, &two), 0);
    ASSERT_EQ_U64(two.n, d.n);
    for (size_t i = 0; i < d.n; i++) ASSERT_EQ_U64(two.start[i], d.start[i]);
    /* passed: graph 2 (4), graph 4 (9), graph 2 late (5) in its place, graph 4 (10)... */
    ASSERT_EQ_U64(d.start[1], s.r[9].start_ns);
    ASSERT_EQ_U64(d.start[2], s.r[5].start_ns);
    opscope_warm_apart_free(&a);
    return 0;
}

static int test_stall_refused(void) {
    /* graph 7 takes 100x: 1 of 6 steady graphs over 10x the median, an outlier known at the
     * end only; the guess (steady) must be refused */
    static stream s;
    static seen d;
    make_run(&s, 10000);
    bool held = true;
    opscope_warm_apart a;
    ASSERT_EQ_INT(run_defer(&s, 1u << 20, &d, &held, &a), 0);
    ASSERT_TRUE(!held);
    ASSERT_EQ_INT((int)opscope_warm_apart_find(&a, 7), OPSCOPE_GRAPH_OUTLIER);
    ASSERT_EQ_U64(a.n, 3);
    opscope_warm_apart_free(&a);
    return 0;
}

static int test_bound_forces_guesses(void) {
    /* held bytes bounded to one record: each graph decided on its first record (MUL_MAT
     * alone), so graph 3 (B) passes for an A; the check says so */
    static stream s;
    static seen d;
    make_run(&s, 100);
    bool held = true;
    opscope_warm_apart a;
    ASSERT_EQ_INT(run_defer(&s, 1, &d, &held, &a), 0);
    ASSERT_TRUE(!held);
    opscope_warm_apart_free(&a);
    return 0;
}

static int test_no_graphs(void) {
    /* a profile without graph ids: everything to PLAIN, in order, nothing apart */
    static stream s;
    static seen d;
    memset(&s, 0, sizeof s);
    for (int i = 0; i < 5; i++) add_rec(&s, -1, i % 2 ? "ADD" : "MUL_MAT", 10);
    bool held = false;
    opscope_warm_apart a;
    ASSERT_EQ_INT(run_defer(&s, 1u << 20, &d, &held, &a), 0);
    ASSERT_TRUE(held);
    ASSERT_EQ_U64(d.plain, 5);
    for (size_t i = 0; i < 5; i++) ASSERT_EQ_U64(d.start[i], s.r[i].start_ns);
    ASSERT_EQ_U64(a.graphs[0] + a.graphs[1] + a.graphs[2], 0);
    return 0;
}

/* Records out of the FIFO equal what went in: every field, strings by value, through many
 * wrap-arounds of its ring, compact (unused sources as init leaves them) or whole. */
static int test_fifo_round_trip(void) {
    static opscope_record in[64];
    static char names[64][40];
    opscope_rec_fifo f;
    memset(&f, 0, sizeof f);
    size_t pushed = 0, popped = 0;
    for (int round = 0; round < 2000; round++) {
        size_t k = pushed % 64;
        opscope_record *r = &in[k];
        opscope_record_init(r);
        snprintf(names[k], sizeof names[k], "op_%zu_%.*s", pushed, (int)(pushed % 23), "xxxxxxxxxxxxxxxxxxxxxxxxx");
        r->name = names[k];
        r->tensor_name = pushed % 3 ? "blk.3.attn" : NULL;
        r->n_src = (int32_t)(pushed % 4);
        for (int j = 0; j < r->n_src; j++) r->ne_src[j][1] = (int64_t)(pushed + (size_t)j);
        if (pushed % 5 == 0) r->ne_src[8][2] = 99; /* not init's: kept whole */
        r->graph_id = (int64_t)pushed;
        r->op_params[15] = (int32_t)pushed;
        /* per-thread times on every other record (1..5 threads, CPUs on some): copied, since
         * the reader's buffer is overwritten after the push */
        uint32_t thr[2 * 5];
        int32_t cpus[5];
        int nt = pushed % 2 ? 0 : (int)(pushed % 5) + 1;
        for (int i = 0; i < 2 * nt; i++) thr[i] = (uint32_t)(pushed * 100 + (size_t)i);
        for (int i = 0; i < nt; i++) cpus[i] = (int32_t)(pushed % 7) + i;
        if (nt) {
            r->has |= OPSCOPE_HAS_THREADS;
            r->threads = thr;
            r->n_threads = nt;
            r->thread_cpus = pushed % 4 ? cpus : NULL;
        }
        ASSERT_EQ_INT(opscope_rec_fifo_push(&f, r), 0);
        memset(thr, 0xff, sizeof thr);
        memset(cpus, 0xff, sizeof cpus);
        r->threads = NULL;
        r->thread_cpus = NULL;
        pushed++;
        /* keep 0..40 held: the ring wraps */
        while (f.n > (size_t)(round % 41)) {
            const opscope_record *o = opscope_rec_fifo_head(&f);
            const opscope_record *w = &in[popped % 64];
            ASSERT_EQ_STR(o->name, w->name);
            ASSERT_TRUE((o->tensor_name == NULL) == (w->tensor_name == NULL));
            if (w->tensor_name) ASSERT_EQ_STR(o->tensor_name, w->tensor_name);
            ASSERT_EQ_INT(memcmp(o->ne_src, w->ne_src, sizeof o->ne_src), 0);
            ASSERT_EQ_INT(memcmp(o->nb_src, w->nb_src, sizeof o->nb_src), 0);
            ASSERT_EQ_INT(memcmp(o->type_src, w->type_src, sizeof o->type_src), 0);
            ASSERT_EQ_INT(memcmp(o->op_params, w->op_params, sizeof o->op_params), 0);
            ASSERT_EQ_INT(o->n_src, w->n_src);
            ASSERT_EQ_U64((uint64_t)o->graph_id, (uint64_t)w->graph_id);
            int want = popped % 2 ? 0 : (int)(popped % 5) + 1;
            ASSERT_EQ_INT(o->n_threads, want);
            ASSERT_TRUE(!!(o->has & OPSCOPE_HAS_THREADS) == (want > 0));
            ASSERT_TRUE((o->threads != NULL) == (want > 0));
            ASSERT_TRUE((o->thread_cpus != NULL) == (want > 0 && popped % 4 != 0));
            for (int i = 0; i < 2 * want; i++) ASSERT_EQ_U64(o->threads[i], popped * 100 + (size_t)i);
            for (int i = 0; o->thread_cpus && i < want; i++) ASSERT_EQ_INT(o->thread_cpus[i], (int)(popped % 7) + i);
            opscope_rec_fifo_pop(&f);
            popped++;
        }
    }
    ASSERT_TRUE(pushed - popped == f.n);
    opscope_rec_fifo_free(&f);
    return 0;
}

TEST_MAIN(TEST(test_fifo_round_trip), TEST(test_contiguous), TEST(test_interleaved), TEST(test_stall_refused),
          TEST(test_bound_forces_guesses), TEST(test_no_graphs))
