/* test_traffic.c - memory traffic per record against hand-computed cases, ggml type sizes
 * against ggml's own. */
#include "opscope.h"
#include "test.h"

static void set_src(opscope_record *r, int i, int32_t type, int64_t a, int64_t b, int64_t c,
                    int64_t d) {
    r->ne_src[i][0] = a;
    r->ne_src[i][1] = b;
    r->ne_src[i][2] = c;
    r->ne_src[i][3] = d;
    r->type_src[i] = type;
    r->has |= OPSCOPE_HAS_SRC_TYPES;
    if (r->n_src < i + 1) r->n_src = i + 1;
}

static void set_out(opscope_record *r, int32_t type, int64_t a, int64_t b, int64_t c, int64_t d) {
    r->ne[0] = a;
    r->ne[1] = b;
    r->ne[2] = c;
    r->ne[3] = d;
    r->out_type = type;
    r->has |= OPSCOPE_HAS_OUT;
}

static opscope_record op(const char *name) {
    opscope_record r;
    opscope_record_init(&r);
    r.name = name;
    return r;
}

enum { F32 = 0, F16 = 1, Q4_0 = 2, Q8_0 = 8, Q4_K = 12, Q6_K = 14, I32 = 26, I64 = 27 };

/* Printed by ggml 0.27's ggml_blck_size / ggml_type_size (Debian forky libggml0, every type
 * number below GGML_TYPE_COUNT): number, block elements, block bytes; removed types 0 0. */
static const int ggml_sizes[][3] = {
    {0, 1, 4},     {1, 1, 2},     {2, 32, 18},   {3, 32, 20},   {4, 0, 0},     {5, 0, 0},
    {6, 32, 22},   {7, 32, 24},   {8, 32, 34},   {9, 32, 36},   {10, 256, 84}, {11, 256, 110},
    {12, 256, 144}, {13, 256, 176}, {14, 256, 210}, {15, 256, 292}, {16, 256, 66}, {17, 256, 74},
    {18, 256, 98}, {19, 256, 50}, {20, 32, 18},  {21, 256, 110}, {22, 256, 82}, {23, 256, 136},
    {24, 1, 1},    {25, 1, 2},    {26, 1, 4},    {27, 1, 8},    {28, 1, 8},    {29, 256, 56},
    {30, 1, 2},    {31, 0, 0},    {32, 0, 0},    {33, 0, 0},    {34, 256, 54}, {35, 256, 66},
    {36, 0, 0},    {37, 0, 0},    {38, 0, 0},    {39, 32, 17},  {40, 64, 36},  {41, 128, 18},
    {42, 64, 18},
};

static int test_type_bytes(void) {
    for (size_t i = 0; i < sizeof ggml_sizes / sizeof ggml_sizes[0]; i++) {
        int t = ggml_sizes[i][0], blck = ggml_sizes[i][1], size = ggml_sizes[i][2];
        /* 4 whole blocks; 0 for removed types */
        ASSERT_EQ_U64(opscope_ggml_type_bytes(t, 4ull * (uint64_t)(blck ? blck : 1)),
                      4ull * (uint64_t)size);
    }
    ASSERT_EQ_U64(opscope_ggml_type_bytes(-1, 10), 0);
    ASSERT_EQ_U64(opscope_ggml_type_bytes(99, 10), 0);
    ASSERT_EQ_U64(opscope_ggml_type_bytes(Q4_0, 33), 2 * 18); /* a partial block is a block */
    return 0;
}

/* MUL_MAT q4_0 weights [4096, 4096] x f32 [4096, 7] -> f32 [4096, 7]:
 * weights 4096*4096/32 blocks * 18 B = 9,437,184; activations 4096*7*4 = 114,688;
 * output 4096*7*4 = 114,688. */
