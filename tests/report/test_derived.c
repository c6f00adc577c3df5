/* test_derived.c - a record's derived values (analyze/record/derived.h): each equal to what the
 * public functions compute on its own, and made once per record in a session, shared by the
 * stats and every output that takes them. */
#include "analyze/record/derived.h"
#include "analyze/session/session.h"
#include "model/ggml_vocab.h"
#include "test.h"

#include <string.h>

/* MUL_MAT of a [64, 32] f32 weight by [64, 8] f32 activations into [32, 8] f32. */
static opscope_record mul_mat(void) {
    opscope_record r;
    opscope_record_init(&r);
    r.type = OPSCOPE_RECORD_OP;
    r.name = "MUL_MAT";
    r.duration_ns = 1000;
    r.has = OPSCOPE_HAS_OUT | OPSCOPE_HAS_SRC_TYPES;
    r.out_type = 0;
    r.ne[0] = 32, r.ne[1] = 8, r.ne[2] = 1, r.ne[3] = 1;
    r.n_src = 2;
    int64_t a[4] = {64, 32, 1, 1}, b[4] = {64, 8, 1, 1};
    memcpy(r.ne_src[0], a, sizeof a);
    memcpy(r.ne_src[1], b, sizeof b);
    r.type_src[0] = r.type_src[1] = 0;
    r.bytes = 32 * 8 * 4;
    return r;
}

/* By hand: 2 * K * M * N FLOPs; both sources read whole and the output written, 4 bytes each. */
static int test_by_hand(void) {
    opscope_record r = mul_mat();
    opscope_derived d;
    opscope_derived_init(&d, &r);
    ASSERT_EQ_U64(opscope_derived_flops(&d), 2u * 64 * 32 * 8);
    uint64_t bytes;
    const opscope_traffic *t = opscope_derived_traffic(&d, &bytes);
    ASSERT_EQ_U64(t->read_bytes, 64u * 32 * 4 + 64u * 8 * 4);
    ASSERT_EQ_U64(t->write_bytes, 32u * 8 * 4);
    ASSERT_EQ_U64(bytes, t->read_bytes + t->write_bytes);
    ASSERT_TRUE(t->flags & OPSCOPE_TRAFFIC_KNOWN);
    ASSERT_EQ_INT(opscope_derived_op(&d), opscope_ggml_op_value("MUL_MAT"));
    ASSERT_TRUE(opscope_derived_sub_op(&d, NULL) == NULL);
    ASSERT_TRUE(opscope_derived_fused(&d) == NULL);
    return 0;
}

/* Each value as the public function that computes it alone, in any order of asking. */
static int same_as_public(const opscope_record *r, bool flops_first) {
    opscope_derived d;
    opscope_derived_init(&d, r);
    if (flops_first) ASSERT_EQ_U64(opscope_derived_flops(&d), opscope_record_flops(r));
    int32_t v, pv;
    const char *sub = opscope_derived_sub_op(&d, &v), *psub = opscope_record_sub_op(r, &pv);
    ASSERT_EQ_STR(sub ? sub : "(none)", psub ? psub : "(none)");
    ASSERT_EQ_INT(v, pv);
    ASSERT_EQ_U64(opscope_derived_flops(&d), opscope_record_flops(r));
    opscope_traffic pt;
    uint64_t pb = opscope_record_traffic(r, &pt), b;
    const opscope_traffic *t = opscope_derived_traffic(&d, &b);
    ASSERT_EQ_U64(b, pb);
    ASSERT_EQ_U64(t->read_bytes, pt.read_bytes);
    ASSERT_EQ_U64(t->write_bytes, pt.write_bytes);
    ASSERT_EQ_INT(t->flags, pt.flags);
    ASSERT_EQ_INT(opscope_derived_op(&d), opscope_ggml_op_value(r->name));
    return 0;
}

static int test_same_as_public(void) {
    opscope_record r = mul_mat();
    for (int first = 0; first < 2; first++) {
        if (same_as_public(&r, first)) return 1;
        opscope_record u = r; /* SILU by its op params alone: the op decides the table */
        u.name = "UNARY";
        u.n_src = 1;
        u.has |= OPSCOPE_HAS_OP_PARAMS;
        u.op_params[0] = 10;
        if (same_as_public(&u, first)) return 1;
        u.has = OPSCOPE_HAS_SUB_OP; /* the value without a name, and -1: none */
        u.sub_op_value = 10;
        if (same_as_public(&u, first)) return 1;
        u.sub_op_value = -1;
        if (same_as_public(&u, first)) return 1;
        u.has = 0;
        u.sub_op = "SILU"; /* the name without a value */
        if (same_as_public(&u, first)) return 1;
        opscope_record f = r; /* a record carrying its own FLOPs */
        f.has |= OPSCOPE_HAS_FLOPS;
        f.flops = 7;
        if (same_as_public(&f, first)) return 1;
        opscope_record c; /* a copy: its size once, no FLOPs */
        opscope_record_init(&c);
        c.type = OPSCOPE_RECORD_COPY;
        c.name = "copy_H2D";
        c.bytes = 4096;
        if (same_as_public(&c, first)) return 1;
        c.type = OPSCOPE_RECORD_OP; /* a kernel of a trace: no ggml op */
        c.name = "volta_sgemm_128x64_nn";
        if (same_as_public(&c, first)) return 1;
    }
    return 0;
}

