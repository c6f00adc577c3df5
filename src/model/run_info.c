/* run_info.c - an owned opscope_run_info (see run_info.h). */
#include "model/run_info.h"
#include "model/strtab.h"

#include <stdlib.h>
#include <string.h>

struct opscope_run {
    opscope_strtab_t *strs;
    const char **argv;
    size_t n_argv, cap_argv;
    opscope_run_model *models;
    size_t n_models, cap_models;
    opscope_run_context *contexts;
    size_t *rep_at; /* each context's first rep in reps (pointers are set by the view) */
    size_t n_contexts, cap_contexts;
    uint64_t *reps;
    size_t n_reps, cap_reps;
    opscope_run_decode *decodes;
    size_t *seq_at; /* each decode's first part in seqs (pointers are set by the view) */
    size_t n_decodes, cap_decodes;
    opscope_run_seq *seqs;
    size_t n_seqs, cap_seqs;
    opscope_run_info view;
};

/* Room for one more element of SIZE bytes in *ARR (N used, *CAP held). 0 or -1. */
static int grow(void *arr, size_t n, size_t *cap, size_t size) {
    if (n < *cap) return 0;
    size_t nc = *cap ? *cap * 2 : 8;
    void *p = realloc(*(void **)arr, nc * size);
    if (!p) return -1;
    *(void **)arr = p;
    *cap = nc;
    return 0;
}

static const char *dup_str(opscope_run_t *r, const char *s, int *failed) {
    if (!s) return NULL;
    const char *c = opscope_strtab_intern(r->strs, s, strlen(s), NULL);
    if (!c) *failed = 1;
    return c;
}

opscope_run_t *opscope_run_new(void) {
    opscope_run_t *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->strs = opscope_strtab_new();
    if (!r->strs) {
        free(r);
        return NULL;
    }
    return r;
}

void opscope_run_free(opscope_run_t *r) {
    if (!r) return;
    opscope_strtab_free(r->strs);
    free(r->argv);
    free(r->models);
    free(r->contexts);
    free(r->rep_at);
    free(r->reps);
    free(r->decodes);
    free(r->seq_at);
    free(r->seqs);
    free(r);
}

int opscope_run_add_arg(opscope_run_t *r, const char *s, size_t len) {
    if (!r) return 0;
    if (grow(&r->argv, r->n_argv, &r->cap_argv, sizeof *r->argv)) return -1;
    const char *c = opscope_strtab_intern(r->strs, s ? s : "", s ? len : 0, NULL);
    if (!c) return -1;
    r->argv[r->n_argv++] = c;
    return 0;
}

int opscope_run_add_model(opscope_run_t *r, const opscope_run_model *m) {
    if (!r) return 0;
    if (grow(&r->models, r->n_models, &r->cap_models, sizeof *r->models)) return -1;
    opscope_run_model c = *m;
    int failed = 0;
    c.path = dup_str(r, m->path, &failed);
    c.architecture = dup_str(r, m->architecture, &failed);
    c.name = dup_str(r, m->name, &failed);
    if (failed) return -1;
    r->models[r->n_models++] = c;
    return 0;
}

int opscope_run_add_context(opscope_run_t *r, const opscope_run_context *c) {
    if (!r) return 0;
    size_t cap_at = r->cap_contexts;
    if (grow(&r->contexts, r->n_contexts, &r->cap_contexts, sizeof *r->contexts)) return -1;
    if (r->cap_contexts != cap_at) {
        size_t *p = realloc(r->rep_at, r->cap_contexts * sizeof *p);
        if (!p) return -1;
        r->rep_at = p;
    }
    size_t first = r->n_reps;
    for (size_t i = 0; i < c->n_reps; i++) {
        if (grow(&r->reps, r->n_reps, &r->cap_reps, sizeof *r->reps)) {
            r->n_reps = first;
            return -1;
        }
        r->reps[r->n_reps++] = c->reps_ns[i];
    }
    r->rep_at[r->n_contexts] = first;
    r->contexts[r->n_contexts] = *c;
    r->contexts[r->n_contexts].reps_ns = NULL;
    r->n_contexts++;
    return 0;
}

int opscope_run_add_decode(opscope_run_t *r, const opscope_run_decode *d) {
    if (!r) return 0;
    size_t cap_at = r->cap_decodes;
    if (grow(&r->decodes, r->n_decodes, &r->cap_decodes, sizeof *r->decodes)) return -1;
    if (r->cap_decodes != cap_at) {
        size_t *p = realloc(r->seq_at, r->cap_decodes * sizeof *p);
        if (!p) return -1;
        r->seq_at = p;
    }
    size_t first = r->n_seqs;
    for (size_t i = 0; i < d->n_seqs; i++) {
        if (grow(&r->seqs, r->n_seqs, &r->cap_seqs, sizeof *r->seqs)) {
            r->n_seqs = first;
            return -1;
        }
        r->seqs[r->n_seqs++] = d->seqs[i];
    }
    r->seq_at[r->n_decodes] = first;
    r->decodes[r->n_decodes] = *d;
    r->decodes[r->n_decodes].seqs = NULL;
    r->n_decodes++;
    return 0;
}

