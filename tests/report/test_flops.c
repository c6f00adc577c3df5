/* test_flops.c - FLOPs formulas, ggml type names and sub-op names. */
#include "opscope.h"
#include "analyze/ggml/stats.h"
#include "test.h"

static void set_src(opscope_record *r, int i, int64_t a, int64_t b, int64_t c, int64_t d) {
    r->ne_src[i][0] = a;
    r->ne_src[i][1] = b;
    r->ne_src[i][2] = c;
    r->ne_src[i][3] = d;
    if (r->n_src < i + 1) r->n_src = i + 1;
}

static opscope_record op(const char *name) {
    opscope_record r;
    opscope_record_init(&r);
    r.name = name;
    return r;
}

static int test_mul_mat(void) {
    opscope_record r = op("MUL_MAT");
    set_src(&r, 0, 4096, 11008, 1, 1); /* K=4096, M=11008 */
    set_src(&r, 1, 4096, 7, 1, 1);     /* N=7 */
    ASSERT_EQ_U64(opscope_record_flops(&r), 2ull * 4096 * 11008 * 7);
    /* batched (attention KQ): broadcast over src1's batch dims */
    opscope_record b = op("MUL_MAT");
    set_src(&b, 0, 128, 256, 8, 1);
    set_src(&b, 1, 128, 7, 32, 2);
    ASSERT_EQ_U64(opscope_record_flops(&b), 2ull * 128 * 256 * 7 * 32 * 2);
    /* v2 files pad unused dims with 0: they count as 1 */
    opscope_record z = op("MUL_MAT");
    set_src(&z, 0, 64, 64, 0, 0);
    set_src(&z, 1, 64, 1, 0, 0);
    ASSERT_EQ_U64(opscope_record_flops(&z), 2ull * 64 * 64);
    /* a missing source gives 0, not a guess */
    opscope_record m = op("MUL_MAT");
    set_src(&m, 0, 64, 64, 1, 1);
    ASSERT_EQ_U64(opscope_record_flops(&m), 0);
    return 0;
}

static int test_mul_mat_id(void) {
    opscope_record r = op("MUL_MAT_ID");
    set_src(&r, 0, 2048, 768, 128, 1); /* 128 experts of 768x2048 */
    set_src(&r, 1, 2048, 8, 32, 1);    /* 32 tokens */
    set_src(&r, 2, 8, 32, 0, 0);       /* ids: 8 used experts per token */
    ASSERT_EQ_U64(opscope_record_flops(&r), 2ull * 2048 * 768 * 8 * 32);
    /* without ids, from src1's [K, used, tokens] */
    opscope_record s = op("MUL_MAT_ID");
    set_src(&s, 0, 2048, 768, 128, 1);
    set_src(&s, 1, 2048, 8, 32, 1);
    ASSERT_EQ_U64(opscope_record_flops(&s), 2ull * 2048 * 768 * 8 * 32);
    return 0;
}

static int test_flash_attn(void) {
    opscope_record r = op("FLASH_ATTN_EXT");
    set_src(&r, 0, 128, 7, 32, 1);   /* q: D=128, 7 queries, 32 heads */
    set_src(&r, 1, 128, 256, 8, 1);  /* k: 256 keys, 8 kv heads */
    set_src(&r, 2, 96, 256, 8, 1);   /* v: Dv = 96 */
    ASSERT_EQ_U64(opscope_record_flops(&r), 2ull * 128 * 7 * 256 * 32 + 2ull * 96 * 7 * 256 * 32);
    return 0;
}

