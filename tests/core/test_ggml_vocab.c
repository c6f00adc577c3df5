/* test_ggml_vocab.c - ggml's vocabulary tables (model/ggml_vocab.h): lookups by name and by
 * value against ggml 0.27's own numbering (ggml.h), the traits, types and sub-ops. */
#include "../test.h"

#include "model/ggml_vocab.h"
#include "opscope.h"

#include <pthread.h>

static int test_values_are_ggml_enum(void) {
    /* enum ggml_op of ggml 0.27's ggml.h */
    ASSERT_EQ_INT(opscope_ggml_op_value("NONE"), 0);
    ASSERT_EQ_INT(opscope_ggml_op_value("MUL_MAT"), 29);
    ASSERT_EQ_INT(opscope_ggml_op_value("MUL_MAT_ID"), 30);
    ASSERT_EQ_INT(opscope_ggml_op_value("SET_ROWS"), 42);
    ASSERT_EQ_INT(opscope_ggml_op_value("FLASH_ATTN_EXT"), 74);
    ASSERT_EQ_INT(opscope_ggml_op_value("GLU"), 100);
    ASSERT_EQ_INT(OPSCOPE_GGML_OP_MUL_MAT, 29);
    ASSERT_EQ_INT(OPSCOPE_GGML_OP_COUNT, 101);
    ASSERT_EQ_INT(opscope_ggml_op_count(), 101);
    return 0;
}

static int test_every_name_round_trips(void) {
    for (int v = 0; v < opscope_ggml_op_count(); v++) {
        const char *n = opscope_ggml_op_name(v);
        ASSERT_NOT_NULL(n);
        ASSERT_EQ_INT(opscope_ggml_op_value(n), v);
        ASSERT_EQ_INT(opscope_ggml_op_value_n(n, strlen(n)), v);
        ASSERT_TRUE(opscope_ggml_op_is(n, (opscope_ggml_op)v));
    }
    ASSERT_NULL(opscope_ggml_op_name(-1));
    ASSERT_NULL(opscope_ggml_op_name(101));
    return 0;
}

static int test_not_ops(void) {
    ASSERT_EQ_INT(opscope_ggml_op_value(NULL), -1);
    ASSERT_EQ_INT(opscope_ggml_op_value(""), -1);
    ASSERT_EQ_INT(opscope_ggml_op_value("mul_mat_vec_f32"), -1);
    ASSERT_EQ_INT(opscope_ggml_op_value("MUL_MA"), -1);
    ASSERT_EQ_INT(opscope_ggml_op_value("MUL_MAT_"), -1);
    ASSERT_EQ_INT(opscope_ggml_op_value("MUL_MATX"), -1);
    ASSERT_EQ_INT(opscope_ggml_op_value("GRAPH_SPLIT"), -1);
    ASSERT_EQ_INT(opscope_ggml_op_value("TOPK_MOE_LATE_SOFTMAX_AND_A_NAME_LONGER_THAN_ANY_OP"), -1);
    ASSERT_TRUE(!opscope_ggml_op_is("MUL_MAT_ID", OPSCOPE_GGML_OP_MUL_MAT));
    ASSERT_TRUE(!opscope_ggml_op_is(NULL, OPSCOPE_GGML_OP_MUL_MAT));
    return 0;
}

static int test_parts_of_names(void) {
    /* ggml-vulkan's fused names join ops with '_': "RMS_NORM_MUL" */
    ASSERT_EQ_INT(opscope_ggml_op_value_n("RMS_NORM_MUL", 8), 25);
    ASSERT_EQ_INT(opscope_ggml_op_value_n("RMS_NORM_MUL", 12), -1);
    ASSERT_EQ_INT(opscope_ggml_op_value_n("MUL_MAT_ID", 7), 29);
    ASSERT_EQ_INT(opscope_ggml_op_value_n("MUL_MAT_ID", 0), -1);
    return 0;
}

static int test_traits(void) {
    ASSERT_EQ_INT(opscope_ggml_op_flops(OPSCOPE_GGML_OP_MUL_MAT), OPSCOPE_GGML_FLOPS_MUL_MAT);
    ASSERT_EQ_INT(opscope_ggml_op_flops(OPSCOPE_GGML_OP_ADD), OPSCOPE_GGML_FLOPS_NONE);
    ASSERT_EQ_INT(opscope_ggml_op_flops(-1), OPSCOPE_GGML_FLOPS_NONE);
    ASSERT_EQ_INT(opscope_ggml_op_traffic(OPSCOPE_GGML_OP_SET_ROWS), OPSCOPE_GGML_TRAFFIC_SET_ROWS);
    ASSERT_EQ_INT(opscope_ggml_op_traffic(-1), OPSCOPE_GGML_TRAFFIC_SRCS);
    /* ggml computes nothing for these five (ggml_op_is_empty in ggml-impl.h) */
    int views = 0;
    for (int v = 0; v < opscope_ggml_op_count(); v++) views += opscope_ggml_op_is_view(v);
    ASSERT_EQ_INT(views, 5);
    ASSERT_TRUE(opscope_ggml_op_is_view(opscope_ggml_op_value("NONE")));
    ASSERT_TRUE(opscope_ggml_op_is_view(opscope_ggml_op_value("VIEW")));
    ASSERT_TRUE(opscope_ggml_op_is_view(opscope_ggml_op_value("RESHAPE")));
    ASSERT_TRUE(opscope_ggml_op_is_view(opscope_ggml_op_value("PERMUTE")));
    ASSERT_TRUE(opscope_ggml_op_is_view(opscope_ggml_op_value("TRANSPOSE")));
    ASSERT_TRUE(opscope_ggml_op_has_sub_op(opscope_ggml_op_value("UNARY")));
    ASSERT_TRUE(!opscope_ggml_op_has_sub_op(opscope_ggml_op_value("ADD")));
    return 0;
}