static int test_mul_mat(void) {
    opscope_record r = op("MUL_MAT");
    set_src(&r, 0, Q4_0, 4096, 4096, 1, 1);
    set_src(&r, 1, F32, 4096, 7, 1, 1);
    set_out(&r, F32, 4096, 7, 1, 1);
    opscope_traffic t;
    ASSERT_EQ_U64(opscope_record_traffic(&r, &t), 9437184ull + 114688 + 114688);
    ASSERT_EQ_U64(t.read_bytes, 9437184ull + 114688);
    ASSERT_EQ_U64(t.write_bytes, 114688);
    ASSERT_EQ_INT(t.flags, OPSCOPE_TRAFFIC_KNOWN);
    /* v2 files pad unused dims with 0; they count as 1 */
    opscope_record z = op("MUL_MAT");
    set_src(&z, 0, F16, 64, 64, 0, 0);
    set_src(&z, 1, F32, 64, 1, 0, 0);
    set_out(&z, F32, 64, 1, 0, 0);
    ASSERT_EQ_U64(opscope_record_traffic(&z, &t), 64 * 64 * 2 + 64 * 4 + 64 * 4);
    return 0;
}

/* A view (the KV cache's first 256 of 4096 cells, strided): the viewed part is read, not the
 * cache. k view [128, 256, 8] f16 with the cache's strides: 128*256*8*2 = 524,288 bytes. */
static int test_view_source(void) {
    opscope_record r = op("MUL_MAT");
    set_src(&r, 0, F16, 128, 256, 8, 1);
    r.nb_src[0][0] = 2;
    r.nb_src[0][1] = 8 * 128 * 2;           /* rows 2 KiB apart: heads interleaved */
    r.nb_src[0][2] = 128 * 2;
    r.nb_src[0][3] = 4096ull * 8 * 128 * 2; /* the whole cache */
    set_src(&r, 1, F32, 128, 7, 32, 1);
    r.nb_src[1][0] = 4;
    r.nb_src[1][1] = 512;
    r.nb_src[1][2] = 512 * 7;
    r.nb_src[1][3] = 512 * 7 * 32;
    r.has |= OPSCOPE_HAS_STRIDES;
    set_out(&r, F32, 256, 7, 32, 1);
    opscope_traffic t;
    opscope_record_traffic(&r, &t);
    ASSERT_EQ_U64(t.read_bytes, 524288ull + 128 * 7 * 32 * 4);
    ASSERT_EQ_U64(t.write_bytes, 256ull * 7 * 32 * 4);
    /* a broadcast dim (stride 0) is read once: a [4096] bias seen as [4096, 7] */
    opscope_record a = op("ADD");
    set_src(&a, 0, F32, 4096, 7, 1, 1);
    set_src(&a, 1, F32, 4096, 7, 1, 1);
    a.nb_src[0][0] = 4;
    a.nb_src[0][1] = 4096 * 4;
    a.nb_src[1][0] = 4;
    a.nb_src[1][1] = 0;
    a.has |= OPSCOPE_HAS_STRIDES;
    set_out(&a, F32, 4096, 7, 1, 1);
    ASSERT_EQ_U64(opscope_record_traffic(&a, &t), 4096ull * 7 * 4 + 4096 * 4 + 4096 * 7 * 4);
    return 0;
}

/* GET_ROWS: 7 token ids into a q6_K embedding table [4096, 32000]:
 * 7 rows * 4096/256 blocks * 210 B = 23,520; ids 7*4 = 28; output f32 7*4096*4 = 114,688. */
