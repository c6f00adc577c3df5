/* Tests of the capture's state and export with a fake backend (cap_tables.c, cap_convert.c,
 * cap_replay.c, cap_write.c, cap_life.c):
 * GGML_PROFILE parsing, conversion of raw records (fused names, sub-ops, copies, ticks to
 * ns), per-scheduler filtering and reset, and the written JSON / text / summary.
 * With OPSCOPE_TEST_OUT=PREFIX it also leaves PREFIX.json for check_fake_json.py. */
#include "capture/store/cap_buf.h"
#include "capture/store/cap_clock.h"
#include "capture/life/cap_config.h"
#include "capture/store/cap_tables.h"
#include "capture/store/cap_convert.h"
#include "capture/store/cap_replay.h"
#include "capture/life/cap_write.h"
#include "test.h"

#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int test_config_values(void) {
    opscope_cap_config c;
    opscope_cap_config_parse(NULL, &c);
    ASSERT_EQ_INT(c.dest, OPSCOPE_CAP_DEST_NONE);
    opscope_cap_config_parse("", &c);
    ASSERT_EQ_INT(c.dest, OPSCOPE_CAP_DEST_STDOUT);
    opscope_cap_config_parse("1", &c);
    ASSERT_EQ_INT(c.dest, OPSCOPE_CAP_DEST_STDOUT);
    opscope_cap_config_parse("stdout", &c);
    ASSERT_EQ_INT(c.dest, OPSCOPE_CAP_DEST_STDOUT);
    opscope_cap_config_parse("stderr", &c);
    ASSERT_EQ_INT(c.dest, OPSCOPE_CAP_DEST_STDERR);
    opscope_cap_config_parse("out/p.json", &c);
    ASSERT_EQ_INT(c.dest, OPSCOPE_CAP_DEST_JSON);
    ASSERT_EQ_STR(c.path, "out/p.json");
    opscope_cap_config_parse("p.txt", &c);
    ASSERT_EQ_INT(c.dest, OPSCOPE_CAP_DEST_TEXT);
    opscope_cap_config_parse("profile.data", &c);
    ASSERT_EQ_INT(c.dest, OPSCOPE_CAP_DEST_JSON);
    opscope_cap_config_child(&c, 4242);
    ASSERT_EQ_STR(c.path, "profile.data.4242");
    opscope_cap_config_parse("0", &c); /* the seed treats any other value as a path */
    ASSERT_EQ_INT(c.dest, OPSCOPE_CAP_DEST_JSON);
    opscope_cap_config_parse("stdout", &c);
    ASSERT_TRUE(opscope_cap_config_child(&c, 7));
    ASSERT_EQ_STR(c.path, "");
    /* a path too long for the buffer is refused, never cut into another file's name */
    static char lng[sizeof c.path + 8];
    memset(lng, 'a', sizeof lng - 1);
    lng[sizeof lng - 1] = '\0';
    opscope_cap_config_parse(lng, &c);
    ASSERT_EQ_INT(c.dest, OPSCOPE_CAP_DEST_NONE);
    ASSERT_TRUE(c.too_long);
    lng[sizeof c.path - 1] = '\0'; /* the longest that fits */
    opscope_cap_config_parse(lng, &c);
    ASSERT_EQ_INT(c.dest, OPSCOPE_CAP_DEST_JSON);
    ASSERT_TRUE(!c.too_long);
    ASSERT_EQ_U64(strlen(c.path), sizeof c.path - 1);
    ASSERT_TRUE(!opscope_cap_config_child(&c, 4242)); /* PATH.4242 does not fit */
    ASSERT_EQ_INT(c.dest, OPSCOPE_CAP_DEST_NONE);
    ASSERT_EQ_STR(c.path, "");
    return 0;
}

/* ggml 0.27 enum values used by the fake graph (any distinct numbers would do). */
enum { OP_ADD = 2, OP_MUL = 7, OP_RMS_NORM = 25, OP_MUL_MAT = 29, OP_UNARY = 80, OP_GLU = 83 };

