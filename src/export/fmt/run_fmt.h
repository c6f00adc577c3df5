/*
 * run_fmt.h - the "capture" object's run members (docs/formats.md, "capture"): argv, models,
 * contexts, blas, cpu_cores, decodes; written by every writer of that object through
 * opscope_json_write_capture_members (json_fmt.h). Header-only, as json_fmt.h.
 */
#ifndef OPSCOPE_RUN_FMT_H
#define OPSCOPE_RUN_FMT_H

#include "opscope.h"
#include "util/out.h"

static inline void opscope_json_write_key(opscope_out_t *w, const char **sep, const char *key) {
    opscope_out_str(w, *sep);
    opscope_out_char(w, '"');
    opscope_out_str(w, key);
    opscope_out_str(w, "\":");
    *sep = ",";
}

static inline void opscope_json_write_run_model(opscope_out_t *w, const opscope_run_model *m) {
    const char *sep = "";
    opscope_out_char(w, '{');
    if (m->path) opscope_json_write_key(w, &sep, "path"), opscope_out_json_str(w, m->path);
    if (m->size_bytes) opscope_json_write_key(w, &sep, "size"), opscope_out_u64(w, m->size_bytes);
    if (m->architecture)
        opscope_json_write_key(w, &sep, "architecture"), opscope_out_json_str(w, m->architecture);
    if (m->name) opscope_json_write_key(w, &sep, "name"), opscope_out_json_str(w, m->name);
    if (m->n_params) opscope_json_write_key(w, &sep, "n_params"), opscope_out_u64(w, m->n_params);
    if (m->file_type >= 0)
        opscope_json_write_key(w, &sep, "file_type"), opscope_out_i64(w, m->file_type);
    opscope_out_char(w, '}');
}

static inline void opscope_json_write_run_context(opscope_out_t *w, const opscope_run_context *c) {
    opscope_out_str(w, "{\"model\":");
    opscope_out_i64(w, c->model);
    const char *sep = ",";
    const char *const keys[] = {"n_ctx", "n_batch", "n_ubatch", "n_threads"};
    const uint32_t vals[] = {c->n_ctx, c->n_batch, c->n_ubatch, c->n_threads};
    for (int i = 0; i < 4; i++) opscope_json_write_key(w, &sep, keys[i]), opscope_out_u64(w, vals[i]);
    opscope_json_write_key(w, &sep, "end_ns");
    opscope_out_u64(w, c->end_ns);
    opscope_json_write_key(w, &sep, "reps_ns");
    opscope_out_char(w, '[');
    for (size_t i = 0; i < c->n_reps; i++) {
        if (i) opscope_out_char(w, ',');
        opscope_out_u64(w, c->reps_ns[i]);
    }
    opscope_out_str(w, "]}");
}

static inline void opscope_json_write_run_decode(opscope_out_t *w, const opscope_run_decode *d) {
    opscope_out_str(w, "{\"start_ns\":");
    opscope_out_u64(w, d->start_ns);
    opscope_out_str(w, ",\"end_ns\":");
    opscope_out_u64(w, d->end_ns);
    opscope_out_str(w, ",\"graph\":");
    opscope_out_i64(w, d->graph);
    opscope_out_str(w, ",\"graphs\":");
    opscope_out_u64(w, d->n_graphs);
    opscope_out_str(w, ",\"tokens\":");
    opscope_out_u64(w, d->n_tokens);
    opscope_out_str(w, ",\"outputs\":");
    opscope_out_u64(w, d->n_outputs);
    opscope_out_str(w, ",\"context\":");
    opscope_out_i64(w, d->context);
    opscope_out_str(w, ",\"ret\":");
    opscope_out_i64(w, d->ret);
    if (d->wiped) opscope_out_str(w, ",\"wiped\":1");
    opscope_out_str(w, ",\"seqs\":[");
    for (size_t i = 0; i < d->n_seqs; i++) {
        const opscope_run_seq *q = &d->seqs[i];
        opscope_out_str(w, i ? ",{\"seq\":" : "{\"seq\":");
        opscope_out_i64(w, q->seq);
        opscope_out_str(w, ",\"request\":");
        opscope_out_u64(w, q->request);
        opscope_out_str(w, ",\"tokens\":");
        opscope_out_u64(w, q->n_tokens);
        opscope_out_str(w, ",\"prompt\":");
        opscope_out_u64(w, q->n_prompt);
        opscope_out_str(w, ",\"outputs\":");
        opscope_out_u64(w, q->n_outputs);
        opscope_out_char(w, '}');
    }
    opscope_out_str(w, "]}");
}

/* R's members after *SEP (R may be NULL: nothing). */
static inline void opscope_json_write_run_members(opscope_out_t *w, const opscope_run_info *r,
                                                  const char **sep) {
    if (!r) return;
    if (r->n_argv) {
        opscope_json_write_key(w, sep, "argv");
        opscope_out_char(w, '[');
        for (size_t i = 0; i < r->n_argv; i++) {
            if (i) opscope_out_char(w, ',');
            opscope_out_json_str(w, r->argv[i] ? r->argv[i] : "");
        }
        opscope_out_char(w, ']');
    }
    if (r->n_models) {
        opscope_json_write_key(w, sep, "models");
        opscope_out_char(w, '[');
        for (size_t i = 0; i < r->n_models; i++) {
            if (i) opscope_out_char(w, ',');
            opscope_json_write_run_model(w, &r->models[i]);
        }
        opscope_out_char(w, ']');
    }
    if (r->n_contexts) {
        opscope_json_write_key(w, sep, "contexts");
        opscope_out_char(w, '[');
        for (size_t i = 0; i < r->n_contexts; i++) {
            if (i) opscope_out_char(w, ',');
            opscope_json_write_run_context(w, &r->contexts[i]);
        }
        opscope_out_char(w, ']');
    }
    if (r->blas) {
        opscope_json_write_key(w, sep, "blas");
        opscope_out_str(w, "{\"name\":");
        opscope_out_json_str(w, r->blas);
        if (r->blas_path) opscope_out_str(w, ",\"path\":"), opscope_out_json_str(w, r->blas_path);
        if (r->blas_threads) opscope_out_str(w, ",\"threads\":"), opscope_out_i64(w, r->blas_threads);
        opscope_out_char(w, '}');
    }
    if (r->cpu_cores) {
        opscope_json_write_key(w, sep, "cpu_cores");
        opscope_out_i64(w, r->cpu_cores);
    }
    if (r->n_decodes) {
        opscope_json_write_key(w, sep, "decodes");
        opscope_out_char(w, '[');
        for (size_t i = 0; i < r->n_decodes; i++) {
            opscope_out_str(w, i ? ",\n" : "\n");
            opscope_json_write_run_decode(w, &r->decodes[i]);
        }
        opscope_out_char(w, ']');
    }
    if (r->decodes_lost) {
        opscope_json_write_key(w, sep, "decodes_lost");
        opscope_out_u64(w, r->decodes_lost);
    }
}

#endif /* OPSCOPE_RUN_FMT_H */
