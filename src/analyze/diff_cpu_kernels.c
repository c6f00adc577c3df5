/*
 * diff_cpu_kernels.c - (CPU op, kernel name) tally of a trace's kernels (see the header).
 */
#include "analyze/diff_cpu_kernels.h"
#include "util/hash.h"
#include "util/sort.h"
#include "util/vec.h"

#include <stdlib.h>

static uint64_t key_of(uint32_t op, uint32_t name) { return (uint64_t)op << 32 | name; }

static int grow_index(opscope_diff_cpuk *t) {
    size_t cap = t->slots ? (t->mask + 1) * 2 : 256;
    uint32_t *ns = calloc(cap, sizeof *ns);
    if (!ns) return -1;
    for (size_t i = 0; i < t->n; i++) {
        size_t j = opscope_mix64(key_of(t->v[i].op, t->v[i].name)) & (cap - 1);
        while (ns[j]) j = (j + 1) & (cap - 1);
        ns[j] = (uint32_t)i + 1;
    }
    free(t->slots);
    t->slots = ns;
    t->mask = cap - 1;
    return 0;
}

int opscope_diff_cpuk_add(opscope_diff_cpuk *t, uint32_t op, uint32_t name, int cat,
                          uint64_t dur_ns) {
    if ((!t->slots || (t->n + 1) * 4 > (t->mask + 1) * 3) && grow_index(t)) return -1;
    size_t j = opscope_mix64(key_of(op, name)) & t->mask;
    for (; t->slots[j]; j = (j + 1) & t->mask) {
        opscope_diff_cpuk_ent *e = &t->v[t->slots[j] - 1];
        if (e->op == op && e->name == name) {
            e->count++;
            e->total_ns += dur_ns;
            return 0;
        }
    }
    if (t->n >= UINT32_MAX - 1 ||
        opscope_vec_reserve((void **)&t->v, &t->cap, t->n + 1, sizeof *t->v, 64))
        return -1;
    t->v[t->n] = (opscope_diff_cpuk_ent){op, name, cat, 1, dur_ns};
    t->slots[j] = (uint32_t)++t->n;
    return 0;
}

static int ent_cmp(const void *pa, const void *pb) {
    const opscope_diff_cpuk_ent *a = pa, *b = pb;
    if (a->op != b->op) return a->op < b->op ? -1 : 1;
    if (a->total_ns != b->total_ns) return a->total_ns > b->total_ns ? -1 : 1;
    return a->name < b->name ? -1 : a->name > b->name;
}

void opscope_diff_cpuk_sort(opscope_diff_cpuk *t) {
    free(t->slots);
    t->slots = NULL;
    opscope_sort(t->v, t->n, sizeof *t->v, ent_cmp);
}

void opscope_diff_cpuk_free(opscope_diff_cpuk *t) {
    free(t->v);
    free(t->slots);
    *t = (opscope_diff_cpuk){0};
}
