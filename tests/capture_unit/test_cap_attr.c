/* Tests of pairing CPU abort-callback timestamps with graph nodes (cap_attr.c). */
#include "capture/timing/cap_attr.h"
#include "test.h"

/* Graph: 0 VIEW(skip) 1 RMS_NORM(fuse 2) 2 MUL 3 MUL_MAT 4 not-computed 5 ADD */
static const opscope_cap_node k_nodes[] = {{1, 0}, {0, 2}, {0, 0}, {0, 0}, {1, 0}, {0, 0}};

static int test_steps_with_fusion(void) {
    opscope_cap_step s[6];
    int n = opscope_cap_steps(k_nodes, 6, true, s);
    ASSERT_EQ_INT(n, 3);
    ASSERT_EQ_INT(s[0].first, 1);
    ASSERT_EQ_INT(s[0].n, 2);
    ASSERT_EQ_INT(s[1].first, 3);
    ASSERT_EQ_INT(s[1].n, 1);
    ASSERT_EQ_INT(s[2].first, 5);
    return 0;
}

static int test_steps_without_fusion(void) {
    opscope_cap_step s[6];
    int n = opscope_cap_steps(k_nodes, 6, false, s);
    ASSERT_EQ_INT(n, 4);
    ASSERT_EQ_INT(s[1].first, 2);
    return 0;
}

static int test_exact_pairs_timestamps(void) {
    uint64_t ts[3] = {110, 150, 190};
    opscope_cap_step s[6];
    int n = 0;
    int r = opscope_cap_attribute(k_nodes, 6, ts, 3, 100, false, s, &n);
    ASSERT_EQ_INT(r, OPSCOPE_CAP_ATTR_EXACT);
    ASSERT_EQ_INT(n, 3);
    ASSERT_EQ_U64(s[0].t0, 100);
    ASSERT_EQ_U64(s[0].t1, 110);
    ASSERT_EQ_U64(s[1].t0, 110);
    ASSERT_EQ_U64(s[2].t1, 190);
    /* durations tile the interval [start, last timestamp] */
    uint64_t sum = 0;
    for (int k = 0; k < n; k++) sum += s[k].t1 - s[k].t0;
    ASSERT_EQ_U64(sum, 90);
    return 0;
}

static int test_last_step_takes_the_tail(void) {
    uint64_t ts[3] = {110, 150, 190};
    opscope_cap_step s[6];
    int n = 0;
    int r = opscope_cap_attribute(k_nodes, 6, ts, 3, 100, false, s, &n);
    opscope_cap_close_last(s, n, r, 230);
    ASSERT_EQ_U64(s[2].t1, 230);
    uint64_t sum = 0;
    for (int k = 0; k < n; k++) sum += s[k].t1 - s[k].t0;
    ASSERT_EQ_U64(sum, 130); /* the whole compute, 100..230 */
    /* not when the pairing is in doubt */
    uint64_t ts6[6] = {1, 2, 3, 4, 5, 6};
    r = opscope_cap_attribute(k_nodes, 6, ts6, 6, 0, false, s, &n);
    opscope_cap_close_last(s, n, r, 100);
    ASSERT_EQ_U64(s[n - 1].t1, 3);
    return 0;
}

static int test_fusion_disabled_detected(void) {
    uint64_t ts[4] = {110, 120, 150, 190};
    opscope_cap_step s[6];
    int n = 0;
    int r = opscope_cap_attribute(k_nodes, 6, ts, 4, 100, false, s, &n);
    ASSERT_EQ_INT(r, OPSCOPE_CAP_ATTR_NOFUSION);
    ASSERT_EQ_INT(n, 4);
    ASSERT_EQ_INT(s[1].first, 2);
    ASSERT_EQ_INT(s[1].n, 1);
    ASSERT_EQ_U64(s[1].t0, 110);
    return 0;
}

