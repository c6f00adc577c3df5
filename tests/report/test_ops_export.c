/* test_ops_export.c - test-backend-ops graph-op lines from records: the exact text of a line
 * (worked out by hand from ggml's layout: upstream's export-graph-ops writes op, type, ne, 16
 * op params, then per source type, ne and nb in bytes, then a name), every skip reason, the
 * grouping and order of the exporter, and the refusal of traces. */
#include "export/replay/ops_export.h"
#include "test.h"

#include <inttypes.h>

enum { F32 = 0, F16 = 1, Q4_0 = 2, I32 = 26 };

static opscope_record rec(const char *name) {
    opscope_record r;
    opscope_record_init(&r);
    r.name = name;
    r.has = OPSCOPE_HAS_OUT | OPSCOPE_HAS_OP_PARAMS | OPSCOPE_HAS_SRC_TYPES | OPSCOPE_HAS_STRIDES;
    return r;
}

static void set_src(opscope_record *r, int s, int32_t type, int64_t a, int64_t b, uint64_t nb0,
                    uint64_t nb1, uint64_t nb2, uint64_t nb3) {
    r->type_src[s] = type;
    r->ne_src[s][0] = a;
    r->ne_src[s][1] = b;
    r->ne_src[s][2] = 1;
    r->ne_src[s][3] = 1;
    r->nb_src[s][0] = nb0;
    r->nb_src[s][1] = nb1;
    r->nb_src[s][2] = nb2;
    r->nb_src[s][3] = nb3;
    if (r->n_src < s + 1) r->n_src = s + 1;
}

static void set_out(opscope_record *r, int32_t type, int64_t a, int64_t b) {
    r->out_type = type;
    r->ne[0] = a;
    r->ne[1] = b;
    r->ne[2] = 1;
    r->ne[3] = 1;
}

/* MUL_MAT f32 [256, 256] x [256, 11] -> [256, 11]: GGML_OP_MUL_MAT is 29 in ggml 0.27. */
static opscope_record mul_mat(int64_t n) {
    opscope_record r = rec("MUL_MAT");
    set_out(&r, F32, 256, n);
    set_src(&r, 0, F32, 256, 256, 4, 1024, 262144, 262144);
    set_src(&r, 1, F32, 256, n, 4, 1024, 1024 * (uint64_t)n, 1024 * (uint64_t)n);
    return r;
}

static const char ZEROS16[] = "16 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0";

static int test_mul_mat_line(void) {
    opscope_record r = mul_mat(11);
    char buf[OPSCOPE_OPS_LINE_MAX], want[512];
    unsigned notes = 7;
    ASSERT_EQ_INT(opscope_ops_format_line(&r, buf, sizeof buf, &notes), OPSCOPE_OPS_OK);
    snprintf(want, sizeof want,
             "29 0 256 11 1 1 %s 2 0 256 256 1 1 4 1024 262144 262144 0 256 11 1 1 4 1024 11264 "
             "11264",
             ZEROS16);
    ASSERT_EQ_STR(buf, want);
    ASSERT_EQ_INT(notes, 0);
    return 0;
}

static int test_op_values(void) {
    /* values of enum ggml_op in ggml 0.27's ggml.h */
    ASSERT_EQ_INT(opscope_ggml_op_value("NONE"), 0);
    ASSERT_EQ_INT(opscope_ggml_op_value("ADD"), 2);
    ASSERT_EQ_INT(opscope_ggml_op_value("COUNT_EQUAL"), 19);
    ASSERT_EQ_INT(opscope_ggml_op_value("RMS_NORM"), 25);
    ASSERT_EQ_INT(opscope_ggml_op_value("MUL_MAT_ID"), 30);
    ASSERT_EQ_INT(opscope_ggml_op_value("GET_ROWS"), 40);
    ASSERT_EQ_INT(opscope_ggml_op_value("SET_ROWS"), 42);
    ASSERT_EQ_INT(opscope_ggml_op_value("ROPE"), 48);
    ASSERT_EQ_INT(opscope_ggml_op_value("FLASH_ATTN_EXT"), 74);
    ASSERT_EQ_INT(opscope_ggml_op_value("UNARY"), 91);
    ASSERT_EQ_INT(opscope_ggml_op_value("GLU"), 100);
    ASSERT_EQ_INT(opscope_ggml_op_count(), 101);
    ASSERT_EQ_INT(opscope_ggml_op_value("mul_mat_vec_f32"), -1);
    ASSERT_EQ_INT(opscope_ggml_op_value(NULL), -1);
    return 0;
}

