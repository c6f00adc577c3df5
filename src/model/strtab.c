/* strtab.c - string interning with an open-addressing hash table and a chunked arena. */
#include "model/strtab.h"

#include <stdlib.h>
#include <string.h>

#define ARENA_CHUNK (64u * 1024u)

typedef struct arena_chunk {
    struct arena_chunk *next;
    size_t used, cap;
    char data[];
} arena_chunk;

typedef struct slot {
    uint64_t hash;
    uint32_t id; /* id + 1; 0 = empty */
    uint32_t len;
} slot;

struct opscope_strtab {
    slot *slots;
    size_t mask;
    uint32_t count;
    const char **by_id;
    size_t by_id_cap;
    arena_chunk *chunks;
};

opscope_strtab_t *opscope_strtab_new(void) {
    opscope_strtab_t *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->mask = 63;
    t->slots = calloc(t->mask + 1, sizeof *t->slots);
    if (!t->slots) {
        free(t);
        return NULL;
    }
    return t;
}

void opscope_strtab_free(opscope_strtab_t *t) {
    if (!t) return;
    arena_chunk *c = t->chunks;
    while (c) {
        arena_chunk *n = c->next;
        free(c);
        c = n;
    }
    free(t->slots);
    free(t->by_id);
    free(t);
}

static char *arena_alloc(opscope_strtab_t *t, size_t n) {
    arena_chunk *c = t->chunks;
    if (!c || c->cap - c->used < n) {
        size_t cap = n > ARENA_CHUNK ? n : ARENA_CHUNK;
        c = malloc(sizeof *c + cap);
        if (!c) return NULL;
        c->used = 0;
        c->cap = cap;
        c->next = t->chunks;
        t->chunks = c;
    }
    char *p = c->data + c->used;
    c->used += n;
    return p;
}

static int grow(opscope_strtab_t *t) {
    size_t ncap = (t->mask + 1) * 2;
    slot *ns = calloc(ncap, sizeof *ns);
    if (!ns) return -1;
    for (size_t i = 0; i <= t->mask; i++) {
        if (!t->slots[i].id) continue;
        size_t j = t->slots[i].hash & (ncap - 1);
        while (ns[j].id) j = (j + 1) & (ncap - 1);
        ns[j] = t->slots[i];
    }
    free(t->slots);
    t->slots = ns;
    t->mask = ncap - 1;
    return 0;
}

const char *opscope_strtab_intern(opscope_strtab_t *t, const char *s, size_t len, uint32_t *id) {
    if (len > UINT32_MAX - 1) return NULL;
    if ((size_t)(t->count + 1) * 4 > (t->mask + 1) * 3 && grow(t) != 0) return NULL;
    uint64_t h = opscope_hash_bytes(s, len);
    size_t j = h & t->mask;
    while (t->slots[j].id) {
        slot *sl = &t->slots[j];
        if (sl->hash == h && sl->len == len) {
            const char *cand = t->by_id[sl->id - 1];
            if (memcmp(cand, s, len) == 0) {
                if (id) *id = sl->id - 1;
                return cand;
            }
        }
        j = (j + 1) & t->mask;
    }
    if (t->count == UINT32_MAX - 1) return NULL;
    if (t->count >= t->by_id_cap) {
        size_t nc = t->by_id_cap ? t->by_id_cap * 2 : 64;
        const char **nb = realloc(t->by_id, nc * sizeof *nb);
        if (!nb) return NULL;
        t->by_id = nb;
        t->by_id_cap = nc;
    }
    char *copy = arena_alloc(t, len + 1);
    if (!copy) return NULL;
    memcpy(copy, s, len);
    copy[len] = '\0';
    t->slots[j].hash = h;
    t->slots[j].len = (uint32_t)len;
    t->slots[j].id = t->count + 1;
    t->by_id[t->count] = copy;
    if (id) *id = t->count;
    t->count++;
    return copy;
}

uint32_t opscope_strtab_count(const opscope_strtab_t *t) { return t->count; }

const char *opscope_strtab_get(const opscope_strtab_t *t, uint32_t id) {
    return id < t->count ? t->by_id[id] : NULL;
}
