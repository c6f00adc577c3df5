/* test_threads.c - the CPU threads' analysis (analyze/threads/threads.h) on hand-made per-thread
 * work and wait, and the JSON reader's "threads" member feeding it; the expected figures are
 * worked out by hand below. */
#include "analyze/threads/threads.h"
#include "opscope.h"
#include "test.h"

#include <string.h>

/* Two threads; work, wait of thread 0 then thread 1. MUL_MATs 0, 1 and 3 in graph 1, MUL_MAT 2
 * and the ADD in graph 2. */
static const uint32_t k_mm[4][4] = {{100, 50, 150, 0}, {100, 60, 160, 0}, {200, 0, 100, 100}, {100, 5, 105, 0}};
static const int64_t k_mm_graph[4] = {1, 1, 2, 1};
static const uint32_t k_add[4] = {10, 0, 10, 0};

static const int32_t k_cpus[2] = {3, 5};

static opscope_record rec(const char *name, const uint32_t *thr, int64_t graph) {
    opscope_record r;
    opscope_record_init(&r);
    r.name = name;
    r.threads = thr;
    r.n_threads = 2;
    r.thread_cpus = k_cpus;
    r.graph_id = graph;
    r.has |= OPSCOPE_HAS_THREADS | OPSCOPE_HAS_GRAPH;
    return r;
}

static int feed(opscope_threads_t *t) {
    for (int i = 0; i < 4; i++) {
        opscope_record r = rec("MUL_MAT", k_mm[i], k_mm_graph[i]);
        if (opscope_threads_add(t, &r, NULL)) return -1;
        if (i == 2) {
            opscope_record a = rec("ADD", k_add, 2);
            if (opscope_threads_add(t, &a, NULL)) return -1;
        }
    }
    opscope_record none; /* no per-thread times: not counted */
    opscope_record_init(&none);
    none.name = "MUL_MAT";
    return opscope_threads_add(t, &none, NULL);
}

/* Graph 1 is a decode step, graph 2 a prompt's (the caller's phases: 2 and 1). */
static int phase_of(void *ud, int64_t id) {
    (void)ud;
    return id == 1 ? 2 : id == 2 ? 1 : 0;
}

static int check_phases(opscope_threads_t *t) {
    opscope_threads_phase p;
    char line[320];
    /* graph 1: work 250 + 260 + 205 = 715, wait 50 + 60 + 5 = 115 (14% of 830), all of it
     * caused by thread 1 (50 + 60 + 5); it is the slowest by the margin in 2 of 3 MUL_MATs (the
     * third: 105 against 100, under a tenth) */
    ASSERT_EQ_U64(opscope_threads_phase_sum(t, phase_of, NULL, 2, &p), 1);
    ASSERT_EQ_U64(p.work_ns, 715);
    ASSERT_EQ_U64(p.wait_ns, 115);
    ASSERT_EQ_U64(p.mm_n, 3);
    ASSERT_EQ_U64(p.held[1], 115);
    ASSERT_EQ_U64(p.mm_slowest[1], 2);
    ASSERT_TRUE(opscope_threads_phase_line(&p, "decode", line, sizeof line));
    ASSERT_EQ_STR(line, "decode loses 14% of its CPU time waiting at barriers; thread 1 causes 100% of that "
                        "wait and is the slowest in 67% of MUL_MAT nodes");
    /* graph 2: work 300 + 20, wait 100 (24% of 420), caused by thread 0 in its one MUL_MAT */
    ASSERT_EQ_U64(opscope_threads_phase_sum(t, phase_of, NULL, 1, &p), 1);
    ASSERT_TRUE(opscope_threads_phase_line(&p, "prefill", line, sizeof line));
    ASSERT_EQ_STR(line, "prefill loses 24% of its CPU time waiting at barriers; thread 0 causes 100% of that "
                        "wait and is the slowest in 100% of MUL_MAT nodes");
    /* every graph: 215 of 1250 ns waiting (17%); thread 1 caused 115 of the 215 (53%) and is
     * the slowest by the margin in 2 of the 4 MUL_MATs */
    ASSERT_EQ_U64(opscope_threads_phase_sum(t, NULL, NULL, 0, &p), 2);
    ASSERT_TRUE(opscope_threads_phase_line(&p, NULL, line, sizeof line));
    ASSERT_EQ_STR(line, "CPU threads lose 17% of their time waiting at barriers; thread 1 causes 53% of that "
                        "wait and is the slowest in 50% of MUL_MAT nodes");
    ASSERT_EQ_U64(opscope_threads_phase_sum(t, phase_of, NULL, 0, &p), 0);
    return 0;
}