static int test_glu_sub_op(void) {
    opscope_record r = rec("GLU");
    set_out(&r, F32, 512, 11);
    set_src(&r, 0, F32, 512, 11, 4, 2048, 22528, 22528);
    set_src(&r, 1, F32, 512, 11, 4, 2048, 22528, 22528);
    r.op_params[0] = 2; /* GGML_GLU_OP_SWIGLU */
    r.sub_op = "SWIGLU";
    char buf[OPSCOPE_OPS_LINE_MAX];
    ASSERT_EQ_INT(opscope_ops_format_line(&r, buf, sizeof buf, NULL), OPSCOPE_OPS_OK);
    ASSERT_EQ_STR(buf, "100 0 512 11 1 1 16 2 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 2 0 512 11 1 1 4 "
                       "2048 22528 22528 0 512 11 1 1 4 2048 22528 22528");
    r.sub_op = NULL; /* the integer form: the function is op_params[0] */
    ASSERT_EQ_INT(opscope_ops_format_line(&r, buf, sizeof buf, NULL), OPSCOPE_OPS_OK);
    r.sub_op = "GEGLU"; /* disagrees with op_params[0] */
    ASSERT_EQ_INT(opscope_ops_format_line(&r, buf, sizeof buf, NULL), OPSCOPE_OPS_SKIP_SUB_OP);
    ASSERT_EQ_STR(buf, "");
    r.sub_op = NULL;
    r.has |= OPSCOPE_HAS_SUB_OP; /* the seed layout's integer sub_op */
    r.sub_op_value = 2;
    ASSERT_EQ_INT(opscope_ops_format_line(&r, buf, sizeof buf, NULL), OPSCOPE_OPS_OK);
    r.sub_op_value = 1; /* GEGLU: disagrees */
    ASSERT_EQ_INT(opscope_ops_format_line(&r, buf, sizeof buf, NULL), OPSCOPE_OPS_SKIP_SUB_OP);
    r.has &= ~(uint32_t)OPSCOPE_HAS_SUB_OP;
    r.op_params[0] = 7; /* past GGML_GLU_OP_SWIGLU_CLAMP */
    ASSERT_EQ_INT(opscope_ops_format_line(&r, buf, sizeof buf, NULL), OPSCOPE_OPS_SKIP_SUB_OP);
    opscope_record u = rec("UNARY");
    set_out(&u, F32, 8, 1);
    set_src(&u, 0, F32, 8, 1, 4, 32, 32, 32);
    u.op_params[0] = 10; /* GGML_UNARY_OP_SILU */
    u.sub_op = "SILU";
    ASSERT_EQ_INT(opscope_ops_format_line(&u, buf, sizeof buf, NULL), OPSCOPE_OPS_OK);
    ASSERT_TRUE(!strncmp(buf, "91 0 8 1 1 1 16 10 0 ", 21));
    return 0;
}

static int test_contiguous_guess(void) {
    /* q4_0 [256, 4]: a block of 32 elements is 18 bytes, so a row is 8 blocks = 144 bytes */
    opscope_record r = rec("GET_ROWS");
    r.has &= ~(uint32_t)OPSCOPE_HAS_STRIDES;
    set_out(&r, F32, 256, 1);
    set_src(&r, 0, Q4_0, 256, 4, 0, 0, 0, 0);
    set_src(&r, 1, I32, 1, 1, 0, 0, 0, 0);
    char buf[OPSCOPE_OPS_LINE_MAX];
    unsigned notes = 0;
    ASSERT_EQ_INT(opscope_ops_format_line(&r, buf, sizeof buf, &notes), OPSCOPE_OPS_OK);
    ASSERT_EQ_INT(notes, OPSCOPE_OPS_NOTE_NO_STRIDES);
    char want[256];
    snprintf(want, sizeof want, "40 0 256 1 1 1 %s 2 2 256 4 1 1 18 144 576 576 26 1 1 1 1 4 4 4 4",
             ZEROS16);
    ASSERT_EQ_STR(buf, want);
    return 0;
}

/* The MoE router's GET_ROWS (llama.cpp's ffn_moe_weights): the expert ids are a [2, 19] view
 * of a [4, 19] argsort, rows 16 bytes apart. Written with the dense strides of [2, 19] i32. */
