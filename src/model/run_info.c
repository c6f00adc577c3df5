/* run_info.c - an owned opscope_run_info (see run_info.h). */
#include "model/run_info.h"
#include "model/strtab.h"
#include "util/vec.h"

#include <stdlib.h>
#include <string.h>

/* Entries (contexts or decodes) that each own a slice of one shared array of parts (reps or
 * seqs): at[i] is entry i's first part. The typed arrays of entries and parts stand beside it
 * in opscope_run; the entries' part pointers are set by the view. */
typedef struct parted {
    size_t *at;
    size_t n, cap; /* entries (and at): used, held */
    size_t n_parts, cap_parts;
} parted;

struct opscope_run {
    opscope_strtab_t *strs;
    const char **argv;
    size_t n_argv, cap_argv;
    opscope_run_model *models;
    size_t n_models, cap_models;
    opscope_run_context *contexts;
    uint64_t *reps;
    parted ctx; /* contexts and their reps */
    opscope_run_decode *decodes;
    opscope_run_seq *seqs;
    parted dec; /* decodes and their seqs */
    opscope_run_info view;
};

/* Room for one more element of SIZE bytes in *ARR (N used, *CAP held). 0 or -1. */
static int grow(void *arr, size_t n, size_t *cap, size_t size) {
    return opscope_vec_reserve(arr, cap, n + 1, size, 8);
}

/* Appends ENTRY (SIZE bytes) to *ENTRIES and its COUNT parts of PART bytes from SRC to *PARTS,
 * both indexed by P. Returns 0, or -1 when out of memory (nothing added). */
static int add_parted(parted *p, void *entries, size_t size, const void *entry, void *parts, size_t part,
                      const void *src, size_t count) {
    size_t cap_at = p->cap;
    if (grow(&p->at, p->n, &cap_at, sizeof *p->at) || grow(entries, p->n, &p->cap, size) ||
        opscope_vec_reserve(parts, &p->cap_parts, p->n_parts + count, part, 8))
        return -1;
    memcpy(*(char **)entries + p->n * size, entry, size);
    if (count) memcpy(*(char **)parts + p->n_parts * part, src, count * part);
    p->at[p->n++] = p->n_parts;
    p->n_parts += count;
    return 0;
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
    free(r->ctx.at);
    free(r->reps);
    free(r->decodes);
    free(r->dec.at);
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
    c.path = opscope_strtab_dup(r->strs, m->path, &failed);
    c.architecture = opscope_strtab_dup(r->strs, m->architecture, &failed);
    c.name = opscope_strtab_dup(r->strs, m->name, &failed);
    if (failed) return -1;
    r->models[r->n_models++] = c;
    return 0;
}

int opscope_run_add_context(opscope_run_t *r, const opscope_run_context *c) {
    if (!r) return 0;
    opscope_run_context e = *c;
    e.reps_ns = NULL;
    return add_parted(&r->ctx, &r->contexts, sizeof e, &e, &r->reps, sizeof *r->reps, c->reps_ns, c->n_reps);
}

int opscope_run_add_decode(opscope_run_t *r, const opscope_run_decode *d) {
    if (!r) return 0;
    opscope_run_decode e = *d;
    e.seqs = NULL;
    return add_parted(&r->dec, &r->decodes, sizeof e, &e, &r->seqs, sizeof *r->seqs, d->seqs, d->n_seqs);
}

int opscope_run_move_decodes(opscope_run_t *dst, opscope_run_t *src) {
    if (!dst || !src) return 0;
    if (dst->dec.n) {
        for (size_t i = 0; i < src->dec.n; i++) {
            opscope_run_decode d = src->decodes[i];
            d.seqs = d.n_seqs ? src->seqs + src->dec.at[i] : NULL;
            if (opscope_run_add_decode(dst, &d)) return -1;
        }
    } else { /* the arrays change hands: no second copy of a long run's calls */
        opscope_run_decode *dv = dst->decodes;
        opscope_run_seq *sv = dst->seqs;
        parted dp = dst->dec;
        dst->decodes = src->decodes;
        dst->seqs = src->seqs;
        dst->dec = src->dec;
        src->decodes = dv;
        src->seqs = sv;
        src->dec = dp;
    }
    src->dec.n = src->dec.n_parts = 0;
    dst->view.decodes_lost = src->view.decodes_lost;
    return 0;
}

void opscope_run_set_decode_wiped(opscope_run_t *r, size_t i) {
    if (r && i < r->dec.n) r->decodes[i].wiped = 1;
}

void opscope_run_set_decodes_lost(opscope_run_t *r, uint64_t lost) {
    if (r) r->view.decodes_lost = lost;
}

int opscope_run_set_blas(opscope_run_t *r, const char *name, const char *path, int32_t threads) {
    if (!r) return 0;
    int failed = 0;
    const char *n = opscope_strtab_dup(r->strs, name, &failed), *p = opscope_strtab_dup(r->strs, path, &failed);
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
    for (size_t i = 0; i < r->ctx.n; i++)
        r->contexts[i].reps_ns = r->contexts[i].n_reps ? r->reps + r->ctx.at[i] : NULL;
    for (size_t i = 0; i < r->dec.n; i++)
        r->decodes[i].seqs = r->decodes[i].n_seqs ? r->seqs + r->dec.at[i] : NULL;
    r->view.n_decodes = r->dec.n;
    r->view.decodes = r->decodes;
    r->view.n_argv = r->n_argv;
    r->view.argv = r->argv;
    r->view.n_models = r->n_models;
    r->view.models = r->models;
    r->view.n_contexts = r->ctx.n;
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
