/* fused_name.c - fused names in the '+' form of ggml op names (fused_name.h). */
#include "analyze/record/fused_name.h"
#include "analyze/record/op_category.h"
#include "model/ggml_vocab.h"

#include <string.h>

/* The length of the longest ggml op name S starts with that ends at '_' or the end; 0: none.
 * The ops: those with a category, and those that compute nothing (in a group's name all the
 * same: ggml-vulkan joins every node of the group). */
static size_t op_at(const char *s) {
    size_t best = 0;
    for (int op = 0; op < OPSCOPE_GGML_OP_COUNT; op++) {
        if (opscope_ggml_op_kcat(op) < 0 && !opscope_ggml_op_is_view(op)) continue;
        const char *name = opscope_ggml_op_name(op);
        size_t l = strlen(name);
        if (l > best && !strncmp(s, name, l) && (s[l] == '_' || s[l] == '\0')) best = l;
    }
    return best;
}

static const char *multi_add(int32_t n_fused, const char *extra, char *buf, size_t size) {
    const char *add = opscope_ggml_op_name(OPSCOPE_GGML_OP_ADD);
    size_t n_add = strlen(add);
    if (n_fused < 2 || (size_t)n_fused * (n_add + 1) > size) return extra;
    size_t o = 0;
    for (int32_t i = 0; i < n_fused; i++) {
        if (i) buf[o++] = '+';
        memcpy(buf + o, add, n_add);
        o += n_add;
    }
    buf[o] = '\0';
    return buf;
}

const char *opscope_fused_name_canonical(const char *extra, int32_t n_fused, char *buf, size_t size) {
    if (!extra || !*extra || strchr(extra, '+') || size == 0) return extra;
    if (!strcmp(extra, "MULTI_ADD")) return multi_add(n_fused, extra, buf, size);
    size_t o = 0, parts = 0;
    for (const char *p = extra; *p;) {
        size_t l = op_at(p);
        if (!l || o + l + 2 > size) return extra;
        if (parts++) buf[o++] = '+';
        memcpy(buf + o, p, l);
        o += l;
        p += l;
        if (*p == '_') p++;
    }
    buf[o] = '\0';
    return parts >= 2 ? buf : extra;
}
