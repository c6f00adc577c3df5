/*
 * gpu_rules.c - per-backend kernel naming rules for gpu_map.c. Only names that the graph's
 * own op names (in lower case) would not map, or would map wrongly, need a rule: a longer
 * rule wins over a shorter op name ("mul_mat_vec" is MUL_MAT, not MUL).
 */
#include "capture/gpu/gpu_map.h"

#include <stdbool.h>
#include <string.h>

#define N_OF(a) ((int)(sizeof(a) / sizeof((a)[0])))
#define O(NAME) OPSCOPE_GGML_OP_##NAME /* an op of model/ggml_ops.def */
#define END OPSCOPE_GGML_OP_COUNT     /* ends a sequence of ops */
#define U(NAME) OPSCOPE_GGML_UNARY_OP_##NAME /* a function of UNARY (model/ggml_sub_ops.def) */

/* ggml-vulkan's pipeline names (ggml_vk_create_pipeline's name argument, which
 * GGML_VK_DEBUG_MARKERS passes to vkSetDebugUtilsObjectNameEXT). */
static const opscope_gpu_rule vk_rules[] = {
    /* matrix products: mul_mat_vec_*, matmul_*, their _id variants for MoE */
    {"mul_mat", {O(MUL_MAT)}, OPSCOPE_GPU_ROLE_MAIN},
    {"matmul", {O(MUL_MAT)}, OPSCOPE_GPU_ROLE_MAIN},
    {"mul_mat_vec_id", {O(MUL_MAT_ID)}, OPSCOPE_GPU_ROLE_MAIN},
    {"mul_mat_id", {O(MUL_MAT_ID)}, OPSCOPE_GPU_ROLE_MAIN},
    {"matmul_id", {O(MUL_MAT_ID)}, OPSCOPE_GPU_ROLE_MAIN},
    /* helpers of a matrix product: src1 quantized to q8_1 before it, split-k partial sums
     * reduced after it, the flash-attention split-k reduction and mask preparation */
    {"quantize_q8_1", {O(MUL_MAT), O(MUL_MAT_ID)}, OPSCOPE_GPU_ROLE_PRE},
    {"split_k_reduce", {O(MUL_MAT), O(MUL_MAT_ID)}, OPSCOPE_GPU_ROLE_POST},
    {"fa_split_k_reduce", {O(FLASH_ATTN_EXT)}, OPSCOPE_GPU_ROLE_POST},
    {"fa_mask_opt", {O(FLASH_ATTN_EXT)}, OPSCOPE_GPU_ROLE_PRE},
    {"fa_sparse_compact", {O(FLASH_ATTN_EXT)}, OPSCOPE_GPU_ROLE_PRE},
    {"flash_attn", {O(FLASH_ATTN_EXT)}, OPSCOPE_GPU_ROLE_MAIN},
    /* copies: one family of shaders for CPY, CONT and DUP */
    {"cpy", {O(CPY), O(CONT), O(DUP)}, OPSCOPE_GPU_ROLE_MAIN},
    {"contig_cpy", {O(CPY), O(CONT), O(DUP)}, OPSCOPE_GPU_ROLE_MAIN},
    {"cpy_transpose", {O(CPY), O(CONT), O(DUP)}, OPSCOPE_GPU_ROLE_MAIN},
    /* fused kernels, named after their first op */
    {"rms_norm_mul", {O(RMS_NORM)}, OPSCOPE_GPU_ROLE_MAIN},
    {"multi_add", {O(ADD)}, OPSCOPE_GPU_ROLE_MAIN},
    {"add_rms", {O(ADD)}, OPSCOPE_GPU_ROLE_MAIN},
    {"topk_moe", {O(SOFT_MAX), O(ARGSORT), O(TOP_K)}, OPSCOPE_GPU_ROLE_MAIN},
    {"rope", {O(ROPE)}, OPSCOPE_GPU_ROLE_MAIN},
    {"soft_max", {O(SOFT_MAX)}, OPSCOPE_GPU_ROLE_MAIN},
    {"soft_max_back", {O(SOFT_MAX_BACK)}, OPSCOPE_GPU_ROLE_MAIN},
    {"argsort", {O(ARGSORT)}, OPSCOPE_GPU_ROLE_MAIN},
    {"add_id", {O(ADD_ID)}, OPSCOPE_GPU_ROLE_MAIN},
    {"get_rows_back", {O(GET_ROWS_BACK)}, OPSCOPE_GPU_ROLE_MAIN},
    {"rms_norm_back", {O(RMS_NORM_BACK)}, OPSCOPE_GPU_ROLE_MAIN},
    {"diag_mask_inf", {O(DIAG_MASK_INF)}, OPSCOPE_GPU_ROLE_MAIN},
};

