/* subop.c - sub-ops of UNARY and GLU by name and by ggml's enum value (model/ggml_sub_ops.def:
 * enum ggml_unary_op and enum ggml_glu_op of ggml 0.27, the version opscope targets). Seed v3
 * files carry the value, opscope's own files both, older opscope files the name only. */
#include "model/ggml_vocab.h"
#include "opscope.h"

#include <string.h>

const char *const opscope_ggml_unary_op_names[] = {
#define GGML_UNARY_OP(NAME) #NAME,
#define GGML_GLU_OP(NAME)
#include "model/ggml_sub_ops.def"
#undef GGML_UNARY_OP
#undef GGML_GLU_OP
};

const char *const opscope_ggml_glu_op_names[] = {
#define GGML_UNARY_OP(NAME)
#define GGML_GLU_OP(NAME) #NAME,
#include "model/ggml_sub_ops.def"
#undef GGML_UNARY_OP
#undef GGML_GLU_OP
};

/* The name table of op value V, or NULL when that op has no sub-ops. */
static const char *const *table_of_value(int v, size_t *n) {
    if (v == OPSCOPE_GGML_OP_UNARY) {
        *n = OPSCOPE_GGML_UNARY_OP_COUNT;
        return opscope_ggml_unary_op_names;
    }
    if (v == OPSCOPE_GGML_OP_GLU) {
        *n = OPSCOPE_GGML_GLU_OP_COUNT;
        return opscope_ggml_glu_op_names;
    }
    return NULL;
}

static const char *name_of_value(int op, int32_t value) {
    size_t n = 0;
    const char *const *t = table_of_value(op, &n);
    return t && value >= 0 && (size_t)value < n ? t[value] : NULL;
}

static int32_t value_of_name(int op, const char *name) {
    size_t n = 0;
    const char *const *t = table_of_value(op, &n);
    if (!t || !name) return -1;
    for (size_t i = 0; i < n; i++)
        if (!strcmp(t[i], name)) return (int32_t)i;
    return -1;
}

const char *opscope_sub_op_name(const char *op, int32_t value) {
    return name_of_value(opscope_ggml_op_value(op), value);
}

int32_t opscope_sub_op_value(const char *op, const char *name) {
    return value_of_name(opscope_ggml_op_value(op), name);
}

/* OP: REC's op value, or OP_LOOKUP: looked up only on the paths that need it. */
#define OP_LOOKUP (-2)
static const char *record_sub_op(const opscope_record *rec, int op, int32_t *value) {
    const char *name = rec->sub_op;
    int32_t v = -1;
    if (rec->has & OPSCOPE_HAS_SUB_OP) {
        v = rec->sub_op_value;
        if (!name) name = name_of_value(op == OP_LOOKUP ? opscope_ggml_op_value(rec->name) : op, v);
    } else if (name) {
        v = value_of_name(op == OP_LOOKUP ? opscope_ggml_op_value(rec->name) : op, name);
    } else if ((rec->has & OPSCOPE_HAS_OP_PARAMS) && rec->type == OPSCOPE_RECORD_OP) {
        /* a profile with op params but no sub-op: ggml keeps it in op_params[0] */
        name = name_of_value(op == OP_LOOKUP ? opscope_ggml_op_value(rec->name) : op, rec->op_params[0]);
        if (name) v = rec->op_params[0];
    }
    if (value) *value = v;
    return name;
}

const char *opscope_record_sub_op(const opscope_record *rec, int32_t *value) {
    return record_sub_op(rec, OP_LOOKUP, value);
}

const char *opscope_record_sub_op_as(const opscope_record *rec, int op, int32_t *value) {
    return record_sub_op(rec, op < 0 ? -1 : op, value);
}
