/*
 * tbo_result.h - one result line of `test-backend-ops --output sql` (internal).
 *
 * test-backend-ops (llama.cpp's tests/test-backend-ops.cpp) prints, with `--output sql`, one
 * line per test:
 *   INSERT INTO test_backend_ops (col, col, ...) VALUES ('v', 'v', ...);
 * The columns are named in every line, so the parser looks them up by name and does not
 * depend on their order. Values are single-quoted without escapes; a value ends at a quote
 * followed by ", '" or ");".
 *
 * Thread safety: pure. Ownership: the strings of a result point into the caller's LINE,
 * which the parser modifies (values are NUL-terminated in place).
 */
#ifndef OPSCOPE_TBO_RESULT_H
#define OPSCOPE_TBO_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct opscope_tbo_result {
    const char *backend;   /* backend_name: "CPU", "Vulkan0" */
    const char *op;        /* op_name as ggml_op_desc gives it: "MUL_MAT", "SWIGLU" */
    const char *params;    /* op_params: the test's vars ("name=...,type=f32,ne=[...],...") */
    const char *mode;      /* test_mode: "perf", "test" */
    const char *error;     /* error_message, "" when none */
    bool supported, passed;
    double time_us;        /* per run (perf) */
    int64_t n_runs;
} opscope_tbo_result;

/* Parses LINE (modified in place). Returns 0 and fills *OUT for an INSERT line with at least
 * the op_name and supported columns; -1 for any other line (headers, console text). */
int opscope_tbo_parse_sql_line(char *line, opscope_tbo_result *out);

/* The value of KEY in a test's vars ("name=L3_x,type=f32" with KEY "name" gives "L3_x"),
 * copied into BUF (SIZE bytes, NUL-terminated); false when absent. */
bool opscope_tbo_var(const char *params, const char *key, char *buf, size_t size);

#endif /* OPSCOPE_TBO_RESULT_H */
