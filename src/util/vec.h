/*
 * vec.h - the growable array every folder shares: a {v, n, cap} struct and one reserve that
 * doubles the capacity (no per-file grow() copies). Ownership: the array is the caller's
 * (free(vec.v)); an empty vector holds v == NULL. Thread safety: none (one owner).
 */
#ifndef OPSCOPE_UTIL_VEC_H
#define OPSCOPE_UTIL_VEC_H

#include <stdint.h>
#include <stdlib.h>

#define OPSCOPE_VEC(T) struct { T *v; size_t n, cap; }

/* *P reallocated to N elements of ELEM bytes: for arrays that grow together under one
 * capacity the caller keeps. Returns 0, or -1 when out of memory or the size overflows (*P
 * unchanged). */
static inline int opscope_vec_resize(void **p, size_t n, size_t elem) {
    if (elem && n > SIZE_MAX / elem) return -1;
    void *np = realloc(*p, n * elem);
    if (!np) return -1;
    *p = np;
    return 0;
}

/* Room for NEED elements of ELEM bytes in *P (capacity *CAP elements, doubled from MIN_CAP).
 * Returns 0, or -1 when out of memory or the size overflows (*P and *CAP unchanged). */
static inline int opscope_vec_reserve(void **p, size_t *cap, size_t need, size_t elem,
                                      size_t min_cap) {
    if (need <= *cap) return 0;
    size_t nc = *cap ? *cap : min_cap;
    while (nc < need) {
        if (nc > SIZE_MAX / 2) return -1;
        nc *= 2;
    }
    if (opscope_vec_resize(p, nc, elem)) return -1;
    *cap = nc;
    return 0;
}

/* Appends VAL to the OPSCOPE_VEC VEC: 0, or -1 when out of memory (VEC unchanged). */
#define OPSCOPE_VEC_PUSH(vec, val)                                                           \
    (opscope_vec_reserve((void **)&(vec).v, &(vec).cap, (vec).n + 1, sizeof *(vec).v, 64)     \
         ? -1                                                                                \
         : ((vec).v[(vec).n++] = (val), 0))

#endif /* OPSCOPE_UTIL_VEC_H */
