/* diff_output.c - the outputs of `opscope diff` as session outputs (see diff_report.h). */
#include "export/diff/diff_report.h"

#include <stdlib.h>
#include <string.h>

typedef struct diff_output {
    opscope_out_t *w;
    opscope_diff_out_kind kind;
    const opscope_diff_view *v;
} diff_output;

static int diff_finish(void *impl, opscope_session_t *s, opscope_error *err) {
    (void)s;
    diff_output *p = impl;
    const opscope_diff_view *v = p->v;
    switch (p->kind) {
    case OPSCOPE_DIFF_OUT_JSON: opscope_diff_write_json(p->w, v->d, &v->ro); break;
    case OPSCOPE_DIFF_OUT_TEXT: opscope_diff_write_text(p->w, v->d, &v->ro); break;
    case OPSCOPE_DIFF_OUT_CONSOLE: opscope_diff_write_console(p->w, v->d, &v->ro); break;
    case OPSCOPE_DIFF_OUT_HTML:
        return opscope_diff_write_html(p->w, v->d, v->html[0], v->html[1], &v->ro, err);
    }
    return 0;
}

static int diff_commit(void *impl, opscope_error *err) {
    return opscope_out_commit_take(&((diff_output *)impl)->w, err);
}

static void diff_release(void *impl, bool discard) {
    diff_output *p = impl;
    (void)discard;
    opscope_out_abort(p->w);
    free(p);
}

int opscope_output_diff(opscope_output *o, opscope_out_t *w, opscope_diff_out_kind kind,
                        const opscope_diff_view *v, opscope_error *err) {
    static const char *const names[] = {"--json", "--text", "--html", "console"};
    diff_output *p = calloc(1, sizeof *p);
    if (!p) {
        opscope_out_abort(w);
        memset(err, 0, sizeof *err);
        err->code = OPSCOPE_ERROR_NOMEM;
        err->msg = "out of memory";
        return -1;
    }
    p->w = w;
    p->kind = kind;
    p->v = v;
    *o = (opscope_output){.name = names[kind], .impl = p, .finish = diff_finish,
                          .commit = diff_commit, .release = diff_release};
    return 0;
}
