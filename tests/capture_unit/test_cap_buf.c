/* Tests of the per-thread record buffers (cap_buf.c): concurrent appends, no torn records,
 * the memory cap and its dropped count. */
#include "capture/store/cap_buf.h"
#include "test.h"

#include <pthread.h>
#include <string.h>

#define N_THREADS 4
#define N_PER_THREAD 20000

static void *writer(void *arg) {
    int64_t who = (int64_t)(intptr_t)arg;
    for (int64_t i = 0; i < N_PER_THREAD; i++) {
        unsigned n_src = (unsigned)(i % 4);
        opscope_cap_rec *r = opscope_cap_buf_alloc(n_src);
        if (!r) continue;
        r->kind = OPSCOPE_CAP_KIND_OP;
        r->graph = who;
        r->node = (int32_t)i;
        r->t0 = (uint64_t)i;
        r->t1 = (uint64_t)i + 1;
        /* a pattern a torn record would break */
        memset(r->name, (int)('a' + who), OPSCOPE_CAP_NAME - 1);
        r->name[OPSCOPE_CAP_NAME - 1] = 0;
        for (unsigned s = 0; s < n_src; s++) r->src[s].ne[0] = who * 1000000 + i;
        opscope_cap_buf_commit(r);
    }
    return NULL;
}

typedef struct check {
    int64_t count[N_THREADS];
    int64_t next[N_THREADS];
    int bad;
} check;

static int verify(void *ud, const opscope_cap_rec *r) {
    check *c = ud;
    int64_t who = r->graph;
    if (who < 0 || who >= N_THREADS) { c->bad++; return 0; }
    if (r->node != c->next[who]) c->bad++; /* per-thread order kept, nothing lost */
    c->next[who] = r->node + 1;
    if (r->n_src != (unsigned)(r->node % 4)) c->bad++;
    for (unsigned s = 0; s < r->n_src; s++)
        if (r->src[s].ne[0] != who * 1000000 + r->node) c->bad++;
    for (int k = 0; k < OPSCOPE_CAP_NAME - 1; k++)
        if (r->name[k] != (char)('a' + who)) { c->bad++; break; }
    c->count[who]++;
    return 0;
}

static int test_concurrent_appends_not_torn(void) {
    opscope_cap_buf_reset_all();
    opscope_cap_buf_set_limit(256ull << 20);
    pthread_t th[N_THREADS];
    for (int i = 0; i < N_THREADS; i++) pthread_create(&th[i], NULL, writer, (void *)(intptr_t)i);
    /* read while they write: must only ever see complete records */
    int mid_bad = 0;
    for (int k = 0; k < 20; k++) {
        check mid = {{0}, {0}, 0};
        opscope_cap_buf_foreach(verify, &mid);
        mid_bad += mid.bad; /* each thread's records: a complete, gap-free prefix */
    }
    for (int i = 0; i < N_THREADS; i++) pthread_join(th[i], NULL);
    ASSERT_EQ_INT(mid_bad, 0);
    check c = {{0}, {0}, 0};
    opscope_cap_buf_foreach(verify, &c);
    ASSERT_EQ_INT(c.bad, 0);
    for (int i = 0; i < N_THREADS; i++) ASSERT_EQ_INT(c.count[i], N_PER_THREAD);
    ASSERT_EQ_U64(opscope_cap_buf_dropped(), 0);
    return 0;
}

static int count_all(void *ud, const opscope_cap_rec *r) {
    (void)r;
    (*(uint64_t *)ud)++;
    return 0;
}

/* Past the cap allocations fail; what is lost is counted by the writer, which knows how many
 * records of the profile a failed allocation held (one, a batch, or none for a description). */
