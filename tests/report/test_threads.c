/* test_threads.c - the CPU threads' analysis (analyze/threads/threads.h) on hand-made per-thread
 * work and wait, and the JSON reader's "threads" member feeding it; the expected figures are
 * worked out by hand below. */
#include "analyze/threads/threads.h"
#include "opscope.h"
#include "test.h"

#include <string.h>

/* Two threads; work, wait of thread 0 then thread 1. */
static const uint32_t k_mm[3][4] = {{100, 50, 150, 0}, {100, 60, 160, 0}, {200, 0, 100, 100}};
static const uint32_t k_add[4] = {10, 0, 10, 0};

static const int32_t k_cpus[2] = {3, 5};

static opscope_record rec(const char *name, const uint32_t *thr) {
    opscope_record r;
    opscope_record_init(&r);
    r.name = name;
    r.threads = thr;
    r.n_threads = 2;
    r.thread_cpus = k_cpus;
    r.has |= OPSCOPE_HAS_THREADS;
    return r;
}

static int feed(opscope_threads_t *t) {
    for (int i = 0; i < 3; i++) {
        opscope_record r = rec("MUL_MAT", k_mm[i]);
        if (opscope_threads_add(t, &r, NULL)) return -1;
    }
    opscope_record a = rec("ADD", k_add);
    if (opscope_threads_add(t, &a, NULL)) return -1;
    opscope_record none; /* no per-thread times: not counted */
    opscope_record_init(&none);
    none.name = "MUL_MAT";
    return opscope_threads_add(t, &none, NULL);
}

static int check(opscope_threads_t *t) {
    ASSERT_EQ_INT(opscope_threads_n(t), 2);
    const opscope_thread_sum *t0 = opscope_threads_thread(t, 0), *t1 = opscope_threads_thread(t, 1);
    /* thread 0: work 100 + 100 + 200 + 10, wait 50 + 60; slowest in the third MUL_MAT and in
     * ADD (a tie goes to the lower thread) */
    ASSERT_EQ_U64(t0->work_ns, 410);
    ASSERT_EQ_U64(t0->wait_ns, 110);
    ASSERT_EQ_U64(t0->nodes, 4);
    ASSERT_EQ_U64(t0->slowest_nodes, 2);
    ASSERT_EQ_U64(t1->work_ns, 420);
    ASSERT_EQ_U64(t1->wait_ns, 100);
    ASSERT_EQ_U64(t1->slowest_nodes, 2);
    ASSERT_EQ_INT(t0->cpu, 3);
    ASSERT_EQ_INT(t1->cpu, 5);
    const opscope_thread_group *g = opscope_threads_find(t, "MUL_MAT", 0);
    ASSERT_NOT_NULL(g);
    ASSERT_EQ_U64(g->n, 3);
    ASSERT_EQ_U64(g->work_min_ns, 300);  /* 100 + 100 + 100 */
    ASSERT_EQ_U64(g->work_mean_ns, 405); /* 125 + 130 + 150 */
    ASSERT_EQ_U64(g->work_max_ns, 510);  /* 150 + 160 + 200 */
    ASSERT_EQ_U64(g->wait_ns, 210);      /* 50 + 60 + 100 */
    ASSERT_NEAR(g->imbalance, 510.0 / 405.0, 1e-12);
    ASSERT_EQ_INT(g->slowest_thread, 1);
    ASSERT_NEAR(g->slowest_share, 2.0 / 3.0, 1e-12);
    ASSERT_NULL(opscope_threads_find(t, "MUL_MAT", 1));
    uint64_t work, wait;
    opscope_threads_totals(t, &work, &wait);
    ASSERT_EQ_U64(work, 830);
    ASSERT_EQ_U64(wait, 210);
    /* 210 of 1040 ns waiting: 20%, over the 10% that makes it the first screen's */
    char line[256];
    ASSERT_TRUE(opscope_threads_finding(t, line, sizeof line));
    ASSERT_EQ_STR(line, "CPU threads wait at barriers for 20% of their time; thread 1 is the slowest in "
                        "67% of MUL_MAT nodes (imbalance 1.26)");
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
    opscope_record r = rec("MUL_MAT", even);
    ASSERT_EQ_INT(opscope_threads_add(t, &r, NULL), 0);
    char line[256];
    ASSERT_TRUE(!opscope_threads_finding(t, line, sizeof line));
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
        "{\"type\":0,\"name\":\"MUL_MAT\",\"start_ns\":0,\"duration_ns\":1,\"threads\":[100,50,150,0],\"thread_cpus\":[3,5]},"
        "{\"type\":0,\"name\":\"MUL_MAT\",\"start_ns\":1,\"duration_ns\":1,\"thread_cpus\":[3,5],\"threads\":[100,60,160,0]},"
        "{\"type\":0,\"name\":\"MUL_MAT\",\"start_ns\":2,\"duration_ns\":1,\"threads\":[200,0,100,100],\"thread_cpus\":[3,5]},"
        "{\"type\":0,\"name\":\"ADD\",\"start_ns\":3,\"duration_ns\":1,\"threads\":[10,0,10,0],\"thread_cpus\":[3,5]},"
        "{\"type\":0,\"name\":\"MUL_MAT\",\"start_ns\":4,\"duration_ns\":1}]}";
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

TEST_MAIN(TEST(test_by_hand), TEST(test_no_finding_when_balanced), TEST(test_from_json))