/* Whether the non-empty ops of G are exactly SEQ (END-terminated) from its first node on. */
static bool ops_are(const opscope_gpu_node *nodes, const opscope_gpu_group *g, const opscope_ggml_op *seq) {
    int k = 0;
    for (int i = g->first; i <= g->last; i++) {
        if (seq[k] == END || !opscope_ggml_op_is(nodes[i].op, seq[k])) {
            return false;
        }
        k++;
    }
    return seq[k] == END;
}

static bool has_op(const opscope_gpu_node *nodes, const opscope_gpu_group *g, opscope_ggml_op op) {
    for (int i = g->first; i <= g->last; i++) {
        if (opscope_ggml_op_is(nodes[i].op, op)) {
            return true;
        }
    }
    return false;
}

/* ggml-vulkan's perf logger names the fusions that are not a plain run of ops after what
 * they do (ggml_backend_vk_graph_compute's fusion_string); the others join the op names. */
static const char *vk_group_name(const opscope_gpu_node *nodes, const opscope_gpu_group *g) {
    const opscope_gpu_node *f = &nodes[g->first];
    int n = g->last - g->first + 1;
    bool all_add = n >= 2;
    for (int i = g->first; i <= g->last && all_add; i++) {
        all_add = opscope_ggml_op_is(nodes[i].op, O(ADD));
    }
    if (all_add) {
        return "MULTI_ADD";
    }
    if (n >= 5 && has_op(nodes, g, O(ARGSORT)) && has_op(nodes, g, O(GET_ROWS))) {
        /* the five top-k MoE routing patterns, by how they start */
        if (opscope_ggml_op_is(f->op, O(ARGSORT))) return "TOPK_MOE_LATE_SOFTMAX";
        if (opscope_ggml_op_is(f->op, O(SOFT_MAX))) {
            return has_op(nodes, g, O(SUM_ROWS)) ? "TOPK_MOE_EARLY_SOFTMAX_NORM" : "TOPK_MOE_EARLY_SOFTMAX";
        }
        if (opscope_ggml_unary_op_is(f->sub, U(SIGMOID))) return "TOPK_MOE_SIGMOID_NORM_BIAS";
        if (f->sub) return "TOPK_MOE_SQRT_SOFTPLUS_NORM_BIAS";
    }
    static const opscope_ggml_op unary_mul[] = {O(UNARY), O(MUL), END};
    if (ops_are(nodes, g, unary_mul) && f->sub) {
        if (opscope_ggml_unary_op_is(f->sub, U(GELU))) return "GELU_MUL";
        if (opscope_ggml_unary_op_is(f->sub, U(SIGMOID))) return "SIGMOID_MUL";
        if (opscope_ggml_unary_op_is(f->sub, U(SILU))) return "SILU_MUL";
        return "SOFTPLUS_MUL";
    }
    static const opscope_ggml_op ssm_bias[] = {O(SSM_CONV), O(ADD), O(UNARY), END};
    static const opscope_ggml_op ssm[] = {O(SSM_CONV), O(UNARY), END};
    if (ops_are(nodes, g, ssm_bias)) return "SSM_CONV_BIAS_SILU";
    if (ops_are(nodes, g, ssm)) return "SSM_CONV_SILU";
    static const opscope_ggml_op snake[] = {O(MUL), O(SIN), O(SQR), O(MUL), O(ADD), END};
    if (ops_are(nodes, g, snake)) return "SNAKE";
    if (opscope_ggml_op_is(f->op, O(GET_ROWS)) && has_op(nodes, g, O(TOP_K))) return "TOPK_QSA";
    if (opscope_ggml_op_is(f->op, O(SCALE)) && n == 4 && opscope_ggml_op_is(nodes[g->last].op, O(DSV4_HC_POST)))
        return "HC_POST_GATE";
    return NULL;
}

static const opscope_gpu_rules vk = {vk_rules, N_OF(vk_rules), vk_group_name, NULL};

/* ggml-cuda's kernels, as the CUPTI source names them (demangled, without return type and
 * parameters: "mul_mat_vec_q<(ggml_type)2, 1, false, false, false>"), and cuBLAS's for the
 * matrix products ggml-cuda hands to it. Checked against the symbols of a prebuilt
 * libggml-cuda.so (tests/capture_unit/data/ggml_cuda_kernels.tsv). */
