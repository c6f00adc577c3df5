/*
 * diff_html.c - `opscope diff --html`: one self-contained page (viewer/diff.html, with the
 * viewer's stylesheet, diff.css and diff.js) holding both runs' timeline data and the diff.
 * Every string of the inputs goes through the JSON writer, which escapes < > &, so no data
 * can close a <script> element; the script runs under a CSP that admits only its own hash.
 */
#include "export/diff/diff_report.h"
#include "analyze/record/op_category.h"
#include "export/fmt/json_fmt.h"
#include "export/html/html_template.h"

typedef struct diff_page {
    const opscope_diff_t *d;
    opscope_html_sink_t *base, *new_;
    const opscope_diff_report_opts *o;
} diff_page;

static int fill(opscope_out_t *w, const char *name, size_t len, void *ctx, opscope_error *err) {
    const diff_page *pg = ctx;
#define IS(lit) opscope_html_marker_is(name, len, lit)
    if (IS("CSS")) {
        opscope_out_str(w, "<style>\n");
        opscope_out_write(w, opscope_viewer_css, opscope_viewer_css_len);
        opscope_out_write(w, opscope_diff_css, opscope_diff_css_len);
        opscope_out_str(w, "</style>");
    } else if (IS("CSP")) {
        opscope_html_write_csp(w, opscope_diff_js_sha256);
    } else if (IS("JS")) {
        opscope_html_write_script(w, opscope_diff_js, opscope_diff_js_len);
    } else if (IS("DATA_BASE") || IS("DATA_NEW")) {
        bool base = IS("DATA_BASE");
        opscope_out_str(w, base ? "<script type=\"application/json\" id=\"opscope-data-base\">"
                                : "<script type=\"application/json\" id=\"opscope-data-new\">");
        if (opscope_html_sink_write_data(base ? pg->base : pg->new_, w, err)) return -1;
        opscope_out_str(w, "</script>");
    } else if (IS("CATS")) {
        /* ggml records carry no category: the page matches them to a category row by
         * the ggml op table */
        opscope_out_str(w, "<script type=\"application/json\" id=\"opscope-cats\">");
        opscope_jw j = opscope_jw_object(w);
        for (size_t i = 0; i < opscope_ggml_op_rule_count(); i++) {
            opscope_kernel_category c;
            const char *op;
            opscope_ggml_op_rule_get(i, &c, &op);
            opscope_jw_key_json(&j, op);
            opscope_out_json_str(w, opscope_kernel_category_name(c));
        }
        opscope_jw_end_obj(&j);
        opscope_out_str(w, "</script>");
    } else if (IS("DIFF")) {
        opscope_out_str(w, "<script type=\"application/json\" id=\"opscope-diff\">");
        opscope_diff_write_json(w, pg->d, pg->o);
        opscope_out_str(w, "</script>");
    } else {
        return 1;
    }
#undef IS
    return 0;
}

int opscope_diff_write_html(opscope_out_t *w, const opscope_diff_t *d,
                            opscope_html_sink_t *base_h, opscope_html_sink_t *new_h,
                            const opscope_diff_report_opts *o, opscope_error *err) {
    diff_page pg = {d, base_h, new_h, o};
    return opscope_html_template_write(w, opscope_diff_html, opscope_diff_html_len, fill, &pg, err);
}
