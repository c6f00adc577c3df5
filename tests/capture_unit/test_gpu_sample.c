/*
 * test_gpu_sample.c - the choice of device-timed computes (capture/gpu/gpu_sample.c), driven
 * by simulated computes whose cost depends on whether they were timed. Expected intervals are
 * worked out by hand from the rule in gpu_sample.h; the overhead check sums the simulated
 * time itself.
 */
#include "capture/gpu/gpu_sample.h"
#include "test.h"

static opscope_gpu_sample g_s;

/* Runs COUNT computes of KEY, each costing BASE ns, plus EXTRA when timed; *T is the clock.
 * Returns how many were timed; adds their weights to *WEIGHTS. */
static int run(uint64_t key, int count, uint64_t base, uint64_t extra, uint64_t *t, uint64_t *weights) {
    int timed = 0;
    for (int i = 0; i < count; i++) {
        opscope_gpu_sample_decision d = opscope_gpu_sample_begin(&g_s, key, *t);
        timed += d.timed;
        *weights += d.weight;
        *t += base + (d.timed ? extra : 0);
    }
    return timed;
}

static int test_all_times_everything(void) {
    opscope_gpu_sample_config c = {.mode = OPSCOPE_GPU_TIMING_ALL};
    opscope_gpu_sample_init(&g_s, &c);
    uint64_t t = 0, w = 0;
    ASSERT_EQ_INT(run(7, 100, 1000, 900, &t, &w), 100);
    ASSERT_EQ_U64(w, 100);
    return 0;
}

static int test_warmup_then_baseline(void) {
    opscope_gpu_sample_init(&g_s, NULL);
    uint64_t t = 0;
    for (int i = 1; i <= 3; i++) {
        opscope_gpu_sample_decision d = opscope_gpu_sample_begin(&g_s, 42, t);
        ASSERT_TRUE(d.timed);
        ASSERT_EQ_INT(d.weight, 1);
        t += 1100;
    }
    /* the fourth is the untimed baseline, the fifth timed again and stands for both */
    opscope_gpu_sample_decision d = opscope_gpu_sample_begin(&g_s, 42, t);
    ASSERT_TRUE(!d.timed);
    ASSERT_EQ_INT(d.weight, 0);
    t += 1000;
    d = opscope_gpu_sample_begin(&g_s, 42, t);
    ASSERT_TRUE(d.timed);
    ASSERT_EQ_INT(d.weight, 2);
    /* one untimed cost is not enough to go by: the initial interval, 4 */
    ASSERT_EQ_INT(opscope_gpu_sample_interval(&g_s, 42), 4);
    t += 1100;
    uint64_t w = 0;
    run(42, 20, 1000, 100, &t, &w);
    /* timed 1100 vs untimed 1000: 100 / (0.05 * 1000) = 2 */
    ASSERT_EQ_INT(opscope_gpu_sample_interval(&g_s, 42), 2);
    return 0;
}

static int test_interval_follows_cost(void) {
    opscope_gpu_sample_init(&g_s, NULL);
    uint64_t t = 0, w = 0;
    run(5, 200, 1000, 1000, &t, &w); /* timing doubles a compute: 1000 / 50 = 20 */
    ASSERT_EQ_INT(opscope_gpu_sample_interval(&g_s, 5), 20);
    opscope_gpu_sample_init(&g_s, NULL);
    t = w = 0;
    run(5, 200, 1000, 30, &t, &w); /* 3% < 5%: every compute */
    ASSERT_EQ_INT(opscope_gpu_sample_interval(&g_s, 5), 1);
    opscope_gpu_sample_init(&g_s, NULL);
    t = w = 0;
    run(5, 300, 1000, 100000, &t, &w); /* capped */
    ASSERT_EQ_INT(opscope_gpu_sample_interval(&g_s, 5), 64);
    return 0;
}

static int test_overhead_within_budget(void) {
    opscope_gpu_sample_init(&g_s, NULL);
    uint64_t t = 0, w = 0;
    int n = 2000;
    int timed = run(9, n, 2000, 1500, &t, &w);
    /* the run took BASE * n plus EXTRA per timed compute: the added share is the overhead */
    double over = (double)(t - 2000ull * (uint64_t)n) / (2000.0 * n);
    ASSERT_LE_DBL(over, 0.05 + 0.005);
    ASSERT_GE_INT(timed, n / 64);
    /* every compute up to the last timed one is represented once */
    ASSERT_LE_U64(w, (uint64_t)n);
    ASSERT_GT_U64(w + 64, (uint64_t)n);
    return 0;
}

static int test_topologies_apart(void) {
    opscope_gpu_sample_init(&g_s, NULL);
    uint64_t t = 0, w = 0;
    /* interleaved: a costly-to-time topology and a cheap one */
    for (int i = 0; i < 300; i++) {
        run(1, 1, 1000, 1000, &t, &w);
        run(2, 1, 1000, 10, &t, &w);
    }
    ASSERT_EQ_INT(opscope_gpu_sample_interval(&g_s, 1), 20);
    ASSERT_EQ_INT(opscope_gpu_sample_interval(&g_s, 2), 1);
    return 0;
}

