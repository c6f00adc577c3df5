/*
 * gpu_rules.c - per-backend kernel naming rules for gpu_map.c. Only names that the graph's
 * own op names (in lower case) would not map, or would map wrongly, need a rule: a longer
 * rule wins over a shorter op name ("mul_mat_vec" is MUL_MAT, not MUL).
 */
#include "gpu_map.h"

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

static const opscope_gpu_rules vk = {vk_rules, N_OF(vk_rules)};

const opscope_gpu_rules *opscope_gpu_rules_for(const char *source) {
    if (source && strcmp(source, "vulkan") == 0) {
        return &vk;
    }
    return NULL;
}