static int test_index_view(void) {
    opscope_record r = rec("GET_ROWS");
    set_out(&r, F32, 1, 2);
    r.ne[2] = 19;
    set_src(&r, 0, F32, 1, 4, 4, 4, 16, 304);
    r.ne_src[0][2] = 19;
    set_src(&r, 1, I32, 2, 19, 4, 16, 304, 304);
    char buf[OPSCOPE_OPS_LINE_MAX], want[256];
    unsigned notes = 0;
    ASSERT_EQ_INT(opscope_ops_format_line(&r, buf, sizeof buf, &notes), OPSCOPE_OPS_OK);
    ASSERT_EQ_INT(notes, OPSCOPE_OPS_NOTE_INDEX_STRIDES);
    snprintf(want, sizeof want, "40 0 1 2 19 1 %s 2 0 1 4 19 1 4 4 16 304 26 2 19 1 1 4 8 152 152",
             ZEROS16);
    ASSERT_EQ_STR(buf, want);
    return 0;
}

static int test_skip_reasons(void) {
    char buf[OPSCOPE_OPS_LINE_MAX];
    opscope_record c;
    opscope_record_init(&c);
    c.type = OPSCOPE_RECORD_COPY;
    c.name = "copy_H2D";
    ASSERT_EQ_INT(opscope_ops_format_line(&c, buf, sizeof buf, NULL), OPSCOPE_OPS_SKIP_COPY);
    opscope_record s = rec("GRAPH_SPLIT");
    ASSERT_EQ_INT(opscope_ops_format_line(&s, buf, sizeof buf, NULL), OPSCOPE_OPS_SKIP_SPLIT);
    opscope_record k = rec("mul_mat_vec_q4_0_f32_f32");
    ASSERT_EQ_INT(opscope_ops_format_line(&k, buf, sizeof buf, NULL), OPSCOPE_OPS_SKIP_UNKNOWN_OP);
    opscope_record v = rec("VIEW");
    ASSERT_EQ_INT(opscope_ops_format_line(&v, buf, sizeof buf, NULL), OPSCOPE_OPS_SKIP_VIEW);
    opscope_record cu = rec("MAP_CUSTOM1");
    ASSERT_EQ_INT(opscope_ops_format_line(&cu, buf, sizeof buf, NULL), OPSCOPE_OPS_SKIP_CUSTOM);
    opscope_record m = mul_mat(1);
    m.has &= ~(uint32_t)OPSCOPE_HAS_OUT;
    ASSERT_EQ_INT(opscope_ops_format_line(&m, buf, sizeof buf, NULL), OPSCOPE_OPS_SKIP_NO_OUT);
    m = mul_mat(1);
    m.has &= ~(uint32_t)OPSCOPE_HAS_OP_PARAMS;
    ASSERT_EQ_INT(opscope_ops_format_line(&m, buf, sizeof buf, NULL), OPSCOPE_OPS_SKIP_NO_PARAMS);
    m = mul_mat(1);
    m.has &= ~(uint32_t)OPSCOPE_HAS_SRC_TYPES;
    ASSERT_EQ_INT(opscope_ops_format_line(&m, buf, sizeof buf, NULL),
                  OPSCOPE_OPS_SKIP_NO_SRC_TYPES);
    m = mul_mat(1);
    m.type_src[0] = 4; /* Q4_2, removed from ggml */
    ASSERT_EQ_INT(opscope_ops_format_line(&m, buf, sizeof buf, NULL), OPSCOPE_OPS_SKIP_BAD_TYPE);
    m = mul_mat(1);
    m.ne_src[1][1] = -1;
    ASSERT_EQ_INT(opscope_ops_format_line(&m, buf, sizeof buf, NULL), OPSCOPE_OPS_SKIP_BAD_SHAPE);
    for (int i = 1; i < OPSCOPE_OPS_SKIP_COUNT_; i++) /* every reason but 0 (none) has a text */
        ASSERT_GT_U64(strlen(opscope_ops_skip_reason_text((opscope_ops_skip_reason)i)), 0);
    return 0;
}

static int test_name_token(void) {
    char tok[64];
    opscope_ops_name_token("cache_k_l0 (view)", tok);
    ASSERT_EQ_STR(tok, "cache_k_l0_(view)");
    opscope_ops_name_token(NULL, tok);
    ASSERT_EQ_STR(tok, "-");
    opscope_ops_name_token("", tok);
    ASSERT_EQ_STR(tok, "-");
    opscope_ops_name_token("a'b\tc", tok);
    ASSERT_EQ_STR(tok, "a_b_c");
    char longname[100];
    memset(longname, 'x', 99);
    longname[99] = 0;
    opscope_ops_name_token(longname, tok);
    ASSERT_EQ_INT(strlen(tok), 63);
    return 0;
}

