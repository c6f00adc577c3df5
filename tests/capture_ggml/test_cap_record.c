/*
 * How cap_record.c writes records from real ggml tensors (built, not computed): the shared
 * description of an op (written once while its fields stay the same), a fused step's event,
 * one record for a split without per-op timing, and the GRAPH record behind OPSCOPE_GRAPH_LOG.
 * Expected values come from the tensors as built here.
 */
#include "capture/store/cap_buf.h"
#include "capture/store/cap_clock.h"
#include "capture/store/cap_counters.h"
#include "capture/timing/cap_record.h"
#include "capture/store/cap_replay.h"
#include "capture/resolve/cap_resolve.h"
#include "capture/life/cap_write.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct ggml_context *ctx_new(void) {
    struct ggml_init_params ip = {ggml_tensor_overhead() * 32 + ggml_graph_overhead(), NULL, true};
    return ggml_init(ip);
}

static int count_kind(void *ud, const opscope_cap_rec *r) {
    int *c = ud;
    c[r->kind]++;
    return 0;
}

static int test_description_written_once(void) {
    opscope_cap_buf_reset_all();
    struct ggml_context *ctx = ctx_new();
    ASSERT_NOT_NULL(ctx);
    struct ggml_tensor *a = ggml_new_tensor_2d(ctx, GGML_TYPE_F16, 64, 32);
    struct ggml_tensor *b = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 64, 3);
    struct ggml_tensor *m = ggml_mul_mat(ctx, a, b);
    ggml_set_name(m, "ffn_up-0");
    uint64_t descs = atomic_load(&opscope_cap_stats.descs);
    const opscope_cap_rec *d = opscope_cap_desc_for(m);
    ASSERT_NOT_NULL(d);
    ASSERT_EQ_INT(d->kind, OPSCOPE_CAP_KIND_DESC);
    ASSERT_EQ_INT(d->op, GGML_OP_MUL_MAT);
    ASSERT_EQ_INT(d->n_src, 2);
    ASSERT_EQ_INT(d->src[0].type, GGML_TYPE_F16);
    ASSERT_EQ_INT(d->src[0].ne[0], 64);
    ASSERT_EQ_INT(d->src[0].ne[1], 32);
    ASSERT_EQ_U64(d->src[0].nb[1], 64 * 2);
    ASSERT_EQ_INT(d->src[1].ne[1], 3);
    ASSERT_EQ_INT(d->ne[0], 32);
    ASSERT_EQ_INT(d->ne[1], 3);
    ASSERT_EQ_INT(d->out_type, GGML_TYPE_F32);
    ASSERT_EQ_STR(d->name, "ffn_up-0");
    ASSERT_EQ_U64(d->bytes, 32 * 3 * 4);
    /* unchanged: the same description, nothing written */
    ASSERT_TRUE(opscope_cap_desc_for(m) == d);
    ASSERT_EQ_U64(atomic_load(&opscope_cap_stats.descs) - descs, 1);
    /* a reused tensor with another shape gets a new description */
    b->ne[1] = 5;
    m->ne[1] = 5;
    const opscope_cap_rec *d2 = opscope_cap_desc_for(m);
    ASSERT_NOT_NULL(d2);
    ASSERT_TRUE(d2 != d);
    ASSERT_EQ_INT(d2->ne[1], 5);
    ASSERT_EQ_INT(d2->src[1].ne[1], 5);
    /* and so do other op params */
    m->op_params[3] = 7;
    ASSERT_TRUE(opscope_cap_desc_for(m) != d2);
    ASSERT_EQ_U64(atomic_load(&opscope_cap_stats.descs) - descs, 3);
    int kinds[8] = {0};
    opscope_cap_buf_foreach(count_kind, kinds);
    ASSERT_EQ_INT(kinds[OPSCOPE_CAP_KIND_DESC], 3);
    ggml_free(ctx);
    return 0;
}

typedef struct one {
    opscope_record r;
    char name[32], extra[64];
    int n;
    uint32_t thr[2][4]; /* the first two records' per-thread times (2 threads) */
    int32_t cpus[2];
} one;

static int one_rec(void *ud, const opscope_record *r) {
    one *o = ud;
    if (o->n < 2 && r->threads && r->n_threads == 2) { /* borrowed: copied while it lasts */
        memcpy(o->thr[o->n], r->threads, sizeof o->thr[0]);
        if (r->thread_cpus) memcpy(o->cpus, r->thread_cpus, sizeof o->cpus);
    }
    o->n++;
    o->r = *r;
    snprintf(o->name, sizeof o->name, "%s", r->name);
    snprintf(o->extra, sizeof o->extra, "%s", r->extra ? r->extra : "");
    return 0;
}

