/* fused_name.c - fused names in the '+' form of ggml op names (fused_name.h). */
#include "analyze/fused_name.h"

#include <string.h>

/* ggml's op names: those with a category, and those that compute nothing (in a group's
 * name all the same: ggml-vulkan joins every node of the group) */
static const char *const k_ops[] = {
#define OP(cat, name) name,
#include "analyze/ggml_op_category.def"
#undef OP
    "NONE", "VIEW", "RESHAPE", "PERMUTE", "TRANSPOSE",
};

/* The length of the longest op name S starts with that ends at '_' or the end; 0: none. */
static size_t op_at(const char *s) {
    size_t best = 0;
    for (size_t i = 0; i < sizeof k_ops / sizeof *k_ops; i++) {
        size_t l = strlen(k_ops[i]);
        if (l > best && !strncmp(s, k_ops[i], l) && (s[l] == '_' || s[l] == '\0')) best = l;
    }
    return best;
}

static const char *multi_add(int32_t n_fused, const char *extra, char *buf, size_t size) {
    if (n_fused < 2 || (size_t)n_fused * 4 > size) return extra;
    size_t o = 0;
    for (int32_t i = 0; i < n_fused; i++) {
        if (i) buf[o++] = '+';
        memcpy(buf + o, "ADD", 3);
        o += 3;
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