/* Three MUL_MAT records of one shape (two backends, two names), one of another shape, a fused
 * RMS_NORM, a copy: two MUL_MAT lines (n=1 before n=11, as upstream's set orders ne), one
 * RMS_NORM line before them (op 25 < 29), the copy listed as skipped. */
static int test_exporter(void) {
    opscope_ops_export_t *x = opscope_ops_export_new();
    ASSERT_NOT_NULL(x);
    opscope_sink s = opscope_ops_export_sink(x);
    opscope_record r = mul_mat(11);
    r.tensor_name = "Qcur-0";
    r.duration_ns = 100;
    ASSERT_EQ_INT(s.on_record(s.ud, &r), 0);
    r.tensor_name = "Kcur-0";
    r.duration_ns = 300;
    ASSERT_EQ_INT(s.on_record(s.ud, &r), 0);
    r.backend_id = 1;
    r.duration_ns = 50;
    ASSERT_EQ_INT(s.on_record(s.ud, &r), 0);
    opscope_record r1 = mul_mat(1);
    r1.tensor_name = "result_output";
    r1.duration_ns = 7;
    ASSERT_EQ_INT(s.on_record(s.ud, &r1), 0);
    opscope_record n = rec("RMS_NORM");
    set_out(&n, F32, 256, 1);
    set_src(&n, 0, F32, 256, 1, 4, 1024, 1024, 1024);
    n.extra = "RMS_NORM+MUL";
    n.n_fused = 2;
    n.duration_ns = 9;
    ASSERT_EQ_INT(s.on_record(s.ud, &n), 0);
    opscope_record c;
    opscope_record_init(&c);
    c.type = OPSCOPE_RECORD_COPY;
    c.name = "copy_H2D";
    c.duration_ns = 5;
    ASSERT_EQ_INT(s.on_record(s.ud, &c), 0);
    /* backends announced after the records, as a streamed file may */
    opscope_backend b0 = {0, "CPU", "cpu", OPSCOPE_DEVICE_CPU, NULL};
    opscope_backend b1 = {1, "Vulkan0", "llvmpipe", OPSCOPE_DEVICE_GPU, NULL};
    ASSERT_EQ_INT(s.on_backend(s.ud, &b0), 0);
    ASSERT_EQ_INT(s.on_backend(s.ud, &b1), 0);
    opscope_error err;
    ASSERT_EQ_INT(opscope_ops_export_finish(x, &err), 0);

    ASSERT_EQ_INT(opscope_ops_export_n_lines(x), 3);
    ASSERT_EQ_U64(opscope_ops_export_records(x), 5);
    ASSERT_EQ_U64(opscope_ops_export_records_exported(x), 5);
    const opscope_ops_line *l0 = opscope_ops_export_line(x, 0);
    const opscope_ops_line *l1 = opscope_ops_export_line(x, 1);
    const opscope_ops_line *l2 = opscope_ops_export_line(x, 2);
    ASSERT_EQ_STR(l0->op, "RMS_NORM");
    ASSERT_EQ_INT(l0->n_uses, 1);
    ASSERT_EQ_STR(l0->uses[0].fused, "RMS_NORM+MUL");
    ASSERT_EQ_STR(l1->name, "result_output");
    ASSERT_EQ_STR(l2->name, "Qcur-0"); /* the first record's name */
    ASSERT_EQ_INT(l2->n_uses, 2);
    ASSERT_EQ_STR(l2->uses[0].backend, "CPU"); /* the larger total first */
    ASSERT_EQ_U64(l2->uses[0].count, 2);
    ASSERT_EQ_U64(l2->uses[0].total_ns, 400);
    ASSERT_EQ_U64(l2->uses[0].min_ns, 100);
    ASSERT_EQ_U64(l2->uses[0].max_ns, 300);
    ASSERT_EQ_U64(l2->uses[0].median_ns, 100); /* the lower middle; 100 is its bucket's middle */
    ASSERT_EQ_STR(l2->uses[1].backend, "Vulkan0");
    ASSERT_EQ_U64(l2->uses[1].count, 1);
    ASSERT_EQ_STR(l2->shape, "src0 [256, 256] f32, src1 [256, 11] f32 -> [256, 11] f32");
    ASSERT_EQ_INT(opscope_ops_export_n_skipped(x), 1);
    const opscope_ops_skip *sk = opscope_ops_export_skipped(x, 0);
    ASSERT_EQ_INT(sk->reason, OPSCOPE_OPS_SKIP_COPY);
    ASSERT_EQ_STR(sk->what, "COPY copy_H2D");
    ASSERT_EQ_U64(sk->count, 1);

    opscope_out_t *w = opscope_out_open("t_ops.txt", &err);
    ASSERT_NOT_NULL(w);
    opscope_ops_export_write(x, w);
    ASSERT_EQ_INT(opscope_out_commit(w, &err), 0);
    char *txt = test_slurp("t_ops.txt", NULL);
    ASSERT_NOT_NULL(txt);
    char want[2048];
    snprintf(want, sizeof want,
             "25 0 256 1 1 1 %s 1 0 256 1 1 1 4 1024 1024 1024 -\n"
             "29 0 256 1 1 1 %s 2 0 256 256 1 1 4 1024 262144 262144 0 256 1 1 1 4 1024 1024 1024 "
             "result_output\n"
             "29 0 256 11 1 1 %s 2 0 256 256 1 1 4 1024 262144 262144 0 256 11 1 1 4 1024 11264 "
             "11264 Qcur-0\n",
             ZEROS16, ZEROS16, ZEROS16);
    int ok = !strcmp(txt, want);
    if (!ok) fprintf(stderr, "got:\n%swant:\n%s", txt, want);
    free(txt);
    ASSERT_TRUE(ok);

    w = opscope_out_open("t_ops.tsv", &err);
    ASSERT_NOT_NULL(w);
    opscope_ops_export_write_tsv(x, w);
    ASSERT_EQ_INT(opscope_out_commit(w, &err), 0);
    char *tsv = test_slurp("t_ops.tsv", NULL);
    ASSERT_NOT_NULL(tsv);
    ASSERT_CONTAINS(tsv, "\n3\tMUL_MAT\t\tQcur-0\tCPU\t\t2\t400\t200\t100\t300\t100\t");
    ASSERT_CONTAINS(tsv, "\n3\tMUL_MAT\t\tQcur-0\tVulkan0\t\t1\t50\t50\t50\t50\t");
    ASSERT_CONTAINS(tsv, "\n1\tRMS_NORM\t\t-\tCPU\tRMS_NORM+MUL\t1\t9\t");
    ASSERT_CONTAINS(tsv, "\n-\tCOPY copy_H2D\t");
    ASSERT_CONTAINS(tsv, "not exported: a copy between backends");
    free(tsv);
    opscope_ops_export_free(x);
    return 0;
}