static int test_get_rows(void) {
    opscope_record r = op("GET_ROWS");
    set_src(&r, 0, Q6_K, 4096, 32000, 1, 1);
    set_src(&r, 1, I32, 7, 1, 1, 1);
    set_out(&r, F32, 4096, 7, 1, 1);
    opscope_traffic t;
    ASSERT_EQ_U64(opscope_record_traffic(&r, &t), 23520ull + 28 + 114688);
    ASSERT_EQ_U64(t.read_bytes, 23520ull + 28);
    /* more ids than rows: at most the table */
    opscope_record s = op("GET_ROWS");
    set_src(&s, 0, F32, 16, 4, 1, 1);
    set_src(&s, 1, I32, 10, 1, 1, 1);
    set_out(&s, F32, 16, 10, 1, 1);
    opscope_record_traffic(&s, &t);
    ASSERT_EQ_U64(t.read_bytes, 16 * 4 * 4 + 40);
    ASSERT_EQ_U64(t.write_bytes, 16 * 10 * 4);
    return 0;
}

/* SET_ROWS: 14 rows of 512 f32 into an f16 cache [512, 4096]: reads 14*512*4 = 28,672 and ids
 * 14*8 = 112; writes 14 rows of f16: 14*512*2 = 14,336 (not the 4 MiB cache). ggml's
 * ggml_set_rows makes the destination its src[2] (a capture records it): that cache is
 * written into, not read, so the traffic stays the same and below the cache's size. */
static int test_set_rows(void) {
    opscope_record r = op("SET_ROWS");
    set_src(&r, 0, F32, 512, 14, 1, 1);
    set_src(&r, 1, I64, 14, 1, 1, 1);
    set_out(&r, F16, 512, 4096, 1, 1);
    r.bytes = 512ull * 4096 * 2; /* an old capture's output size: the whole cache */
    opscope_traffic t;
    ASSERT_EQ_U64(opscope_record_traffic(&r, &t), 28672ull + 112 + 14336);
    ASSERT_EQ_U64(t.write_bytes, 14336);
    set_src(&r, 2, F16, 512, 4096, 1, 1);
    ASSERT_EQ_U64(opscope_record_traffic(&r, &t), 28672ull + 112 + 14336);
    ASSERT_EQ_U64(t.read_bytes, 28672ull + 112);
    /* no output type: the written bytes are unknown, so the traffic is */
    opscope_record u = op("SET_ROWS");
    set_src(&u, 0, F32, 512, 14, 1, 1);
    set_src(&u, 1, I64, 14, 1, 1, 1);
    u.bytes = 512ull * 4096 * 2;
    ASSERT_EQ_U64(opscope_record_traffic(&u, &t), 0);
    ASSERT_EQ_INT(t.flags, 0);
    return 0;
}

/* MUL_MAT_ID, 128 experts q4_K [2048, 768] (2048/256*144*768 = 884,736 B each), 8 used per
 * token; activations f32 [2048, 1, T], ids i32 [8, T], output f32 [768, 8, T]. */
static int test_mul_mat_id(void) {
    const uint64_t expert = 884736;
    opscope_traffic t;
    /* one token: exactly its 8 experts */
    opscope_record a = op("MUL_MAT_ID");
    set_src(&a, 0, Q4_K, 2048, 768, 128, 1);
    set_src(&a, 1, F32, 2048, 1, 1, 1);
    set_src(&a, 2, I32, 8, 1, 1, 1);
    set_out(&a, F32, 768, 8, 1, 1);
    opscope_record_traffic(&a, &t);
    ASSERT_EQ_U64(t.read_bytes, 8 * expert + 2048 * 4 + 8 * 4);
    ASSERT_EQ_U64(t.write_bytes, 768 * 8 * 4);
    ASSERT_EQ_INT(t.flags, OPSCOPE_TRAFFIC_KNOWN);
    /* 4 tokens: up to 32 experts, ids unknown: an upper bound */
    opscope_record b = op("MUL_MAT_ID");
    set_src(&b, 0, Q4_K, 2048, 768, 128, 1);
    set_src(&b, 1, F32, 2048, 1, 4, 1);
    set_src(&b, 2, I32, 8, 4, 1, 1);
    set_out(&b, F32, 768, 8, 4, 1);
    opscope_record_traffic(&b, &t);
    ASSERT_EQ_U64(t.read_bytes, 32 * expert + 2048 * 4 * 4 + 8 * 4 * 4);
    ASSERT_EQ_INT(t.flags, OPSCOPE_TRAFFIC_KNOWN | OPSCOPE_TRAFFIC_UPPER_BOUND);
    /* 512 tokens: every expert, still an upper bound */
    opscope_record c = op("MUL_MAT_ID");
    set_src(&c, 0, Q4_K, 2048, 768, 128, 1);
    set_src(&c, 1, F32, 2048, 1, 512, 1);
    set_src(&c, 2, I32, 8, 512, 1, 1);
    set_out(&c, F32, 768, 8, 512, 1);
    opscope_record_traffic(&c, &t);
    ASSERT_EQ_U64(t.read_bytes, 128 * expert + 2048ull * 4 * 512 + 8 * 4 * 512);
    ASSERT_EQ_INT(t.flags, OPSCOPE_TRAFFIC_KNOWN | OPSCOPE_TRAFFIC_UPPER_BOUND);
    return 0;
}