static int test_aborted_graph_times_what_ran(void) {
    uint64_t ts[1] = {130};
    opscope_cap_step s[6];
    int n = 0;
    int r = opscope_cap_attribute(k_nodes, 6, ts, 1, 100, true, s, &n);
    ASSERT_EQ_INT(r, OPSCOPE_CAP_ATTR_ABORTED);
    ASSERT_EQ_INT(n, 1);
    ASSERT_EQ_U64(s[0].t1, 130);
    return 0;
}

static int test_mismatch_is_inexact(void) {
    uint64_t ts[6] = {1, 2, 3, 4, 5, 6};
    opscope_cap_step s[6];
    int n = 0;
    int r = opscope_cap_attribute(k_nodes, 6, ts, 6, 0, false, s, &n);
    ASSERT_EQ_INT(r, OPSCOPE_CAP_ATTR_INEXACT);
    ASSERT_EQ_INT(n, 3); /* never more records than predicted steps */
    return 0;
}

static int test_backwards_clock_clamped(void) {
    uint64_t ts[3] = {90, 150, 140};
    opscope_cap_step s[6];
    int n = 0;
    opscope_cap_attribute(k_nodes, 6, ts, 3, 100, false, s, &n);
    ASSERT_EQ_U64(s[0].t1, 100);
    ASSERT_EQ_U64(s[2].t1, s[2].t0);
    return 0;
}

static int test_empty_graph(void) {
    opscope_cap_node nodes[2] = {{1, 0}, {1, 0}};
    opscope_cap_step s[2];
    int n = -1;
    int r = opscope_cap_attribute(nodes, 2, NULL, 0, 5, false, s, &n);
    ASSERT_EQ_INT(r, OPSCOPE_CAP_ATTR_EXACT);
    ASSERT_EQ_INT(n, 0);
    return 0;
}

static int test_blas_calls(void) {
    /* nodes: VIEW, MUL_MAT (2 sgemm: ne12=2), OUT_PROD (1), MUL_MAT (1) */
    const int32_t calls[4] = {0, 2, 1, 1};
    uint64_t ts[4] = {150, 180, 200, 260};
    opscope_cap_step s[4];
    int n = -1;
    ASSERT_EQ_INT(opscope_cap_attribute_calls(calls, 4, ts, 4, 100, s, &n), OPSCOPE_CAP_ATTR_EXACT);
    ASSERT_EQ_INT(n, 3);
    ASSERT_EQ_INT(s[0].first, 1);
    ASSERT_EQ_U64(s[0].t0, 100);
    ASSERT_EQ_U64(s[0].t1, 180); /* the end of its second call */
    ASSERT_EQ_U64(s[1].t0, 180);
    ASSERT_EQ_U64(s[1].t1, 200);
    ASSERT_EQ_U64(s[2].t1, 260);
    ASSERT_EQ_INT(opscope_cap_attribute_calls(calls, 4, ts, 3, 100, s, &n), OPSCOPE_CAP_ATTR_INEXACT);
    ASSERT_EQ_INT(n, 0);
    return 0;
}

static int test_steps_end_at_barrier_exits(void) {
    /* callbacks at 110, 150, 190; thread 0 left the following barriers at 114, 158, 197 */
    uint64_t ts[3] = {110, 150, 190};
    uint64_t bar[3] = {114, 158, 197};
    opscope_cap_step s[6];
    int n = 0;
    int r = opscope_cap_attribute(k_nodes, 6, ts, 3, 100, false, s, &n);
    uint64_t tail = opscope_cap_close_steps(s, n, r, bar, 3, 200);
    ASSERT_EQ_U64(s[0].t0, 100);
    ASSERT_EQ_U64(s[0].t1, 114);
    ASSERT_EQ_U64(s[1].t0, 114);
    ASSERT_EQ_U64(s[1].t1, 158);
    ASSERT_EQ_U64(s[2].t0, 158);
    ASSERT_EQ_U64(s[2].t1, 200); /* runs on to the return ... */
    ASSERT_EQ_U64(tail, 3);      /* ... of which 3 after the final barrier's exit at 197 */
    uint64_t sum = 0;
    for (int k = 0; k < n; k++) sum += s[k].t1 - s[k].t0;
    ASSERT_EQ_U64(sum, 100); /* the steps tile the compute 100..200 */
    return 0;
}