static int check(opscope_threads_t *t) {
    ASSERT_EQ_INT(opscope_threads_n(t), 2);
    const opscope_thread_sum *t0 = opscope_threads_thread(t, 0), *t1 = opscope_threads_thread(t, 1);
    /* thread 0: work 100 + 100 + 200 + 10 + 100, wait 50 + 60 + 5; the slowest by the margin in
     * the third MUL_MAT only (the ADD is a tie: slowest, the lower thread, but by nothing);
     * held: 200 - 100 there, 0 in the ADD */
    ASSERT_EQ_U64(t0->work_ns, 510);
    ASSERT_EQ_U64(t0->wait_ns, 115);
    ASSERT_EQ_U64(t0->nodes, 5);
    ASSERT_EQ_U64(t0->slowest_nodes, 1);
    ASSERT_EQ_U64(t0->held_ns, 100);
    /* thread 1: by the margin in the first two MUL_MATs (50 and 60 more than thread 0's 100),
     * not in the fourth (5 more than 100: under a tenth of its 105), which it still held up */
    ASSERT_EQ_U64(t1->work_ns, 525);
    ASSERT_EQ_U64(t1->wait_ns, 100);
    ASSERT_EQ_U64(t1->slowest_nodes, 2);
    ASSERT_EQ_U64(t1->held_ns, 115);
    ASSERT_EQ_INT(t0->cpu, 3);
    ASSERT_EQ_INT(t1->cpu, 5);
    const opscope_thread_group *g = opscope_threads_find(t, "MUL_MAT", 0);
    ASSERT_NOT_NULL(g);
    ASSERT_EQ_U64(g->n, 4);
    ASSERT_EQ_U64(g->work_min_ns, 400);  /* 100 + 100 + 100 + 100 */
    ASSERT_EQ_U64(g->work_mean_ns, 507); /* 125 + 130 + 150 + 102 (205 / 2, rounded down) */
    ASSERT_EQ_U64(g->work_max_ns, 615);  /* 150 + 160 + 200 + 105 */
    ASSERT_EQ_U64(g->wait_ns, 215);      /* 50 + 60 + 100 + 5 */
    ASSERT_NEAR(g->imbalance, 615.0 / 507.0, 1e-12);
    ASSERT_EQ_INT(g->slowest_thread, 1); /* held 115 against thread 0's 100 */
    ASSERT_NEAR(g->held_share, 115.0 / 215.0, 1e-12);
    ASSERT_NEAR(g->slowest_share, 2.0 / 4.0, 1e-12);
    ASSERT_NULL(opscope_threads_find(t, "MUL_MAT", 1));
    uint64_t work, wait;
    opscope_threads_totals(t, &work, &wait);
    ASSERT_EQ_U64(work, 1035);
    ASSERT_EQ_U64(wait, 215);
    return check_phases(t);
}

/* Three threads: the wait the slowest caused is its lead over each of the others; the margin
 * is its lead over the second slowest. */
static int test_three_threads(void) {
    opscope_threads_t *t = opscope_threads_new();
    ASSERT_NOT_NULL(t);
    static const uint32_t close[6] = {100, 0, 95, 5, 50, 50}; /* lead 5 over 95: under a tenth */
    static const uint32_t clear[6] = {80, 20, 100, 0, 50, 50}; /* lead 20 over 80 */
    opscope_record r;
    opscope_record_init(&r);
    r.name = "MUL_MAT";
    r.n_threads = 3;
    r.has |= OPSCOPE_HAS_THREADS;
    r.threads = close;
    ASSERT_EQ_INT(opscope_threads_add(t, &r, NULL), 0);
    r.threads = clear;
    ASSERT_EQ_INT(opscope_threads_add(t, &r, NULL), 0);
    ASSERT_EQ_U64(opscope_threads_thread(t, 0)->held_ns, 55); /* (100 - 95) + (100 - 50) */
    ASSERT_EQ_U64(opscope_threads_thread(t, 0)->slowest_nodes, 0);
    ASSERT_EQ_U64(opscope_threads_thread(t, 1)->held_ns, 70); /* (100 - 80) + (100 - 50) */
    ASSERT_EQ_U64(opscope_threads_thread(t, 1)->slowest_nodes, 1);
    const opscope_thread_group *g = opscope_threads_find(t, "MUL_MAT", 0);
    ASSERT_NOT_NULL(g);
    ASSERT_EQ_INT(g->slowest_thread, 1);
    ASSERT_NEAR(g->held_share, 70.0 / 125.0, 1e-12);
    ASSERT_NEAR(g->slowest_share, 0.5, 1e-12);
    opscope_threads_free(t);
    return 0;
}