static void names(void) {
    opscope_cap_names_set(OPSCOPE_CAP_NAMES_OP, OP_ADD, "ADD");
    opscope_cap_names_set(OPSCOPE_CAP_NAMES_OP, OP_MUL, "MUL");
    opscope_cap_names_set(OPSCOPE_CAP_NAMES_OP, OP_RMS_NORM, "RMS_NORM");
    opscope_cap_names_set(OPSCOPE_CAP_NAMES_OP, OP_MUL_MAT, "MUL_MAT");
    opscope_cap_names_set(OPSCOPE_CAP_NAMES_OP, OP_UNARY, "UNARY");
    opscope_cap_names_set(OPSCOPE_CAP_NAMES_OP, OP_GLU, "GLU");
    opscope_cap_names_set(OPSCOPE_CAP_NAMES_UNARY, 10, "SILU");
    opscope_cap_names_set(OPSCOPE_CAP_NAMES_GLU, 2, "SWIGLU");
}

/* The fake backend: "computes" a graph by writing the records a CPU graph would give. */
static void fake_op(int sched, int64_t graph, int node, int op, int n_fused, const int *fused,
                    int sub_kind, int sub_op, uint64_t t0, uint64_t t1, int64_t m, int64_t k, int64_t n) {
    opscope_cap_rec *r = opscope_cap_buf_alloc(2);
    memset(r, 0, opscope_cap_rec_size(2));
    r->size = (uint16_t)opscope_cap_rec_size(2);
    r->n_src = 2;
    r->kind = OPSCOPE_CAP_KIND_OP;
    r->op = (int16_t)op;
    r->sub_kind = (int16_t)sub_kind;
    r->sub_op = (int16_t)sub_op;
    r->n_fused = (uint8_t)n_fused;
    for (int i = 0; i < n_fused; i++) r->fused[i] = (int16_t)fused[i];
    r->backend = 0;
    r->sched = (int16_t)sched;
    r->thread = 1;
    r->split = 0;
    r->node = node;
    r->graph = graph;
    r->t0 = t0;
    r->t1 = t1;
    r->bytes = (uint64_t)(m * n * 4);
    r->out_type = 0;
    r->ne[0] = m; r->ne[1] = n; r->ne[2] = 1; r->ne[3] = 1;
    r->src[0].ne[0] = k; r->src[0].ne[1] = m; r->src[0].ne[2] = 1; r->src[0].ne[3] = 1;
    r->src[1].ne[0] = k; r->src[1].ne[1] = n; r->src[1].ne[2] = 1; r->src[1].ne[3] = 1;
    r->src[0].nb[0] = 4; r->src[1].nb[0] = 4;
    r->src[0].type = 0; r->src[1].type = 0;
    r->op_params[0] = sub_op;
    snprintf(r->name, sizeof r->name, "node-%d", node);
    opscope_cap_buf_commit(r);
}

static void fake_copy(int sched, int dir, int api, uint64_t t0, uint64_t t1, uint64_t bytes) {
    opscope_cap_rec *r = opscope_cap_buf_alloc(1);
    memset(r, 0, opscope_cap_rec_size(1));
    r->size = (uint16_t)opscope_cap_rec_size(1);
    r->n_src = 1;
    r->kind = OPSCOPE_CAP_KIND_COPY;
    r->op = (int16_t)dir;
    r->api = (int16_t)api;
    r->n_fused = 1;
    r->backend = OPSCOPE_CAP_BACKEND_HOST;
    r->sched = (int16_t)sched;
    r->graph = -1;
    r->split = -1;
    r->node = -1;
    r->t0 = t0;
    r->t1 = t1;
    r->bytes = bytes;
    r->src[0].type = 0;
    snprintf(r->name, sizeof r->name, "inp_embd");
    opscope_cap_buf_commit(r);
}

/* The fake CPU backend's entry (index 0: added first, the table is never emptied). */
static int fake_cpu(void) {
    opscope_cap_backend e = {.key = (void *)0x1000, .name = "CPU", .device = "Fake CPU",
                             .device_type = OPSCOPE_DEVICE_CPU};
    return opscope_cap_backend_add(&e);
}