/* A baseline measured too slow (noise) drives N to 1; probes keep measuring it, and N comes
 * back once the untimed computes show their true cost. */
static int test_probe_at_one(void) {
    opscope_gpu_sample_init(&g_s, NULL);
    uint64_t t = 0, w = 0;
    run(8, 40, 1000, 10, &t, &w); /* 1%: N = 1 */
    ASSERT_EQ_INT(opscope_gpu_sample_interval(&g_s, 8), 1);
    int timed = run(8, 160, 1000, 10, &t, &w);
    ASSERT_EQ_INT(timed, 150); /* one in 16 untimed */
    run(8, 400, 1000, 500, &t, &w); /* timing now costs 50%: 500 / 50 = 10 */
    ASSERT_EQ_INT(opscope_gpu_sample_interval(&g_s, 8), 10);
    return 0;
}

static int test_noise_takes_the_median(void) {
    opscope_gpu_sample_init(&g_s, NULL);
    uint64_t t = 0, w = 0;
    run(3, 100, 1000, 100, &t, &w);
    ASSERT_EQ_INT(opscope_gpu_sample_interval(&g_s, 3), 2);
    /* one very long pause (the program idle after a compute) does not move N */
    opscope_gpu_sample_begin(&g_s, 3, t);
    t += 1000000;
    run(3, 1, 1000, 100, &t, &w);
    ASSERT_EQ_INT(opscope_gpu_sample_interval(&g_s, 3), 2);
    return 0;
}

/* The machine gets busier (other work): every compute now takes three times as long, and
 * timing still adds half. Costs measured at different times must not be compared: the
 * timed ones from before the change against the untimed ones after it said timing was free
 * (N = 1, every compute timed, under the load; seen on lavapipe with a loaded CPU). */
static int test_load_change_keeps_n(void) {
    opscope_gpu_sample_init(&g_s, NULL);
    uint64_t t = 0, w = 0;
    run(4, 300, 1000, 500, &t, &w); /* 500 / 50 = 10 */
    ASSERT_EQ_INT(opscope_gpu_sample_interval(&g_s, 4), 10);
    uint32_t lo = 64, hi = 0;
    int timed = 0;
    for (int i = 0; i < 200; i++) {
        timed += run(4, 1, 3000, 1500, &t, &w);
        uint32_t n = opscope_gpu_sample_interval(&g_s, 4);
        lo = n < lo ? n : lo;
        hi = n > hi ? n : hi;
    }
    ASSERT_EQ_INT(lo, 10);
    ASSERT_EQ_INT(hi, 10);
    ASSERT_LE_U64((uint64_t)timed, 21);
    /* and back: the load goes away */
    run(4, 200, 1000, 500, &t, &w);
    ASSERT_EQ_INT(opscope_gpu_sample_interval(&g_s, 4), 10);
    return 0;
}

static int test_full_table(void) {
    opscope_gpu_sample_init(&g_s, NULL);
    uint64_t t = 0, w = 0;
    int timed = 0;
    for (uint64_t k = 1; k <= 2000; k++) {
        timed += run(k * 7919, 1, 1000, 100, &t, &w);
    }
    /* 512 own slots timed on first sight; the rest share one entry that keeps sampling */
    ASSERT_GE_INT(timed, OPSCOPE_GPU_SAMPLE_SLOTS);
    ASSERT_LT_INT(timed, 2000);
    ASSERT_EQ_INT(opscope_gpu_sample_interval(&g_s, 7919), 4);
    return 0;
}

static int test_parse(void) {
    opscope_gpu_timing m = OPSCOPE_GPU_TIMING_SAMPLED;
    ASSERT_TRUE(opscope_gpu_timing_parse("all", &m));
    ASSERT_EQ_INT(m, OPSCOPE_GPU_TIMING_ALL);
    ASSERT_TRUE(opscope_gpu_timing_parse("sampled", &m));
    ASSERT_EQ_INT(m, OPSCOPE_GPU_TIMING_SAMPLED);
    ASSERT_TRUE(!opscope_gpu_timing_parse("some", &m));
    ASSERT_TRUE(!opscope_gpu_timing_parse(NULL, &m));
    ASSERT_EQ_INT(m, OPSCOPE_GPU_TIMING_SAMPLED);
    return 0;
}

TEST_MAIN(TEST(test_all_times_everything), TEST(test_warmup_then_baseline), TEST(test_interval_follows_cost),
          TEST(test_overhead_within_budget), TEST(test_topologies_apart), TEST(test_probe_at_one), TEST(test_noise_takes_the_median),
          TEST(test_load_change_keeps_n), TEST(test_full_table), TEST(test_parse))
