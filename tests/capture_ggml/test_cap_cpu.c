/*
 * How cap_cpu.c writes the records of a CPU graph: a real ggml graph (built, not computed)
 * and the abort-callback timestamps ggml-cpu would have given, through the full walk (events),
 * the cached plan (CALL records), and a full record buffer (every lost step counted once).
 * Expected steps, nodes, times and bytes are worked out here from the graph as built.
 */
#include "capture/store/cap_buf.h"
#include "capture/store/cap_clock.h"
#include "capture/store/cap_counters.h"
#include "capture/timing/cap_cpu.h"
#include "capture/timing/cap_record.h"
#include "capture/store/cap_replay.h"
#include "capture/resolve/cap_resolve.h"
#include "capture/store/cap_tables.h"
#include "capture/timing/cap_walk.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

/* MUL_MAT -> RMS_NORM -> MUL (fused with it by ggml-cpu) -> RESHAPE (no step) -> SILU ->
 * SUM_ROWS: 6 nodes, 4 steps. */
typedef struct fixture {
    struct ggml_context *ctx;
    struct ggml_cgraph *g;
    int n;
} fixture;

static struct ggml_tensor *named(struct ggml_tensor *t, const char *name) {
    ggml_set_name(t, name);
    return t;
}

static bool fixture_make(fixture *f) {
    struct ggml_init_params ip = {ggml_tensor_overhead() * 32 + ggml_graph_overhead(), NULL, true};
    f->ctx = ggml_init(ip);
    if (!f->ctx) return false;
    struct ggml_tensor *a = named(ggml_new_tensor_2d(f->ctx, GGML_TYPE_F32, 64, 32), "w");
    struct ggml_tensor *x = named(ggml_new_tensor_2d(f->ctx, GGML_TYPE_F32, 64, 4), "x");
    struct ggml_tensor *nw = named(ggml_new_tensor_1d(f->ctx, GGML_TYPE_F32, 32), "norm_w");
    struct ggml_tensor *mm = named(ggml_mul_mat(f->ctx, a, x), "mm");        /* [32, 4] */
    struct ggml_tensor *rn = named(ggml_rms_norm(f->ctx, mm, 1e-5f), "rn");
    struct ggml_tensor *mu = named(ggml_mul(f->ctx, rn, nw), "rn_w");
    struct ggml_tensor *rs = named(ggml_reshape_2d(f->ctx, mu, 16, 8), "rs");
    struct ggml_tensor *si = named(ggml_silu(f->ctx, rs), "si");
    struct ggml_tensor *sr = named(ggml_sum_rows(f->ctx, si), "out");       /* [1, 8] */
    f->g = ggml_new_graph(f->ctx);
    ggml_build_forward_expand(f->g, sr);
    f->n = ggml_graph_n_nodes(f->g);
    for (int i = 0; i < f->n; i++) {
        ggml_graph_node(f->g, i)->flags |= GGML_TENSOR_FLAG_COMPUTE; /* as the scheduler marks them */
    }
    return f->n == 6;
}

/* The walk scratch as a compute would leave it: callback ticks TS[0..N_TS). */
static void walk_set(opscope_cap_walk *w, uint64_t *ts, uint64_t *bar, int cap, const uint64_t *vals, int n_ts) {
    memcpy(ts, vals, (size_t)n_ts * sizeof *ts);
    memset(bar, 0, (size_t)cap * sizeof *bar);
    w->st.ts = ts;
    w->st.bar = bar;
    w->st.cap = cap;
    w->st.n = n_ts;
    w->st.bar_k = -1;
}

typedef struct got {
    opscope_record r[64];
    char name[64][32], extra[64][64], tname[64][64], sub[64][16];
    int n;
} got;

static int on_rec(void *ud, const opscope_record *r) {
    got *g = ud;
    if (g->n >= 64) return 1;
    int i = g->n++;
    g->r[i] = *r;
    snprintf(g->name[i], sizeof g->name[i], "%s", r->name);
    snprintf(g->extra[i], sizeof g->extra[i], "%s", r->extra ? r->extra : "");
    snprintf(g->tname[i], sizeof g->tname[i], "%s", r->tensor_name ? r->tensor_name : "");
    snprintf(g->sub[i], sizeof g->sub[i], "%s", r->sub_op ? r->sub_op : "");
    return 0;
}

static int replay(got *g) {
    memset(g, 0, sizeof *g);
    opscope_sink s = {g, NULL, NULL, on_rec, NULL};
    return opscope_cap_replay(-2, &s);
}

/* The 4 records of one compute starting at BASE (ticks = ns): callbacks at +100, +300, +600,
 * +1000, return at +1100; the last step runs to the return. */