static int test_types_and_sub_ops(void) {
    /* ggml_type_size / ggml_blck_size of ggml 0.27 */
    ASSERT_EQ_U64(opscope_ggml_type_bytes(0, 10), 40);   /* f32 */
    ASSERT_EQ_U64(opscope_ggml_type_bytes(2, 64), 36);   /* q4_0: 18 bytes per 32 */
    ASSERT_EQ_U64(opscope_ggml_type_bytes(12, 256), 144); /* q4_K */
    ASSERT_EQ_U64(opscope_ggml_type_bytes(4, 32), 0);    /* removed (q4_2) */
    ASSERT_EQ_STR(opscope_ggml_type_name(8), "q8_0");
    ASSERT_EQ_STR(opscope_ggml_type_name(30), "bf16");
    ASSERT_EQ_STR(opscope_ggml_type_name(4), "?");
    ASSERT_EQ_STR(opscope_ggml_type_name(-1), "?");
    /* enum ggml_unary_op / ggml_glu_op */
    ASSERT_EQ_STR(opscope_sub_op_name("UNARY", 10), "SILU");
    ASSERT_EQ_STR(opscope_sub_op_name("GLU", 2), "SWIGLU");
    ASSERT_NULL(opscope_sub_op_name("ADD", 0));
    ASSERT_EQ_INT(opscope_sub_op_value("UNARY", "GELU"), 8);
    ASSERT_EQ_INT(opscope_sub_op_value("GLU", "SWIGLU_CLAMP"), 6);
    return 0;
}

static int test_sub_op_enums(void) {
    /* enum ggml_unary_op / ggml_glu_op of ggml 0.27's ggml.h */
    ASSERT_EQ_INT(OPSCOPE_GGML_UNARY_OP_SIGMOID, 7);
    ASSERT_EQ_INT(OPSCOPE_GGML_UNARY_OP_GELU, 8);
    ASSERT_EQ_INT(OPSCOPE_GGML_UNARY_OP_SILU, 10);
    ASSERT_EQ_INT(OPSCOPE_GGML_UNARY_OP_SOFTPLUS, 15);
    ASSERT_EQ_INT(OPSCOPE_GGML_UNARY_OP_COUNT, 22);
    ASSERT_EQ_INT(OPSCOPE_GGML_GLU_OP_SWIGLU, 2);
    ASSERT_EQ_INT(OPSCOPE_GGML_GLU_OP_COUNT, 7);
    ASSERT_EQ_STR(opscope_ggml_unary_op_names[OPSCOPE_GGML_UNARY_OP_TRUNC], "TRUNC");
    ASSERT_EQ_STR(opscope_ggml_glu_op_names[OPSCOPE_GGML_GLU_OP_SWIGLU_CLAMP], "SWIGLU_CLAMP");
    ASSERT_TRUE(opscope_ggml_unary_op_is("SILU", OPSCOPE_GGML_UNARY_OP_SILU));
    ASSERT_TRUE(!opscope_ggml_unary_op_is("GELU_QUICK", OPSCOPE_GGML_UNARY_OP_GELU));
    ASSERT_TRUE(!opscope_ggml_unary_op_is("GELU", OPSCOPE_GGML_UNARY_OP_GELU_QUICK));
    ASSERT_TRUE(!opscope_ggml_unary_op_is("silu", OPSCOPE_GGML_UNARY_OP_SILU));
    ASSERT_TRUE(!opscope_ggml_unary_op_is(NULL, OPSCOPE_GGML_UNARY_OP_SILU));
    for (int v = 0; v < OPSCOPE_GGML_UNARY_OP_COUNT; v++)
        ASSERT_EQ_STR(opscope_sub_op_name("UNARY", v), opscope_ggml_unary_op_names[v]);
    return 0;
}

static void *lookup_all(void *arg) {
    int *bad = arg;
    for (int v = 0; v < opscope_ggml_op_count(); v++)
        if (opscope_ggml_op_value(opscope_ggml_op_name(v)) != v) (*bad)++;
    return NULL;
}

/* The index is filled on first use: threads that race to it all see it whole (TSan build). */
static int test_first_use_from_threads(void) {
    pthread_t t[4];
    int bad[4] = {0};
    for (int i = 0; i < 4; i++) ASSERT_EQ_INT(pthread_create(&t[i], NULL, lookup_all, &bad[i]), 0);
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        ASSERT_EQ_INT(bad[i], 0);
    }
    return 0;
}

TEST_MAIN(TEST(test_first_use_from_threads), TEST(test_values_are_ggml_enum), TEST(test_every_name_round_trips),
          TEST(test_not_ops), TEST(test_parts_of_names), TEST(test_traits), TEST(test_types_and_sub_ops),
          TEST(test_sub_op_enums))