int opscope_run_move_decodes(opscope_run_t *dst, opscope_run_t *src) {
    if (!dst || !src) return 0;
    if (dst->n_decodes) {
        for (size_t i = 0; i < src->n_decodes; i++) {
            opscope_run_decode d = src->decodes[i];
            d.seqs = d.n_seqs ? src->seqs + src->seq_at[i] : NULL;
            if (opscope_run_add_decode(dst, &d)) return -1;
        }
    } else { /* the arrays change hands: no second copy of a long run's calls */
        opscope_run_decode *dv = dst->decodes;
        size_t *sa = dst->seq_at, cd = dst->cap_decodes, cs = dst->cap_seqs;
        opscope_run_seq *sv = dst->seqs;
        dst->decodes = src->decodes;
        dst->seq_at = src->seq_at;
        dst->n_decodes = src->n_decodes;
        dst->cap_decodes = src->cap_decodes;
        dst->seqs = src->seqs;
        dst->n_seqs = src->n_seqs;
        dst->cap_seqs = src->cap_seqs;
        src->decodes = dv;
        src->seq_at = sa;
        src->cap_decodes = cd;
        src->seqs = sv;
        src->cap_seqs = cs;
    }
    src->n_decodes = src->n_seqs = 0;
    dst->view.decodes_lost = src->view.decodes_lost;
    return 0;
}

void opscope_run_set_decode_wiped(opscope_run_t *r, size_t i) {
    if (r && i < r->n_decodes) r->decodes[i].wiped = 1;
}

void opscope_run_set_decodes_lost(opscope_run_t *r, uint64_t lost) {
    if (r) r->view.decodes_lost = lost;
}

int opscope_run_set_blas(opscope_run_t *r, const char *name, const char *path, int32_t threads) {
    if (!r) return 0;
    int failed = 0;
    const char *n = dup_str(r, name, &failed), *p = dup_str(r, path, &failed);
    if (failed) return -1;
    r->view.blas = n;
    r->view.blas_path = p;
    r->view.blas_threads = threads;
    return 0;
}

void opscope_run_set_cores(opscope_run_t *r, int32_t cores) {
    if (r) r->view.cpu_cores = cores;
}

const opscope_run_info *opscope_run_view(opscope_run_t *r) {
    if (!r) return NULL;
    for (size_t i = 0; i < r->n_contexts; i++)
        r->contexts[i].reps_ns = r->contexts[i].n_reps ? r->reps + r->rep_at[i] : NULL;
    for (size_t i = 0; i < r->n_decodes; i++)
        r->decodes[i].seqs = r->decodes[i].n_seqs ? r->seqs + r->seq_at[i] : NULL;
    r->view.n_decodes = r->n_decodes;
    r->view.decodes = r->decodes;
    r->view.n_argv = r->n_argv;
    r->view.argv = r->argv;
    r->view.n_models = r->n_models;
    r->view.models = r->models;
    r->view.n_contexts = r->n_contexts;
    r->view.contexts = r->contexts;
    return &r->view;
}

opscope_run_t *opscope_run_copy(const opscope_run_info *src, int *failed) {
    if (!src) return NULL;
    opscope_run_t *r = opscope_run_new();
    int bad = !r;
    for (size_t i = 0; !bad && i < src->n_argv; i++)
        bad = opscope_run_add_arg(r, src->argv[i], src->argv[i] ? strlen(src->argv[i]) : 0) != 0;
    for (size_t i = 0; !bad && i < src->n_models; i++)
        bad = opscope_run_add_model(r, &src->models[i]) != 0;
    for (size_t i = 0; !bad && i < src->n_contexts; i++)
        bad = opscope_run_add_context(r, &src->contexts[i]) != 0;
    for (size_t i = 0; !bad && i < src->n_decodes; i++)
        bad = opscope_run_add_decode(r, &src->decodes[i]) != 0;
    opscope_run_set_decodes_lost(r, src->decodes_lost);
    if (!bad) bad = opscope_run_set_blas(r, src->blas, src->blas_path, src->blas_threads) != 0;
    opscope_run_set_cores(r, src->cpu_cores);
    if (bad) {
        opscope_run_free(r);
        if (failed) *failed = 1;
        return NULL;
    }
    return r;
}
