/* tbo_result.c - result lines of `test-backend-ops --output sql`. */
#include "read/tbo_result.h"

#include <stdlib.h>
#include <string.h>

#define MAX_COLS 32

int opscope_tbo_parse_sql_line(char *line, opscope_tbo_result *out) {
    static const char head[] = "INSERT INTO test_backend_ops (";
    if (strncmp(line, head, sizeof head - 1)) return -1;
    char *p = line + sizeof head - 1;
    char *cols_end = strstr(p, ") VALUES (");
    if (!cols_end) return -1;
    *cols_end = '\0';
    char *vals = cols_end + 10;

    const char *cols[MAX_COLS];
    int n_cols = 0;
    while (*p && n_cols < MAX_COLS) {
        while (*p == ' ') p++;
        cols[n_cols++] = p;
        char *c = strchr(p, ',');
        if (!c) break;
        *c = '\0';
        p = c + 1;
    }

    const char *v[MAX_COLS];
    int n_v = 0;
    p = vals;
    while (n_v < n_cols) {
        if (*p != '\'') return -1;
        p++;
        char *end = p;
        /* the closing quote is the one followed by ", '" or ")" */
        for (;;) {
            end = strchr(end, '\'');
            if (!end) return -1;
            if (!strncmp(end, "', '", 4) || end[1] == ')') break;
            end++;
        }
        *end = '\0';
        v[n_v++] = p;
        p = end + 1;
        if (*p == ')') break;
        p += 2; /* ", " */
    }
    if (n_v != n_cols) return -1;

    memset(out, 0, sizeof *out);
    out->backend = out->op = out->params = out->mode = out->error = "";
    bool have_op = false, have_sup = false;
    for (int i = 0; i < n_cols; i++) {
        const char *c = cols[i], *x = v[i];
        if (!strcmp(c, "backend_name")) out->backend = x;
        else if (!strcmp(c, "op_name")) out->op = x, have_op = true;
        else if (!strcmp(c, "op_params")) out->params = x;
        else if (!strcmp(c, "test_mode")) out->mode = x;
        else if (!strcmp(c, "error_message")) out->error = x;
        else if (!strcmp(c, "supported")) out->supported = atoi(x) != 0, have_sup = true;
        else if (!strcmp(c, "passed")) out->passed = atoi(x) != 0;
        else if (!strcmp(c, "time_us")) out->time_us = strtod(x, NULL);
        else if (!strcmp(c, "n_runs")) out->n_runs = strtoll(x, NULL, 10);
    }
    return have_op && have_sup ? 0 : -1;
}

bool opscope_tbo_var(const char *params, const char *key, char *buf, size_t size) {
    size_t kl = strlen(key);
    const char *p = params;
    while (p && *p) {
        if (!strncmp(p, key, kl) && p[kl] == '=') {
            p += kl + 1;
            size_t n = strcspn(p, ",");
            if (n >= size) n = size - 1;
            memcpy(buf, p, n);
            buf[n] = '\0';
            return true;
        }
        p = strchr(p, ',');
        if (p) p++;
    }
    return false;
}
