/* The Vulkan layer's handle tables (src/vklayer/vkl_map.c), against a plain array indexed by
 * key: random puts, gets and deletes over a key range that crowds the table, and the churn of
 * a long-running program (every handle deleted, new ones put), which tombstones would slow
 * down and finally fill. */
#include "test.h"
#include "vklayer/vkl_map.h"

#include <stdlib.h>
#include <string.h>

#define CAP 8192
#define KEYS 6000 /* live keys at most: the table's max is 6144 */

static uint64_t g_keys[CAP], g_vals[CAP];

static uint64_t rnd(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static int test_random_against_array(void) {
    static uint64_t ref[KEYS + 1]; /* 0: absent */
    vkl_map m = VKL_MAP_INIT(g_keys, g_vals, CAP);
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    uint32_t live = 0;
    for (int step = 0; step < 400000; step++) {
        /* keys spread over the 64-bit range like handles, but from a small set */
        uint64_t k = 1 + rnd(&seed) % KEYS, key = k * 0x10000 + 0x7f0000000000ull;
        switch (rnd(&seed) % 3) {
        case 0: {
            uint64_t *v = vkl_map_put(&m, key);
            ASSERT_TRUE(v != NULL);
            if (!ref[k]) {
                ASSERT_EQ_U64(*v, 0);
                live++;
            }
            *v = ref[k] = 1 + rnd(&seed) % 1000;
            break;
        }
        case 1: {
            uint64_t *v = vkl_map_get(&m, key);
            ASSERT_EQ_INT(v != NULL, ref[k] != 0);
            if (v) {
                ASSERT_EQ_U64(*v, ref[k]);
            }
            break;
        }
        default:
            ASSERT_EQ_U64(vkl_map_del(&m, key), ref[k]);
            live -= ref[k] != 0;
            ref[k] = 0;
        }
        ASSERT_EQ_U64(m.n, live);
    }
    for (uint64_t k = 1; k <= KEYS; k++) {
        uint64_t *v = vkl_map_get(&m, k * 0x10000 + 0x7f0000000000ull);
        ASSERT_EQ_INT(v != NULL, ref[k] != 0);
    }
    return 0;
}

static int test_churn_never_fills(void) {
    memset(g_keys, 0, sizeof g_keys);
    vkl_map m = VKL_MAP_INIT(g_keys, g_vals, CAP);
    /* a million handles, 64 alive at a time: without reclaiming deleted slots the table
     * would have filled after 6144 */
    for (uint64_t h = 1; h <= 1000000; h++) {
        uint64_t *v = vkl_map_put(&m, h * 48);
        ASSERT_TRUE(v != NULL);
        *v = h;
        if (h > 64) {
            ASSERT_EQ_U64(vkl_map_del(&m, (h - 64) * 48), h - 64);
        }
    }
    ASSERT_EQ_U64(m.n, 64);
    uint32_t used = 0;
    for (int i = 0; i < CAP; i++) {
        used += g_keys[i] != 0;
    }
    ASSERT_EQ_U64(used, 64);
    /* key 0 is never stored; a full table refuses */
    ASSERT_NULL(vkl_map_put(&m, 0));
    for (uint64_t h = 1; m.n < m.max; h++) {
        ASSERT_TRUE(vkl_map_put(&m, h * 7 + 0x100000000ull) != NULL);
    }
    ASSERT_NULL(vkl_map_put(&m, 0xdeadbeef));
    return 0;
}

TEST_MAIN(TEST(test_random_against_array), TEST(test_churn_never_fills))
