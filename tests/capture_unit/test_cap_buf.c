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

static int test_keep_never_renewed_off(void) {
    opscope_cap_buf_reset_all();
    opscope_cap_buf_set_limit(256ull << 20);
    opscope_cap_buf_renew_enable(false); /* no streaming export: nothing may be renewed */
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
    opscope_cap_buf_reset_all();
    return 0;
}

/* ---- kept chains held by pending device work (a GPU source's scopes, cap_gpu.c) ----
 * The describing thread takes a hold per scope; a completer thread, standing for the one
 * that sees the device work done, later writes the scope's record in its own chain, pointing
 * at the description, then lets go (cap_gpu.c's emit_ready, then pend_free). */
#define PQ_CAP 256

typedef struct pend_q {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    const opscope_cap_rec *desc[PQ_CAP];
    opscope_cap_keep_hold hold[PQ_CAP];
    int head, n; /* the pending scopes, oldest at head */
    int todo;    /* scopes the completer is to complete now; -1: stop */
    uint64_t bad; /* descriptions found overwritten when completing */
} pend_q;

static pend_q g_q = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

enum { REC_OWNER = 1, REC_DEVICE = 2 }; /* sub_op of the test's records: who wrote them */

static void *completer(void *arg) {
    pend_q *q = arg;
    pthread_mutex_lock(&q->mu);
    for (;;) {
        while (q->todo == 0) pthread_cond_wait(&q->cv, &q->mu);
        if (q->todo < 0) break;
        for (; q->todo > 0 && q->n > 0; q->todo--, q->n--, q->head = (q->head + 1) % PQ_CAP) {
            const opscope_cap_rec *d = q->desc[q->head];
            opscope_cap_rec *r = opscope_cap_buf_alloc(0);
            if (d->kind != OPSCOPE_CAP_KIND_DESC || !r) {
                q->bad++;
            } else {
                r->kind = OPSCOPE_CAP_KIND_OP;
                r->sub_op = REC_DEVICE;
                r->node = (int32_t)d->ne[0];
                r->graph = (int64_t)(intptr_t)d;
                opscope_cap_buf_commit(r);
            }
            opscope_cap_buf_keep_unhold(q->hold[q->head]);
        }
        q->todo = 0;
        pthread_cond_broadcast(&q->cv);
    }
    pthread_mutex_unlock(&q->mu);
    return NULL;
}

/* Has the completer complete the N oldest pending scopes (-1: stop) and waits for it. */
static void complete(int n) {
    pthread_mutex_lock(&g_q.mu);
    g_q.todo = n;
    pthread_cond_broadcast(&g_q.cv);
    while (n > 0 && g_q.todo != 0) pthread_cond_wait(&g_q.cv, &g_q.mu);
    pthread_mutex_unlock(&g_q.mu);
}

/* One compute whose description stays pending: a new description, the owner's record, a
 * hold queued for the completer, then the safe point (in cap_record.c's order). */
static bool held_compute(int64_t i) {
    opscope_cap_rec *d = opscope_cap_buf_keep_rec(2);
    opscope_cap_rec *r = opscope_cap_buf_alloc(0);
    if (!d || !r) return false;
    d->kind = OPSCOPE_CAP_KIND_DESC;
    d->ne[0] = i;
    opscope_cap_buf_keep_commit(d->size);
    r->kind = OPSCOPE_CAP_KIND_OP;
    r->sub_op = REC_OWNER;
    r->node = (int32_t)i;
    r->graph = (int64_t)(intptr_t)d;
    opscope_cap_buf_commit(r);
    pthread_mutex_lock(&g_q.mu);
    bool room = g_q.n < PQ_CAP;
    if (room) {
        int at = (g_q.head + g_q.n++) % PQ_CAP;
        g_q.desc[at] = d;
        g_q.hold[at] = opscope_cap_buf_keep_hold();
    }
    pthread_mutex_unlock(&g_q.mu);
    opscope_cap_buf_safe_point();
    return room;
}