static int test_unknown_and_others(void) {
    opscope_traffic t;
    /* a Kineto kernel: no shapes, no guess */
    opscope_record k = op("volta_sgemm_128x64_nn");
    k.duration_ns = 1000;
    ASSERT_EQ_U64(opscope_record_traffic(&k, &t), 0);
    ASSERT_EQ_INT(t.flags, 0);
    /* shapes without types (a version-2 file): unknown */
    opscope_record v = op("ADD");
    v.n_src = 2;
    v.ne_src[0][0] = v.ne_src[1][0] = 64;
    v.bytes = 256;
    ASSERT_EQ_U64(opscope_record_traffic(&v, &t), 0);
    /* no output shape: the record's bytes are the output */
    opscope_record e = op("RMS_NORM");
    set_src(&e, 0, F32, 4096, 7, 1, 1);
    e.bytes = 4096 * 7 * 4;
    ASSERT_EQ_U64(opscope_record_traffic(&e, &t), 2ull * 4096 * 7 * 4);
    /* a view op moves nothing */
    opscope_record w = op("VIEW");
    set_src(&w, 0, F32, 64, 1, 1, 1);
    ASSERT_EQ_U64(opscope_record_traffic(&w, &t), 0);
    ASSERT_EQ_INT(t.flags, OPSCOPE_TRAFFIC_KNOWN);
    /* a fused record: the first node's sources, the last node's output (bytes) */
    opscope_record f = op("RMS_NORM");
    f.extra = "RMS_NORM+MUL";
    f.n_fused = 2;
    set_src(&f, 0, F32, 4096, 7, 1, 1);
    set_out(&f, F32, 4096, 7, 1, 1);
    f.bytes = 4096 * 7 * 2; /* pretend the MUL wrote f16 */
    ASSERT_EQ_U64(opscope_record_traffic(&f, &t), 4096ull * 7 * 4 + 4096 * 7 * 2);
    /* a copy: its transfer size */
    opscope_record c = op("copy_H2D");
    c.type = OPSCOPE_RECORD_COPY;
    c.bytes = 1000;
    ASSERT_EQ_U64(opscope_record_traffic(&c, &t), 1000);
    /* absurd shapes saturate instead of wrapping */
    opscope_record h = op("ADD");
    set_src(&h, 0, F32, INT64_MAX, INT64_MAX, 1, 1);
    set_out(&h, F32, 1, 1, 1, 1);
    ASSERT_EQ_U64(opscope_record_traffic(&h, &t), UINT64_MAX);
    ASSERT_EQ_U64(opscope_record_traffic(NULL, &t), 0);
    return 0;
}

TEST_MAIN(TEST(test_type_bytes), TEST(test_mul_mat), TEST(test_view_source), TEST(test_get_rows),
          TEST(test_set_rows), TEST(test_mul_mat_id), TEST(test_unknown_and_others))
