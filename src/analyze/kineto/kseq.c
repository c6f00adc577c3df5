/* kseq.c - GPU activity sequences per CPU op call (see kseq.h). */
#include "analyze/kineto/kseq.h"

#include "util/hash.h"
#include "util/hindex.h"
#include "util/sort.h"
#include "util/vec.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef struct prow {
    uint32_t op;
    size_t off, len;       /* its names in the handle's NAMES */
    uint64_t count, gpu_ns, cpu_ns;
    int64_t first;         /* the first call's start (the order's last key) */
} prow;

struct opscope_kseq {
    opscope_kseq_launch *l; size_t n_l;   /* borrowed until the finish */
    const opscope_kseq_launch **p;        /* one call's activities (scratch, n_l) */
    uint32_t *scratch;                    /* their names (n_l) */
    OPSCOPE_VEC(uint32_t) names;
    OPSCOPE_VEC(prow) rows;
    opscope_hindex index;
    opscope_kseq_pattern *out;
};

typedef struct opscope_kseq_op {  /* a CPU op call */
    uint32_t thread, name;
    int64_t start, end;
} opscope_kseq_op;

typedef struct pkey {      /* a call's pattern while it is looked up */
    uint32_t op;
    const uint32_t *names;
    size_t len;
} pkey;

static bool row_eq(const void *ctx, uint32_t id, const void *key) {
    const opscope_kseq_t *s = ctx;
    const prow *r = &s->rows.v[id];
    const pkey *k = key;
    return r->op == k->op && r->len == k->len && !memcmp(s->names.v + r->off, k->names, k->len * sizeof *k->names);
}

static int launch_cmp(const void *pa, const void *pb) {
    const opscope_kseq_launch *a = pa, *b = pb;
    if (a->thread != b->thread) return a->thread < b->thread ? -1 : 1;
    return (a->call > b->call) - (a->call < b->call);
}

/* The GPU order of a call's activities: by start, then input order (their place in L). */
static int by_start(const void *pa, const void *pb) {
    const opscope_kseq_launch *const *a = pa, *const *b = pb;
    if ((*a)->start != (*b)->start) return (*a)->start < (*b)->start ? -1 : 1;
    return (*a > *b) - (*a < *b);
}

/* The first of L[0..N) (sorted) at or after (THREAD, T). */
static size_t lower(const opscope_kseq_launch *l, size_t n, uint32_t thread, int64_t t) {
    const opscope_kseq_launch probe = {.thread = thread, .call = t};
    size_t lo = 0;
    for (size_t len = n; len > 0;) { /* halving: [lo, lo + len) holds the answer */
        size_t half = len / 2;
        if (launch_cmp(&l[lo + half], &probe) < 0) {
            lo += half + 1;
            len -= half + 1;
        } else {
            len = half;
        }
    }
    return lo;
}

int opscope_kseq_add(opscope_kseq_t *s, uint32_t op, const uint32_t *names, size_t m, uint64_t gpu_ns,
                     uint64_t cpu_ns, int64_t start) {
    uint64_t h = opscope_hash_word(OPSCOPE_FNV_BASIS, op);
    for (size_t i = 0; i < m; i++) h = opscope_hash_word(h, names[i]);
    h = opscope_mix64(h);
    pkey key = {op, names, m};
    bool added;
    uint32_t id = opscope_hindex_find_or_append(&s->index, h, &key, row_eq, s, (void **)&s->rows.v, &s->rows.cap,
                                                &s->rows.n, sizeof *s->rows.v, &added);
    if (id == OPSCOPE_HINDEX_NONE) return -1;
    prow *r = &s->rows.v[id];
    if (added) {
        *r = (prow){.op = op, .off = s->names.n, .len = m, .first = start};
        if (opscope_vec_reserve((void **)&s->names.v, &s->names.cap, s->names.n + m, sizeof *s->names.v, 64))
            return -1;
        memcpy(s->names.v + s->names.n, names, m * sizeof *names);
        s->names.n += m;
    }
    r->count++;
    r->gpu_ns += gpu_ns;
    r->cpu_ns += cpu_ns;
    if (start < r->first) r->first = start;
    return 0;
}

/* Counts the call OP whose activities are P[0..M) (in GPU order), NAMES room for their names. */
static int count_call(opscope_kseq_t *s, const opscope_kseq_op *op, const opscope_kseq_launch **p, size_t m,
                      uint32_t *names) {
    uint64_t gpu = 0;
    for (size_t i = 0; i < m; i++) {
        names[i] = p[i]->name;
        gpu += (uint64_t)p[i]->dur;
    }
    return opscope_kseq_add(s, op->name, names, m, gpu, (uint64_t)(op->end - op->start), op->start);
}

static int row_cmp(const void *pa, const void *pb) {
    const opscope_kseq_pattern *a = pa, *b = pb;
    if (a->count != b->count) return a->count > b->count ? -1 : 1;
    if (a->op != b->op) return a->op < b->op ? -1 : 1;
    return (a->first_ns > b->first_ns) - (a->first_ns < b->first_ns);
}

opscope_kseq_t *opscope_kseq_new(opscope_kseq_launch *l, size_t n) {
    opscope_kseq_t *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->l = l;
    s->n_l = n;
    s->p = malloc((n ? n : 1) * sizeof *s->p);
    s->scratch = malloc((n ? n : 1) * sizeof *s->scratch);
    if (!s->p || !s->scratch || opscope_hindex_init(&s->index, 64)) {
        opscope_kseq_free(s);
        return NULL;
    }
    opscope_sort(l, n, sizeof *l, launch_cmp);
    return s;
}

int opscope_kseq_call(opscope_kseq_t *s, uint32_t thread, uint32_t name, int64_t start, int64_t end) {
    size_t m = 0;
    for (size_t j = lower(s->l, s->n_l, thread, start); j < s->n_l && s->l[j].thread == thread && s->l[j].call <= end; j++)
        s->p[m++] = &s->l[j];
    if (!m) return 0;
    opscope_sort(s->p, m, sizeof *s->p, by_start);
    opscope_kseq_op op = {thread, name, start, end};
    return count_call(s, &op, s->p, m, s->scratch);
}

/* Lets go of the launches and the per-call scratch. */
static void drop_launches(opscope_kseq_t *s) {
    free(s->p);
    free(s->scratch);
    s->p = NULL, s->scratch = NULL, s->l = NULL, s->n_l = 0;
}

int opscope_kseq_finish(opscope_kseq_t *s) {
    drop_launches(s);
    s->out = calloc(s->rows.n ? s->rows.n : 1, sizeof *s->out);
    if (!s->out) return -1;
    for (size_t i = 0; i < s->rows.n; i++) {
        const prow *r = &s->rows.v[i];
        s->out[i] = (opscope_kseq_pattern){r->op, s->names.v + r->off, r->len, r->count, r->gpu_ns, r->cpu_ns, r->first};
    }
    opscope_sort(s->out, s->rows.n, sizeof *s->out, row_cmp);
    return 0;
}

void opscope_kseq_free(opscope_kseq_t *s) {
    if (!s) return;
    drop_launches(s);
    free(s->names.v);
    free(s->rows.v);
    opscope_hindex_free(&s->index);
    free(s->out);
    free(s);
}

const opscope_kseq_pattern *opscope_kseq_patterns(const opscope_kseq_t *s, size_t *n) {
    *n = s ? s->rows.n : 0;
    return s ? s->out : NULL;
}
