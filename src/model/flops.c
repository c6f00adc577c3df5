/*
 * flops.c - floating-point operation counts per op (the FLOPS column of model/ggml_ops.def).
 *
 * Formulas (docs/metrics.md explains each): one multiply-add counts as 2 FLOPs; softmax,
 * scaling and masking are not counted. Shapes are ggml ne[] order (ne[0] innermost).
 */
#include "model/op_cost.h"
#include "model/ggml_vocab.h"
#include "opscope.h"

/* A dimension as a count: unused (0) or negative dims count as 1 for batch positions. */
static uint64_t dim1(int64_t v) { return v > 0 ? (uint64_t)v : 1; }
static uint64_t dim0(int64_t v) { return v > 0 ? (uint64_t)v : 0; }

/* Product with saturation, so absurd shapes give UINT64_MAX instead of wrapping. */
static uint64_t mul_sat(uint64_t a, uint64_t b) {
    if (a == 0 || b == 0) return 0;
    if (a > UINT64_MAX / b) return UINT64_MAX;
    return a * b;
}

static uint64_t prod(const uint64_t *v, int n) {
    uint64_t r = 1;
    for (int i = 0; i < n; i++) r = mul_sat(r, v[i]);
    return r;
}

static int src_present(const opscope_record *r, int i) {
    return i < r->n_src && r->ne_src[i][0] > 0;
}

/* Output size of a strided conv along one axis, as ggml computes it. */
static int64_t conv_out(int64_t in, int64_t k, int32_t s, int32_t p, int32_t d) {
    if (s <= 0 || d <= 0) return 0;
    int64_t v = (in + 2 * (int64_t)p - (int64_t)d * (k - 1) - 1) / s + 1;
    return v > 0 ? v : 0;
}

/* OW, OH of a 2-D conv: from the output shape when recorded, else from op_params
 * (s0, s1, p0, p1, d0, d1 as ggml stores them), else 0. */
static void conv2d_out(const opscope_record *r, int64_t kw, int64_t kh, uint64_t *ow,
                       uint64_t *oh) {
    if ((r->has & OPSCOPE_HAS_OUT) && r->ne[0] > 0) {
        *ow = dim0(r->ne[0]);
        *oh = dim1(r->ne[1]);
    } else if (r->has & OPSCOPE_HAS_OP_PARAMS) {
        const int32_t *p = r->op_params;
        *ow = dim0(conv_out(r->ne_src[1][0], kw, p[0], p[2], p[4]));
        *oh = dim0(conv_out(dim1(r->ne_src[1][1]), kh, p[1], p[3], p[5]));
    } else {
        *ow = *oh = 0;
    }
}

static uint64_t flops_mul_mat(const opscope_record *r) {
    if (!src_present(r, 0) || !src_present(r, 1)) return 0;
    const int64_t *a = r->ne_src[0], *b = r->ne_src[1];
    uint64_t v[6] = {2, dim0(a[0]), dim0(a[1]), dim0(b[1]), dim1(b[2]), dim1(b[3])};
    return prod(v, 6);
}

static uint64_t flops_mul_mat_id(const opscope_record *r) {
    if (!src_present(r, 0) || !src_present(r, 1)) return 0;
    const int64_t *a = r->ne_src[0], *b = r->ne_src[1];
    uint64_t used, tokens;
    if (src_present(r, 2)) { /* ids: [n_expert_used, n_tokens] */
        used = dim0(r->ne_src[2][0]);
        tokens = dim1(r->ne_src[2][1]);
    } else { /* b: [K, n_expert_used or 1, n_tokens] */
        used = dim1(b[1]);
        tokens = dim1(b[2]);
    }
    uint64_t v[5] = {2, dim0(a[0]), dim0(a[1]), used, tokens};
    return prod(v, 5);
}

static uint64_t flops_flash_attn(const opscope_record *r) {
    if (!src_present(r, 0) || !src_present(r, 1)) return 0;
    const int64_t *q = r->ne_src[0], *k = r->ne_src[1];
    uint64_t d = dim0(q[0]), dv = src_present(r, 2) ? dim0(r->ne_src[2][0]) : d;
    /* QK^T: 2*D per (query, key, head); softmax(.)V: 2*Dv per the same. */
    uint64_t v[5] = {dim0(q[1]), dim0(k[1]), dim1(q[2]), dim1(q[3]), 1};
    uint64_t n = prod(v, 5);
    uint64_t dd = d + dv;
    return mul_sat(mul_sat(2, dd), n);
}

