/*
 * diff_cpu_kernels.c - (CPU op, kernel name) tally of a trace's kernels (see the header).
 */
#include "analyze/diff/diff_cpu_kernels.h"
#include "util/hash.h"
#include "util/sort.h"
#include "util/vec.h"

#include <stdlib.h>

static uint64_t key_of(uint32_t op, uint32_t name) { return (uint64_t)op << 32 | name; }

static bool ent_eq(const void *ctx, uint32_t i, const void *key) {
    const opscope_diff_cpuk_ent *e = &((const opscope_diff_cpuk *)ctx)->v[i];
    return key_of(e->op, e->name) == *(const uint64_t *)key;
}

int opscope_diff_cpuk_add(opscope_diff_cpuk *t, uint32_t op, uint32_t name, int cat,
                          uint64_t dur_ns) {
    if (!t->ix.slots && opscope_hindex_init(&t->ix, 192)) return -1;
    uint64_t key = key_of(op, name), h = opscope_mix64(key);
    uint32_t i = opscope_hindex_find(&t->ix, h, &key, ent_eq, t);
    if (i != OPSCOPE_HINDEX_NONE) {
        t->v[i].count++;
        t->v[i].total_ns += dur_ns;
        return 0;
    }
    if (t->n >= UINT32_MAX - 1 ||
        opscope_vec_reserve((void **)&t->v, &t->cap, t->n + 1, sizeof *t->v, 64) ||
        opscope_hindex_add(&t->ix, h, (uint32_t)t->n))
        return -1;
    t->v[t->n++] = (opscope_diff_cpuk_ent){op, name, cat, 1, dur_ns};
    return 0;
}

static int ent_cmp(const void *pa, const void *pb) {
    const opscope_diff_cpuk_ent *a = pa, *b = pb;
    if (a->op != b->op) return a->op < b->op ? -1 : 1;
    if (a->total_ns != b->total_ns) return a->total_ns > b->total_ns ? -1 : 1;
    return a->name < b->name ? -1 : a->name > b->name;
}

void opscope_diff_cpuk_sort(opscope_diff_cpuk *t) {
    opscope_hindex_free(&t->ix);
    opscope_sort(t->v, t->n, sizeof *t->v, ent_cmp);
}

void opscope_diff_cpuk_free(opscope_diff_cpuk *t) {
    free(t->v);
    opscope_hindex_free(&t->ix);
    *t = (opscope_diff_cpuk){0};
}