static int check_compute(const got *g, int at, uint64_t base, int64_t gid) {
    static const char *names[4] = {"MUL_MAT", "RMS_NORM", "UNARY", "SUM_ROWS"};
    static const char *tnames[4] = {"mm", "rn", "si", "out"};
    static const int nodes[4] = {0, 1, 4, 5};
    static const uint64_t t0[4] = {0, 100, 300, 600}, t1[4] = {100, 300, 600, 1100};
    static const uint64_t bytes[4] = {32 * 4 * 4, 32 * 4 * 4, 16 * 8 * 4, 8 * 4};
    for (int k = 0; k < 4; k++) {
        const opscope_record *r = &g->r[at + k];
        ASSERT_EQ_STR(g->name[at + k], names[k]);
        ASSERT_EQ_STR(g->tname[at + k], tnames[k]);
        ASSERT_EQ_INT(r->node_index, nodes[k]);
        ASSERT_EQ_U64(r->start_ns, base + t0[k]);
        ASSERT_EQ_U64(r->duration_ns, t1[k] - t0[k]);
        ASSERT_EQ_U64(r->bytes, bytes[k]);
        ASSERT_EQ_INT(r->graph_id, gid);
        ASSERT_EQ_INT(r->n_fused, k == 1 ? 2 : 1);
    }
    ASSERT_EQ_STR(g->extra[at + 1], "RMS_NORM+MUL");
    ASSERT_EQ_STR(g->sub[at + 2], "SILU");
    /* MUL_MAT's source shapes as recorded: w [64, 32] f32, x [64, 4] f32 */
    ASSERT_EQ_INT(g->r[at].n_src, 2);
    ASSERT_EQ_INT((int)g->r[at].ne_src[0][1], 32);
    ASSERT_EQ_INT((int)g->r[at].ne_src[1][1], 4);
    ASSERT_EQ_U64(opscope_record_flops(&g->r[at]), 2ull * 64 * 32 * 4);
    return 0;
}

static const uint64_t k_ts[4] = {100, 300, 600, 1000};

static void compute(opscope_cap_walk *w, fixture *f, int sched, uint64_t base, int64_t gid) {
    static uint64_t ts[8], bar[8];
    uint64_t v[4];
    for (int k = 0; k < 4; k++) v[k] = base + k_ts[k];
    walk_set(w, ts, bar, f->n + 1, v, 4);
    /* a scheduler's split graph lasts (its plan may be cached); a lone compute's does not */
    opscope_cap_compute c = {.g = f->g, .n = f->n, .bi = 0, .sched = sched, .gid = gid, .split = sched >= 0 ? 0 : -1,
                             .t0 = base, .t1 = base + 1100};
    opscope_cap_cpu_emit(w, &w->st, &c, sched >= 0);
    opscope_cap_graph_rec_write(&c, base + 1200);
}

static int test_full_walk_events(void) {
    fixture f;
    ASSERT_TRUE(fixture_make(&f));
    opscope_cap_buf_reset_all();
    opscope_cap_walk w = {0};
    ASSERT_TRUE(opscope_cap_walk_grow(&w, f.n));
    compute(&w, &f, -1, 10000, 5);
    got g;
    ASSERT_EQ_INT(replay(&g), 0);
    ASSERT_EQ_INT(g.n, 4);
    if (check_compute(&g, 0, 10000, 5)) return 1;
    for (int k = 0; k < 4; k++) {
        ASSERT_TRUE(!(g.r[k].has & OPSCOPE_HAS_FLOPS)); /* derived, not given */
        ASSERT_EQ_INT(g.r[k].split_id, -1);
    }
    opscope_cap_cpu_plans_clear(&w, true);
    opscope_cap_walk_free(&w);
    ggml_free(f.ctx);
    return 0;
}

/* A scheduler's graph computed three times: walked, then planned (pages written), then one
 * CALL record per compute; all three replay to the same records. */
static int test_cached_plan_calls(void) {
    fixture f;
    ASSERT_TRUE(fixture_make(&f));
    opscope_cap_buf_reset_all();
    int sched = opscope_cap_sched_id((void *)0x5000);
    ASSERT_GE_INT(sched, 0);
    opscope_cap_walk w = {0};
    ASSERT_TRUE(opscope_cap_walk_grow(&w, f.n));
    uint64_t planned = atomic_load(&opscope_cap_stats.planned_graphs);
    for (int c = 0; c < 3; c++) {
        compute(&w, &f, sched, 20000 + 10000 * (uint64_t)c, 100 + c);
    }
    ASSERT_EQ_U64(atomic_load(&opscope_cap_stats.planned_graphs) - planned, 1);
    got g;
    ASSERT_EQ_INT(replay(&g), 0);
    ASSERT_EQ_INT(g.n, 12);
    for (int c = 0; c < 3; c++) {
        if (check_compute(&g, 4 * c, 20000 + 10000 * (uint64_t)c, 100 + c)) return 1;
        ASSERT_EQ_INT(g.r[4 * c].split_id, 0);
    }
    opscope_cap_cpu_plans_clear(&w, true);
    opscope_cap_walk_free(&w);
    ggml_free(f.ctx);
    return 0;
}

