/*
 * diff_html.c - `opscope diff --html`: one self-contained page (viewer/diff.html, with the
 * viewer's stylesheet, diff.css and diff.js) holding both runs' timeline data and the diff.
 * Every string of the inputs goes through the JSON writer, which escapes < > &, so no data
 * can close a <script> element; the script runs under a CSP that admits only its own hash.
 */
#include "export/diff_report.h"
#include "analyze/op_category.h"

#include <string.h>

int opscope_diff_write_html(opscope_out_t *w, const opscope_diff_t *d,
                            opscope_html_sink_t *base_h, opscope_html_sink_t *new_h,
                            const opscope_diff_report_opts *o, opscope_error *err) {
    static const char marker[] = "<!--OPSCOPE_";
    const char *p = (const char *)opscope_diff_html;
    const char *end = p + opscope_diff_html_len;
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
        size_t len = (size_t)(close - q);
#define IS(lit) (len == sizeof(lit) - 1 && !memcmp(q, lit, sizeof(lit) - 1))
        if (IS("CSS")) {
            opscope_out_str(w, "<style>\n");
            opscope_out_write(w, opscope_viewer_css, opscope_viewer_css_len);
            opscope_out_write(w, opscope_diff_css, opscope_diff_css_len);
            opscope_out_str(w, "</style>");
        } else if (IS("CSP")) {
            opscope_out_str(w, "<meta http-equiv=\"Content-Security-Policy\" content=\""
                               "default-src 'none'; script-src 'sha256-");
            opscope_out_str(w, opscope_diff_js_sha256);
            opscope_out_str(w, "'; style-src 'unsafe-inline'; img-src data:\">");
        } else if (IS("JS")) {
            opscope_out_str(w, "<script>");
            opscope_out_write(w, opscope_diff_js, opscope_diff_js_len);
            opscope_out_str(w, "</script>");
        } else if (IS("DATA_BASE") || IS("DATA_NEW")) {
            bool base = IS("DATA_BASE");
            opscope_out_str(w, base ? "<script type=\"application/json\" id=\"opscope-data-base\">"
                                    : "<script type=\"application/json\" id=\"opscope-data-new\">");
            if (opscope_html_sink_write_data(base ? base_h : new_h, w, err)) return -1;
            opscope_out_str(w, "</script>");
        } else if (IS("CATS")) {
            /* ggml records carry no category: the page matches them to a category row by
             * the ggml op table */
            opscope_out_str(w, "<script type=\"application/json\" id=\"opscope-cats\">{");
            for (size_t i = 0; i < opscope_ggml_op_rule_count(); i++) {
                opscope_kernel_category c;
                const char *op;
                opscope_ggml_op_rule_get(i, &c, &op);
                if (i) opscope_out_char(w, ',');
                opscope_out_json_str(w, op);
                opscope_out_char(w, ':');
                opscope_out_json_str(w, opscope_kernel_category_name(c));
            }
            opscope_out_str(w, "}</script>");
        } else if (IS("DIFF")) {
            opscope_out_str(w, "<script type=\"application/json\" id=\"opscope-diff\">");
            opscope_diff_write_json(w, d, o);
            opscope_out_str(w, "</script>");
        } else {
            opscope_out_write(w, m, (size_t)(close + 3 - m));
        }
#undef IS
        p = close + 3;
    }
    return 0;
}
