/* ops_output.c - report --export-ops as a session output (see outputs.h). */
#include "export/replay/ops_export.h"
#include "export/outputs/outputs.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct ops_output {
    opscope_ops_export_t *x;
    opscope_out_t *w, *tsv; /* tsv NULL for stdout */
    const char *path;
} ops_output;

static int ops_finish(void *impl, opscope_session_t *s, opscope_error *err) {
    (void)s;
    ops_output *p = impl;
    if (opscope_ops_export_finish(p->x, err)) return -1;
    opscope_ops_export_write(p->x, p->w);
    if (p->tsv) opscope_ops_export_write_tsv(p->x, p->tsv);
    return 0;
}

/* The test file, then its side table; a failure of the first does not stop the second. */
static int ops_commit(void *impl, opscope_error *err) {
    ops_output *p = impl;
    int rc = opscope_out_commit_take(&p->w, err);
    if (p->tsv) {
        opscope_error terr = {0};
        if (opscope_out_commit_take(&p->tsv, &terr) && !rc) {
            *err = terr;
            rc = -1;
        }
    }
    return rc;
}

static void ops_release(void *impl, bool discard) {
    ops_output *p = impl;
    (void)discard;
    opscope_out_abort(p->w);
    opscope_out_abort(p->tsv);
    opscope_ops_export_free(p->x);
    free(p);
}

/* What was left out and why, then where the lines went (even under -q: the notes say what
 * the file lacks). */
static void ops_say(void *impl, const char *cmd, bool quiet) {
    (void)quiet;
    ops_output *p = impl;
    char prefix[64];
    snprintf(prefix, sizeof prefix, "opscope %s: --export-ops: ", cmd);
    bool file = strcmp(p->path, "-") != 0;
    char tsv[4096]; /* the side table holds every line and skipped group */
    snprintf(tsv, sizeof tsv, "%s.tsv", p->path);
    opscope_ops_export_print_notes(p->x, stderr, prefix, file ? tsv : NULL);
    fprintf(stderr, "%s%zu unique ops from %" PRIu64 " of %" PRIu64 " op records written to %s%s%s%s",
            prefix, opscope_ops_export_n_lines(p->x), opscope_ops_export_records_exported(p->x),
            opscope_ops_export_records(p->x), p->path, file ? "; counts and times in " : "",
            file ? p->path : "", file ? ".tsv\n" : "\n");
}

/* Opens PATH.tsv beside PATH (nothing for stdout). Returns 0, or -1 with ERR filled. */
static int open_tsv(ops_output *p, const char *path, opscope_error *err) {
    if (!strcmp(path, "-")) return 0;
    size_t n = strlen(path);
    char *tsv = malloc(n + 5);
    if (!tsv) {
        memset(err, 0, sizeof *err);
        err->code = OPSCOPE_ERROR_NOMEM;
        err->msg = "out of memory";
        return -1;
    }
    memcpy(tsv, path, n);
    memcpy(tsv + n, ".tsv", 5);
    p->tsv = opscope_out_open(tsv, err);
    free(tsv);
    return p->tsv ? 0 : -1;
}

int opscope_output_ops(opscope_output *o, const char *path, const char *source, opscope_error *err) {
    (void)source;
    ops_output *p = calloc(1, sizeof *p);
    if (p) p->x = opscope_ops_export_new();
    if (!p || !p->x) {
        free(p);
        memset(err, 0, sizeof *err);
        err->code = OPSCOPE_ERROR_NOMEM;
        err->msg = "out of memory";
        return -1;
    }
    p->path = path;
    p->w = opscope_out_open(path, err);
    if (!p->w || open_tsv(p, path, err)) {
        ops_release(p, true);
        return -1;
    }
    *o = (opscope_output){.name = "--export-ops", .path = path, .impl = p,
                          .sink = opscope_ops_export_sink(p->x), .finish = ops_finish,
                          .commit = ops_commit, .release = ops_release, .say = ops_say};
    return 0;
}
