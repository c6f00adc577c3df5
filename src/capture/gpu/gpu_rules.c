/*
 * gpu_rules.c - per-backend kernel naming rules for gpu_map.c. Only names that the graph's
 * own op names (in lower case) would not map, or would map wrongly, need a rule: a longer
 * rule wins over a shorter op name ("mul_mat_vec" is MUL_MAT, not MUL).
 */
#include "capture/gpu/gpu_map.h"

#include <stdbool.h>
#include <string.h>

#define N_OF(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* ggml-vulkan's pipeline names (ggml_vk_create_pipeline's name argument, which
 * GGML_VK_DEBUG_MARKERS passes to vkSetDebugUtilsObjectNameEXT). */
static const opscope_gpu_rule vk_rules[] = {
    /* matrix products: mul_mat_vec_*, matmul_*, their _id variants for MoE */
    {"mul_mat", "MUL_MAT", OPSCOPE_GPU_ROLE_MAIN},
    {"matmul", "MUL_MAT", OPSCOPE_GPU_ROLE_MAIN},
    {"mul_mat_vec_id", "MUL_MAT_ID", OPSCOPE_GPU_ROLE_MAIN},
    {"mul_mat_id", "MUL_MAT_ID", OPSCOPE_GPU_ROLE_MAIN},
    {"matmul_id", "MUL_MAT_ID", OPSCOPE_GPU_ROLE_MAIN},
    /* helpers of a matrix product: src1 quantized to q8_1 before it, split-k partial sums
     * reduced after it, the flash-attention split-k reduction and mask preparation */
    {"quantize_q8_1", "MUL_MAT|MUL_MAT_ID", OPSCOPE_GPU_ROLE_PRE},
    {"split_k_reduce", "MUL_MAT|MUL_MAT_ID", OPSCOPE_GPU_ROLE_POST},
    {"fa_split_k_reduce", "FLASH_ATTN_EXT", OPSCOPE_GPU_ROLE_POST},
    {"fa_mask_opt", "FLASH_ATTN_EXT", OPSCOPE_GPU_ROLE_PRE},
    {"fa_sparse_compact", "FLASH_ATTN_EXT", OPSCOPE_GPU_ROLE_PRE},
    {"flash_attn", "FLASH_ATTN_EXT", OPSCOPE_GPU_ROLE_MAIN},
    /* copies: one family of shaders for CPY, CONT and DUP */
    {"cpy", "CPY|CONT|DUP", OPSCOPE_GPU_ROLE_MAIN},
    {"contig_cpy", "CPY|CONT|DUP", OPSCOPE_GPU_ROLE_MAIN},
    {"cpy_transpose", "CPY|CONT|DUP", OPSCOPE_GPU_ROLE_MAIN},
    /* fused kernels, named after their first op */
    {"rms_norm_mul", "RMS_NORM", OPSCOPE_GPU_ROLE_MAIN},
    {"multi_add", "ADD", OPSCOPE_GPU_ROLE_MAIN},
    {"add_rms", "ADD", OPSCOPE_GPU_ROLE_MAIN},
    {"topk_moe", "SOFT_MAX|ARGSORT|TOP_K", OPSCOPE_GPU_ROLE_MAIN},
    {"rope", "ROPE", OPSCOPE_GPU_ROLE_MAIN},
    {"soft_max", "SOFT_MAX", OPSCOPE_GPU_ROLE_MAIN},
    {"soft_max_back", "SOFT_MAX_BACK", OPSCOPE_GPU_ROLE_MAIN},
    {"argsort", "ARGSORT", OPSCOPE_GPU_ROLE_MAIN},
    {"add_id", "ADD_ID", OPSCOPE_GPU_ROLE_MAIN},
    {"get_rows_back", "GET_ROWS_BACK", OPSCOPE_GPU_ROLE_MAIN},
    {"rms_norm_back", "RMS_NORM_BACK", OPSCOPE_GPU_ROLE_MAIN},
    {"diag_mask_inf", "DIAG_MASK_INF", OPSCOPE_GPU_ROLE_MAIN},
};

/* Whether the non-empty ops of G are exactly SEQ (NULL-terminated) from its first node on. */
static bool ops_are(const opscope_gpu_node *nodes, const opscope_gpu_group *g, const char *const *seq) {
    int k = 0;
    for (int i = g->first; i <= g->last; i++) {
        if (!seq[k] || strcmp(nodes[i].op, seq[k]) != 0) {
            return false;
        }
        k++;
    }
    return seq[k] == NULL;
}

static bool has_op(const opscope_gpu_node *nodes, const opscope_gpu_group *g, const char *op) {
    for (int i = g->first; i <= g->last; i++) {
        if (strcmp(nodes[i].op, op) == 0) {
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
        all_add = strcmp(nodes[i].op, "ADD") == 0;
    }
    if (all_add) {
        return "MULTI_ADD";
    }
    if (n >= 5 && has_op(nodes, g, "ARGSORT") && has_op(nodes, g, "GET_ROWS")) {
        /* the five top-k MoE routing patterns, by how they start */
        if (strcmp(f->op, "ARGSORT") == 0) return "TOPK_MOE_LATE_SOFTMAX";
        if (strcmp(f->op, "SOFT_MAX") == 0) {
            return has_op(nodes, g, "SUM_ROWS") ? "TOPK_MOE_EARLY_SOFTMAX_NORM" : "TOPK_MOE_EARLY_SOFTMAX";
        }
        if (f->sub && strcmp(f->sub, "SIGMOID") == 0) return "TOPK_MOE_SIGMOID_NORM_BIAS";
        if (f->sub) return "TOPK_MOE_SQRT_SOFTPLUS_NORM_BIAS";
    }
    static const char *const unary_mul[] = {"UNARY", "MUL", NULL};
    if (ops_are(nodes, g, unary_mul) && f->sub) {
        if (strcmp(f->sub, "GELU") == 0) return "GELU_MUL";
        if (strcmp(f->sub, "SIGMOID") == 0) return "SIGMOID_MUL";
        if (strcmp(f->sub, "SILU") == 0) return "SILU_MUL";
        return "SOFTPLUS_MUL";
    }
    static const char *const ssm_bias[] = {"SSM_CONV", "ADD", "UNARY", NULL};
    static const char *const ssm[] = {"SSM_CONV", "UNARY", NULL};
    if (ops_are(nodes, g, ssm_bias)) return "SSM_CONV_BIAS_SILU";
    if (ops_are(nodes, g, ssm)) return "SSM_CONV_SILU";
    static const char *const snake[] = {"MUL", "SIN", "SQR", "MUL", "ADD", NULL};
    if (ops_are(nodes, g, snake)) return "SNAKE";
    if (strcmp(f->op, "GET_ROWS") == 0 && has_op(nodes, g, "TOP_K")) return "TOPK_QSA";
    if (strcmp(f->op, "SCALE") == 0 && n == 4 && strstr(nodes[g->last].op, "HC_POST")) return "HC_POST_GATE";
    return NULL;
}

static const opscope_gpu_rules vk = {vk_rules, N_OF(vk_rules), vk_group_name};

const opscope_gpu_rules *opscope_gpu_rules_for(const char *source) {
    if (source && strcmp(source, "vulkan") == 0) {
        return &vk;
    }
    return NULL;
}
