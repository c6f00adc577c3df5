/* Tests of every thread's work and wait at the barriers of a CPU compute (cap_threads.c):
 * barriers mapped to steps by thread 0's callbacks, steps to nodes by cap_attr.c. The expected
 * numbers are worked out by hand in the comments. */
#include "capture/timing/cap_attr.h"
#include "capture/timing/cap_threads.h"
#include "test.h"

#include <string.h>

static uint64_t ident(uint64_t t) {
    return t;
}

/* Two threads, a compute starting at 100 and returning at 270, five barriers: 0 the team's
 * start (omp single), 1 the end of step 0, 2 inside step 1 (MUL_MAT after converting src1), 3
 * the end of step 1, 4 the end of step 2 (the final one). Rows: each barrier's arrival. A
 * barrier releases at its last arrival: 108, 158, 172, 228, 260. */
enum { BARS = 5 };
static const uint64_t k_t[2 * BARS] = {
    105, 150, 170, 200, 260, /* thread 0 */
    108, 158, 172, 228, 255, /* thread 1 */
};
static const int32_t k_cb[3] = {1, 3, 4};
static uint64_t k_rel[BARS];

static int test_reduce_by_hand(void) {
    int32_t row_n[2] = {BARS, BARS};
    uint32_t out[3 * 2 * 2];
    ASSERT_TRUE(opscope_cap_thr_reduce(k_t, row_n, 2, BARS, k_cb, NULL, 3, 100, 270, ident, out, k_rel));
    /* work, wait of (step, thread), by hand:
     * step 0, thread 0: work (105-100) + (150-108) = 47, wait (108-105) + (158-150) = 11
     * step 0, thread 1: work (108-100) + (158-108) = 58; the last at both barriers: no wait
     * step 1 (barriers 2 and 3), thread 0: work (170-158) + (200-172) = 40, wait 2 + 28 = 30
     * step 1, thread 1: work (172-158) + (228-172) = 70, wait 0
     * step 2, thread 0: work 260-228 = 32, wait 0 and the join to the return, 270-260 = 10
     * step 2, thread 1: work 255-228 = 27, wait (260-255) + 10 = 15 */
    static const uint32_t want[12] = {47, 11, 58, 0, 40, 30, 70, 0, 32, 10, 27, 15};
    for (int k = 0; k < 12; k++) ASSERT_EQ_U64(out[k], want[k]);
    /* every thread's work + wait is the compute's span on thread 0: 270 - 100 */
    for (int i = 0; i < 2; i++) {
        uint64_t sum = 0;
        for (int k = 0; k < 3; k++) sum += out[(k * 2 + i) * 2] + out[(k * 2 + i) * 2 + 1];
        ASSERT_EQ_U64(sum, 170);
    }
    return 0;
}

/* Thread 0's callbacks at 140, 190 and 250, before its arrivals at the end barriers (150, 200,
 * 260): the 10 ns between each callback and its arrival are the capture's own, so thread 0's
 * work on each step is 10 ns less and its wait 10 ns more (the steps still tile the compute);
 * thread 1's times and the releases are as before. A callback after the arrival (a clock a few
 * ticks off) changes nothing. */
static int test_reduce_ends_thread0_at_its_callback(void) {
    int32_t row_n[2] = {BARS, BARS};
    uint32_t out[3 * 2 * 2];
    static const uint64_t cb_ts[3] = {140, 190, 250};
    ASSERT_TRUE(opscope_cap_thr_reduce(k_t, row_n, 2, BARS, k_cb, cb_ts, 3, 100, 270, ident, out, k_rel));
    /* by hand, from test_reduce_by_hand's figures:
     * step 0, thread 0: work (105-100) + (140-108) = 37, wait 3 + (158-140) = 21
     * step 1, thread 0: work (170-158) + (190-172) = 30, wait 2 + (228-190) = 40
     * step 2, thread 0: work 250-228 = 22, wait (260-250) + 10 = 20 */
    static const uint32_t want[12] = {37, 21, 58, 0, 30, 40, 70, 0, 22, 20, 27, 15};
    for (int k = 0; k < 12; k++) ASSERT_EQ_U64(out[k], want[k]);
    static const uint64_t late[3] = {151, 200, 300};
    ASSERT_TRUE(opscope_cap_thr_reduce(k_t, row_n, 2, BARS, k_cb, late, 3, 100, 270, ident, out, k_rel));
    static const uint32_t same[12] = {47, 11, 58, 0, 40, 30, 70, 0, 32, 10, 27, 15};
    for (int k = 0; k < 12; k++) ASSERT_EQ_U64(out[k], same[k]);
    return 0;
}

/* The steps are the graph's nodes by ggml-cpu's rules: with node 0 skipped and nodes 1-2
 * fused, steps 0, 1, 2 are nodes 1 (+2), 3 and 5, so thread 1's 65 ns of work is node 3's. */
static int test_steps_name_nodes(void) {
    static const opscope_cap_node nodes[] = {{1, 0}, {0, 2}, {0, 0}, {0, 0}, {1, 0}, {0, 0}};
    opscope_cap_step s[6];
    uint64_t ts[3] = {150, 200, 260}; /* thread 0's callbacks, before each end barrier */
    int n = 0;
    ASSERT_EQ_INT(opscope_cap_attribute(nodes, 6, ts, 3, 100, false, s, &n), OPSCOPE_CAP_ATTR_EXACT);
    ASSERT_EQ_INT(n, 3);
    static const int first[3] = {1, 3, 5}, len[3] = {2, 1, 1}; /* the steps' nodes */
    for (int k = 0; k < 3; k++) {
        ASSERT_EQ_INT(s[k].first, first[k]);
        ASSERT_EQ_INT(s[k].n, len[k]);
    }
    return 0;
}