static int test_conv(void) {
    opscope_record r = op("CONV_2D");
    set_src(&r, 0, 3, 3, 64, 128);  /* kernel */
    set_src(&r, 1, 56, 56, 64, 2);  /* input, batch 2 */
    r.has |= OPSCOPE_HAS_OUT;
    r.ne[0] = 54;
    r.ne[1] = 54;
    r.ne[2] = 128;
    r.ne[3] = 2;
    ASSERT_EQ_U64(opscope_record_flops(&r), 2ull * 3 * 3 * 64 * 128 * 54 * 54 * 2);
    /* from op params: stride 2, padding 1, dilation 1 -> (56 + 2 - 2 - 1) / 2 + 1 = 28 */
    opscope_record p = op("CONV_2D");
    set_src(&p, 0, 3, 3, 64, 128);
    set_src(&p, 1, 56, 56, 64, 1);
    p.has |= OPSCOPE_HAS_OP_PARAMS;
    int32_t params[6] = {2, 2, 1, 1, 1, 1};
    for (int i = 0; i < 6; i++) p.op_params[i] = params[i];
    ASSERT_EQ_U64(opscope_record_flops(&p), 2ull * 3 * 3 * 64 * 128 * 28 * 28);
    /* neither output shape nor params: unknown */
    opscope_record u = op("CONV_2D");
    set_src(&u, 0, 3, 3, 64, 128);
    set_src(&u, 1, 56, 56, 64, 1);
    ASSERT_EQ_U64(opscope_record_flops(&u), 0);
    opscope_record t = op("CONV_TRANSPOSE_2D");
    set_src(&t, 0, 4, 4, 32, 64);
    set_src(&t, 1, 16, 16, 64, 1);
    ASSERT_EQ_U64(opscope_record_flops(&t), 2ull * 4 * 4 * 32 * 64 * 16 * 16);
    return 0;
}

static int test_other(void) {
    opscope_record r = op("ADD");
    set_src(&r, 0, 4096, 7, 1, 1);
    set_src(&r, 1, 4096, 7, 1, 1);
    ASSERT_EQ_U64(opscope_record_flops(&r), 0);
    opscope_record g = op("MUL_MAT");
    set_src(&g, 0, 4096, 4096, 1, 1);
    set_src(&g, 1, 4096, 1, 1, 1);
    g.has |= OPSCOPE_HAS_FLOPS;
    g.flops = 12345;
    ASSERT_EQ_U64(opscope_record_flops(&g), 12345);
    opscope_record c = op("MUL_MAT");
    c.type = OPSCOPE_RECORD_COPY;
    set_src(&c, 0, 4096, 4096, 1, 1);
    set_src(&c, 1, 4096, 1, 1, 1);
    ASSERT_EQ_U64(opscope_record_flops(&c), 0);
    ASSERT_EQ_U64(opscope_record_flops(NULL), 0);
    return 0;
}

static int test_type_names(void) {
    ASSERT_EQ_STR(opscope_ggml_type_name(0), "f32");
    ASSERT_EQ_STR(opscope_ggml_type_name(1), "f16");
    ASSERT_EQ_STR(opscope_ggml_type_name(2), "q4_0");
    ASSERT_EQ_STR(opscope_ggml_type_name(8), "q8_0");
    ASSERT_EQ_STR(opscope_ggml_type_name(10), "q2_K");
    ASSERT_EQ_STR(opscope_ggml_type_name(14), "q6_K");
    ASSERT_EQ_STR(opscope_ggml_type_name(26), "i32");
    ASSERT_EQ_STR(opscope_ggml_type_name(30), "bf16");
    ASSERT_EQ_STR(opscope_ggml_type_name(39), "mxfp4");
    ASSERT_EQ_STR(opscope_ggml_type_name(4), "?");   /* removed Q4_2 */
    ASSERT_EQ_STR(opscope_ggml_type_name(31), "?");  /* removed Q4_0_4_4 */
    ASSERT_EQ_STR(opscope_ggml_type_name(-1), "?");
    ASSERT_EQ_STR(opscope_ggml_type_name(1000), "?");
    return 0;
}

static int test_sub_op(void) {
    opscope_record r = op("UNARY");
    ASSERT_NULL(opscope_sub_op_of(&r));
    r.has |= OPSCOPE_HAS_OP_PARAMS;
    r.op_params[0] = 10;
    ASSERT_EQ_STR(opscope_sub_op_of(&r), "SILU");
    r.op_params[0] = 999;
    ASSERT_NULL(opscope_sub_op_of(&r));
    r.sub_op = "GELU";
    ASSERT_EQ_STR(opscope_sub_op_of(&r), "GELU");
    opscope_record g = op("GLU");
    g.has |= OPSCOPE_HAS_OP_PARAMS;
    g.op_params[0] = 2;
    ASSERT_EQ_STR(opscope_sub_op_of(&g), "SWIGLU");
    opscope_record a = op("ADD");
    a.has |= OPSCOPE_HAS_OP_PARAMS;
    ASSERT_NULL(opscope_sub_op_of(&a));
    return 0;
}

TEST_MAIN(TEST(test_mul_mat), TEST(test_mul_mat_id), TEST(test_flash_attn), TEST(test_conv), TEST(test_other), TEST(test_type_names), TEST(test_sub_op))