static void fake_profile(void) {
    opscope_cap_buf_reset_all();
    names();
    fake_cpu();
    int s0 = opscope_cap_sched_id((void *)0xA000);
    int s1 = opscope_cap_sched_id((void *)0xB000);
    const int fused[2] = {OP_RMS_NORM, OP_MUL};
    const int one_mm[1] = {OP_MUL_MAT};
    const int one_u[1] = {OP_UNARY};
    const int one_g[1] = {OP_GLU};
    fake_copy(s0, OPSCOPE_CAP_COPY_H2H, OPSCOPE_CAP_API_SET, 1000, 1100, 4096);
    fake_op(s0, 0, 1, OP_RMS_NORM, 2, fused, 0, 0, 1100, 1300, 256, 256, 1);
    fake_op(s0, 0, 3, OP_MUL_MAT, 1, one_mm, 0, 0, 1300, 3300, 512, 256, 1);
    fake_op(s0, 0, 4, OP_UNARY, 1, one_u, OPSCOPE_CAP_SUB_UNARY, 10, 3300, 3400, 512, 512, 1);
    fake_op(s0, 0, 5, OP_GLU, 1, one_g, OPSCOPE_CAP_SUB_GLU, 2, 3400, 3500, 512, 512, 1);
    fake_op(s1, 1, 0, OP_MUL_MAT, 1, one_mm, 0, 0, 2000, 2500, 64, 64, 8);
}

typedef struct collect {
    opscope_record r[16];
    char names[16][64], extras[16][128], subs[16][32], tnames[16][80];
    int n, n_backends;
    uint64_t dropped;
} collect;

static int c_meta(void *ud, const opscope_meta *m) {
    ((collect *)ud)->dropped = m->dropped_records;
    return 0;
}
static int c_backend(void *ud, const opscope_backend *b) {
    (void)b;
    ((collect *)ud)->n_backends++;
    return 0;
}
static int c_record(void *ud, const opscope_record *r) {
    collect *c = ud;
    if (c->n >= 16) return 1;
    int i = c->n++;
    c->r[i] = *r;
    snprintf(c->names[i], 64, "%s", r->name);
    snprintf(c->extras[i], 128, "%s", r->extra ? r->extra : "(null)");
    snprintf(c->subs[i], 32, "%s", r->sub_op ? r->sub_op : "(null)");
    snprintf(c->tnames[i], 80, "%s", r->tensor_name ? r->tensor_name : "(null)");
    return 0;
}

static int test_replay_converts(void) {
    fake_profile();
    collect c = {0};
    opscope_sink s = {&c, c_meta, c_backend, c_record, NULL};
    ASSERT_EQ_INT(opscope_cap_replay(-2, &s), 0);
    ASSERT_EQ_INT(c.n, 6);
    ASSERT_EQ_INT(c.n_backends, 1);
    /* sorted by start: copy(1000) fused(1100) mm(1300) other-sched mm(2000) unary glu */
    ASSERT_EQ_STR(c.names[0], "copy_H2H");
    ASSERT_EQ_STR(c.extras[0], "tensor_set");
    ASSERT_EQ_INT(c.r[0].backend_id, 0); /* host copy resolved to the CPU backend */
    ASSERT_EQ_U64(c.r[0].bytes, 4096);
    ASSERT_EQ_STR(c.names[1], "RMS_NORM");
    ASSERT_EQ_STR(c.extras[1], "RMS_NORM+MUL");
    ASSERT_EQ_INT(c.r[1].n_fused, 2);
    ASSERT_EQ_U64(c.r[1].duration_ns, 200);
    ASSERT_EQ_STR(c.names[2], "MUL_MAT");
    ASSERT_EQ_U64(c.r[2].duration_ns, 2000);
    /* FLOPs of MUL_MAT: 2*K*M*N = 2*256*512*1, derived by the consumer: the capture gives
     * none of its own (OPSCOPE_HAS_FLOPS means "given by the input") */
    ASSERT_TRUE(!(c.r[2].has & OPSCOPE_HAS_FLOPS));
    ASSERT_EQ_U64(c.r[2].flops, 0);
    ASSERT_EQ_U64(opscope_record_flops(&c.r[2]), 2ull * 256 * 512);
    ASSERT_EQ_STR(c.tnames[2], "node-3");
    ASSERT_EQ_INT(c.r[2].node_index, 3);
    ASSERT_EQ_INT((int)c.r[2].graph_id, 0);
    ASSERT_EQ_INT(c.r[2].n_src, 2);
    ASSERT_EQ_INT((int)c.r[2].ne_src[0][0], 256);
    ASSERT_EQ_INT((int)c.r[2].ne_src[1][1], 1);
    ASSERT_EQ_STR(c.names[3], "MUL_MAT");
    ASSERT_EQ_STR(c.names[4], "UNARY");
    ASSERT_EQ_STR(c.subs[4], "SILU");
    ASSERT_EQ_STR(c.names[5], "GLU");
    ASSERT_EQ_STR(c.subs[5], "SWIGLU");
    ASSERT_EQ_U64(c.dropped, 0);
    return 0;
}

