/*
 * op_category.h - the kernel category (kernel_rules.h) of a record, for ggml ops as well as
 * GPU kernels (internal).
 *
 * Records of GPU traces carry their category (the reader applied kernel_rules.def). ggml ops
 * are classified by the CATEGORY column of model/ggml_ops.def (the same categories),
 * so a ggml run and a PyTorch run, or a CPU and a GPU backend, line up by category. Copies
 * are `memory`. Any other name goes through the kernel rules. Pure functions; thread safe.
 */
#ifndef OPSCOPE_OP_CATEGORY_H
#define OPSCOPE_OP_CATEGORY_H

#include "read/kernel_rules.h"
#include "opscope.h"

/* Category of a ggml op NAME, or -1 when NAME is not a ggml op or one without a category. */
int opscope_ggml_op_category(const char *name);

/* Category of ggml op value OP (model/ggml_vocab.h), or -1 as above. */
int opscope_ggml_op_kcat(int op);

/*
 * The category name of REC: REC->category when set; a COPY is "memory"; a ggml op by the
 * table (FLASH_ATTN_EXT is attention_decode when its queries, src0 ne[1], are one token, else
 * attention_prefill); else the kernel rules on the name. Static string.
 */
const char *opscope_record_category(const opscope_record *rec);

/* The ops with a category, by category then in enum order, for documentation and tests:
 * number of rows, and row I. */
size_t opscope_ggml_op_rule_count(void);
void opscope_ggml_op_rule_get(size_t i, opscope_kernel_category *c, const char **op);

#endif /* OPSCOPE_OP_CATEGORY_H */