/* Fills the calling thread's buffer to the cap (one chunk) with 8-byte blocks. */
static void fill_buffer(void) {
    opscope_cap_buf_reset_all();
    opscope_cap_buf_set_limit(1);
    while (opscope_cap_buf_alloc_bytes(8)) {
        opscope_cap_buf_commit_bytes(8);
    }
}

/* A new graph of 8 steps into a full buffer: no description fits, so all 8 steps are lost,
 * and the dropped count says 8 (not 8 + the description + the GRAPH record). */
static int test_lost_steps_counted_once(void) {
    struct ggml_init_params ip = {ggml_tensor_overhead() * 16 + ggml_graph_overhead(), NULL, true};
    struct ggml_context *ctx = ggml_init(ip);
    ASSERT_NOT_NULL(ctx);
    struct ggml_tensor *t = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 8);
    for (int i = 0; i < 8; i++) t = ggml_silu(ctx, t);
    struct ggml_cgraph *g = ggml_new_graph(ctx);
    ggml_build_forward_expand(g, t);
    int n = ggml_graph_n_nodes(g);
    ASSERT_EQ_INT(n, 8);
    for (int i = 0; i < n; i++) ggml_graph_node(g, i)->flags |= GGML_TENSOR_FLAG_COMPUTE;
    opscope_cap_walk w = {0};
    ASSERT_TRUE(opscope_cap_walk_grow(&w, n));
    fill_buffer();
    uint64_t before = opscope_cap_buf_dropped();
    uint64_t ts[16], bar[16], v[8];
    for (int k = 0; k < 8; k++) v[k] = 1000 + 100 * (uint64_t)k;
    walk_set(&w, ts, bar, n + 1, v, 8);
    opscope_cap_compute c = {.g = g, .n = n, .bi = 0, .sched = -1, .gid = 1, .split = -1, .t0 = 900, .t1 = 1800};
    opscope_cap_cpu_emit(&w, &w.st, &c, false);
    opscope_cap_graph_rec_write(&c, 1900);
    ASSERT_EQ_U64(opscope_cap_buf_dropped() - before, 8);
    opscope_cap_buf_reset_all();
    opscope_cap_buf_set_limit(512ull << 20);
    opscope_cap_cpu_plans_clear(&w, true);
    opscope_cap_walk_free(&w);
    ggml_free(ctx);
    return 0;
}

/* The planned path into a full buffer: the CALL record of 4 steps does not fit; 4 lost. */
static int test_lost_call_counted_once(void) {
    fixture f;
    ASSERT_TRUE(fixture_make(&f));
    opscope_cap_buf_reset_all();
    opscope_cap_buf_set_limit(1);
    int sched = opscope_cap_sched_id((void *)0x6000);
    opscope_cap_walk w = {0};
    ASSERT_TRUE(opscope_cap_walk_grow(&w, f.n));
    compute(&w, &f, sched, 1000, 1);
    compute(&w, &f, sched, 3000, 2); /* the plan is made here */
    while (opscope_cap_buf_alloc_bytes(8)) {
        opscope_cap_buf_commit_bytes(8);
    }
    uint64_t before = opscope_cap_buf_dropped();
    uint64_t planned = atomic_load(&opscope_cap_stats.planned_graphs);
    compute(&w, &f, sched, 5000, 3);
    ASSERT_EQ_U64(atomic_load(&opscope_cap_stats.planned_graphs) - planned, 1);
    ASSERT_EQ_U64(opscope_cap_buf_dropped() - before, 4);
    opscope_cap_buf_reset_all();
    opscope_cap_buf_set_limit(512ull << 20);
    opscope_cap_cpu_plans_clear(&w, true);
    opscope_cap_walk_free(&w);
    ggml_free(f.ctx);
    return 0;
}

static int setup(void) {
    opscope_cap_clock_init("monotonic");
    ASSERT_TRUE(opscope_cap_ggml_ready());
    return 0;
}

TEST_MAIN(TEST(setup), TEST(test_full_walk_events), TEST(test_cached_plan_calls),
          TEST(test_lost_steps_counted_once), TEST(test_lost_call_counted_once))
