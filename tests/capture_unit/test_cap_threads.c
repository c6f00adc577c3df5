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

/* Two threads, a compute starting at 100, five barriers: 0 the team's start (omp single),
 * 1 the end of step 0, 2 inside step 1 (MUL_MAT after converting src1), 3 the end of step 1,
 * 4 the end of step 2 (the final one). Rows: arrival, departure of each barrier. */
enum { BARS = 5 };
static const uint64_t k_t[2 * BARS * 2] = {
    105, 110, 150, 160, 170, 175, 200, 230, 260, 262, /* thread 0 */
    108, 110, 158, 160, 172, 175, 228, 230, 255, 262, /* thread 1 */
};
static const int32_t k_cb[3] = {1, 3, 4};

static int test_reduce_by_hand(void) {
    int32_t row_n[2] = {BARS, BARS};
    uint32_t out[3 * 2 * 2];
    ASSERT_TRUE(opscope_cap_thr_reduce(k_t, row_n, 2, BARS, k_cb, 3, 100, 270, ident, out));
    /* thread 0, step 0: work (105-100) + (150-110) = 45, wait (110-105) + (160-150) = 15 */
    ASSERT_EQ_U64(out[0], 45);
    ASSERT_EQ_U64(out[1], 15);
    /* thread 1, step 0: work (108-100) + (158-110) = 56, wait 2 + 2 = 4 */
    ASSERT_EQ_U64(out[2], 56);
    ASSERT_EQ_U64(out[3], 4);
    /* step 1 holds barriers 2 and 3: thread 0 work (170-160) + (200-175) = 35, wait 5 + 30 */
    ASSERT_EQ_U64(out[4], 35);
    ASSERT_EQ_U64(out[5], 35);
    /* thread 1: work (172-160) + (228-175) = 65, wait 3 + 2 = 5 */
    ASSERT_EQ_U64(out[6], 65);
    ASSERT_EQ_U64(out[7], 5);
    /* step 2: thread 0 work 260-230 = 30, wait 2 and the join to the return at 270, 8; thread 1
     * work 255-230 = 25, wait 7 + 8 */
    ASSERT_EQ_U64(out[8], 30);
    ASSERT_EQ_U64(out[9], 10);
    ASSERT_EQ_U64(out[10], 25);
    ASSERT_EQ_U64(out[11], 15);
    /* every thread's work + wait is the compute's span on thread 0: 270 - 100 */
    for (int i = 0; i < 2; i++) {
        uint64_t sum = 0;
        for (int k = 0; k < 3; k++) sum += out[(k * 2 + i) * 2] + out[(k * 2 + i) * 2 + 1];
        ASSERT_EQ_U64(sum, 170);
    }
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
    ASSERT_EQ_INT(s[0].first, 1);
    ASSERT_EQ_INT(s[0].n, 2);
    ASSERT_EQ_INT(s[1].first, 3);
    ASSERT_EQ_INT(s[2].first, 5);
    return 0;
}

static int test_reduce_refuses_what_does_not_hold(void) {
    uint32_t out[3 * 2 * 2];
    int32_t uneven[2] = {BARS, BARS - 1};
    ASSERT_TRUE(!opscope_cap_thr_reduce(k_t, uneven, 2, BARS, k_cb, 3, 100, 0, ident, out));
    int32_t row_n[2] = {BARS, BARS};
    static const int32_t flat[3] = {1, 1, 4};
    ASSERT_TRUE(!opscope_cap_thr_reduce(k_t, row_n, 2, BARS, flat, 3, 100, 0, ident, out));
    static const int32_t past[3] = {1, 3, 5};
    ASSERT_TRUE(!opscope_cap_thr_reduce(k_t, row_n, 2, BARS, past, 3, 100, 0, ident, out));
    static const int32_t missing[3] = {1, -1, 4};
    ASSERT_TRUE(!opscope_cap_thr_reduce(k_t, row_n, 2, BARS, missing, 3, 100, 0, ident, out));
    /* a start after the first arrival: a clock that ran backwards */
    ASSERT_TRUE(!opscope_cap_thr_reduce(k_t, row_n, 2, BARS, k_cb, 3, 106, 0, ident, out));
    /* the last step takes any barrier after its callback's: cb {1, 3} with 5 barriers */
    ASSERT_TRUE(opscope_cap_thr_reduce(k_t, row_n, 2, BARS, k_cb, 2, 100, 0, ident, out));
    ASSERT_EQ_U64(out[4], 35 + 30); /* thread 0, step 1: barriers 2, 3 and 4 */
    ASSERT_EQ_U64(out[5], 35 + 2);   /* an end before the last exit adds nothing */
    return 0;
}

static int test_table_rows_and_bounds(void) {
    opscope_cap_thr_table tb;
    memset(&tb, 0, sizeof tb);
    ASSERT_TRUE(opscope_cap_thr_reserve(&tb, 2, 2, 4));
    opscope_cap_thr_clear(&tb);
    opscope_cap_thr_note(&tb, 1, 10, 20);
    ASSERT_EQ_INT(atomic_load(&tb.nt_seen), 2);
    ASSERT_EQ_INT(atomic_load(&tb.rows[1].n), 1);
    ASSERT_EQ_INT(atomic_load(&tb.rows[0].n), 0);
    ASSERT_EQ_U64(tb.t[(1 * (size_t)tb.bar_cap + 0) * 2], 10);
    ASSERT_EQ_INT(atomic_load(&tb.bad), 0);
    opscope_cap_thr_note(&tb, 1, 30, 40);
    opscope_cap_thr_note(&tb, 1, 50, 60); /* a third barrier: past the table */
    ASSERT_EQ_INT(atomic_load(&tb.bad), 1);
    ASSERT_EQ_INT(atomic_load(&tb.rows[1].n), 2);
    opscope_cap_thr_clear(&tb);
    ASSERT_EQ_INT(atomic_load(&tb.bad), 0);
    opscope_cap_thr_note(&tb, 2, 1, 2); /* a thread past the rows */
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

TEST_MAIN(TEST(test_reduce_by_hand), TEST(test_steps_name_nodes), TEST(test_reduce_refuses_what_does_not_hold),
          TEST(test_table_rows_and_bounds))
