/* subop.c - UNARY / GLU sub-ops by name and by ggml's enum value (enum ggml_unary_op and
 * enum ggml_glu_op in the order of ggml 0.27, the version opscope targets). Seed v3 files
 * carry the value, opscope's own files both, older opscope files the name only. */
#include "opscope.h"

#include <string.h>

static const char *const unary_names[] = {
    "ABS",   "SGN",        "NEG",  "STEP",      "TANH",        "ELU",  "RELU",     "SIGMOID",
    "GELU",  "GELU_QUICK", "SILU", "HARDSWISH", "HARDSIGMOID", "EXP",  "EXPM1",    "SOFTPLUS",
    "GELU_ERF", "XIELU",   "FLOOR", "CEIL",     "ROUND",       "TRUNC",
};

static const char *const glu_names[] = {
    "REGLU", "GEGLU", "SWIGLU", "SWIGLU_OAI", "GEGLU_ERF", "GEGLU_QUICK", "SWIGLU_CLAMP",
};

/* The name table of op OP, or NULL when OP has no sub-ops. */
static const char *const *table_of(const char *op, size_t *n) {
    if (!op) return NULL;
    if (!strcmp(op, "UNARY")) {
        *n = sizeof unary_names / sizeof *unary_names;
        return unary_names;
    }
    if (!strcmp(op, "GLU")) {
        *n = sizeof glu_names / sizeof *glu_names;
        return glu_names;
    }
    return NULL;
}

const char *opscope_sub_op_name(const char *op, int32_t value) {
    size_t n = 0;
    const char *const *t = table_of(op, &n);
    return t && value >= 0 && (size_t)value < n ? t[value] : NULL;
}

int32_t opscope_sub_op_value(const char *op, const char *name) {
    size_t n = 0;
    const char *const *t = table_of(op, &n);
    if (!t || !name) return -1;
    for (size_t i = 0; i < n; i++)
        if (!strcmp(t[i], name)) return (int32_t)i;
    return -1;
}

const char *opscope_record_sub_op(const opscope_record *rec, int32_t *value) {
    const char *name = rec->sub_op;
    int32_t v = -1;
    if (rec->has & OPSCOPE_HAS_SUB_OP) {
        v = rec->sub_op_value;
        if (!name) name = opscope_sub_op_name(rec->name, v);
    } else if (name) {
        v = opscope_sub_op_value(rec->name, name);
    } else if ((rec->has & OPSCOPE_HAS_OP_PARAMS) && rec->type == OPSCOPE_RECORD_OP) {
        /* a profile with op params but no sub-op: ggml keeps it in op_params[0] */
        name = opscope_sub_op_name(rec->name, rec->op_params[0]);
        if (name) v = rec->op_params[0];
    }
    if (value) *value = v;
    return name;
}