static uint64_t flops_conv_2d(const opscope_record *r, int depthwise) {
    if (!src_present(r, 0) || !src_present(r, 1)) return 0;
    const int64_t *k = r->ne_src[0], *x = r->ne_src[1];
    uint64_t ow, oh;
    conv2d_out(r, k[0], dim1(k[1]), &ow, &oh);
    if (depthwise) { /* kernel [KW, KH, 1, C], input [W, H, C, N] */
        uint64_t v[7] = {2, dim0(k[0]), dim1(k[1]), dim1(x[2]), ow, oh, dim1(x[3])};
        return prod(v, 7);
    }
    /* kernel [KW, KH, Cin, Cout], input [W, H, Cin, N] */
    uint64_t v[8] = {2, dim0(k[0]), dim1(k[1]), dim1(k[2]), dim1(k[3]), ow, oh, dim1(x[3])};
    return prod(v, 8);
}

static uint64_t flops_conv_transpose_2d(const opscope_record *r) {
    if (!src_present(r, 0) || !src_present(r, 1)) return 0;
    const int64_t *k = r->ne_src[0], *x = r->ne_src[1];
    /* kernel [KW, KH, Cout, Cin], input [W, H, Cin, N]: every input element meets the
     * whole kernel slice of its channel. */
    uint64_t v[8] = {2, dim0(k[0]), dim1(k[1]), dim1(k[2]), dim1(k[3]),
                     dim0(x[0]), dim1(x[1]), dim1(x[3])};
    return prod(v, 8);
}

static uint64_t flops_conv_transpose_1d(const opscope_record *r) {
    if (!src_present(r, 0) || !src_present(r, 1)) return 0;
    const int64_t *k = r->ne_src[0], *x = r->ne_src[1];
    /* kernel [K, Cout, Cin], input [L, Cin] */
    uint64_t v[5] = {2, dim0(k[0]), dim1(k[1]), dim1(k[2]), dim0(x[0])};
    return prod(v, 5);
}

static uint64_t flops_out_prod(const opscope_record *r) {
    if (!src_present(r, 0) || !src_present(r, 1)) return 0;
    const int64_t *a = r->ne_src[0], *b = r->ne_src[1];
    /* a [M, K], b [N, K] -> [M, N] */
    uint64_t v[6] = {2, dim0(a[0]), dim0(a[1]), dim0(b[0]), dim1(b[2]), dim1(b[3])};
    return prod(v, 6);
}

uint64_t opscope_op_flops(const opscope_record *rec, int op) {
    if (!rec) return 0;
    if (rec->has & OPSCOPE_HAS_FLOPS) return rec->flops;
    if (rec->type != OPSCOPE_RECORD_OP || !rec->name) return 0;
    switch (opscope_ggml_op_flops(op)) {
    case OPSCOPE_GGML_FLOPS_MUL_MAT: return flops_mul_mat(rec);
    case OPSCOPE_GGML_FLOPS_MUL_MAT_ID: return flops_mul_mat_id(rec);
    case OPSCOPE_GGML_FLOPS_FLASH_ATTN: return flops_flash_attn(rec);
    case OPSCOPE_GGML_FLOPS_CONV_2D: return flops_conv_2d(rec, 0);
    case OPSCOPE_GGML_FLOPS_CONV_2D_DW: return flops_conv_2d(rec, 1);
    case OPSCOPE_GGML_FLOPS_CONV_TRANSPOSE_2D: return flops_conv_transpose_2d(rec);
    case OPSCOPE_GGML_FLOPS_CONV_TRANSPOSE_1D: return flops_conv_transpose_1d(rec);
    case OPSCOPE_GGML_FLOPS_OUT_PROD: return flops_out_prod(rec);
    case OPSCOPE_GGML_FLOPS_NONE: break;
    }
    return 0;
}

uint64_t opscope_record_flops(const opscope_record *rec) {
    return rec ? opscope_op_flops(rec, opscope_ggml_op_value(rec->name)) : 0;
}
