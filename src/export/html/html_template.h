/*
 * html_template.h - fills an embedded page template (viewer/viewer.html, viewer/diff.html):
 * the page as built, each "<!--OPSCOPE_NAME-->" marker replaced by what the caller writes for
 * NAME, and the pieces every page shares (its stylesheet, its one script, the CSP that admits
 * only that script). Internal; thread safety: none needed (pure writes to the caller's W).
 */
#ifndef OPSCOPE_HTML_TEMPLATE_H
#define OPSCOPE_HTML_TEMPLATE_H

#include "opscope.h"
#include "util/out.h"

#include <stdbool.h>
#include <stddef.h>

/* The embedded viewer template (viewer/viewer.html, .css, .js), from the build step. */
extern const unsigned char opscope_viewer_html[];
extern const size_t opscope_viewer_html_len;
extern const unsigned char opscope_viewer_css[];
extern const size_t opscope_viewer_css_len;
extern const unsigned char opscope_viewer_js[];
extern const size_t opscope_viewer_js_len;
/* Base64 SHA-256 of opscope_viewer_js, for the page's Content-Security-Policy. */
extern const char opscope_viewer_js_sha256[];
/* The diff page (viewer/diff.html, diff.css, diff.js; the viewer's CSS comes first). */
extern const unsigned char opscope_diff_html[];
extern const size_t opscope_diff_html_len;
extern const unsigned char opscope_diff_css[];
extern const size_t opscope_diff_css_len;
extern const unsigned char opscope_diff_js[];
extern const size_t opscope_diff_js_len;
extern const char opscope_diff_js_sha256[];

/* Writes what marker NAME (NAME_LEN bytes, not NUL-terminated) stands for to W. Returns 0;
 * 1 when NAME is not one of the caller's (the marker is then copied as it is); -1 to stop
 * the page (ERR filled by the callee). */
typedef int (*opscope_html_fill_fn)(opscope_out_t *w, const char *name, size_t name_len,
                                    void *ctx, opscope_error *err);

/* Writes template TPL (LEN bytes) to W with its markers filled by FILL(CTX). A marker left
 * unclosed is copied as it is. Returns 0, or -1 when FILL returned -1. */
int opscope_html_template_write(opscope_out_t *w, const unsigned char *tpl, size_t len,
                                opscope_html_fill_fn fill, void *ctx, opscope_error *err);

/* Whether marker NAME (NAME_LEN bytes) is the NUL-terminated LIT. */
bool opscope_html_marker_is(const char *name, size_t name_len, const char *lit);

/* The page's CSP: only the script whose base64 SHA-256 is SHA256 runs; nothing is fetched. */
void opscope_html_write_csp(opscope_out_t *w, const char *sha256);

/* The page's script: no byte between the tag and the hashed text, or the hash would not match. */
void opscope_html_write_script(opscope_out_t *w, const void *js, size_t len);

#endif