static const opscope_gpu_rule cuda_rules[] = {
    /* matrix products: vector (mmvq, mmvf), quantized tiles (mmq), float tiles (mmf) */
    {"mul_mat_vec_q", {O(MUL_MAT), O(MUL_MAT_ID)}, OPSCOPE_GPU_ROLE_MAIN},
    {"mul_mat_vec_q_moe", {O(MUL_MAT_ID)}, OPSCOPE_GPU_ROLE_MAIN},
    {"mul_mat_vec_f", {O(MUL_MAT), O(MUL_MAT_ID)}, OPSCOPE_GPU_ROLE_MAIN},
    {"mul_mat_q", {O(MUL_MAT), O(MUL_MAT_ID)}, OPSCOPE_GPU_ROLE_MAIN},
    {"mul_mat_f", {O(MUL_MAT), O(MUL_MAT_ID)}, OPSCOPE_GPU_ROLE_MAIN},
    /* cuBLAS and its helpers: src0 dequantized, src1 converted, batch pointers */
    {"nvjet", {O(MUL_MAT), O(MUL_MAT_ID), O(OUT_PROD)}, OPSCOPE_GPU_ROLE_MAIN},
    {"cutlass", {O(MUL_MAT), O(MUL_MAT_ID), O(OUT_PROD)}, OPSCOPE_GPU_ROLE_MAIN},
    {"sm90_xmma", {O(MUL_MAT), O(MUL_MAT_ID), O(OUT_PROD)}, OPSCOPE_GPU_ROLE_MAIN},
    {"sm80_xmma", {O(MUL_MAT), O(MUL_MAT_ID), O(OUT_PROD)}, OPSCOPE_GPU_ROLE_MAIN},
    {"ampere", {O(MUL_MAT), O(MUL_MAT_ID), O(OUT_PROD)}, OPSCOPE_GPU_ROLE_MAIN},
    {"gemv", {O(MUL_MAT), O(MUL_MAT_ID), O(OUT_PROD)}, OPSCOPE_GPU_ROLE_MAIN},
    {"gemmsn", {O(MUL_MAT), O(MUL_MAT_ID), O(OUT_PROD)}, OPSCOPE_GPU_ROLE_MAIN},
    {"dequantize_block", {O(MUL_MAT), O(MUL_MAT_ID)}, OPSCOPE_GPU_ROLE_PRE},
    {"convert_unary", {O(MUL_MAT), O(MUL_MAT_ID)}, OPSCOPE_GPU_ROLE_PRE},
    {"k_compute_batched_ptrs", {O(MUL_MAT), O(MUL_MAT_ID)}, OPSCOPE_GPU_ROLE_PRE},
    /* helpers: src1 to q8_1 before the product, expert ids sorted before MUL_MAT_ID, the
     * stream-k partial tiles summed after it */
    {"quantize_q8_1", {O(MUL_MAT), O(MUL_MAT_ID)}, OPSCOPE_GPU_ROLE_PRE},
    {"quantize_mmq", {O(MUL_MAT), O(MUL_MAT_ID)}, OPSCOPE_GPU_ROLE_PRE},
    {"mm_ids_helper", {O(MUL_MAT_ID)}, OPSCOPE_GPU_ROLE_PRE},
    {"mul_mat_q_stream_k_fixup", {O(MUL_MAT), O(MUL_MAT_ID)}, OPSCOPE_GPU_ROLE_POST},
    /* flash attention: the kernel, its mask scan before, the stream-k fixup and the
     * combination of partial results after */
    {"flash_attn_ext", {O(FLASH_ATTN_EXT)}, OPSCOPE_GPU_ROLE_MAIN},
    {"flash_attn_tile", {O(FLASH_ATTN_EXT)}, OPSCOPE_GPU_ROLE_MAIN},
    {"flash_attn_mask_to_kv_max", {O(FLASH_ATTN_EXT)}, OPSCOPE_GPU_ROLE_PRE},
    {"flash_attn_stream_k_fixup", {O(FLASH_ATTN_EXT)}, OPSCOPE_GPU_ROLE_POST},
    {"flash_attn_combine_results", {O(FLASH_ATTN_EXT)}, OPSCOPE_GPU_ROLE_POST},
    /* element-wise families: the op is a template argument */
    {"k_bin_bcast", {O(ADD), O(SUB), O(MUL), O(DIV), O(REPEAT)}, OPSCOPE_GPU_ROLE_MAIN},
    {"unary_op_kernel", {O(UNARY)}, OPSCOPE_GPU_ROLE_MAIN},
    {"unary_gated_op_kernel", {O(GLU)}, OPSCOPE_GPU_ROLE_MAIN},
    {"swiglu_oai_kernel", {O(GLU)}, OPSCOPE_GPU_ROLE_MAIN},
    {"op_clamp_kernel", {O(CLAMP)}, OPSCOPE_GPU_ROLE_MAIN},
    /* fused kernels, named after their first op (RMS_NORM+MUL(+ADD), RMS_NORM+MUL+ROPE...) */
    {"rms_norm_f32", {O(RMS_NORM)}, OPSCOPE_GPU_ROLE_MAIN},
    {"rms_norm_mul_rope_f32", {O(RMS_NORM)}, OPSCOPE_GPU_ROLE_MAIN},
    {"topk_moe_cuda", {O(SOFT_MAX), O(ARGSORT), O(TOP_K)}, OPSCOPE_GPU_ROLE_MAIN},
    {"k_get_rows", {O(GET_ROWS)}, OPSCOPE_GPU_ROLE_MAIN},
    {"k_set_rows", {O(SET_ROWS)}, OPSCOPE_GPU_ROLE_MAIN},
    {"k_argsort_f32_i32", {O(ARGSORT)}, OPSCOPE_GPU_ROLE_MAIN},
    {"cpy", {O(CPY), O(CONT), O(DUP)}, OPSCOPE_GPU_ROLE_MAIN},
    {"rope", {O(ROPE)}, OPSCOPE_GPU_ROLE_MAIN},
    {"soft_max", {O(SOFT_MAX)}, OPSCOPE_GPU_ROLE_MAIN},
    {"reduce_rows_f32", {O(SUM_ROWS), O(MEAN)}, OPSCOPE_GPU_ROLE_MAIN},
};

