/* test_lanes.c - lane assignment: no overlap on a lane, no time shift, lanes reused. */
#include "export/chrome/chrome_lanes.h"
#include "test.h"

#include <stdlib.h>

static int test_basic(void) {
    opscope_lanes_t *l = opscope_lanes_new();
    uint32_t a = opscope_lanes_assign(l, 0, 0, 0, 100, 50);   /* [100,150) */
    uint32_t b = opscope_lanes_assign(l, 0, 0, 0, 150, 10);   /* touches: same lane */
    uint32_t c = opscope_lanes_assign(l, 0, 0, 0, 155, 100);  /* overlaps b: lane 2 */
    uint32_t d = opscope_lanes_assign(l, 0, 0, 0, 170, 5);    /* lane 1 free again at 160 */
    uint32_t e = opscope_lanes_assign(l, 0, 1, 0, 155, 100);  /* other split: other track */
    uint32_t f = opscope_lanes_assign(l, 0, 0, 1, 155, 100);  /* copies: other track */
    uint32_t g = opscope_lanes_assign(l, 1, 0, 0, 155, 100);  /* other backend */
    ASSERT_EQ_INT(a, b);
    ASSERT_NE_INT(c, a);
    ASSERT_EQ_INT(d, a);
    ASSERT_NE_INT(e, a);
    ASSERT_NE_INT(e, c);
    ASSERT_NE_INT(f, e);
    ASSERT_NE_INT(g, f);
    ASSERT_EQ_U64(opscope_lanes_count(l), 5);
    const opscope_lane_info *ci = opscope_lanes_get(l, c - 1);
    ASSERT_EQ_INT(ci->lane, 1);
    ASSERT_EQ_INT(ci->split_id, 0);
    ASSERT_EQ_INT(opscope_lanes_get(l, f - 1)->kind, 1);
    opscope_lanes_free(l);
    return 0;
}

typedef struct iv {
    uint64_t s, d;
    uint32_t tid;
} iv;

static int test_random_no_overlap(void) {
    /* random intervals in random order on 3 tracks; check every pair on a tid */
    enum { N = 3000 };
    iv *v = calloc(N, sizeof *v);
    opscope_lanes_t *l = opscope_lanes_new();
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < N; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        v[i].s = x % 100000;
        v[i].d = (x >> 20) % 500;
        v[i].tid = opscope_lanes_assign(l, 0, (int32_t)(i % 3), 0, v[i].s, v[i].d);
        ASSERT_TRUE(v[i].tid != 0);
    }
    for (int i = 0; i < N; i++)
        for (int j = i + 1; j < N; j++) {
            if (v[i].tid != v[j].tid) continue;
            ASSERT_TRUE(v[i].s + v[i].d <= v[j].s || v[j].s + v[j].d <= v[i].s);
        }
    /* every tid belongs to one track: the same split for all its intervals */
    for (int i = 0; i < N; i++)
        ASSERT_EQ_INT(opscope_lanes_get(l, v[i].tid - 1)->split_id, i % 3);
    opscope_lanes_free(l);
    free(v);
    return 0;
}

TEST_MAIN(TEST(test_basic), TEST(test_random_no_overlap))
