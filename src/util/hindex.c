/* hindex.c - the hash index's growth (hindex.h). */
#include "util/hindex.h"

#include <stdlib.h>

int opscope_hindex_init(opscope_hindex *h, size_t n_hint) {
    size_t cap = 16;
    while (cap / 4 * 3 < n_hint && cap < ((size_t)1 << 40)) cap *= 2;
    h->n = 0;
    h->mask = cap - 1;
    h->slots = calloc(cap, sizeof *h->slots);
    if (!h->slots) {
        h->mask = 0;
        return -1;
    }
    return 0;
}

void opscope_hindex_free(opscope_hindex *h) {
    free(h->slots);
    h->slots = NULL;
    h->mask = 0;
    h->n = 0;
}

static void place(opscope_hindex_slot *slots, size_t mask, uint64_t hash, uint32_t id1) {
    size_t j = hash & mask;
    while (slots[j].id1) j = (j + 1) & mask;
    slots[j].hash = hash;
    slots[j].id1 = id1;
}

static int grow(opscope_hindex *h) {
    size_t cap = (h->mask + 1) * 2;
    opscope_hindex_slot *ns = calloc(cap, sizeof *ns);
    if (!ns) return -1;
    for (size_t i = 0; i <= h->mask; i++)
        if (h->slots[i].id1) place(ns, cap - 1, h->slots[i].hash, h->slots[i].id1);
    free(h->slots);
    h->slots = ns;
    h->mask = cap - 1;
    return 0;
}

int opscope_hindex_add(opscope_hindex *h, uint64_t hash, uint32_t id) {
    if (id >= OPSCOPE_HINDEX_NONE || !h->slots) return -1;
    if ((h->n + 1) * 4 > (h->mask + 1) * 3 && grow(h)) return -1;
    place(h->slots, h->mask, hash, id + 1);
    h->n++;
    return 0;
}
