/* test_heap.c - util/heap.h: pushes and pops against a sorted reference on random inputs with
 * ties, build, replace-top (a k-way merge and a top-N selection), sizes 0 and 1, and the same
 * array as the textbook swapping heap step by step (callers' tie orders rest on it). */
#include "../test.h"

#include "util/heap.h"

#include <stdint.h>

typedef struct el { int64_t key; uint32_t id; } el;

/* by key alone (ties) and by (key, id) (total); CTX counts the comparisons */
static inline int less_key(unsigned *calls, const el *a, const el *b) {
    ++*calls;
    return a->key < b->key;
}
static inline int less_total(unsigned *calls, const el *a, const el *b) {
    ++*calls;
    return a->key != b->key ? a->key < b->key : a->id < b->id;
}
OPSCOPE_HEAP_DEFINE(kheap, el, unsigned *, less_key)
OPSCOPE_HEAP_DEFINE(theap, el, unsigned *, less_total)

static int cmp_total(const void *pa, const void *pb) {
    const el *a = pa, *b = pb;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    return (a->id > b->id) - (a->id < b->id);
}

static uint64_t rng = 88172645463325252ull;
static uint64_t next_rand(void) { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return rng; }

static void fill(el *v, size_t n, int64_t spread) {
    for (size_t i = 0; i < n; i++) v[i] = (el){(int64_t)(next_rand() % (uint64_t)spread), (uint32_t)i};
}

/* N random elements pushed (or built) then popped come out as the sorted reference. */
static int check_sorted(size_t n, int64_t spread, int build) {
    el *in = malloc((n ? n : 1) * sizeof *in), *h = malloc((n ? n : 1) * sizeof *h);
    ASSERT_TRUE(in && h);
    fill(in, n, spread);
    unsigned calls = 0;
    size_t hn = 0;
    if (build) {
        memcpy(h, in, n * sizeof *in);
        hn = n;
        theap_build(h, hn, &calls);
    } else {
        for (size_t i = 0; i < n; i++) theap_push(h, &hn, &in[i], &calls);
    }
    ASSERT_EQ_U64(hn, n);
    qsort(in, n, sizeof *in, cmp_total);
    for (size_t i = 0; i < n; i++) {
        ASSERT_EQ_U64((uint64_t)h[0].key, (uint64_t)in[i].key);
        ASSERT_EQ_U64(h[0].id, in[i].id);
        theap_pop(h, &hn, &calls);
        ASSERT_EQ_U64(hn, n - i - 1);
    }
    theap_pop(h, &hn, &calls); /* empty: nothing */
    ASSERT_EQ_U64(hn, 0);
    /* by key alone: the keys in order (ties in some order) */
    fill(in, n, spread);
    hn = 0;
    for (size_t i = 0; i < n; i++) kheap_push(h, &hn, &in[i], &calls);
    int64_t last = INT64_MIN;
    while (hn) {
        ASSERT_TRUE(h[0].key >= last);
        last = h[0].key;
        kheap_pop(h, &hn, &calls);
    }
    free(in);
    free(h);
    return 0;
}

static int test_random_against_sorted(void) {
    ASSERT_EQ_INT(check_sorted(1000, 1000000, 0), 0);
    ASSERT_EQ_INT(check_sorted(1000, 1000000, 1), 0);
    ASSERT_EQ_INT(check_sorted(777, 5, 0), 0); /* many ties */
    ASSERT_EQ_INT(check_sorted(777, 5, 1), 0);
    ASSERT_EQ_INT(check_sorted(2, 1, 0), 0);
    return 0;
}

static int test_sizes_0_and_1(void) {
    ASSERT_EQ_INT(check_sorted(0, 10, 0), 0);
    ASSERT_EQ_INT(check_sorted(0, 10, 1), 0);
    ASSERT_EQ_INT(check_sorted(1, 10, 0), 0);
    ASSERT_EQ_INT(check_sorted(1, 10, 1), 0);
    unsigned calls = 0;
    theap_build(NULL, 0, &calls);
    theap_sift_down(NULL, 0, 0, &calls);
    el one = {5, 0}, x = {9, 1};
    size_t n = 1;
    theap_replace_top(&one, n, &x, &calls);
    ASSERT_EQ_U64((uint64_t)one.key, 9);
    ASSERT_EQ_U64(calls, 0); /* nothing to compare with */
    return 0;
}

