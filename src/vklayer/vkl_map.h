/*
 * vkl_map.h - the layer's handle tables: open addressing over caller-provided arrays, keyed by
 * a non-zero 64-bit handle, with linear probing and backward-shift deletion, so deleted keys
 * leave no tombstones and a table that sees millions of inserts and deletes stays as fast as
 * its live size. Bounded: an insert fails once MAX keys are live (the caller goes untimed).
 * Thread safety: none; the layer calls it under g_vkl.mu.
 */
#ifndef OPSCOPE_VKL_MAP_H
#define OPSCOPE_VKL_MAP_H

#include <stdbool.h>
#include <stdint.h>

/* Not util/hindex.h: handles are deleted (vkDestroy*), which it cannot do, and the layer's
 * tables are fixed-size arrays it is given; the layer takes header-only util/hash.h only. */
typedef struct vkl_map {
    uint64_t *keys; /* CAP slots, 0 = empty */
    uint64_t *vals;
    uint32_t cap;   /* a power of two */
    uint32_t max;   /* live keys at most (below CAP, so a probe always meets an empty slot) */
    uint32_t n;
} vkl_map;

#define VKL_MAP_INIT(keys, vals, cap) {(keys), (vals), (cap), (cap) / 4 * 3, 0}

/* The value slot of KEY, or NULL when absent (KEY 0 is never present). */
uint64_t *vkl_map_get(vkl_map *m, uint64_t key);
/* The value slot of KEY, added with value 0 when absent; NULL when the table is full. */
uint64_t *vkl_map_put(vkl_map *m, uint64_t key);
/* Removes KEY if present; returns its value, or 0. */
uint64_t vkl_map_del(vkl_map *m, uint64_t key);

#endif
