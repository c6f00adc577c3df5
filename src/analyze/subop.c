/* subop.c - UNARY / GLU sub-op names from op_params[0] (ggml's enum ggml_unary_op and
 * enum ggml_glu_op order), for profiles that carry op params but no "sub_op" string. */
#include "analyze/stats.h"

#include <string.h>

static const char *const unary_names[] = {
    "ABS",   "SGN",        "NEG",  "STEP",      "TANH",        "ELU",  "RELU",     "SIGMOID",
    "GELU",  "GELU_QUICK", "SILU", "HARDSWISH", "HARDSIGMOID", "EXP",  "EXPM1",    "SOFTPLUS",
    "GELU_ERF", "XIELU",   "FLOOR", "CEIL",     "ROUND",       "TRUNC",
};

static const char *const glu_names[] = {
    "REGLU", "GEGLU", "SWIGLU", "SWIGLU_OAI", "GEGLU_ERF", "GEGLU_QUICK",
};

const char *opscope_sub_op_of(const opscope_record *rec) {
    if (rec->sub_op) return rec->sub_op;
    if (!(rec->has & OPSCOPE_HAS_OP_PARAMS) || rec->type != OPSCOPE_RECORD_OP) return NULL;
    int32_t v = rec->op_params[0];
    if (v < 0) return NULL;
    if (!strcmp(rec->name, "UNARY"))
        return (size_t)v < sizeof unary_names / sizeof *unary_names ? unary_names[v] : NULL;
    if (!strcmp(rec->name, "GLU"))
        return (size_t)v < sizeof glu_names / sizeof *glu_names ? glu_names[v] : NULL;
    return NULL;
}
