/* test_sort_runs.c - util/sort_runs.h: the runs merge against a plain stable insertion sort
 * (the expected order: by key, equal keys in array order), on nearly sorted arrays with
 * ties, one run, many runs (the qsort fallback) and none. */
#include "../test.h"

#include "util/sort_runs.h"

#include <stdint.h>

typedef struct el { int64_t key; uint32_t pos; } el;

static inline int less_el(const el *a, const el *b) { return a->key < b->key; }
static int cmp_el(const void *pa, const void *pb) {
    const el *a = pa, *b = pb;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    return (a->pos > b->pos) - (a->pos < b->pos); /* qsort is not stable: the fallback's tie rule */
}
OPSCOPE_SORT_RUNS_DEFINE(sort_el, el, less_el, cmp_el)

static void insertion(el *v, size_t n) {
    for (size_t i = 1; i < n; i++) {
        el x = v[i];
        size_t j = i;
        while (j && v[j - 1].key > x.key) v[j] = v[j - 1], j--;
        v[j] = x;
    }
}

static uint64_t rng = 88172645463325252ull;
static uint64_t next_rand(void) { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return rng; }

/* N elements in RUNS ascending runs (blocks that overlap in key), keys from a small range
 * so that ties are common; sorted both ways and compared element by element. */
static int check(size_t n, size_t runs, int64_t spread) {
    el *a = malloc((n ? n : 1) * sizeof *a), *b = malloc((n ? n : 1) * sizeof *b);
    ASSERT_TRUE(a && b);
    size_t per = runs ? (n + runs - 1) / runs : n;
    for (size_t i = 0; i < n; i++) {
        int64_t base = per ? (int64_t)(i % per) : 0;
        a[i] = (el){base + (int64_t)(next_rand() % (uint64_t)spread), (uint32_t)i};
        if (i % per && a[i].key < a[i - 1].key) a[i].key = a[i - 1].key; /* ascending within a run */
    }
    memcpy(b, a, n * sizeof *a);
    sort_el(a, n);
    insertion(b, n);
    for (size_t i = 0; i < n; i++) {
        ASSERT_EQ_U64((uint64_t)a[i].key, (uint64_t)b[i].key);
        ASSERT_EQ_U64(a[i].pos, b[i].pos);
    }
    free(a);
    free(b);
    return 0;
}

static int test_merged_runs_stable(void) {
    ASSERT_EQ_INT(check(5000, 7, 40), 0);   /* few runs, many ties */
    ASSERT_EQ_INT(check(4096, 64, 3), 0);   /* 64 runs: n/8 allows it */
    ASSERT_EQ_INT(check(3001, 300, 1000), 0);
    return 0;
}

static int test_one_run_and_tiny(void) {
    ASSERT_EQ_INT(check(1000, 1, 5), 0);
    ASSERT_EQ_INT(check(1, 1, 5), 0);
    ASSERT_EQ_INT(check(0, 1, 5), 0);
    return 0;
}

static int test_many_runs_fallback(void) {
    ASSERT_EQ_INT(check(2000, 1000, 50), 0); /* more runs than n/8: qsort with the tie rule */
    return 0;
}

TEST_MAIN(TEST(test_merged_runs_stable), TEST(test_one_run_and_tiny), TEST(test_many_runs_fallback))
