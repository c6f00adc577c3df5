/*
 * test_busy_runs.c - the union of start-sorted runs (analyze/intervals/busy_runs.c) against hand-counted
 * cases (overlap across runs, touching and empty intervals, clipping, empty runs) and against a
 * bitmap of every nanosecond for random runs with more than 4,096 intervals each.
 */
#include "analyze/intervals/busy_runs.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

typedef struct iv {
    int64_t s, e;
} iv;

static void get(const void *ud, size_t i, int64_t *s, int64_t *e) {
    const iv *v = ud;
    *s = v[i].s;
    *e = v[i].e;
}

static uint64_t total(const iv *v, const opscope_busy_run *runs, size_t nr, int64_t lo, int64_t hi) {
    uint64_t t = UINT64_MAX;
    if (opscope_busy_runs_total(runs, nr, get, v, lo, hi, &t)) return UINT64_MAX - 1;
    return t;
}

static int test_hand(void) {
    /* run 0: [0,10) [20,30) [30,31); run 1: [5,25) [40,40) (empty); run 2: nothing */
    const iv v[] = {{0, 10}, {20, 30}, {30, 31}, {5, 25}, {40, 40}};
    const opscope_busy_run runs[] = {{0, 3}, {3, 5}, {5, 5}};
    ASSERT_EQ_U64(total(v, runs, 3, INT64_MIN, INT64_MAX), 31); /* [0,31) */
    ASSERT_EQ_U64(total(v, runs, 3, 2, 28), 26);                 /* clipped to [2,28) */
    ASSERT_EQ_U64(total(v, runs, 3, 100, 200), 0);               /* a window after it all */
    ASSERT_EQ_U64(total(v, runs, 1, INT64_MIN, INT64_MAX), 21);  /* run 0 alone */
    ASSERT_EQ_U64(total(v, runs + 2, 1, INT64_MIN, INT64_MAX), 0);
    ASSERT_EQ_U64(total(v, NULL, 0, INT64_MIN, INT64_MAX), 0);
    return 0;
}

/* Random runs, each sorted by start, against a bitmap of [0, SPAN) ns. */
static int test_random(void) {
    enum { RUNS = 6, PER = 5000, SPAN = 400000 };
    iv *v = malloc(sizeof *v * RUNS * PER);
    unsigned char *bit = calloc(SPAN, 1);
    ASSERT_TRUE(v && bit);
    opscope_busy_run runs[RUNS];
    srand(30);
    for (size_t r = 0; r < RUNS; r++) {
        int64_t t = rand() % 50;
        runs[r] = (opscope_busy_run){r * PER, (r + 1) * PER};
        for (size_t i = 0; i < PER; i++) {
            int64_t len = rand() % 40, s = t + rand() % 30;
            v[r * PER + i] = (iv){s, s + len}; /* starts stay sorted in the run, may overlap */
            t = s + rand() % 50;
        }
    }
    for (size_t i = 0; i < RUNS * PER; i++)
        for (int64_t x = v[i].s; x < v[i].e && x < SPAN; x++) bit[x] = 1;
    const int64_t lo = 1000, hi = 90000;
    uint64_t all = 0, in = 0;
    for (int64_t x = 0; x < SPAN; x++) {
        all += bit[x];
        in += bit[x] && x >= lo && x < hi;
    }
    ASSERT_LT_INT(v[RUNS * PER - 1].e, SPAN);
    ASSERT_EQ_U64(total(v, runs, RUNS, INT64_MIN, INT64_MAX), all);
    ASSERT_EQ_U64(total(v, runs, RUNS, lo, hi), in);
    free(v);
    free(bit);
    return 0;
}

TEST_MAIN(TEST(test_hand), TEST(test_random))