/* A fused RMS_NORM+MUL step: the event names both ops, writes the MUL's bytes and points at
 * the norm's description. */
static int test_fused_event(void) {
    opscope_cap_buf_reset_all();
    struct ggml_context *ctx = ctx_new();
    struct ggml_tensor *x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 32, 4);
    struct ggml_tensor *w = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 32);
    struct ggml_tensor *n = ggml_rms_norm(ctx, x, 1e-5f);
    struct ggml_tensor *m = ggml_mul(ctx, n, w);
    struct ggml_tensor *v = ggml_cont(ctx, ggml_transpose(ctx, m)); /* [4, 32] */
    struct ggml_tensor *nodes[3] = {n, m, v};
    opscope_cap_step s = {0, 2, 0, 0};
    opscope_cap_event e;
    ASSERT_TRUE(opscope_cap_event_make(nodes, &s, &e));
    ASSERT_EQ_INT(e.kind, OPSCOPE_CAP_KIND_EVENT);
    ASSERT_EQ_INT(e.n_fused, 2);
    ASSERT_EQ_INT(e.fused[0], GGML_OP_RMS_NORM);
    ASSERT_EQ_INT(e.fused[1], GGML_OP_MUL);
    ASSERT_EQ_INT(e.node, 0);
    ASSERT_EQ_U64(e.bytes, 32 * 4 * 4);
    ASSERT_EQ_INT(e.desc->op, GGML_OP_RMS_NORM);
    /* written with this compute's fields, it replays as one record */
    opscope_cap_step timed = {0, 2, 5000, 5400};
    opscope_cap_compute c = {.bi = 0, .sched = 2, .gid = 42, .split = 1};
    ASSERT_EQ_INT(opscope_cap_event_put_all(&e, &timed, 1, 0, &c, 3, NULL, 0), 1);
    int kinds[8] = {0};
    opscope_cap_buf_foreach(count_kind, kinds);
    ASSERT_EQ_INT(kinds[OPSCOPE_CAP_KIND_EVENT], 1);
    ASSERT_EQ_INT(kinds[OPSCOPE_CAP_KIND_DESC], 1);
    one o = {0};
    opscope_sink sink = {&o, NULL, NULL, one_rec, NULL};
    ASSERT_EQ_INT(opscope_cap_replay(-2, &sink), 0);
    ASSERT_EQ_INT(o.n, 1);
    ASSERT_EQ_STR(o.name, "RMS_NORM");
    ASSERT_EQ_STR(o.extra, "RMS_NORM+MUL");
    ASSERT_EQ_INT(o.r.n_fused, 2);
    ASSERT_EQ_U64(o.r.bytes, 32 * 4 * 4);
    ASSERT_EQ_U64(o.r.start_ns, 5000);
    ASSERT_EQ_U64(o.r.duration_ns, 400);
    ASSERT_EQ_INT(o.r.graph_id, 42);
    ASSERT_EQ_INT(o.r.split_id, 1);
    ASSERT_EQ_INT(o.r.thread_id, 3);
    ggml_free(ctx);
    return 0;
}

/* Events of the full walk carry their step's per-thread work and wait and the threads' CPUs
 * (after the pairs of all the steps), which replay as the records' threads. */
static int test_event_threads(void) {
    opscope_cap_buf_reset_all();
    struct ggml_context *ctx = ctx_new();
    struct ggml_tensor *a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 8, 8);
    struct ggml_tensor *b = ggml_add(ctx, a, a);
    struct ggml_tensor *m = ggml_mul(ctx, b, a);
    struct ggml_tensor *nodes[2] = {b, m};
    opscope_cap_event ev[2];
    opscope_cap_step s[2] = {{0, 1, 1000, 1300}, {1, 1, 1300, 1500}};
    ASSERT_TRUE(opscope_cap_event_make(nodes, &s[0], &ev[0]));
    ASSERT_TRUE(opscope_cap_event_make(nodes, &s[1], &ev[1]));
    /* step 0: thread 0 works 250, waits 50; thread 1 works 300; step 1: 120/80 and 200/0 */
    static const uint32_t thr[2 * 2 * 2 + 2] = {250, 50, 300, 0, 120, 80, 200, 0, 3, 5};
    opscope_cap_compute c = {.bi = 0, .sched = 0, .gid = 7, .split = 0};
    ASSERT_EQ_INT(opscope_cap_event_put_all(ev, s, 2, 0, &c, 1, thr, 2), 2);
    one o = {0};
    opscope_sink sink = {&o, NULL, NULL, one_rec, NULL};
    ASSERT_EQ_INT(opscope_cap_replay(-2, &sink), 0);
    ASSERT_EQ_INT(o.n, 2);
    static const uint32_t want[2][4] = {{250, 50, 300, 0}, {120, 80, 200, 0}};
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < 4; i++) ASSERT_EQ_U64(o.thr[k][i], want[k][i]);
    ASSERT_EQ_INT(o.cpus[0], 3);
    ASSERT_EQ_INT(o.cpus[1], 5);
    ggml_free(ctx);
    return 0;
}