static int test_sched_filter_and_reset(void) {
    fake_profile();
    collect c = {0};
    opscope_sink s = {&c, NULL, NULL, c_record, NULL};
    int s1 = opscope_cap_sched_find((void *)0xB000);
    ASSERT_GE_INT(s1, 0);
    ASSERT_EQ_INT(opscope_cap_replay(s1, &s), 0);
    ASSERT_EQ_INT(c.n, 1);
    ASSERT_EQ_U64(c.r[0].duration_ns, 500);
    /* reset hides what came before now (fake ticks are all in the past) */
    opscope_cap_sched_reset(s1);
    collect c2 = {0};
    opscope_sink s2 = {&c2, NULL, NULL, c_record, NULL};
    ASSERT_EQ_INT(opscope_cap_replay(s1, &s2), 0);
    ASSERT_EQ_INT(c2.n, 0);
    /* freeing both schedulers reports "none left" once */
    ASSERT_TRUE(!opscope_cap_sched_freed((void *)0xA000));
    ASSERT_TRUE(opscope_cap_sched_freed((void *)0xB000));
    ASSERT_TRUE(!opscope_cap_sched_freed((void *)0xB000));
    return 0;
}

/* Entries of directory PATH other than . and .. (-1 when it cannot be read). */
static int count_entries(const char *path) {
    DIR *d = opendir(path);
    if (!d) return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    }
    closedir(d);
    return n;
}

static int test_write_json_text_summary(void) {
    fake_profile();
    const char *prefix = getenv("OPSCOPE_TEST_OUT");
    char jpath[512], tpath[512];
    snprintf(jpath, sizeof jpath, "%s.json", prefix ? prefix : "cap_fake");
    snprintf(tpath, sizeof tpath, "%s.txt", prefix ? prefix : "cap_fake");
    ASSERT_EQ_INT(opscope_cap_write(OPSCOPE_CAP_DEST_JSON, jpath, NULL, -2), 0);
    ASSERT_EQ_INT(opscope_cap_write(OPSCOPE_CAP_DEST_TEXT, tpath, NULL, -2), 0);
    char *j = test_slurp(jpath, NULL), *t = test_slurp(tpath, NULL);
    ASSERT_NOT_NULL(j);
    ASSERT_NOT_NULL(t);
    ASSERT_CONTAINS(j, "\"version\":3");
    ASSERT_CONTAINS(j, "RMS_NORM+MUL");
    ASSERT_CONTAINS(j, "\"total_records\":6");
    ASSERT_CONTAINS(t, "MUL_MAT");
    free(j);
    free(t);
    FILE *fp = tmpfile();
    ASSERT_NOT_NULL(fp);
    ASSERT_EQ_INT(opscope_cap_write(OPSCOPE_CAP_DEST_STDOUT, NULL, fp, -2), 0);
    ASSERT_GT_INT(ftell(fp), 100);
    fclose(fp);
    /* an unwritable path fails cleanly */
    ASSERT_EQ_INT(opscope_cap_write(OPSCOPE_CAP_DEST_JSON, "/nonexistent-dir/p.json", NULL, -2), -1);
    /* a failure after the whole profile was written (it cannot be renamed over a directory)
     * leaves nothing behind: no temporary file beside the target, the target untouched */
    char dir[] = "/tmp/opscope-capexport-XXXXXX";
    ASSERT_NOT_NULL(mkdtemp(dir));
    char target[600], keep[700];
    snprintf(target, sizeof target, "%s/p.json", dir);
    snprintf(keep, sizeof keep, "%s/keep", target);
    ASSERT_EQ_INT(mkdir(target, 0700), 0);
    FILE *kf = fopen(keep, "w");
    ASSERT_NOT_NULL(kf);
    fclose(kf);
    ASSERT_EQ_INT(opscope_cap_write(OPSCOPE_CAP_DEST_JSON, target, NULL, -2), -1);
    ASSERT_EQ_INT(count_entries(dir), 1);    /* p.json only */
    ASSERT_EQ_INT(count_entries(target), 1); /* keep only */
    ASSERT_EQ_INT(unlink(keep), 0);
    ASSERT_EQ_INT(rmdir(target), 0);
    ASSERT_EQ_INT(rmdir(dir), 0);
    return 0;
}