/* Template argument ARG (0-based, top level) of a demangled NAME is "true". */
static bool targ_true(const char *name, int arg) {
    const char *p = strchr(name, '<');
    if (!p) {
        return false;
    }
    int depth = 0, k = 0;
    for (p++; *p; p++) {
        if (*p == '<' || *p == '(') depth++;
        else if (*p == '>' || *p == ')') {
            if (depth-- == 0) return false;
        } else if (*p == ',' && depth == 0) {
            k++;
            while (p[1] == ' ') p++;
        } else if (k == arg && depth == 0) {
            return strncmp(p, "true", 4) == 0 && (p[4] == ',' || p[4] == '>');
        }
    }
    return false;
}

/* Whether the non-empty nodes after J are exactly the ops of SEQ (END-terminated); *LAST: the
 * last of them. */
static bool followed_by(const opscope_gpu_node *nodes, int n_nodes, int j, const opscope_ggml_op *seq, int *last) {
    int i = j + 1;
    for (int k = 0; seq[k] != END; k++, i++) {
        while (i < n_nodes && nodes[i].empty) i++;
        if (i >= n_nodes || !opscope_ggml_op_is(nodes[i].op, seq[k])) {
            return false;
        }
        *last = i;
    }
    return true;
}

/* ggml-cuda's fused matrix-vector products (ggml_cuda_mm_fusion_args): has_fusion is the 3rd
 * template argument of mul_mat_vec_q, the 5th of mul_mat_vec_f; the kernel then also computed
 * the gate product and the GLU, or the bias, after the node it started. */
static int cuda_fused_after(const char *name, const opscope_gpu_node *nodes, int n_nodes, int j) {
    bool q = strncmp(name, "mul_mat_vec_q<", 14) == 0, f = strncmp(name, "mul_mat_vec_f<", 14) == 0;
    if (!((q && targ_true(name, 2)) || (f && targ_true(name, 4)))) {
        return j;
    }
    static const opscope_ggml_op pats[][5] = {
        {O(ADD), O(MUL_MAT), O(ADD), O(GLU), END}, {O(ADD_ID), O(MUL_MAT_ID), O(ADD_ID), O(GLU), END},
        {O(MUL_MAT), O(GLU), END}, {O(MUL_MAT_ID), O(GLU), END}, {O(ADD), END}, {O(ADD_ID), END},
    };
    for (size_t p = 0; p < sizeof pats / sizeof pats[0]; p++) {
        int last = j;
        if (followed_by(nodes, n_nodes, j, pats[p], &last)) {
            return last;
        }
    }
    return j;
}

static const opscope_gpu_rules cuda = {cuda_rules, N_OF(cuda_rules), NULL, cuda_fused_after};

const opscope_gpu_rules *opscope_gpu_rules_for(const char *source) {
    if (source && strcmp(source, "vulkan") == 0) {
        return &vk;
    }
    if (source && strcmp(source, "cuda") == 0) {
        return &cuda;
    }
    return NULL;
}
