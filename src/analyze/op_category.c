/* op_category.c - kernel categories of ggml ops (ggml_op_category.def) and of any record. */
#include "analyze/op_category.h"

#include <string.h>

typedef struct op_rule {
    opscope_kernel_category cat;
    const char *op;
} op_rule;

static const op_rule k_ops[] = {
#define OP(C, S) {OPSCOPE_KCAT_##C, S},
#include "analyze/ggml_op_category.def"
#undef OP
};

size_t opscope_ggml_op_rule_count(void) { return sizeof k_ops / sizeof k_ops[0]; }

void opscope_ggml_op_rule_get(size_t i, opscope_kernel_category *c, const char **op) {
    if (i >= opscope_ggml_op_rule_count()) {
        *c = OPSCOPE_KCAT_OTHER;
        *op = "";
        return;
    }
    *c = k_ops[i].cat;
    *op = k_ops[i].op;
}

int opscope_ggml_op_category(const char *name) {
    /* ggml op names are upper case: anything else is a kernel name, not worth the scan. */
    if (!name || name[0] < 'A' || name[0] > 'Z') return -1;
    for (size_t i = 0; i < opscope_ggml_op_rule_count(); i++)
        if (!strcmp(k_ops[i].op, name)) return (int)k_ops[i].cat;
    return -1;
}

const char *opscope_record_category(const opscope_record *rec) {
    if (rec->category) return rec->category;
    if (rec->type == OPSCOPE_RECORD_COPY) return opscope_kernel_category_name(OPSCOPE_KCAT_MEMORY);
    const char *name = rec->name ? rec->name : "";
    int c = opscope_ggml_op_category(name);
    if (c == OPSCOPE_KCAT_ATTN_PREFILL && !strcmp(name, "FLASH_ATTN_EXT") && rec->n_src > 0 &&
        rec->ne_src[0][1] == 1)
        c = OPSCOPE_KCAT_ATTN_DECODE;
    if (c < 0) c = (int)opscope_kernel_classify(name, strlen(name));
    return opscope_kernel_category_name((opscope_kernel_category)c);
}