/* A shared description and two events pointing at it, as the hot path writes them. */
static int test_events_share_description(void) {
    opscope_cap_buf_reset_all();
    names();
    fake_cpu();
    opscope_cap_rec *d = opscope_cap_buf_alloc(2);
    ASSERT_NOT_NULL(d);
    uint16_t size = d->size;
    memset(d, 0, size);
    d->size = size;
    d->n_src = 2;
    d->kind = OPSCOPE_CAP_KIND_DESC;
    d->op = OP_MUL_MAT;
    d->ne[0] = 64; d->ne[1] = 3; d->ne[2] = 1; d->ne[3] = 1;
    d->src[0].ne[0] = 32; d->src[0].ne[1] = 64; d->src[0].ne[2] = 1; d->src[0].ne[3] = 1;
    d->src[1].ne[0] = 32; d->src[1].ne[1] = 3; d->src[1].ne[2] = 1; d->src[1].ne[3] = 1;
    d->src[0].type = 8;
    d->src[1].type = 0;
    snprintf(d->name, sizeof d->name, "ffn_up-0");
    opscope_cap_buf_commit(d);
    for (int i = 0; i < 2; i++) {
        size_t eb = (sizeof(opscope_cap_event) + 7u) & ~(size_t)7u;
        opscope_cap_event *e = opscope_cap_buf_alloc_bytes(eb);
        ASSERT_NOT_NULL(e);
        memset(e, 0, eb);
        e->size = (uint16_t)eb;
        e->kind = OPSCOPE_CAP_KIND_EVENT;
        e->n_fused = 1;
        e->backend = 0;
        e->sched = -1;
        e->thread = 3;
        e->split = 1;
        e->node = 7;
        e->graph = 10 + i;
        e->t0 = 5000 + 1000 * (uint64_t)i;
        e->t1 = e->t0 + 300 + (uint64_t)i;
        e->bytes = 768;
        e->desc = d;
        opscope_cap_buf_commit_bytes(eb);
    }
    collect c = {0};
    opscope_sink s = {&c, NULL, NULL, c_record, NULL};
    ASSERT_EQ_INT(opscope_cap_replay(-2, &s), 0);
    ASSERT_EQ_INT(c.n, 2); /* the description itself is no record */
    for (int i = 0; i < 2; i++) {
        ASSERT_EQ_STR(c.names[i], "MUL_MAT");
        ASSERT_EQ_STR(c.tnames[i], "ffn_up-0");
        ASSERT_EQ_INT((int)c.r[i].graph_id, 10 + i);
        ASSERT_EQ_INT(c.r[i].node_index, 7);
        ASSERT_EQ_INT(c.r[i].split_id, 1);
        ASSERT_EQ_INT(c.r[i].thread_id, 3);
        ASSERT_EQ_U64(c.r[i].duration_ns, 300 + (uint64_t)i);
        ASSERT_EQ_U64(c.r[i].bytes, 768);
        ASSERT_EQ_INT(c.r[i].type_src[0], 8);
        ASSERT_EQ_INT((int)c.r[i].ne_src[1][1], 3);
        ASSERT_TRUE(!(c.r[i].has & OPSCOPE_HAS_FLOPS));
        ASSERT_EQ_U64(opscope_record_flops(&c.r[i]), 2ull * 32 * 64 * 3);
    }
    return 0;
}

/* A plan page of two steps written once, and two CALL records (computes of that graph)
 * holding only step times, as the cached hot path writes them. */