static int test_cap_drops_and_counts(void) {
    opscope_cap_buf_reset_all();
    opscope_cap_buf_set_limit(1); /* rounds up to one 1 MiB chunk */
    uint64_t tried = 20000;        /* 20000 * ~300 B > 1 MiB */
    uint64_t failed = 0;
    for (uint64_t i = 0; i < tried; i++) {
        opscope_cap_rec *r = opscope_cap_buf_alloc(0);
        if (!r) {
            failed++;
            continue;
        }
        r->kind = 0;
        opscope_cap_buf_commit(r);
    }
    uint64_t kept = 0;
    opscope_cap_buf_foreach(count_all, &kept);
    uint64_t per_chunk = (1u << 20) / opscope_cap_rec_size(0);
    ASSERT_EQ_U64(kept, per_chunk);
    ASSERT_EQ_U64(kept + failed, tried);
    ASSERT_EQ_U64(opscope_cap_buf_dropped(), 0); /* a failed allocation counts nothing by itself */
    ASSERT_NULL(opscope_cap_buf_alloc_bytes(8 * ((1u << 20) / 8)));
    ASSERT_EQ_U64(opscope_cap_buf_dropped(), 0);
    opscope_cap_buf_note_dropped(failed);
    opscope_cap_buf_note_dropped(3);
    ASSERT_EQ_U64(opscope_cap_buf_dropped(), failed + 3);
    ASSERT_LE_U64(opscope_cap_buf_bytes(), 1u << 20);
    opscope_cap_buf_reset_all();
    ASSERT_EQ_U64(opscope_cap_buf_dropped(), 0);
    opscope_cap_buf_set_limit(512ull << 20);
    return 0;
}

#define N_ID_THREADS 8

static void *take_id(void *arg) {
    int *out = arg;
    out[0] = opscope_cap_buf_thread_id();
    out[1] = opscope_cap_buf_thread_id(); /* stable on the same thread */
    return NULL;
}

static int test_thread_ids_distinct(void) {
    int a = opscope_cap_buf_thread_id();
    ASSERT_GT_INT(a, 0);
    ASSERT_EQ_INT(opscope_cap_buf_thread_id(), a);
    int ids[N_ID_THREADS][2];
    pthread_t th[N_ID_THREADS];
    for (int i = 0; i < N_ID_THREADS; i++) ASSERT_EQ_INT(pthread_create(&th[i], NULL, take_id, ids[i]), 0);
    for (int i = 0; i < N_ID_THREADS; i++) pthread_join(th[i], NULL);
    for (int i = 0; i < N_ID_THREADS; i++) {
        ASSERT_GT_INT(ids[i][0], 0);
        ASSERT_EQ_INT(ids[i][1], ids[i][0]);
        ASSERT_NE_INT(ids[i][0], a);
        for (int j = 0; j < i; j++) ASSERT_NE_INT(ids[i][0], ids[j][0]);
    }
    return 0;
}

/* ---- renewal of the kept chains ---- */

static int count_rec(void *ud, const opscope_cap_rec *r) {
    (void)r;
    (*(uint64_t *)ud)++;
    return 0;
}

/* One compute with a shape never seen: a new description in the kept chain, a record of the
 * profile pointing at it (its name checked when taken), then the safe point. */
static const opscope_cap_rec *one_compute(int64_t i) {
    opscope_cap_rec *d = opscope_cap_buf_keep_rec(2);
    if (!d) return NULL;
    d->kind = OPSCOPE_CAP_KIND_DESC;
    d->ne[0] = i;
    opscope_cap_buf_keep_commit(d->size);
    opscope_cap_rec *r = opscope_cap_buf_alloc(0);
    if (!r) return NULL;
    r->kind = OPSCOPE_CAP_KIND_OP;
    r->node = (int32_t)i;
    r->graph = (int64_t)(intptr_t)d; /* where its description is: read when taken */
    opscope_cap_buf_commit(r);
    opscope_cap_buf_safe_point();
    return d;
}

/* A taken record's description is still readable, and its own. */
static int check_desc(void *ud, const opscope_cap_rec *r) {
    const opscope_cap_rec *d = (const opscope_cap_rec *)(intptr_t)r->graph;
    if (d->kind != OPSCOPE_CAP_KIND_DESC || d->ne[0] != r->node) (*(uint64_t *)ud)++;
    return 0;
}

