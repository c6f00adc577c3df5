/*
 * ggml_vocab.h - ggml's vocabulary: ops, types and sub-ops, one table each (internal).
 *
 * The tables are X-macro files in ggml's own style: model/ggml_ops.def (ops with their kernel
 * category, FLOPs formula and traffic rule), model/ggml_types.def (type names and block
 * sizes), model/ggml_sub_ops.def (UNARY and GLU functions). A ggml bump edits those files
 * only; sub-ops too are named by their enum (OPSCOPE_GGML_UNARY_OP_SILU). Code names an op by its enum value (OPSCOPE_GGML_OP_MUL_MAT) and finds a record's op
 * with opscope_ggml_op_value(name); a layer that needs a trait (analyze: categories, FLOPs,
 * traffic) expands the .def itself into its own array, indexed by the enum.
 * Every function is pure and thread-safe; strings returned are static.
 */
#ifndef OPSCOPE_MODEL_GGML_VOCAB_H
#define OPSCOPE_MODEL_GGML_VOCAB_H

#include "opscope.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* ggml's enum ggml_op as opscope knows it (ggml 0.27): the same values. */
typedef enum opscope_ggml_op {
#define GGML_OP(NAME, CATEGORY, FLOPS, TRAFFIC) OPSCOPE_GGML_OP_##NAME,
#include "model/ggml_ops.def"
#undef GGML_OP
    OPSCOPE_GGML_OP_COUNT
} opscope_ggml_op;

/* FLOPs formulas (model/flops.c): the FLOPS column of ggml_ops.def. */
typedef enum opscope_ggml_flops {
    OPSCOPE_GGML_FLOPS_NONE, /* not counted (elementwise work, softmax, copies...) */
    OPSCOPE_GGML_FLOPS_MUL_MAT,
    OPSCOPE_GGML_FLOPS_MUL_MAT_ID,
    OPSCOPE_GGML_FLOPS_FLASH_ATTN,
    OPSCOPE_GGML_FLOPS_CONV_2D,
    OPSCOPE_GGML_FLOPS_CONV_2D_DW,
    OPSCOPE_GGML_FLOPS_CONV_TRANSPOSE_2D,
    OPSCOPE_GGML_FLOPS_CONV_TRANSPOSE_1D,
    OPSCOPE_GGML_FLOPS_OUT_PROD,
} opscope_ggml_flops;

/* Memory-traffic rules (model/traffic.c): the TRAFFIC column of ggml_ops.def. */
typedef enum opscope_ggml_traffic {
    OPSCOPE_GGML_TRAFFIC_SRCS,       /* every source read whole, the output written */
    OPSCOPE_GGML_TRAFFIC_VIEW,       /* computes nothing: no data moves */
    OPSCOPE_GGML_TRAFFIC_GET_ROWS,   /* the selected rows of src0 */
    OPSCOPE_GGML_TRAFFIC_SET_ROWS,   /* the rows written, not the destination */
    OPSCOPE_GGML_TRAFFIC_MUL_MAT_ID, /* the experts the ids can reach */
} opscope_ggml_traffic;

/* The enum value of op NAME ("MUL_MAT"), -1 when NAME is not a ggml op (a kernel name, a
 * copy, NULL). One hash lookup: cheap enough to run once per record. */
int opscope_ggml_op_value(const char *name);

/* The same for the LEN bytes at NAME (a part of a longer string: a fused group's name). */
int opscope_ggml_op_value_n(const char *name, size_t len);

/* opscope_record_sub_op (opscope.h) for a record whose op value OP (-1: none) is known: no
 * lookup. opscope_record_sub_op_needs_op: whether REC's sub-op depends on its op at all (when
 * not, the sub-op is NULL, value -1, whatever the op). */
const char *opscope_record_sub_op_as(const opscope_record *rec, int op, int32_t *value);
static inline bool opscope_record_sub_op_needs_op(const opscope_record *rec) {
    if (rec->has & OPSCOPE_HAS_SUB_OP) return !rec->sub_op && rec->sub_op_value >= 0; /* -1: none */
    return rec->sub_op || ((rec->has & OPSCOPE_HAS_OP_PARAMS) && rec->type == OPSCOPE_RECORD_OP);
}

/* The number of ops in the table (GGML_OP_COUNT of the ggml it was taken from). */
int opscope_ggml_op_count(void);

/* ggml's name of op OP ("MUL_MAT"), NULL outside the table. */
const char *opscope_ggml_op_name(int op);

/* The names by value (OPSCOPE_GGML_OP_COUNT of them), for opscope_ggml_op_is. */
extern const char *const opscope_ggml_op_names[];

/* Whether NAME (NULL: no) is ggml op OP (a value of the enum, never outside it): one compare,
 * cheaper than a lookup where one op is asked for. */
static inline bool opscope_ggml_op_is(const char *name, opscope_ggml_op op) {
    const char *n = opscope_ggml_op_names[op];
    return name && name[0] == n[0] && !strcmp(name, n);
}

/* The FLOPs formula and the traffic rule of op OP; NONE / SRCS outside the table. */
opscope_ggml_flops opscope_ggml_op_flops(int op);
opscope_ggml_traffic opscope_ggml_op_traffic(int op);

/* Whether op OP computes nothing (NONE and the views: VIEW, RESHAPE, PERMUTE, TRANSPOSE). */
bool opscope_ggml_op_is_view(int op);

/* Whether op OP takes a sub-op (UNARY, GLU: ggml keeps its function in op_params[0]). */
bool opscope_ggml_op_has_sub_op(int op);

/* ggml's enum ggml_unary_op and enum ggml_glu_op (model/ggml_sub_ops.def): the same values. */
typedef enum opscope_ggml_unary_op {
#define GGML_UNARY_OP(NAME) OPSCOPE_GGML_UNARY_OP_##NAME,
#define GGML_GLU_OP(NAME)
#include "model/ggml_sub_ops.def"
#undef GGML_UNARY_OP
#undef GGML_GLU_OP
    OPSCOPE_GGML_UNARY_OP_COUNT
} opscope_ggml_unary_op;

typedef enum opscope_ggml_glu_op {
#define GGML_UNARY_OP(NAME)
#define GGML_GLU_OP(NAME) OPSCOPE_GGML_GLU_OP_##NAME,
#include "model/ggml_sub_ops.def"
#undef GGML_UNARY_OP
#undef GGML_GLU_OP
    OPSCOPE_GGML_GLU_OP_COUNT
} opscope_ggml_glu_op;

/* The sub-op names by value (OPSCOPE_GGML_UNARY_OP_COUNT, OPSCOPE_GGML_GLU_OP_COUNT). */
extern const char *const opscope_ggml_unary_op_names[];
extern const char *const opscope_ggml_glu_op_names[];

/* Whether NAME (NULL: no) is UNARY's function OP, as opscope_ggml_op_is. */
static inline bool opscope_ggml_unary_op_is(const char *name, opscope_ggml_unary_op op) {
    const char *n = opscope_ggml_unary_op_names[op];
    return name && name[0] == n[0] && !strcmp(name, n);
}

#endif /* OPSCOPE_MODEL_GGML_VOCAB_H */
