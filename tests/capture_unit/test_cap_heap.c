/* Tests of the watcher's own heap (capture/store/cap_heap.c) and the record log's sort with
 * a caller's scratch (cap_replay.c): blocks from mapped pages keep their bytes when grown,
 * are told from the C library's blocks, and go back; the sort gives the order of a
 * stable insertion sort written here (start tick, then end tick, ties as they came). */
#include "capture/store/cap_heap.h"
#include "capture/store/cap_replay.h"
#include "test.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int test_heap_blocks(void) {
    size_t b0, n0;
    opscope_cap_heap_usage(&b0, &n0);
    unsigned char *p = opscope_cap_heap_alloc(100);
    ASSERT_NOT_NULL(p);
    ASSERT_TRUE(opscope_cap_heap_owns(p));
    for (int i = 0; i < 100; i++) {
        ASSERT_EQ_INT(p[i], 0); /* fresh pages: calloc's zeros */
        p[i] = (unsigned char)i;
    }
    p = opscope_cap_heap_realloc(p, 1u << 20); /* past its page: moved by mremap */
    ASSERT_NOT_NULL(p);
    ASSERT_TRUE(opscope_cap_heap_owns(p));
    for (int i = 0; i < 100; i++) {
        ASSERT_EQ_INT(p[i], i);
    }
    p[(1u << 20) - 1] = 7;
    size_t b1, n1;
    opscope_cap_heap_usage(&b1, &n1);
    ASSERT_EQ_U64(b1, b0 + 1);
    ASSERT_GE_U64(n1, n0 + (1u << 20));
    void *c = malloc(4096 - 32); /* the C library's blocks, small and mmap'd, are not ours */
    void *big = malloc(1u << 20);
    ASSERT_TRUE(!opscope_cap_heap_owns(c) && !opscope_cap_heap_owns(big));
    free(c);
    free(big);
    opscope_cap_heap_free(p);
    opscope_cap_heap_usage(&b1, &n1);
    ASSERT_EQ_U64(b1, b0);
    ASSERT_EQ_U64(n1, n0);
    return 0;
}

static int test_heap_mode_is_per_thread(void) {
    ASSERT_TRUE(!opscope_cap_heap_is_mapped());
    opscope_cap_heap_mapped(true);
    ASSERT_TRUE(opscope_cap_heap_is_mapped());
    opscope_cap_heap_mapped(false);
    ASSERT_TRUE(!opscope_cap_heap_is_mapped());
    return 0;
}

static int test_sort_with_scratch(void) {
    enum { N = 5000 };
    static opscope_cap_gather_ent v[N], want[N], tmp[N];
    uint64_t x = 12345;
    for (int i = 0; i < N; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        v[i].t0 = (x >> 33) % 200; /* many ties */
        v[i].t1 = v[i].t0 + (x >> 20) % 3;
        v[i].step = i; /* the order they came in */
        v[i].r = NULL;
    }
    memcpy(want, v, sizeof v);
    for (int i = 1; i < N; i++) { /* stable insertion sort: the expected order */
        opscope_cap_gather_ent e = want[i];
        int j = i;
        while (j > 0 && (want[j - 1].t0 > e.t0 || (want[j - 1].t0 == e.t0 && want[j - 1].t1 > e.t1))) {
            want[j] = want[j - 1];
            j--;
        }
        want[j] = e;
    }
    opscope_cap_gather g = {.v = v, .n = N, .cap = N};
    opscope_cap_gather_sort_with(&g, tmp);
    for (int i = 0; i < N; i++) {
        ASSERT_EQ_U64(v[i].t0, want[i].t0);
        ASSERT_EQ_U64(v[i].t1, want[i].t1);
        ASSERT_EQ_INT(v[i].step, want[i].step);
    }
    return 0;
}

TEST_MAIN(TEST(test_heap_blocks), TEST(test_heap_mode_is_per_thread), TEST(test_sort_with_scratch))
