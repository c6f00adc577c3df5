/* kernel_rules.c - first-match substring rules from kernel_rules.def. */
#include "read/kernel_rules.h"

#include <string.h>

typedef struct kernel_rule {
    opscope_kernel_category cat;
    const char *pat;
    size_t len;
} kernel_rule;

static const kernel_rule k_rules[] = {
#define RULE(C, S) {OPSCOPE_KCAT_##C, S, sizeof(S) - 1},
#include "read/kernel_rules.def"
#undef RULE
};

static const char *const k_names[OPSCOPE_KCAT_COUNT] = {
    "gemm", "attention_prefill", "attention_decode", "moe_routing", "moe_gemm", "norm",
    "elementwise", "reduce", "memory", "communication", "other",
};

const char *opscope_kernel_category_name(opscope_kernel_category c) {
    return (unsigned)c < OPSCOPE_KCAT_COUNT ? k_names[c] : "other";
}

size_t opscope_kernel_rule_count(void) { return sizeof k_rules / sizeof k_rules[0]; }

void opscope_kernel_rule_get(size_t i, opscope_kernel_category *c, const char **pattern) {
    if (i >= opscope_kernel_rule_count()) {
        *c = OPSCOPE_KCAT_OTHER;
        *pattern = "";
        return;
    }
    *c = k_rules[i].cat;
    *pattern = k_rules[i].pat;
}

opscope_kernel_category opscope_kernel_classify(const char *name, size_t len) {
    /* Lower-case a bounded prefix once; kernel names rarely exceed a few KB and every
     * distinguishing word sits near the start. */
    char low[4096];
    size_t n = len < sizeof low - 1 ? len : sizeof low - 1;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)name[i];
        low[i] = (char)(ch >= 'A' && ch <= 'Z' ? ch + 32 : ch);
    }
    low[n] = '\0';
    for (size_t r = 0; r < opscope_kernel_rule_count(); r++) {
        if (k_rules[r].len <= n && memmem(low, n, k_rules[r].pat, k_rules[r].len))
            return k_rules[r].cat;
    }
    return OPSCOPE_KCAT_OTHER;
}