/* An OP's fused name in the report's vocabulary; a COPY's call as it is. */
static int test_fused(void) {
    opscope_record r = mul_mat();
    r.name = "RMS_NORM";
    r.extra = "RMS_NORM_MUL";
    r.n_fused = 2;
    opscope_derived d;
    opscope_derived_init(&d, &r);
    ASSERT_EQ_STR(opscope_derived_fused(&d), "RMS_NORM+MUL");
    char buf[64];
    ASSERT_EQ_STR(opscope_derived_display(&d, buf, sizeof buf), "RMS_NORM [fused: RMS_NORM+MUL]");
    ASSERT_EQ_STR(opscope_derived_display(&d, buf, 9), "RMS_NORM"); /* cut to SIZE - 1 */
    opscope_record c;
    opscope_record_init(&c);
    c.type = OPSCOPE_RECORD_COPY;
    c.name = "copy_H2D";
    c.extra = "tensor_set";
    opscope_derived_init(&d, &c);
    ASSERT_EQ_STR(opscope_derived_fused(&d), "tensor_set");
    ASSERT_EQ_STR(opscope_derived_display(&d, buf, sizeof buf), "copy_H2D (via tensor_set)");
    return 0;
}

/* Two outputs of one session: both see one opscope_derived per record, with what the stats
 * computed (FLOPs, traffic, the fused name, their display) already in it. */
typedef struct seen {
    opscope_derived *d[2];
    unsigned have;
    uint64_t flops;
    const char *display;
    int n;
} seen;

static int on_derived(void *ud, const opscope_record *rec, opscope_derived *d) {
    (void)rec;
    seen *s = ud;
    if (s->n < 2) s->d[s->n] = d;
    s->n++;
    s->have = d->have;
    s->flops = opscope_derived_flops(d);
    char buf[64];
    s->display = opscope_derived_display(d, buf, sizeof buf);
    s->display = s->display == buf ? NULL : s->display; /* the stats' string, not a copy */
    return 0;
}

static int test_once_in_session(void) {
    opscope_session_opts o;
    memset(&o, 0, sizeof o);
    opscope_session_t *s = opscope_session_new(&o);
    ASSERT_TRUE(s != NULL);
    seen a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    opscope_output oa = {.name = "a", .sink = {.ud = &a}, .on_derived = on_derived};
    opscope_output ob = {.name = "b", .sink = {.ud = &b}, .on_derived = on_derived};
    ASSERT_EQ_INT(opscope_session_add(s, &oa), 0);
    ASSERT_EQ_INT(opscope_session_add(s, &ob), 0);
    opscope_sink k = opscope_session_sink(s);
    opscope_record r = mul_mat();
    r.name = "RMS_NORM";
    r.extra = "RMS_NORM_MUL";
    r.n_fused = 2;
    ASSERT_EQ_INT(k.on_record(k.ud, &r), 0);
    ASSERT_EQ_INT(a.n, 1);
    ASSERT_EQ_INT(b.n, 1);
    ASSERT_TRUE(a.d[0] == b.d[0]); /* one struct for both */
    unsigned all = OPSCOPE_DERIVED_OP | OPSCOPE_DERIVED_SUB_OP | OPSCOPE_DERIVED_FLOPS |
                   OPSCOPE_DERIVED_TRAFFIC | OPSCOPE_DERIVED_FUSED;
    ASSERT_EQ_INT(a.have & all, all); /* the stats, first, computed them */
    ASSERT_EQ_U64(a.flops, opscope_record_flops(&r));
    ASSERT_TRUE(a.display != NULL);
    ASSERT_EQ_STR(a.display, "RMS_NORM [fused: RMS_NORM+MUL]");
    ASSERT_TRUE(b.display == a.display);
    r.name = "MUL_MAT";
    r.extra = NULL;
    ASSERT_EQ_INT(k.on_record(k.ud, &r), 0);
    ASSERT_EQ_U64(b.flops, 2u * 64 * 32 * 8);
    ASSERT_EQ_STR(b.display, "MUL_MAT");
    opscope_session_free(s);
    return 0;
}

TEST_MAIN(TEST(test_by_hand), TEST(test_same_as_public), TEST(test_fused), TEST(test_once_in_session))