/* The median of many calls, a few of them stalled: within the histogram's 4.5%. */
static int test_median(void) {
    opscope_ops_export_t *x = opscope_ops_export_new();
    ASSERT_NOT_NULL(x);
    opscope_sink s = opscope_ops_export_sink(x);
    opscope_record r = mul_mat(1);
    for (int i = 0; i < 101; i++) {
        r.duration_ns = i < 95 ? 14000 + (uint64_t)i * 10 : 5000000; /* median: 14500 */
        ASSERT_EQ_INT(s.on_record(s.ud, &r), 0);
    }
    opscope_error err;
    ASSERT_EQ_INT(opscope_ops_export_finish(x, &err), 0);
    const opscope_ops_use *u = &opscope_ops_export_line(x, 0)->uses[0];
    ASSERT_NEAR((double)u->median_ns, 14500.0, 14500.0 * 0.045);
    ASSERT_EQ_U64(u->min_ns, 14000);
    ASSERT_EQ_U64(u->max_ns, 5000000);
    opscope_ops_export_free(x);
    return 0;
}

static int test_trace_refused(void) {
    opscope_ops_export_t *x = opscope_ops_export_new();
    ASSERT_NOT_NULL(x);
    opscope_sink s = opscope_ops_export_sink(x);
    opscope_record k = rec("volta_sgemm_128x64_nn");
    k.has = OPSCOPE_HAS_DEVICE_TIME;
    ASSERT_EQ_INT(s.on_record(s.ud, &k), 0);
    opscope_meta m = {.profiler = "kineto", .version = 1};
    ASSERT_EQ_INT(s.on_meta(s.ud, &m), 0);
    opscope_error err;
    memset(&err, 0, sizeof err);
    ASSERT_EQ_INT(opscope_ops_export_finish(x, &err), -1);
    ASSERT_EQ_INT(err.code, OPSCOPE_ERROR_FORMAT);
    ASSERT_CONTAINS(err.msg, "not ggml graph ops");
    opscope_ops_export_free(x);
    return 0;
}

TEST_MAIN(TEST(test_mul_mat_line), TEST(test_op_values), TEST(test_glu_sub_op),
          TEST(test_contiguous_guess), TEST(test_index_view), TEST(test_skip_reasons), TEST(test_name_token),
          TEST(test_exporter), TEST(test_median), TEST(test_trace_refused))