/* A backend without per-op timing: one GRAPH_SPLIT record covering the computed nodes. */
static int test_split_record(void) {
    opscope_cap_buf_reset_all();
    struct ggml_context *ctx = ctx_new();
    struct ggml_tensor *x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 16, 4);
    struct ggml_tensor *r = ggml_reshape_1d(ctx, x, 64);   /* no step */
    struct ggml_tensor *s = ggml_scale(ctx, r, 2.0f);
    ggml_set_name(s, "scaled");
    struct ggml_tensor *t = ggml_silu(ctx, s);
    struct ggml_tensor *u = ggml_add(ctx, t, s);
    struct ggml_cgraph *g = ggml_new_graph(ctx);
    ggml_build_forward_expand(g, u);
    int n = ggml_graph_n_nodes(g);
    ASSERT_EQ_INT(n, 4);
    for (int i = 0; i < n; i++) ggml_graph_node(g, i)->flags |= GGML_TENSOR_FLAG_COMPUTE;
    opscope_cap_compute c = {.g = g, .n = n, .bi = 0, .sched = -1, .gid = 9, .split = 2, .t0 = 7000, .t1 = 9000};
    opscope_cap_emit_split(&c, 0);
    opscope_cap_graph_rec_write(&c, 9100);
    one o = {0};
    opscope_sink sink = {&o, NULL, NULL, one_rec, NULL};
    ASSERT_EQ_INT(opscope_cap_replay(-2, &sink), 0);
    ASSERT_EQ_INT(o.n, 1);
    ASSERT_EQ_STR(o.name, "GRAPH_SPLIT");
    ASSERT_EQ_STR(o.extra, "3 nodes, no per-op timing");
    ASSERT_EQ_INT(o.r.node_index, 1); /* the first computed node: the SCALE */
    ASSERT_EQ_INT(o.r.split_id, 2);
    ASSERT_EQ_INT(o.r.graph_id, 9);
    ASSERT_EQ_U64(o.r.start_ns, 7000);
    ASSERT_EQ_U64(o.r.duration_ns, 2000);
    ggml_free(ctx);
    return 0;
}

/* The GRAPH record of a compute, as OPSCOPE_GRAPH_LOG writes it (one TSV line). */
static int test_graph_log_line(void) {
    opscope_cap_buf_reset_all();
    opscope_cap_graph_rec_add(12, OPSCOPE_CAP_ATTR_NOFUSION, 250);
    opscope_cap_compute c = {.n = 20, .bi = 3, .sched = 1, .gid = 77, .split = 4, .t0 = 100000, .t1 = 160000};
    opscope_cap_graph_rec_write(&c, 175000);
    c.gid = 78, c.t0 = 200000, c.t1 = 260000;
    opscope_cap_graph_rec_write(&c, 275000); /* nothing pending */
    char path[] = "/tmp/opscope-graphlog-XXXXXX";
    int fd = mkstemp(path);
    ASSERT_GE_INT(fd, 0);
    close(fd);
    ASSERT_EQ_INT(opscope_cap_write_graphs(path), 0);
    char *s = test_slurp(path, NULL);
    unlink(path);
    ASSERT_NOT_NULL(s);
    const char *nl = strchr(s, '\n');
    ASSERT_NOT_NULL(nl);
    /* graph split backend sched n_nodes n_steps start end capture_ns attribution tail_ns */
    ASSERT_EQ_STR(nl + 1, "77\t4\t3\t1\t20\t12\t100000\t160000\t15000\tnofusion\t250\n");
    free(s);
    return 0;
}

static int setup(void) {
    opscope_cap_clock_init("monotonic");
    ASSERT_TRUE(opscope_cap_ggml_ready());
    return 0;
}

TEST_MAIN(TEST(setup), TEST(test_description_written_once), TEST(test_fused_event), TEST(test_event_threads),
          TEST(test_split_record), TEST(test_graph_log_line))