/* Every pending description still readable, and its own. */
static uint64_t pending_bad(void) {
    uint64_t bad = 0;
    pthread_mutex_lock(&g_q.mu);
    for (int k = 0; k < g_q.n; k++) {
        const opscope_cap_rec *d = g_q.desc[(g_q.head + k) % PQ_CAP];
        bad += d->kind != OPSCOPE_CAP_KIND_DESC;
    }
    pthread_mutex_unlock(&g_q.mu);
    return bad;
}

static uint64_t held_now(void) {
    opscope_cap_buf_held h;
    opscope_cap_buf_usage(&h);
    return h.holds;
}

/* A fresh store that renews, an empty queue, and its completer started in *TH. */
static int held_start(pthread_t *th) {
    opscope_cap_buf_reset_all();
    opscope_cap_buf_set_limit(256ull << 20);
    opscope_cap_buf_renew_enable(true);
    g_q.head = g_q.n = g_q.todo = 0; /* before the completer starts */
    g_q.bad = 0;
    return pthread_create(th, NULL, completer, &g_q);
}

/* N computes, each pending until LAG later ones were described, a checkpoint every 500: the
 * peak of the kept chains in MiB. Every taken record's description and every pending one
 * must be intact (a freed chain is unmapped: reading it faults). */
static int run_held(uint64_t n, int lag, uint64_t *peak) {
    pthread_t th;
    ASSERT_EQ_INT(held_start(&th), 0);
    unsigned gen0 = opscope_cap_buf_generation();
    uint64_t bad = 0, taken = 0;
    *peak = 0;
    for (uint64_t i = 0; i < n; i++) {
        ASSERT_TRUE(held_compute((int64_t)i));
        if (g_q.n > lag) complete(g_q.n - lag);
        if (i % 500 == 499) {
            ASSERT_EQ_U64(pending_bad(), 0);
            ASSERT_EQ_INT(opscope_cap_buf_take_new(check_desc, &bad), 0);
            ASSERT_EQ_INT(opscope_cap_buf_take_new(count_rec, &taken), 0);
            opscope_cap_buf_release_taken();
        }
        if (keep_mib() > *peak) *peak = keep_mib();
    }
    ASSERT_EQ_U64(held_now(), (uint64_t)lag);
    complete(lag);
    ASSERT_EQ_U64(held_now(), 0);
    ASSERT_EQ_INT(opscope_cap_buf_take_new(check_desc, &bad), 0);
    ASSERT_EQ_INT(opscope_cap_buf_take_new(count_rec, &taken), 0);
    opscope_cap_buf_release_taken();
    complete(-1);
    pthread_join(th, NULL);
    ASSERT_EQ_U64(bad, 0);
    ASSERT_EQ_U64(g_q.bad, 0);
    ASSERT_EQ_U64(taken, 2 * n); /* the owner's record and the device's of every compute */
    ASSERT_TRUE(opscope_cap_buf_generation() != gen0); /* renewed although always held */
    return 0;
}

static int test_keep_held_renewed_flat(void) {
    /* 16 and 48 MiB of descriptions, each pending for 3 computes past its own (some always
     * are): the kept chains stay a window of a few chunks, the same for 3x the run */
    uint64_t n1 = 40000, n2 = 120000, p1 = 0, p2 = 0;
    ASSERT_GT_U64(n1 * opscope_cap_rec_size(2), 10ull << 20);
    ASSERT_EQ_INT(run_held(n1, 3, &p1), 0);
    ASSERT_EQ_INT(run_held(n2, 3, &p2), 0);
    ASSERT_LE_U64(p1, 8);
    ASSERT_LE_U64(p2, p1 + 1);
    /* a scope pending for 200 computes (a slow device) holds more chains, still bounded */
    ASSERT_EQ_INT(run_held(n1, 200, &p1), 0);
    ASSERT_LE_U64(p1, 12);
    opscope_cap_buf_reset_all();
    return 0;
}

