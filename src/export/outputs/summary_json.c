/* summary_json.c - the JSON summary alone as a session's output (see summary_json.h). */
#include "export/outputs/summary_json.h"

#include "export/json/json_summary.h"
#include "export/kineto/kineto_report.h"

#include <stdlib.h>
#include <string.h>

/* The output's handle: the writer, NULL once committed (opscope_out_commit_take). */
typedef struct summary_json {
    opscope_out_t *w;
} summary_json;

/* The trace's sections after the stats' members, as report --json writes them. */
static void summary_kineto(opscope_out_t *w, void *ud) {
    const opscope_session_t *s = ud;
    opscope_kineto_report_write_json(w, opscope_session_kineto(s), opscope_session_cpath(s));
}

static int summary_finish(void *impl, opscope_session_t *s, opscope_error *err) {
    opscope_out_t *w = ((summary_json *)impl)->w;
    opscope_json_summary_in in = {.graphs = opscope_session_graphs(s), .rpc = opscope_session_rpc(s),
                                  .threads = opscope_session_threads(s)};
    if (opscope_session_kineto(s)) {
        in.extra = summary_kineto;
        in.extra_ud = s;
    }
    opscope_out_str(w, "{\"opscope_summary\":1");
    const opscope_stats_t *st = opscope_session_stats(s);
    int rc = st ? opscope_json_summary_write(w, st, &in) : 0;
    opscope_out_str(w, "}\n");
    if (rc) *err = (opscope_error){.code = OPSCOPE_ERROR_NOMEM, .msg = "out of memory"};
    return rc;
}

static int summary_commit(void *impl, opscope_error *err) {
    return opscope_out_commit_take(&((summary_json *)impl)->w, err);
}

static void summary_release(void *impl, bool discard) {
    (void)discard;
    opscope_out_abort(((summary_json *)impl)->w); /* NULL after the commit */
    free(impl);
}

int opscope_output_summary_json(opscope_output *o, opscope_out_t *w, opscope_error *err) {
    summary_json *p = malloc(sizeof *p);
    if (p) *p = (summary_json){.w = w};
    else opscope_out_abort(w), *err = (opscope_error){.code = OPSCOPE_ERROR_NOMEM, .msg = "out of memory"};
    if (!p) return -1;
    *o = (opscope_output){.name = "--json", .impl = p, .finish = summary_finish,
                          .commit = summary_commit, .release = summary_release};
    return 0;
}
