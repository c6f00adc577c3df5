/* op_category.c - kernel categories of ggml ops (the CATEGORY column of model/ggml_ops.def)
 * and of any record. */
#include "analyze/record/op_category.h"
#include "model/ggml_vocab.h"

#include <string.h>

/* ggml op value -> category, -1 for ops the table leaves to the kernel rules */
#define CAT_NONE (-1)
static const int8_t k_op_cat[] = {
#define GGML_OP(NAME, CATEGORY, FLOPS, TRAFFIC) [OPSCOPE_GGML_OP_##NAME] = CAT_##CATEGORY,
#define CAT_GEMM OPSCOPE_KCAT_GEMM
#define CAT_MOE_GEMM OPSCOPE_KCAT_MOE_GEMM
#define CAT_ATTN_PREFILL OPSCOPE_KCAT_ATTN_PREFILL
#define CAT_NORM OPSCOPE_KCAT_NORM
#define CAT_REDUCE OPSCOPE_KCAT_REDUCE
#define CAT_MEMORY OPSCOPE_KCAT_MEMORY
#define CAT_ELEMENTWISE OPSCOPE_KCAT_ELEMENTWISE
#include "model/ggml_ops.def"
#undef GGML_OP
};

size_t opscope_ggml_op_rule_count(void) {
    size_t n = 0;
    for (int op = 0; op < OPSCOPE_GGML_OP_COUNT; op++) n += k_op_cat[op] >= 0;
    return n;
}

/* Row I: the ops with a category, by category, then in enum order. */
void opscope_ggml_op_rule_get(size_t i, opscope_kernel_category *c, const char **op) {
    for (int cat = 0; cat < OPSCOPE_KCAT_COUNT; cat++)
        for (int v = 0; v < OPSCOPE_GGML_OP_COUNT; v++)
            if (k_op_cat[v] == cat && i-- == 0) {
                *c = (opscope_kernel_category)cat;
                *op = opscope_ggml_op_name(v);
                return;
            }
    *c = OPSCOPE_KCAT_OTHER;
    *op = "";
}

int opscope_ggml_op_kcat(int op) { return op >= 0 && op < OPSCOPE_GGML_OP_COUNT ? k_op_cat[op] : -1; }

int opscope_ggml_op_category(const char *name) { return opscope_ggml_op_kcat(opscope_ggml_op_value(name)); }

const char *opscope_record_category(const opscope_record *rec) {
    if (rec->category) return rec->category;
    if (rec->type == OPSCOPE_RECORD_COPY) return opscope_kernel_category_name(OPSCOPE_KCAT_MEMORY);
    const char *name = rec->name ? rec->name : "";
    int op = opscope_ggml_op_value(name), c = opscope_ggml_op_kcat(op);
    if (op == OPSCOPE_GGML_OP_FLASH_ATTN_EXT && rec->n_src > 0 && rec->ne_src[0][1] == 1)
        c = OPSCOPE_KCAT_ATTN_DECODE;
    if (c < 0) c = (int)opscope_kernel_classify(name, strlen(name));
    return opscope_kernel_category_name((opscope_kernel_category)c);
}