/* During the take, the completer writes the held scope's record (in its own chain, which this
 * take already passed) and lets go; the release that follows sees no hold. The chain must
 * stay for the next take, which reads that record's description. */
static int g_racing;
static int complete_mid_take(void *ud, const opscope_cap_rec *r) {
    if (g_racing && r->sub_op == REC_OWNER) {
        g_racing = 0;
        complete(1);
    }
    return check_desc(ud, r);
}

static int test_keep_held_freed_after_later_take(void) {
    pthread_t th;
    ASSERT_EQ_INT(held_start(&th), 0);
    uint64_t bad = 0;
    ASSERT_TRUE(held_compute(0));
    const opscope_cap_rec *d0 = g_q.desc[0];
    unsigned gen0 = opscope_cap_buf_generation();
    /* later computes completed at once (the completer's buffer is made now, before the
     * describing thread's in the list), until the chain holding scope 0 retires */
    int64_t i = 1;
    for (; opscope_cap_buf_generation() == gen0 && i < 100000; i++) {
        ASSERT_TRUE(held_compute(i));
        pthread_mutex_lock(&g_q.mu);
        int at = (g_q.head + g_q.n - 1) % PQ_CAP; /* the newest to the front: 0 stays pending */
        const opscope_cap_rec *d = g_q.desc[at];
        opscope_cap_keep_hold h = g_q.hold[at];
        g_q.desc[at] = g_q.desc[g_q.head];
        g_q.hold[at] = g_q.hold[g_q.head];
        g_q.desc[g_q.head] = d;
        g_q.hold[g_q.head] = h;
        pthread_mutex_unlock(&g_q.mu);
        complete(1);
    }
    ASSERT_TRUE(opscope_cap_buf_generation() != gen0);
    ASSERT_EQ_U64(held_now(), 1);
    uint64_t retired = keep_mib();
    for (int k = 0; k < 3; k++) { /* held: every record taken, still kept */
        ASSERT_EQ_INT(opscope_cap_buf_take_new(check_desc, &bad), 0);
        opscope_cap_buf_release_taken();
        ASSERT_EQ_INT(d0->kind, OPSCOPE_CAP_KIND_DESC);
        ASSERT_EQ_U64(keep_mib(), retired);
    }
    ASSERT_TRUE(held_compute(i)); /* an owner record for the racing take to meet */
    retired = keep_mib(); /* and the new chain's first chunk */
    g_racing = 1;
    ASSERT_EQ_INT(opscope_cap_buf_take_new(complete_mid_take, &bad), 0);
    opscope_cap_buf_release_taken();
    ASSERT_EQ_INT(g_racing, 0);
    ASSERT_EQ_U64(held_now(), 1); /* scope i's */
    ASSERT_EQ_U64(keep_mib(), retired); /* scope 0's record not taken yet: kept */
    uint64_t seen = 0;
    ASSERT_EQ_INT(opscope_cap_buf_take_new(check_desc, &bad), 0); /* reads d0 through it */
    ASSERT_EQ_INT(opscope_cap_buf_take_new(count_rec, &seen), 0);
    ASSERT_EQ_U64(seen, 1);
    opscope_cap_buf_release_taken();
    ASSERT_LT_U64(keep_mib(), retired); /* now freed */
    complete(-1);
    pthread_join(th, NULL);
    ASSERT_EQ_U64(bad, 0);
    ASSERT_EQ_U64(g_q.bad, 0);
    opscope_cap_buf_reset_all();
    return 0;
}

TEST_MAIN(TEST(test_concurrent_appends_not_torn), TEST(test_cap_drops_and_counts),
          TEST(test_thread_ids_distinct), TEST(test_keep_renewed_after_take),
          TEST(test_keep_retired_kept_until_taken), TEST(test_keep_never_renewed_off),
          TEST(test_keep_held_renewed_flat), TEST(test_keep_held_freed_after_later_take))
