/* html_template.c - the embedded pages' marker filling and shared pieces (html_template.h). */
#include "export/html/html_template.h"

#include <string.h>

int opscope_html_template_write(opscope_out_t *w, const unsigned char *tpl, size_t len,
                                opscope_html_fill_fn fill, void *ctx, opscope_error *err) {
    static const char marker[] = "<!--OPSCOPE_";
    const char *p = (const char *)tpl;
    const char *end = p + len;
    while (p < end) {
        const char *m = memmem(p, (size_t)(end - p), marker, sizeof marker - 1);
        if (!m) {
            opscope_out_write(w, p, (size_t)(end - p));
            break;
        }
        opscope_out_write(w, p, (size_t)(m - p));
        const char *q = m + sizeof marker - 1;
        const char *close = memmem(q, (size_t)(end - q), "-->", 3);
        if (!close) {
            opscope_out_write(w, m, (size_t)(end - m));
            break;
        }
        int rc = fill(w, q, (size_t)(close - q), ctx, err);
        if (rc < 0) return -1;
        if (rc > 0) opscope_out_write(w, m, (size_t)(close + 3 - m));
        p = close + 3;
    }
    return 0;
}

bool opscope_html_marker_is(const char *name, size_t name_len, const char *lit) {
    return strlen(lit) == name_len && !memcmp(name, lit, name_len);
}

void opscope_html_write_csp(opscope_out_t *w, const char *sha256) {
    opscope_out_str(w, "<meta http-equiv=\"Content-Security-Policy\" content=\""
                       "default-src 'none'; script-src 'sha256-");
    opscope_out_str(w, sha256);
    opscope_out_str(w, "'; style-src 'unsafe-inline'; img-src data:\">");
}

void opscope_html_write_script(opscope_out_t *w, const void *js, size_t len) {
    opscope_out_str(w, "<script>");
    opscope_out_write(w, js, len);
    opscope_out_str(w, "</script>");
}
