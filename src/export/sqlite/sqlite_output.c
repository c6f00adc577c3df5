/* sqlite_output.c - report --sqlite as a session output (see sqlite_export.h). */
#include "export/sqlite/sqlite_export.h"

#include <stdlib.h>

/* The export (NULL once finish freed it, whatever the outcome). */
typedef struct sqlite_output {
    opscope_sqlite_export_t *x;
} sqlite_output;

/* The Kineto links, and the RPC analysis for the commit. */
static int sqlite_finish(void *impl, opscope_session_t *s, opscope_error *err) {
    sqlite_output *p = impl;
    opscope_sqlite_export_set_rpc(p->x, opscope_session_rpc(s));
    return opscope_sqlite_export_kineto(p->x, opscope_session_kineto(s), err);
}

/* Graphs, backends, meta, indices and views, then the rename. */
static int sqlite_commit(void *impl, opscope_error *err) {
    sqlite_output *p = impl;
    opscope_sqlite_export_t *x = p->x;
    p->x = NULL;
    return opscope_sqlite_export_finish(x, err);
}

static void sqlite_release(void *impl, bool discard) {
    sqlite_output *p = impl;
    (void)discard;
    opscope_sqlite_export_abort(p->x); /* NULL after commit: a no-op */
    free(p);
}

static const opscope_error *sqlite_stopped(const void *impl) {
    const sqlite_output *p = impl;
    return p->x ? opscope_sqlite_export_error(p->x) : NULL;
}

int opscope_output_sqlite(opscope_output *o, const char *path, const char *source,
                          opscope_graphs_t *graphs, opscope_error *err) {
    sqlite_output *p = calloc(1, sizeof *p);
    if (!p) {
        err->code = OPSCOPE_ERROR_NOMEM;
        err->msg = "out of memory";
        return -1;
    }
    p->x = opscope_sqlite_export_new(path, source, err);
    if (!p->x) {
        free(p);
        return -1;
    }
    opscope_sqlite_export_use_graphs(p->x, graphs);
    *o = (opscope_output){.name = "--sqlite", .path = path, .impl = p,
                          .sink = opscope_sqlite_export_sink(p->x),
                          .on_derived = opscope_sqlite_export_derived, .kineto_links = true,
                          .finish = sqlite_finish, .commit = sqlite_commit, .release = sqlite_release,
                          .stopped = sqlite_stopped};
    return 0;
}
