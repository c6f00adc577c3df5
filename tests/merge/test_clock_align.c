/* Clock offset estimation on synthetic request intervals: the true offset is set by the
 * test, the events are built from it with random latencies, and the estimator must bound it. */
#include "analyze/rpc/clock_align.h"
#include "test.h"

#include <stdbool.h>

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

/*
 * Request intervals as a real run recorded them: tests/capture_e2e's rpc "one" case
 * (llama-completion, 16 tokens, and a 1-thread ggml-rpc-server 1000 s ahead in its own time
 * namespace), on a loaded 2-core machine with both processes and a busy loop pinned to one
 * core. Per request (in order): key, the client's [c0, c1] (a graph compute to the end of the
 * get that waited for it, and that get), the server's [s0, s1]. The true offset is the
 * namespace's, exactly 1000 s (the profiles' CLOCK_REALTIME notes agree); it lies 61.9 us
 * below the lowest upper bound and 46.4 us above the highest lower bound.
 */
static const int64_t k_recorded[][5] = {
    {(int64_t)0x1000000000001851, 15102857162980, 15102904477797, 16102858149284, 16102891659803},
    {(int64_t)0x3000000000000400, 15102857760615, 15102904477797, 16102904368138, 16102904369510},
    {(int64_t)0x1000000000000151, 15102905470576, 15102912090754, 16102905919743, 16102907477690},
    {(int64_t)0x3000000000000400, 15102905665913, 15102912090754, 16102912043710, 16102912044352},
    {(int64_t)0x1000000000000151, 15102912604992, 15102920086689, 16102912713434, 16102914183564},
    {(int64_t)0x3000000000000400, 15102912632858, 15102920086689, 16102914235320, 16102914235736},
    {(int64_t)0x1000000000000151, 15102920648651, 15102928065865, 16102920764714, 16102922278799},
    {(int64_t)0x3000000000000400, 15102920671487, 15102928065865, 16102922329051, 16102922329414},
    {(int64_t)0x1000000000000151, 15102928611228, 15102935473532, 16102928738551, 16102932548284},
    {(int64_t)0x3000000000000400, 15102928646526, 15102935473532, 16102932598437, 16102932598874},
    {(int64_t)0x1000000000000151, 15102936101348, 15102944065394, 16102936171681, 16102937564608},
    {(int64_t)0x3000000000000400, 15102936123029, 15102944065394, 16102937623180, 16102937623588},
    {(int64_t)0x1000000000000151, 15102944536870, 15102946410182, 16102944598812, 16102946216493},
    {(int64_t)0x3000000000000400, 15102944556698, 15102946410182, 16102946273026, 16102946273534},
    {(int64_t)0x1000000000000151, 15102948353255, 15102960103196, 16102948472361, 16102949943502},
    {(int64_t)0x3000000000000400, 15102948370187, 15102960103196, 16102949983292, 16102949983806},
    {(int64_t)0x1000000000000151, 15102961324773, 15102976485471, 16102961435577, 16102963364464},
    {(int64_t)0x3000000000000400, 15102961352910, 15102976485471, 16102976231731, 16102976234927},
    {(int64_t)0x1000000000000151, 15102992046895, 15103004106689, 16102992318082, 16102995501394},
    {(int64_t)0x3000000000000400, 15102992109836, 15103004106689, 16102995636042, 16102995637210},
    {(int64_t)0x1000000000000151, 15103008466246, 15103016076253, 16103008628906, 16103010644801},
    {(int64_t)0x3000000000000400, 15103008495901, 15103016076253, 16103010733535, 16103010734421},
    {(int64_t)0x1000000000000151, 15103016799087, 15103032083492, 16103016940490, 16103018860177},
    {(int64_t)0x3000000000000400, 15103016824218, 15103032083492, 16103018922080, 16103018922877},
    {(int64_t)0x1000000000000151, 15103032725692, 15103034557517, 16103032812018, 16103034437512},
    {(int64_t)0x3000000000000400, 15103032747347, 15103034557517, 16103034500874, 16103034501319},
    {(int64_t)0x1000000000000151, 15103034969517, 15103048020744, 16103035057468, 16103041061157},
    {(int64_t)0x3000000000000400, 15103034984642, 15103048020744, 16103041106109, 16103041106653},
    {(int64_t)0x1000000000000151, 15103048453367, 15103050199615, 16103048545555, 16103050012392},
    {(int64_t)0x3000000000000400, 15103048471607, 15103050199615, 16103050052622, 16103050053143},
    {(int64_t)0x1000000000000151, 15103050609051, 15103064349599, 16103050740153, 16103064234334},
    {(int64_t)0x3000000000000400, 15103050627371, 15103064349599, 16103064287165, 16103064287744},
};
#define N_RECORDED (sizeof k_recorded / sizeof k_recorded[0])

/* The recorded run with each client answer up to LATE_MAX late and each server start up to
 * WAKE_MAX late, but every KEEP-th request as recorded (KEEP 0: none late): a loaded machine
 * wakes the client after its answer came, and the server after its request came, later,
 * which widens the bounds but never moves the truth out of them. */
static int recorded_case(int64_t late_max, int64_t wake_max, int keep) {
    opscope_align_event c[N_RECORDED], s[N_RECORDED];
    const int64_t truth = 1000000000000;
    for (size_t i = 0; i < N_RECORDED; i++) {
        const int64_t *q = k_recorded[i];
        bool late = keep && i % (size_t)keep;
        int64_t c1 = q[2] + (late ? uniform(0, late_max) : 0);
        int64_t s0 = q[3] + (late ? uniform(0, wake_max) : 0), s1 = q[4] > s0 ? q[4] : s0;
        c[i] = (opscope_align_event){(uint64_t)q[0], q[1], c1, 1};
        s[i] = (opscope_align_event){(uint64_t)q[0], s0, s1, 0};
    }
    /* starts stay in order on both sides: WAKE_MAX is below the gaps between server events */
    opscope_align_result r;
    long match[N_RECORDED];
    ASSERT_EQ_INT(opscope_align_estimate(c, N_RECORDED, s, N_RECORDED, &r, match), 0);
    ASSERT_EQ_INT(r.ok, 1);
    ASSERT_EQ_INT(r.n_used, N_RECORDED);
    ASSERT_EQ_INT(r.n_rejected, 0);
    ASSERT_LE_INT(r.lo_ns, truth);
    ASSERT_LE_INT(truth, r.hi_ns);
    int64_t err = r.offset_ns - truth;
    ASSERT_LE_U64((uint64_t)(err < 0 ? -err : err), 200000);
    /* each server event is paired with its own request and lies inside it on the estimate */
    for (size_t j = 0; j < N_RECORDED; j++) {
        ASSERT_EQ_INT(match[j], (long)j);
        ASSERT_LE_INT(c[j].t0, s[j].t0 - r.offset_ns);
        ASSERT_LE_INT(s[j].t1 - r.offset_ns, c[j].t1);
    }
    return 0;
}

static int test_recorded_run(void) { return recorded_case(0, 0, 0); }
/* all but every 4th request 0 to 2 ms late at the client and 0 to 40 us at the server */
static int test_recorded_run_loaded(void) { return recorded_case(2000000, 40000, 4); }

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
          TEST(test_nothing_to_match),
          TEST(test_recorded_run), TEST(test_recorded_run_loaded))
