/* Clock offset estimation on synthetic request intervals: the true offset is set by the
 * test, the events are built from it with random latencies, and the estimator must bound it. */
#include "analyze/rpc/clock_align.h"
#include "test.h"

/* xorshift: reproducible, no libc rand state */
static uint64_t g_rng = 88172645463325252ull;
static uint64_t rnd(void) {
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return g_rng;
}
static int64_t uniform(int64_t a, int64_t b) { return a + (int64_t)(rnd() % (uint64_t)(b - a + 1)); }

/* Hand-checked bounds: pairs (client [c0,c1], server [s0,s1]). */
static int test_bounds_by_hand(void) {
    opscope_align_event c[3] = {{1, 100, 200, 1}, {1, 1000, 1300, 1}, {2, 5000, 5100, 0}};
    opscope_align_event s[3] = {{1, 10130, 10180, 0}, {1, 11050, 11240, 0}, {2, 15020, 15090, 0}};
    /* upper bounds s0-c0: 10030, 10050, 10020 -> 10020; lower bounds s1-c1: 9980, 9940 -> 9980 */
    opscope_align_result r;
    opscope_align_bounds(c, s, 3, &r);
    ASSERT_EQ_INT(r.ok, 1);
    ASSERT_EQ_INT(r.hi_ns, 10020);
    ASSERT_EQ_INT(r.lo_ns, 9980);
    ASSERT_EQ_INT(r.offset_ns, 10000);
    ASSERT_EQ_INT(r.n_used, 3);
    ASSERT_EQ_INT(r.n_rejected, 0);
    ASSERT_EQ_INT(r.n_lower, 2);
    return 0;
}

/* A mismatched pair (its upper bound far below the others) is left out, not believed. */
static int test_bounds_reject_mismatch(void) {
    opscope_align_event c[4] = {{1, 0, 100, 1}, {1, 1000, 1100, 1}, {1, 2000, 2100, 1}, {1, 3000, 3100, 1}};
    /* true offset 500: server events inside [c0+500, c1+500]; the last is paired wrongly
     * (its server event belongs 1000 ns earlier) */
    opscope_align_event s[4] = {{1, 520, 590, 0}, {1, 1510, 1580, 0}, {1, 2530, 2590, 0}, {1, 2400, 2450, 0}};
    opscope_align_result r;
    opscope_align_bounds(c, s, 4, &r);
    ASSERT_EQ_INT(r.n_rejected, 1);
    ASSERT_EQ_INT(r.n_used, 3);
    ASSERT_LE_INT(r.lo_ns, 500);
    ASSERT_GE_INT(r.hi_ns, 500);
    ASSERT_EQ_INT(r.hi_ns, 510);  /* min(520, 510, 530) */
    ASSERT_EQ_INT(r.lo_ns, 490);  /* max(490, 480, 490) */
    return 0;
}

/*
 * A run as ggml-rpc makes it: per token, input sets (send only: no waited end) and one graph
 * compute whose client interval ends when the client's synchronize returns. The server lives
 * OFFSET ahead; it also holds events from another client before ours, and misses some of ours
 * (a client that disconnected). Keys: 1 = compute, 1000 + bytes = a set.
 */
static int run_case(int64_t offset, int n_tokens, int n_foreign, int drop_every) {
    enum { MAXE = 20000 };
    static opscope_align_event c[MAXE], s[MAXE];
    size_t nc = 0, ns = 0;
    int64_t t = 5000000000; /* client clock */
    /* another client's work on the server first (the same kinds of requests, before ours) */
    for (int k = 0; k < n_foreign; k++) {
        int64_t s0 = t + offset - 2000000000 + k * 3000000;
        s[ns++] = (opscope_align_event){k % 2 ? 1 : 1000 + 1024, s0, s0 + uniform(50000, 900000), 0};
    }
    for (int k = 0; k < n_tokens; k++) {
        static const int sizes[] = {4, 1024, 8, 8, 512};
        for (int q = 0; q < 5; q++) {
            int64_t c0 = t, c1 = t + uniform(20000, 200000);
            int64_t s0 = c0 + offset + uniform(30000, 150000); /* after the client started sending */
            c[nc++] = (opscope_align_event){1000 + (uint64_t)sizes[q], c0, c1, 0};
            if (!drop_every || k % drop_every) s[ns++] = (opscope_align_event){1000 + (uint64_t)sizes[q], s0, s0 + uniform(20, 500), 0};
            t = c1 + uniform(5000, 100000);
        }
        int64_t c0 = t;
        int64_t s0 = c0 + offset + uniform(40000, 300000);
        int64_t s1 = s0 + uniform(300000, 3000000);
        int64_t c1 = s1 - offset + uniform(10000, 80000); /* the synchronize's answer */
        c[nc++] = (opscope_align_event){1, c0, c1, 1};
        if (!drop_every || k % drop_every) s[ns++] = (opscope_align_event){1, s0, s1, 0};
        t = c1 + uniform(1000000, 6000000);
    }
    /* both sides sorted by start: the foreign events come first on the server already */
    opscope_align_result r;
    ASSERT_EQ_INT(opscope_align_estimate(c, nc, s, ns, &r, NULL), 0);
    ASSERT_EQ_INT(r.ok, 1);
    ASSERT_LE_INT(r.lo_ns, offset);
    ASSERT_LE_INT(offset, r.hi_ns);
    /* the bound is as tight as the fastest latencies allow: lowest send latency 30 us and
     * answer latency 10 us give a width near 40 us after many tokens; 200 us is the bar */
    ASSERT_LE_U64((uint64_t)(r.hi_ns - r.lo_ns), 200000);
    int64_t err = r.offset_ns - offset;
    ASSERT_LE_U64((uint64_t)(err < 0 ? -err : err), 100000);
    ASSERT_GE_U64(r.n_used, (size_t)n_tokens);
    return 0;
}

static int test_one_server_1000s(void) { return run_case(1000000000000, 200, 0, 0); }
static int test_negative_offset(void) { return run_case(-3600000000000 + 777, 200, 0, 0); }
static int test_foreign_client_first(void) { return run_case(1000000000000, 150, 300, 0); }
static int test_server_missing_events(void) { return run_case(250000000000, 300, 40, 7); }

static int test_nothing_to_match(void) {
    opscope_align_event c[1] = {{1, 0, 10, 1}};
    opscope_align_event s[1] = {{2, 0, 10, 0}};
    opscope_align_result r;
    ASSERT_EQ_INT(opscope_align_estimate(c, 1, s, 1, &r, NULL), 0);
    ASSERT_EQ_INT(r.ok, 0);
    return 0;
}

TEST_MAIN(TEST(test_bounds_by_hand), TEST(test_bounds_reject_mismatch), TEST(test_one_server_1000s),
          TEST(test_negative_offset), TEST(test_foreign_client_first), TEST(test_server_missing_events),
          TEST(test_nothing_to_match))