static int test_calls_expand_plan_pages(void) {
    opscope_cap_buf_reset_all();
    names();
    fake_cpu();
    opscope_cap_rec *d[2];
    for (int i = 0; i < 2; i++) {
        d[i] = opscope_cap_buf_alloc(1);
        ASSERT_NOT_NULL(d[i]);
        uint16_t size = d[i]->size;
        memset(d[i], 0, size);
        d[i]->size = size;
        d[i]->n_src = 1;
        d[i]->kind = OPSCOPE_CAP_KIND_DESC;
        d[i]->op = i == 0 ? OP_RMS_NORM : OP_MUL_MAT;
        d[i]->ne[0] = 16; d[i]->ne[1] = 2; d[i]->ne[2] = 1; d[i]->ne[3] = 1;
        d[i]->src[0].ne[0] = 16; d[i]->src[0].ne[1] = 2; d[i]->src[0].ne[2] = 1; d[i]->src[0].ne[3] = 1;
        snprintf(d[i]->name, sizeof d[i]->name, i == 0 ? "norm-0" : "out");
        opscope_cap_buf_commit(d[i]);
    }
    size_t ps = opscope_cap_page_size(2);
    opscope_cap_plan_page *pg = opscope_cap_buf_alloc_bytes(ps);
    ASSERT_NOT_NULL(pg);
    memset(pg, 0, ps);
    pg->size = (uint16_t)ps;
    pg->kind = OPSCOPE_CAP_KIND_PLAN;
    pg->n = 2;
    pg->step[0].desc = d[0];
    pg->step[0].node = 3;
    pg->step[0].n_fused = 2;
    pg->step[0].fused[0] = OP_RMS_NORM;
    pg->step[0].fused[1] = OP_MUL;
    pg->step[0].bytes = 128;
    pg->step[1].desc = d[1];
    pg->step[1].node = 9;
    pg->step[1].n_fused = 1;
    pg->step[1].bytes = 4096;
    opscope_cap_buf_commit_bytes(ps);
    for (int i = 0; i < 2; i++) {
        size_t cs = opscope_cap_call_size(2);
        opscope_cap_call *c = opscope_cap_buf_alloc_bytes(cs);
        ASSERT_NOT_NULL(c);
        memset(c, 0, cs);
        c->size = (uint16_t)cs;
        c->kind = OPSCOPE_CAP_KIND_CALL;
        c->backend = 0;
        c->sched = 0;
        c->thread = 2;
        c->split = 4;
        c->n = 2;
        c->graph = 20 + i;
        c->page = pg;
        uint64_t base = 100000 + 10000 * (uint64_t)i;
        c->t[0] = base;
        c->t[1] = base + 700;
        c->t[2] = base + 700;
        c->t[3] = base + 2000 + (uint64_t)i;
        opscope_cap_buf_commit_bytes(cs);
    }
    collect c = {0};
    opscope_sink s = {&c, NULL, NULL, c_record, NULL};
    ASSERT_EQ_INT(opscope_cap_replay(-2, &s), 0);
    ASSERT_EQ_INT(c.n, 4); /* descriptions and the page are no records */
    const char *want_name[4] = {"RMS_NORM", "MUL_MAT", "RMS_NORM", "MUL_MAT"};
    const char *want_tname[4] = {"norm-0", "out", "norm-0", "out"};
    uint64_t want_dur[4] = {700, 1300, 700, 1301};
    int want_node[4] = {3, 9, 3, 9};
    uint64_t want_bytes[4] = {128, 4096, 128, 4096};
    for (int i = 0; i < 4; i++) {
        ASSERT_EQ_STR(c.names[i], want_name[i]);
        ASSERT_EQ_STR(c.tnames[i], want_tname[i]);
        ASSERT_EQ_INT((int)c.r[i].graph_id, 20 + i / 2);
        ASSERT_EQ_INT(c.r[i].node_index, want_node[i]);
        ASSERT_EQ_INT(c.r[i].split_id, 4);
        ASSERT_EQ_INT(c.r[i].thread_id, 2);
        ASSERT_EQ_U64(c.r[i].duration_ns, want_dur[i]);
        ASSERT_EQ_U64(c.r[i].bytes, want_bytes[i]);
    }
    ASSERT_EQ_INT(c.r[0].n_fused, 2);
    ASSERT_EQ_INT(c.r[1].n_fused, 1);
    ASSERT_EQ_U64(c.r[2].start_ns, 110000);
    /* the scheduler filter sees the calls' scheduler */
    collect c2 = {0};
    opscope_sink s2 = {&c2, NULL, NULL, c_record, NULL};
    ASSERT_EQ_INT(opscope_cap_replay(1, &s2), 0);
    ASSERT_EQ_INT(c2.n, 0);
    return 0;
}

