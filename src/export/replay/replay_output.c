/* replay_output.c - `opscope replay`'s outputs as session outputs (see replay_out.h). */
#include "export/replay/replay_out.h"

#include <stdlib.h>
#include <string.h>

static int nomem(opscope_error *err) {
    memset(err, 0, sizeof *err);
    err->code = OPSCOPE_ERROR_NOMEM;
    err->msg = "out of memory";
    return -1;
}

/* ---- the unique ops, the runs, the console table ---- */

typedef struct replay_output {
    opscope_replay_output_opts o;
} replay_output;

static int replay_finish(void *impl, opscope_session_t *s, opscope_error *err) {
    (void)s;
    replay_output *p = impl;
    if (opscope_ops_export_finish(p->o.ops, err) || p->o.run(p->o.run_ud, p->o.table, err)) return -1;
    if (p->o.console) opscope_replay_write_console(p->o.console, p->o.table);
    return 0;
}

static void replay_release(void *impl, bool discard) {
    (void)discard;
    free(impl);
}

int opscope_output_replay(opscope_output *o, const opscope_replay_output_opts *opts, opscope_error *err) {
    replay_output *p = calloc(1, sizeof *p);
    if (!p) return nomem(err);
    p->o = *opts;
    *o = (opscope_output){.name = "replay", .impl = p, .sink = opscope_ops_export_sink(opts->ops),
                          .finish = replay_finish, .release = replay_release};
    return 0;
}

/* ---- the JSON document and the kept graph-op file ---- */

typedef struct replay_file {
    opscope_out_t *w;
    const opscope_replay_table *r;
    const char *tbo; /* NULL: the graph-op file */
} replay_file;

static int file_finish(void *impl, opscope_session_t *s, opscope_error *err) {
    (void)s;
    (void)err;
    replay_file *p = impl;
    if (p->tbo) opscope_replay_write_json(p->w, p->r, p->tbo);
    else opscope_ops_export_write(p->r->x, p->w);
    return 0;
}

static int file_commit(void *impl, opscope_error *err) {
    return opscope_out_commit_take(&((replay_file *)impl)->w, err);
}

static void file_release(void *impl, bool discard) {
    replay_file *p = impl;
    (void)discard;
    opscope_out_abort(p->w);
    free(p);
}

static int replay_file_new(opscope_output *o, opscope_out_t *w, const opscope_replay_table *r,
                           const char *tbo, opscope_error *err) {
    replay_file *p = calloc(1, sizeof *p);
    if (!p) {
        opscope_out_abort(w);
        return nomem(err);
    }
    *p = (replay_file){w, r, tbo};
    *o = (opscope_output){.name = tbo ? "--json" : "--export-ops", .impl = p, .finish = file_finish,
                          .commit = file_commit, .release = file_release};
    return 0;
}

int opscope_output_replay_json(opscope_output *o, opscope_out_t *w, const opscope_replay_table *r,
                               const char *tbo, opscope_error *err) {
    return replay_file_new(o, w, r, tbo, err);
}

int opscope_output_replay_ops(opscope_output *o, opscope_out_t *w, const opscope_replay_table *r,
                              opscope_error *err) {
    return replay_file_new(o, w, r, NULL, err);
}
