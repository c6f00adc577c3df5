/* op_display.c - a record's display name (see op_display.h). */
#include "analyze/record/op_display.h"

#include <stdio.h>

size_t opscope_op_display(char *buf, size_t size, opscope_record_type type, const char *name,
                          const char *sub_op, const char *extra) {
    int n = sub_op ? snprintf(buf, size, "%s(%s)", name, sub_op) : snprintf(buf, size, "%s", name);
    if (n < 0) return 0;
    if (!extra) return (size_t)n;
    size_t at = (size_t)n < size ? (size_t)n : size ? size - 1 : 0;
    char *rest = size ? buf + at : buf;
    size_t left = size ? size - at : 0;
    /* A COPY's extra is the ggml call that made it, not a fused group. */
    int m = type == OPSCOPE_RECORD_COPY ? snprintf(rest, left, " (via %s)", extra)
                                        : snprintf(rest, left, " [fused: %s]", extra);
    return m < 0 ? 0 : (size_t)n + (size_t)m;
}