/* Every ggml call a COPY record can name, through the one table (opscope_cap_copy_api). */
static int test_copy_api_names(void) {
    static const char *const want[OPSCOPE_CAP_API_COUNT] = {
        "tensor_copy", "tensor_set", "tensor_get", "tensor_set_async", "tensor_get_async",
        "tensor_set_2d", "tensor_get_2d", "tensor_set_2d_async", "tensor_get_2d_async",
        "cpy_tensor_async"};
    opscope_cap_buf_reset_all();
    fake_cpu();
    for (int api = 0; api < OPSCOPE_CAP_API_COUNT; api++) {
        fake_copy(-1, OPSCOPE_CAP_COPY_H2D, api, 100 + (uint64_t)api, 101 + (uint64_t)api, 64);
    }
    fake_copy(-1, OPSCOPE_CAP_COPY_H2D, OPSCOPE_CAP_API_COUNT, 900, 901, 64);
    collect c = {0};
    opscope_sink s = {&c, NULL, NULL, c_record, NULL};
    ASSERT_EQ_INT(opscope_cap_replay(-2, &s), 0);
    ASSERT_EQ_INT(c.n, OPSCOPE_CAP_API_COUNT + 1);
    for (int api = 0; api < OPSCOPE_CAP_API_COUNT; api++) {
        ASSERT_EQ_STR(c.extras[api], want[api]);
        ASSERT_EQ_STR(c.names[api], "copy_H2D");
    }
    ASSERT_EQ_STR(c.extras[OPSCOPE_CAP_API_COUNT], "(null)"); /* unknown: no name */
    ASSERT_NULL(opscope_cap_copy_api_name(-1));
    return 0;
}

/* Backend entries appear whole: a thread that finds one (as a compute on another thread does)
 * sees every field set by the thread that added it. Under ThreadSanitizer (make tsan) this
 * also checks that the publication orders those writes before the reads. */
#define PUB_N 48
static atomic_int g_pub_go;

static void *pub_add(void *arg) {
    (void)arg;
    while (!atomic_load(&g_pub_go)) {
    }
    for (int k = 0; k < PUB_N; k++) {
        opscope_cap_backend e = {.key = (void *)(uintptr_t)(0x9000 + 16 * k), .name = "Vulkan",
                                 .device = "fake", .device_type = OPSCOPE_DEVICE_GPU,
                                 .dev = (void *)(uintptr_t)(0x7000 + 16 * k),
                                 .set_abort = (void *)(uintptr_t)(0x5000 + 16 * k)};
        opscope_cap_backend_add(&e);
    }
    return NULL;
}

static void *pub_read(void *arg) {
    int *bad = arg;
    while (!atomic_load(&g_pub_go)) {
    }
    for (int k = 0; k < PUB_N; k++) {
        const void *key = (void *)(uintptr_t)(0x9000 + 16 * k);
        int i;
        while ((i = opscope_cap_backend_find(key, (void *)(uintptr_t)(0x7000 + 16 * k))) < 0) {
        }
        const opscope_cap_backend *b = opscope_cap_backend_at(i);
        *bad += b->set_abort != (void *)(uintptr_t)(0x5000 + 16 * k) ||
                b->dev != (void *)(uintptr_t)(0x7000 + 16 * k) || strcmp(b->name, "Vulkan") != 0 ||
                b->device_type != OPSCOPE_DEVICE_GPU || atomic_load(&b->user_cb) != NULL;
    }
    return NULL;
}

static int test_backend_entries_published_whole(void) {
    ASSERT_LE_INT(opscope_cap_backend_count() + PUB_N, OPSCOPE_CAP_MAX_BACKENDS);
    int bad = 0;
    pthread_t a, r;
    atomic_store(&g_pub_go, 0);
    ASSERT_EQ_INT(pthread_create(&r, NULL, pub_read, &bad), 0);
    ASSERT_EQ_INT(pthread_create(&a, NULL, pub_add, NULL), 0);
    atomic_store(&g_pub_go, 1);
    pthread_join(a, NULL);
    pthread_join(r, NULL);
    ASSERT_EQ_INT(bad, 0);
    /* adding a known backend again returns its entry, unchanged */
    void *key = (void *)(uintptr_t)0x9000, *dev = (void *)(uintptr_t)0x7000;
    opscope_cap_backend again = {.key = key, .dev = dev, .name = "other"};
    int i = opscope_cap_backend_add(&again);
    ASSERT_EQ_INT(i, opscope_cap_backend_find(key, dev));
    ASSERT_EQ_STR(opscope_cap_backend_at(i)->name, "Vulkan");
    return 0;
}

/* llama-bench frees a context's backends and makes new ones: a new backend on another device
 * at a freed one's address must get its own entry (a CPU entry's abort-callback setter called
 * on a Vulkan backend makes ggml abort), and the newest entry of an address wins. */
