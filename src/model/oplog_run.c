/* oplog_run.c - the RUN chunk's payload (see oplog_run.h). */
#include "model/oplog_run.h"

#include <stdlib.h>
#include <string.h>

/* Fields in this order (docs/formats.md): argv, models, contexts, then the BLAS and cores. */
int opscope_oplog_put_run(opscope_oplog_buf *b, const opscope_run_info *run) {
    static const opscope_run_info none = {0};
    const opscope_run_info *r = run ? run : &none;
    int e = opscope_oplog_put_u(b, r->n_argv);
    for (size_t i = 0; i < r->n_argv; i++) e |= opscope_oplog_put_str(b, r->argv[i]);
    e |= opscope_oplog_put_u(b, r->n_models);
    for (size_t i = 0; i < r->n_models; i++) {
        const opscope_run_model *m = &r->models[i];
        e |= opscope_oplog_put_str(b, m->path) | opscope_oplog_put_u(b, m->size_bytes) |
             opscope_oplog_put_str(b, m->architecture) | opscope_oplog_put_str(b, m->name) |
             opscope_oplog_put_u(b, m->n_params) | opscope_oplog_put_i(b, m->file_type);
    }
    e |= opscope_oplog_put_u(b, r->n_contexts);
    for (size_t i = 0; i < r->n_contexts; i++) {
        const opscope_run_context *c = &r->contexts[i];
        e |= opscope_oplog_put_i(b, c->model) | opscope_oplog_put_u(b, c->n_ctx) |
             opscope_oplog_put_u(b, c->n_batch) | opscope_oplog_put_u(b, c->n_ubatch) |
             opscope_oplog_put_u(b, c->n_threads) | opscope_oplog_put_u(b, c->end_ns) |
             opscope_oplog_put_u(b, c->n_reps);
        for (size_t k = 0; k < c->n_reps; k++) e |= opscope_oplog_put_u(b, c->reps_ns[k]);
    }
    e |= opscope_oplog_put_str(b, r->blas) | opscope_oplog_put_str(b, r->blas_path) |
         opscope_oplog_put_i(b, r->blas_threads) | opscope_oplog_put_i(b, r->cpu_cores);
    return e ? -1 : 0;
}

static int get_models(opscope_oplog_cur *c, opscope_run_t *out) {
    uint64_t n = opscope_oplog_get_count(c);
    for (uint64_t i = 0; i < n && !c->bad; i++) {
        opscope_run_model m = {0};
        m.path = opscope_oplog_get_cstr(c);
        m.size_bytes = opscope_oplog_get_u(c);
        m.architecture = opscope_oplog_get_cstr(c);
        m.name = opscope_oplog_get_cstr(c);
        m.n_params = opscope_oplog_get_u(c);
        m.file_type = opscope_oplog_get_i32(c);
        if (!c->bad && opscope_run_add_model(out, &m)) return -2;
    }
    return c->bad ? -1 : 0;
}

/* A context's repetitions are read into a buffer of their count (at most the bytes left:
 * one byte each at least), then handed to the run, which copies them. */
static int get_context(opscope_oplog_cur *c, opscope_run_t *out) {
    opscope_run_context x = {0};
    x.model = opscope_oplog_get_i32(c);
    x.n_ctx = opscope_oplog_get_u32(c);
    x.n_batch = opscope_oplog_get_u32(c);
    x.n_ubatch = opscope_oplog_get_u32(c);
    x.n_threads = opscope_oplog_get_u32(c);
    x.end_ns = opscope_oplog_get_u(c);
    x.n_reps = (size_t)opscope_oplog_get_count(c);
    uint64_t *reps = x.n_reps ? malloc(x.n_reps * sizeof *reps) : NULL;
    if (x.n_reps && !reps) return -2;
    for (size_t k = 0; k < x.n_reps && !c->bad; k++) reps[k] = opscope_oplog_get_u(c);
    x.reps_ns = reps;
    int rc = c->bad ? -1 : opscope_run_add_context(out, &x) ? -2 : 0;
    free(reps);
    return rc;
}

int opscope_oplog_get_run(opscope_oplog_cur *c, opscope_run_t *out) {
    uint64_t n = opscope_oplog_get_count(c);
    for (uint64_t i = 0; i < n && !c->bad; i++) {
        size_t len;
        const char *s = opscope_oplog_get_str(c, &len);
        if (!c->bad && opscope_run_add_arg(out, s, s ? len : 0)) return -2;
    }
    int rc = c->bad ? -1 : get_models(c, out);
    uint64_t n_ctx = rc ? 0 : opscope_oplog_get_count(c);
    for (uint64_t i = 0; i < n_ctx && rc == 0; i++) rc = get_context(c, out);
    if (rc || c->bad) return rc ? rc : -1;
    const char *blas = opscope_oplog_get_cstr(c), *path = opscope_oplog_get_cstr(c);
    int32_t threads = opscope_oplog_get_i32(c), cores = opscope_oplog_get_i32(c);
    if (c->bad) return -1;
    if (opscope_run_set_blas(out, blas, path, threads)) return -2;
    opscope_run_set_cores(out, cores);
    return 0;
}
