/* test_hindex.c - util/hindex.h: the hash index with an equality callback. */
#include "../test.h"

#include "util/hash.h"
#include "util/hindex.h"

#include <stdbool.h>

typedef struct table {
    char keys[5000][16];
    uint32_t n;
} table;

static bool key_eq(const void *ctx, uint32_t id, const void *key) {
    return strcmp(((const table *)ctx)->keys[id], key) == 0;
}

/* The id of KEY, added when new. */
static uint32_t intern(opscope_hindex *h, table *t, const char *key, uint64_t hash) {
    uint32_t id = opscope_hindex_find(h, hash, key, key_eq, t);
    if (id != OPSCOPE_HINDEX_NONE) return id;
    snprintf(t->keys[t->n], sizeof t->keys[0], "%s", key);
    if (opscope_hindex_add(h, hash, t->n)) return OPSCOPE_HINDEX_NONE;
    return t->n++;
}

static int test_finds_what_was_added(void) {
    static table t;
    opscope_hindex h;
    ASSERT_EQ_INT(opscope_hindex_init(&h, 0), 0);
    char k[16];
    for (int i = 0; i < 5000; i++) {
        snprintf(k, sizeof k, "key%d", i);
        ASSERT_EQ_INT(intern(&h, &t, k, opscope_hash_bytes(k, strlen(k))), i);
    }
    ASSERT_EQ_U64(h.n, 5000);
    ASSERT_GE_U64((h.mask + 1) * 3, h.n * 4); /* grown: at most 3/4 full */
    for (int i = 0; i < 5000; i++) {
        snprintf(k, sizeof k, "key%d", i);
        ASSERT_EQ_INT(opscope_hindex_find(&h, opscope_hash_bytes(k, strlen(k)), k, key_eq, &t), i);
    }
    ASSERT_EQ_INT(opscope_hindex_find(&h, opscope_hash_bytes("nokey", 5), "nokey", key_eq, &t),
                  OPSCOPE_HINDEX_NONE);
    opscope_hindex_free(&h);
    return 0;
}

/* Keys whose hashes collide are told apart by the callback alone. */
static int test_equal_hashes(void) {
    static table t;
    opscope_hindex h;
    ASSERT_EQ_INT(opscope_hindex_init(&h, 100), 0);
    char k[16];
    for (int i = 0; i < 300; i++) {
        snprintf(k, sizeof k, "c%d", i);
        ASSERT_EQ_INT(intern(&h, &t, k, (uint64_t)(i % 3)), i);
    }
    for (int i = 299; i >= 0; i--) {
        snprintf(k, sizeof k, "c%d", i);
        ASSERT_EQ_INT(intern(&h, &t, k, (uint64_t)(i % 3)), i); /* found, not added again */
    }
    ASSERT_EQ_INT(t.n, 300);
    /* a key under another key's hash is not that key */
    ASSERT_EQ_INT(opscope_hindex_find(&h, 0, "c1", key_eq, &t), OPSCOPE_HINDEX_NONE);
    opscope_hindex_free(&h);
    return 0;
}

static int test_bad_ids(void) {
    opscope_hindex h;
    ASSERT_EQ_INT(opscope_hindex_init(&h, 1), 0);
    ASSERT_EQ_INT(opscope_hindex_add(&h, 7, OPSCOPE_HINDEX_NONE), -1);
    ASSERT_EQ_U64(h.n, 0);
    opscope_hindex_free(&h);
    opscope_hindex_free(&h); /* freeing twice is harmless */
    return 0;
}

TEST_MAIN(TEST(test_finds_what_was_added), TEST(test_equal_hashes), TEST(test_bad_ids))