static int test_reduce_refuses_what_does_not_hold(void) {
    uint32_t out[3 * 2 * 2];
    int32_t uneven[2] = {BARS, BARS - 1};
    ASSERT_TRUE(!opscope_cap_thr_reduce(k_t, uneven, 2, BARS, k_cb, NULL, 3, 100, 270, ident, out, k_rel));
    int32_t row_n[2] = {BARS, BARS};
    static const int32_t flat[3] = {1, 1, 4};
    ASSERT_TRUE(!opscope_cap_thr_reduce(k_t, row_n, 2, BARS, flat, NULL, 3, 100, 270, ident, out, k_rel));
    static const int32_t past[3] = {1, 3, 5};
    ASSERT_TRUE(!opscope_cap_thr_reduce(k_t, row_n, 2, BARS, past, NULL, 3, 100, 270, ident, out, k_rel));
    static const int32_t missing[3] = {1, -1, 4};
    ASSERT_TRUE(!opscope_cap_thr_reduce(k_t, row_n, 2, BARS, missing, NULL, 3, 100, 270, ident, out, k_rel));
    /* a row whose arrivals run backwards */
    static const uint64_t back[2 * BARS] = {105, 150, 140, 200, 260, 108, 158, 172, 228, 255};
    ASSERT_TRUE(!opscope_cap_thr_reduce(back, row_n, 2, BARS, k_cb, NULL, 3, 100, 270, ident, out, k_rel));
    /* the last step takes any barrier after its callback's: cb {1, 3} with 5 barriers; thread
     * 0's step 1 is barriers 2, 3 and 4: work 12 + 28 + 32, wait 2 + 28 + 0; an end before the
     * last release adds nothing */
    ASSERT_TRUE(opscope_cap_thr_reduce(k_t, row_n, 2, BARS, k_cb, NULL, 2, 100, 0, ident, out, k_rel));
    ASSERT_EQ_U64(out[4], 72);
    ASSERT_EQ_U64(out[5], 30);
    /* an arrival a few ticks before the previous release (two CPUs' clocks): no work, no refusal */
    static const uint64_t skew[2 * BARS] = {105, 150, 157, 200, 260, 108, 158, 172, 228, 255};
    ASSERT_TRUE(opscope_cap_thr_reduce(skew, row_n, 2, BARS, k_cb, NULL, 3, 100, 270, ident, out, k_rel));
    ASSERT_EQ_U64(out[4], 0 + 200 - 172); /* barrier 2: 157 < 158, no work; barrier 3: 28 */
    return 0;
}

static int test_table_rows_and_bounds(void) {
    opscope_cap_thr_table tb;
    memset(&tb, 0, sizeof tb);
    ASSERT_TRUE(opscope_cap_thr_reserve(&tb, 2, 2, 4));
    opscope_cap_thr_clear(&tb);
    opscope_cap_thr_note(&tb, 1, 10);
    ASSERT_EQ_INT(atomic_load(&tb.nt_seen), 2);
    ASSERT_EQ_INT(atomic_load(&tb.rows[1].n), 1);
    ASSERT_EQ_INT(atomic_load(&tb.rows[0].n), 0);
    ASSERT_EQ_U64(tb.t[1 * (size_t)tb.bar_cap + 0], 10);
    ASSERT_EQ_INT(atomic_load(&tb.bad), 0);
    opscope_cap_thr_note(&tb, 1, 30);
    opscope_cap_thr_note(&tb, 1, 50); /* a third barrier: past the table */
    ASSERT_EQ_INT(atomic_load(&tb.bad), 1);
    ASSERT_EQ_INT(atomic_load(&tb.rows[1].n), 2);
    opscope_cap_thr_clear(&tb);
    ASSERT_EQ_INT(atomic_load(&tb.bad), 0);
    opscope_cap_thr_note(&tb, 2, 1); /* a thread past the rows */
    ASSERT_EQ_INT(atomic_load(&tb.bad), 1);
    /* growing keeps what the next compute needs: more rows, more barriers */
    ASSERT_TRUE(opscope_cap_thr_reserve(&tb, 8, 100, 50));
    ASSERT_EQ_INT(tb.nt_cap, 8);
    ASSERT_EQ_INT(tb.bar_cap, 100);
    ASSERT_TRUE(opscope_cap_thr_reserve(&tb, 1000, 10, 1)); /* capped at OPSCOPE_CAP_THR_MAX */
    ASSERT_EQ_INT(tb.nt_cap, OPSCOPE_CAP_THR_MAX);
    ASSERT_EQ_INT(tb.bar_cap, 100);
    opscope_cap_thr_free(&tb);
    return 0;
}

TEST_MAIN(TEST(test_reduce_by_hand), TEST(test_reduce_ends_thread0_at_its_callback), TEST(test_steps_name_nodes), TEST(test_reduce_refuses_what_does_not_hold),
          TEST(test_table_rows_and_bounds))