static int test_barrier_exits_missing_or_implausible(void) {
    uint64_t ts[3] = {110, 150, 190};
    opscope_cap_step s[6];
    int n = 0;
    /* none seen (one thread): callbacks, and the last step takes the tail as before */
    int r = opscope_cap_attribute(k_nodes, 6, ts, 3, 100, false, s, &n);
    ASSERT_EQ_U64(opscope_cap_close_steps(s, n, r, NULL, 0, 230), 0);
    ASSERT_EQ_U64(s[1].t1, 150);
    ASSERT_EQ_U64(s[2].t1, 230);
    /* 0 = not seen; 105 is before its callback; 195 is after the next callback */
    uint64_t bar[3] = {105, 195, 0};
    r = opscope_cap_attribute(k_nodes, 6, ts, 3, 100, false, s, &n);
    ASSERT_EQ_U64(opscope_cap_close_steps(s, n, r, bar, 3, 230), 0);
    ASSERT_EQ_U64(s[0].t1, 110);
    ASSERT_EQ_U64(s[1].t0, 110);
    ASSERT_EQ_U64(s[1].t1, 150);
    ASSERT_EQ_U64(s[2].t0, 150);
    ASSERT_EQ_U64(s[2].t1, 230);
    /* a last barrier exit after the compute returned is not believed either */
    uint64_t bar2[3] = {0, 0, 240};
    r = opscope_cap_attribute(k_nodes, 6, ts, 3, 100, false, s, &n);
    ASSERT_EQ_U64(opscope_cap_close_steps(s, n, r, bar2, 3, 230), 0);
    ASSERT_EQ_U64(s[2].t1, 230);
    /* fewer exits than steps: the rest keep their callbacks */
    uint64_t bar3[1] = {120};
    r = opscope_cap_attribute(k_nodes, 6, ts, 3, 100, false, s, &n);
    ASSERT_EQ_U64(opscope_cap_close_steps(s, n, r, bar3, 1, 230), 0);
    ASSERT_EQ_U64(s[0].t1, 120);
    ASSERT_EQ_U64(s[1].t0, 120);
    ASSERT_EQ_U64(s[2].t1, 230);
    return 0;
}

static int test_barrier_exits_ignored_when_in_doubt(void) {
    uint64_t ts6[6] = {1, 2, 3, 4, 5, 6};
    uint64_t bar[6] = {1, 2, 3, 4, 5, 6};
    opscope_cap_step s[6];
    int n = 0;
    int r = opscope_cap_attribute(k_nodes, 6, ts6, 6, 0, false, s, &n);
    ASSERT_EQ_INT(r, OPSCOPE_CAP_ATTR_INEXACT);
    ASSERT_EQ_U64(opscope_cap_close_steps(s, n, r, bar, 6, 100), 0);
    ASSERT_EQ_U64(s[n - 1].t1, 3);
    uint64_t ts[1] = {130};
    r = opscope_cap_attribute(k_nodes, 6, ts, 1, 100, true, s, &n);
    ASSERT_EQ_INT(r, OPSCOPE_CAP_ATTR_ABORTED);
    ASSERT_EQ_U64(opscope_cap_close_steps(s, n, r, bar, 6, 200), 0);
    ASSERT_EQ_U64(s[0].t1, 130);
    return 0;
}

TEST_MAIN(TEST(test_blas_calls), TEST(test_last_step_takes_the_tail), TEST(test_steps_with_fusion), TEST(test_steps_without_fusion),
          TEST(test_exact_pairs_timestamps), TEST(test_fusion_disabled_detected),
          TEST(test_aborted_graph_times_what_ran), TEST(test_mismatch_is_inexact),
          TEST(test_backwards_clock_clamped), TEST(test_empty_graph),
          TEST(test_steps_end_at_barrier_exits), TEST(test_barrier_exits_missing_or_implausible),
          TEST(test_barrier_exits_ignored_when_in_doubt))