static int test_by_hand(void) {
    opscope_threads_t *t = opscope_threads_new();
    ASSERT_NOT_NULL(t);
    ASSERT_EQ_INT(feed(t), 0);
    int rc = check(t);
    opscope_threads_free(t);
    return rc;
}

static int test_no_finding_when_balanced(void) {
    opscope_threads_t *t = opscope_threads_new();
    static const uint32_t even[4] = {100, 5, 100, 5}; /* 10 of 210 ns waiting: under 10% */
    opscope_record r = rec("MUL_MAT", even, 1);
    ASSERT_EQ_INT(opscope_threads_add(t, &r, NULL), 0);
    char line[320];
    opscope_threads_phase p;
    opscope_threads_phase_sum(t, NULL, NULL, 0, &p);
    ASSERT_TRUE(!opscope_threads_phase_line(&p, NULL, line, sizeof line));
    ASSERT_EQ_INT(opscope_threads_thread(t, 0)->cpu, 3);
    static const int32_t moved[2] = {4, 5}; /* thread 0 on another CPU: no one CPU to name */
    r.thread_cpus = moved;
    ASSERT_EQ_INT(opscope_threads_add(t, &r, NULL), 0);
    ASSERT_EQ_INT(opscope_threads_thread(t, 0)->cpu, -1);
    ASSERT_TRUE(opscope_threads_thread(t, 0)->moved);
    ASSERT_EQ_INT(opscope_threads_thread(t, 1)->cpu, 5);
    opscope_threads_free(t);
    return 0;
}

/* The same figures read from a profile's records ("threads": work, wait per thread). */
static int test_from_json(void) {
    static const char doc[] =
        "{\"profiler\":\"opscope\",\"version\":3,\"records\":["
        "{\"type\":0,\"name\":\"MUL_MAT\",\"start_ns\":0,\"duration_ns\":1,\"graph_id\":1,\"threads\":[100,50,150,0],\"thread_cpus\":[3,5]},"
        "{\"type\":0,\"name\":\"MUL_MAT\",\"start_ns\":1,\"duration_ns\":1,\"graph_id\":1,\"thread_cpus\":[3,5],\"threads\":[100,60,160,0]},"
        "{\"type\":0,\"name\":\"MUL_MAT\",\"start_ns\":2,\"duration_ns\":1,\"graph_id\":2,\"threads\":[200,0,100,100],\"thread_cpus\":[3,5]},"
        "{\"type\":0,\"name\":\"ADD\",\"start_ns\":3,\"duration_ns\":1,\"graph_id\":2,\"threads\":[10,0,10,0],\"thread_cpus\":[3,5]},"
        "{\"type\":0,\"name\":\"MUL_MAT\",\"start_ns\":4,\"duration_ns\":1,\"graph_id\":1,\"threads\":[100,5,105,0],\"thread_cpus\":[3,5]},"
        "{\"type\":0,\"name\":\"MUL_MAT\",\"start_ns\":5,\"duration_ns\":1}]}";
    opscope_threads_t *t = opscope_threads_new();
    opscope_sink s = opscope_threads_sink(t);
    opscope_error err;
    ASSERT_EQ_INT(opscope_read_buffer(doc, sizeof doc - 1, "t.json", OPSCOPE_FORMAT_GGML, &s, &err), 0);
    int rc = check(t);
    opscope_threads_free(t);
    /* an odd count is no list of pairs */
    static const char odd[] = "{\"records\":[{\"type\":0,\"name\":\"ADD\",\"start_ns\":0,\"duration_ns\":1,"
                              "\"threads\":[1,2,3]}]}";
    t = opscope_threads_new();
    s = opscope_threads_sink(t);
    ASSERT_EQ_INT(opscope_read_buffer(odd, sizeof odd - 1, "odd.json", OPSCOPE_FORMAT_GGML, &s, &err), -1);
    opscope_threads_free(t);
    return rc;
}

TEST_MAIN(TEST(test_by_hand), TEST(test_three_threads), TEST(test_no_finding_when_balanced), TEST(test_from_json))