/* K sorted runs merged through a heap of their heads, the head advanced in place and sifted
 * down (the record-log reader's merge), as the sorted reference; then the N largest kept by
 * replacing the top (stats' top records). */
static int test_merge_and_top_n(void) {
    enum { K = 37, PER = 50 };
    el all[K * PER], heads[K], out[K * PER];
    size_t pos[K];
    for (size_t r = 0; r < K; r++) {
        int64_t t = (int64_t)(next_rand() % 100);
        for (size_t j = 0; j < PER; j++) {
            t += (int64_t)(next_rand() % 4); /* ties within and across runs */
            all[r * PER + j] = (el){t, (uint32_t)(r * PER + j)};
        }
        heads[r] = all[r * PER];
        pos[r] = 0;
    }
    unsigned calls = 0;
    size_t hn = K, no = 0;
    theap_build(heads, hn, &calls);
    while (hn) {
        out[no++] = heads[0];
        size_t r = heads[0].id / PER;
        if (++pos[r] < PER) {
            heads[0] = all[r * PER + pos[r]];
            theap_sift_down(heads, hn, 0, &calls);
        } else {
            theap_pop(heads, &hn, &calls);
        }
    }
    ASSERT_EQ_U64(no, K * PER);
    qsort(all, K * PER, sizeof *all, cmp_total);
    for (size_t i = 0; i < no; i++) ASSERT_EQ_U64(out[i].id, all[i].id);
    /* the 10 largest by (key, id): a min-heap whose top is the first to go */
    el top[10];
    hn = 0;
    fill(out, K * PER, 300);
    for (size_t i = 0; i < K * PER; i++) {
        if (hn < 10) theap_push(top, &hn, &out[i], &calls);
        else if (less_total(&calls, &top[0], &out[i])) theap_replace_top(top, hn, &out[i], &calls);
    }
    qsort(out, K * PER, sizeof *out, cmp_total);
    qsort(top, 10, sizeof *top, cmp_total);
    for (size_t i = 0; i < 10; i++) ASSERT_EQ_U64(top[i].id, out[K * PER - 10 + i].id);
    return 0;
}

/* The textbook heap that swaps (the shape of the copies this header replaced). */
static void ref_down(el *h, size_t n, size_t i) {
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        if (l < n && h[l].key < h[m].key) m = l;
        if (l + 1 < n && h[l + 1].key < h[m].key) m = l + 1;
        if (m == i) return;
        el t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}
static void ref_up(el *h, size_t i) {
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!(h[i].key < h[p].key)) return;
        el t = h[i];
        h[i] = h[p];
        h[p] = t;
        i = p;
    }
}

static int same(const el *a, const el *b, size_t n) {
    for (size_t i = 0; i < n; i++) ASSERT_EQ_U64(a[i].id, b[i].id);
    return 0;
}

static int test_same_array_as_swapping(void) {
    enum { N = 600 };
    el in[N], a[N], b[N];
    fill(in, N, 7); /* ties everywhere: equal keys' places are the test */
    unsigned calls = 0;
    memcpy(a, in, sizeof in);
    memcpy(b, in, sizeof in);
    kheap_build(a, N, &calls);
    for (size_t i = N / 2; i-- > 0;) ref_down(b, N, i);
    ASSERT_EQ_INT(same(a, b, N), 0);
    size_t na = N, nb = N;
    for (int step = 0; step < 2000 && na; step++) {
        uint64_t r = next_rand();
        el x = {(int64_t)(next_rand() % 7), (uint32_t)(N + step)};
        if (r % 3 == 0) { /* pop */
            kheap_pop(a, &na, &calls);
            b[0] = b[--nb];
            ref_down(b, nb, 0);
        } else if (r % 3 == 1 && na < N) { /* push */
            kheap_push(a, &na, &x, &calls);
            b[nb] = x;
            ref_up(b, nb++);
        } else { /* replace the top */
            kheap_replace_top(a, na, &x, &calls);
            b[0] = x;
            ref_down(b, nb, 0);
        }
        ASSERT_EQ_U64(na, nb);
        ASSERT_EQ_INT(same(a, b, na), 0);
    }
    return 0;
}

TEST_MAIN(TEST(test_random_against_sorted), TEST(test_sizes_0_and_1), TEST(test_merge_and_top_n),
          TEST(test_same_array_as_swapping))
