/* diff_apart.c - the first pass of warm-up apart (diff_apart.h): an input's graphs, stopped
 * at a trace's first record (a trace has no graph computes: the pass would read it for
 * nothing). */
#include "analyze/diff/diff_apart.h"
#include "analyze/ggml/graphs.h"

#include <stdbool.h>
#include <string.h>

static void set_nomem(opscope_error *err) {
    *err = (opscope_error){.code = OPSCOPE_ERROR_NOMEM, .msg = "out of memory"};
}

/* The first pass's sink: the graphs, and whether the input turned out to be a trace. */
typedef struct apart_pass {
    opscope_graphs_t *g;
    bool trace;
} apart_pass;

static int apart_meta(void *ud, const opscope_meta *m) {
    apart_pass *p = ud; /* the trace readers say what they read first */
    if (m->profiler && (!strcmp(m->profiler, "kineto") || !strcmp(m->profiler, "chrome"))) {
        p->trace = true;
        return -1;
    }
    return 0;
}

static int apart_record(void *ud, const opscope_record *r) {
    apart_pass *p = ud;
    if (r->category) {
        p->trace = true;
        return -1;
    }
    return opscope_graphs_add(p->g, r, 0);
}

static bool chosen(const void *ctx, const opscope_graph_stats *s) {
    return opscope_graph_filter_chooses(ctx, s);
}

int opscope_diff_apart_find(const char *path, const opscope_graph_filter *f, opscope_diff_read_fn read,
                            opscope_warm_apart *out, opscope_error *err) {
    opscope_format fmt = opscope_detect_file_format(path);
    if (fmt == OPSCOPE_FORMAT_KINETO || fmt == OPSCOPE_FORMAT_CHROME) { /* no graph computes */
        memset(out, 0, sizeof *out);
        return 0;
    }
    apart_pass p = {opscope_graphs_new(), false};
    if (!p.g) return set_nomem(err), -1;
    opscope_sink is = {&p, apart_meta, NULL, apart_record, NULL};
    int rc = read(path, OPSCOPE_FORMAT_AUTO, &is, NULL, err);
    if (rc && p.trace) { /* no warm-up to find: all steady */
        memset(out, 0, sizeof *out);
        memset(err, 0, sizeof *err);
        rc = 0;
    } else if (rc && err->code == OPSCOPE_ERROR_ABORTED) {
        set_nomem(err); /* the graphs stop for memory only */
    } else if (!rc && (opscope_graphs_finish(p.g) || opscope_warm_apart_from(out, p.g, chosen, f))) {
        set_nomem(err);
        rc = -1;
    }
    opscope_graphs_free(p.g);
    return rc ? -1 : 0;
}