static int test_backend_address_reused(void) {
    void *key = (void *)(uintptr_t)0xa000, *cpu = (void *)(uintptr_t)0xb000, *gpu = (void *)(uintptr_t)0xc000;
    opscope_cap_backend c = {.key = key, .dev = cpu, .name = "CPU", .set_abort = (void *)(uintptr_t)0xd000};
    int ic = opscope_cap_backend_add(&c);
    ASSERT_GE_INT(ic, 0);
    ASSERT_EQ_INT(opscope_cap_backend_find(key, gpu), -1);
    opscope_cap_backend v = {.key = key, .dev = gpu, .name = "Vulkan0"};
    int iv = opscope_cap_backend_add(&v);
    ASSERT_GT_INT(iv, ic);
    ASSERT_EQ_STR(opscope_cap_backend_at(iv)->name, "Vulkan0");
    ASSERT_TRUE(opscope_cap_backend_at(iv)->set_abort == NULL);
    ASSERT_EQ_INT(opscope_cap_backend_find(key, gpu), iv);
    ASSERT_EQ_INT(opscope_cap_backend_find(key, cpu), -1);
    /* and back to a CPU backend there: a third entry, not the stale first one */
    int ic2 = opscope_cap_backend_add(&c);
    ASSERT_GT_INT(ic2, iv);
    ASSERT_EQ_INT(opscope_cap_backend_find(key, cpu), ic2);
    return 0;
}

/* A backend the program frees: its entry is marked, so a new backend at the same address, on
 * the same device too, gets its own entry (not the freed one's abort callbacks), and the
 * lookup by address alone finds the new one. */
static int test_backend_freed_entry(void) {
    void *key = (void *)(uintptr_t)0xe000, *cpu = (void *)(uintptr_t)0xe100;
    opscope_cap_backend c = {.key = key, .dev = cpu, .name = "CPU", .set_abort = (void *)(uintptr_t)0xd000};
    int i1 = opscope_cap_backend_add(&c);
    ASSERT_GE_INT(i1, 0);
    atomic_store(&opscope_cap_backend_at(i1)->user_cb, (void *)(uintptr_t)0x1234);
    ASSERT_EQ_INT(opscope_cap_backend_find_live(key), i1);
    ASSERT_EQ_INT(opscope_cap_backend_add(&c), i1); /* not freed: the same entry */
    opscope_cap_backend_freed(key);
    ASSERT_EQ_INT(opscope_cap_backend_find_live(key), -1);
    ASSERT_EQ_INT(opscope_cap_backend_find(key, cpu), -1);
    int i2 = opscope_cap_backend_add(&c);
    ASSERT_GT_INT(i2, i1);
    ASSERT_NULL(atomic_load(&opscope_cap_backend_at(i2)->user_cb));
    ASSERT_EQ_INT(opscope_cap_backend_find_live(key), i2);
    ASSERT_EQ_INT(opscope_cap_backend_find(key, cpu), i2);
    /* the old entry stays for the records that name it */
    ASSERT_EQ_STR(opscope_cap_backend_at(i1)->name, "CPU");
    /* a free of an address never seen, or of a device entry's key, marks nothing */
    int n = opscope_cap_backend_count();
    opscope_cap_backend_freed((void *)(uintptr_t)0xe200);
    opscope_cap_backend d = {.key = cpu, .dev = cpu, .is_device_key = true, .name = "CPU"};
    int id = opscope_cap_backend_add(&d);
    opscope_cap_backend_freed(cpu);
    ASSERT_EQ_INT(opscope_cap_backend_find_dev(cpu), i1);
    ASSERT_EQ_INT(opscope_cap_backend_find(cpu, cpu), id);
    ASSERT_EQ_INT(opscope_cap_backend_count(), n + 1);
    return 0;
}

static int test_clock_monotonic_identity(void) {
    /* in monotonic mode a tick is a nanosecond */
    ASSERT_EQ_U64(opscope_cap_ticks_to_ns(123456789), 123456789);
    uint64_t a = opscope_cap_now(), b = opscope_cap_now();
    ASSERT_GE_U64(b, a);
    return 0;
}

static int setup(void) {
    opscope_cap_clock_init("monotonic");
    return 0;
}

TEST_MAIN(TEST(setup), TEST(test_config_values), TEST(test_replay_converts),
          TEST(test_sched_filter_and_reset), TEST(test_write_json_text_summary),
          TEST(test_events_share_description), TEST(test_calls_expand_plan_pages),
          TEST(test_copy_api_names), TEST(test_backend_entries_published_whole),
          TEST(test_backend_address_reused), TEST(test_backend_freed_entry),
          TEST(test_clock_monotonic_identity))