static uint64_t keep_mib(void) {
    opscope_cap_buf_held h;
    opscope_cap_buf_usage(&h);
    return h.keep_bytes >> 20;
}

static int test_keep_renewed_after_take(void) {
    opscope_cap_buf_reset_all();
    opscope_cap_buf_set_limit(256ull << 20);
    opscope_cap_buf_renew_enable(true);
    const uint64_t n = 60000; /* descriptions: far more than 10 MiB of them */
    uint64_t written = n * opscope_cap_rec_size(2);
    ASSERT_GT_U64(written, 10ull << 20);
    unsigned gen0 = opscope_cap_buf_generation();
    uint64_t bad = 0, taken = 0, peak = 0;
    for (uint64_t i = 0; i < n; i++) {
        ASSERT_TRUE(one_compute((int64_t)i) != NULL);
        if (i % 500 == 499) { /* a checkpoint: the records taken, then released */
            ASSERT_EQ_INT(opscope_cap_buf_take_new(check_desc, &bad), 0);
            ASSERT_EQ_INT(opscope_cap_buf_take_new(count_rec, &taken), 0); /* the same, again */
            opscope_cap_buf_release_taken();
        }
        if (keep_mib() > peak) peak = keep_mib();
    }
    ASSERT_EQ_U64(bad, 0);
    ASSERT_EQ_U64(taken, n - n % 500);
    /* a window of a few chunks, not the 10+ MiB written */
    ASSERT_LE_U64(peak, 6);
    ASSERT_TRUE(opscope_cap_buf_generation() != gen0); /* the caches started again */
    return 0;
}

static int test_keep_retired_kept_until_taken(void) {
    opscope_cap_buf_reset_all();
    opscope_cap_buf_set_limit(256ull << 20);
    opscope_cap_buf_renew_enable(true);
    unsigned gen0 = opscope_cap_buf_generation();
    uint64_t i = 0;
    while (opscope_cap_buf_generation() == gen0 && i < 100000) {
        ASSERT_TRUE(one_compute((int64_t)i++) != NULL); /* no take: nothing may be freed */
    }
    ASSERT_TRUE(opscope_cap_buf_generation() != gen0);
    uint64_t before = keep_mib();
    ASSERT_GE_U64(before, 3); /* the retired chain is still there */
    uint64_t bad = 0;
    ASSERT_EQ_INT(opscope_cap_buf_take_new(check_desc, &bad), 0);
    opscope_cap_buf_release_taken();
    ASSERT_EQ_U64(bad, 0);
    ASSERT_LT_U64(keep_mib(), before); /* taken: freed */
    return 0;
}

static int test_keep_never_renewed_pinned_or_off(void) {
    for (int pin = 0; pin < 2; pin++) {
        opscope_cap_buf_reset_all();
        opscope_cap_buf_set_limit(256ull << 20);
        opscope_cap_buf_renew_enable(pin == 1); /* off; or on but pinned */
        if (pin) opscope_cap_buf_keep_pin();
        unsigned gen0 = opscope_cap_buf_generation();
        uint64_t taken = 0;
        for (uint64_t i = 0; i < 30000; i++) {
            ASSERT_TRUE(one_compute((int64_t)i) != NULL);
            if (i % 500 == 499) {
                ASSERT_EQ_INT(opscope_cap_buf_take_new(count_rec, &taken), 0);
                opscope_cap_buf_release_taken();
            }
        }
        ASSERT_EQ_INT((int)(opscope_cap_buf_generation() == gen0), 1);
        ASSERT_GE_U64(keep_mib(), (30000 * opscope_cap_rec_size(2)) >> 20); /* every description kept */
    }
    opscope_cap_buf_reset_all();
    return 0;
}

TEST_MAIN(TEST(test_concurrent_appends_not_torn), TEST(test_cap_drops_and_counts),
          TEST(test_thread_ids_distinct), TEST(test_keep_renewed_after_take),
          TEST(test_keep_retired_kept_until_taken), TEST(test_keep_never_renewed_pinned_or_off))
