/* strtab.c - string interning with the hash index (util/hindex.h) and a chunked arena. */
#include "model/strtab.h"
#include "util/hindex.h"
#include "util/vec.h"

#include <stdlib.h>
#include <string.h>

#define ARENA_CHUNK (64u * 1024u)

typedef struct arena_chunk {
    struct arena_chunk *next;
    size_t used, cap;
    char data[];
} arena_chunk;

struct opscope_strtab {
    opscope_hindex index; /* hash of the bytes -> id */
    uint32_t count;
    const char **by_id;
    uint32_t *len_of; /* per id: its length */
    size_t by_id_cap;
    arena_chunk *chunks;
};

/* The key of a lookup: bytes and their length (strings may hold NUL bytes). */
typedef struct key {
    const char *s;
    size_t len;
} key;

static bool key_eq(const void *ctx, uint32_t id, const void *k) {
    const opscope_strtab_t *t = ctx;
    const key *q = k;
    return t->len_of[id] == q->len && memcmp(t->by_id[id], q->s, q->len) == 0;
}

opscope_strtab_t *opscope_strtab_new(void) {
    opscope_strtab_t *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    if (opscope_hindex_init(&t->index, 48)) {
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
    opscope_hindex_free(&t->index);
    free(t->by_id);
    free(t->len_of);
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

const char *opscope_strtab_intern(opscope_strtab_t *t, const char *s, size_t len, uint32_t *id) {
    if (len > UINT32_MAX - 1) return NULL;
    uint64_t h = opscope_hash_bytes(s, len);
    key k = {s, len};
    uint32_t found = opscope_hindex_find(&t->index, h, &k, key_eq, t);
    if (found != OPSCOPE_HINDEX_NONE) {
        if (id) *id = found;
        return t->by_id[found];
    }
    if (t->count == UINT32_MAX - 1) return NULL;
    size_t cap_len = t->by_id_cap; /* len_of grows with by_id, to the same capacity */
    if (opscope_vec_reserve((void **)&t->len_of, &cap_len, t->count + 1, sizeof *t->len_of, 64) ||
        opscope_vec_reserve((void **)&t->by_id, &t->by_id_cap, t->count + 1, sizeof *t->by_id, 64))
        return NULL;
    char *copy = arena_alloc(t, len + 1);
    if (!copy) return NULL;
    memcpy(copy, s, len);
    copy[len] = '\0';
    if (opscope_hindex_add(&t->index, h, t->count)) return NULL; /* the copy stays in the arena */
    t->len_of[t->count] = (uint32_t)len;
    t->by_id[t->count] = copy;
    if (id) *id = t->count;
    t->count++;
    return copy;
}

uint32_t opscope_strtab_count(const opscope_strtab_t *t) { return t->count; }

const char *opscope_strtab_get(const opscope_strtab_t *t, uint32_t id) {
    return id < t->count ? t->by_id[id] : NULL;
}
