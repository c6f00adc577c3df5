/*
 * hindex.h - a hash index with an equality callback (in the spirit of ggml_hash_set and redis's
 * dictType): open addressing from a key's 64-bit hash to a dense id, while the entries live in
 * the caller's own array. The caller hashes (util/hash.h) and says when entry ID equals a key
 * (EQ), so one index serves strings, tuples and pointers alike; the slots keep the full hash,
 * so EQ runs only on a likely match. Linear probing, grown to keep it at most 3/4 full.
 *
 * Ownership: the index owns its slots only (opscope_hindex_free); entries are the caller's.
 * NULL handling: none (H must point to an initialised index). Thread safety: none; lookups
 * alone may run concurrently.
 */
#ifndef OPSCOPE_UTIL_HINDEX_H
#define OPSCOPE_UTIL_HINDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/vec.h"

#define OPSCOPE_HINDEX_NONE UINT32_MAX /* "no entry" */

typedef struct opscope_hindex_slot {
    uint64_t hash;
    uint32_t id1; /* id + 1; 0: empty */
} opscope_hindex_slot;

typedef struct opscope_hindex {
    opscope_hindex_slot *slots;
    size_t mask; /* slots - 1 (a power of two minus one) */
    size_t n;    /* ids added */
} opscope_hindex;

/* Whether the caller's entry ID is KEY (CTX: the caller's table). */
typedef bool (*opscope_hindex_eq)(const void *ctx, uint32_t id, const void *key);

/* An empty index with room for about N_HINT entries before it grows. 0, or -1 when out of
 * memory (H is then empty and may be freed). */
int opscope_hindex_init(opscope_hindex *h, size_t n_hint);

/* Frees the slots; H may be zeroed or initialised. */
void opscope_hindex_free(opscope_hindex *h);

/* The id of the entry equal to KEY (hash HASH), or OPSCOPE_HINDEX_NONE. Inline, so a static
 * EQ given at the call site is inlined too (this runs per record). */
static inline uint32_t opscope_hindex_find(const opscope_hindex *h, uint64_t hash, const void *key,
                                           opscope_hindex_eq eq, const void *ctx) {
    for (size_t j = hash & h->mask; h->slots[j].id1; j = (j + 1) & h->mask)
        if (h->slots[j].hash == hash && eq(ctx, h->slots[j].id1 - 1, key)) return h->slots[j].id1 - 1;
    return OPSCOPE_HINDEX_NONE;
}

/* Adds ID (< OPSCOPE_HINDEX_NONE) under HASH; the caller checked that no equal entry is there
 * (opscope_hindex_find). Grows the index when it would be over 3/4 full. 0, or -1 when out of
 * memory (nothing added; the index stays usable). */
int opscope_hindex_add(opscope_hindex *h, uint64_t hash, uint32_t id);

/* The id of the entry equal to KEY (hash HASH) in the caller's array *ITEMS of *N entries of
 * SIZE bytes (capacity *CAP, grown as util/vec.h's opscope_vec_reserve), appended when new:
 * then room is made for entry *N, it is indexed, *N counted and *ADDED set (the caller fills
 * the entry; otherwise *ADDED is false). OPSCOPE_HINDEX_NONE when out of memory or full
 * (nothing added). Inline, as opscope_hindex_find. */
static inline uint32_t opscope_hindex_find_or_append(opscope_hindex *h, uint64_t hash, const void *key,
                                                     opscope_hindex_eq eq, const void *ctx, void **items,
                                                     size_t *cap, size_t *n, size_t size, bool *added) {
    *added = false;
    uint32_t found = opscope_hindex_find(h, hash, key, eq, ctx);
    if (found != OPSCOPE_HINDEX_NONE) return found;
    if (*n >= OPSCOPE_HINDEX_NONE || opscope_vec_reserve(items, cap, *n + 1, size, 64) ||
        opscope_hindex_add(h, hash, (uint32_t)*n))
        return OPSCOPE_HINDEX_NONE;
    *added = true;
    return (uint32_t)(*n)++;
}

#endif /* OPSCOPE_UTIL_HINDEX_H */
