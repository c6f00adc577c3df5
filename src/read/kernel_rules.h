/*
 * kernel_rules.h - GPU kernel categories from kernel names (internal).
 *
 * The rules are the data table kernel_rules.def. Classification is a pure function of the
 * name: thread safe, no allocation. Callers classify each distinct name once and cache.
 */
#ifndef OPSCOPE_KERNEL_RULES_H
#define OPSCOPE_KERNEL_RULES_H

#include <stddef.h>

typedef enum opscope_kernel_category {
    OPSCOPE_KCAT_GEMM = 0,
    OPSCOPE_KCAT_ATTN_PREFILL,
    OPSCOPE_KCAT_ATTN_DECODE,
    OPSCOPE_KCAT_MOE_ROUTING,
    OPSCOPE_KCAT_MOE_GEMM,
    OPSCOPE_KCAT_NORM,
    OPSCOPE_KCAT_ELEMENTWISE,
    OPSCOPE_KCAT_REDUCE,
    OPSCOPE_KCAT_MEMORY,
    OPSCOPE_KCAT_COMM,
    OPSCOPE_KCAT_OTHER,
    OPSCOPE_KCAT_COUNT
} opscope_kernel_category;

/* Category of the kernel NAME[0..LEN) (first matching rule, else OPSCOPE_KCAT_OTHER). */
opscope_kernel_category opscope_kernel_classify(const char *name, size_t len);

/* Static short name: "gemm", "attention_prefill", ..., "other". */
const char *opscope_kernel_category_name(opscope_kernel_category c);

/* The table, for documentation and tests: number of rules, and rule I's category/pattern. */
size_t opscope_kernel_rule_count(void);
void opscope_kernel_rule_get(size_t i, opscope_kernel_category *c, const char **pattern);

#endif /* OPSCOPE_KERNEL_RULES_H */
