/*
 * heap.h - the binary min-heap every folder shares: a template for one element type over the
 * caller's array, the order inlined (a heap of a k-way merge runs its comparison a few times
 * per record; a call through a pointer and copies by size cost more than the comparisons).
 *
 * OPSCOPE_HEAP_DEFINE(NAME, T, CTX, LESS) defines, for an array V of T holding a heap of N
 * elements (the top, the least, is V[0]; the size is the caller's N):
 *   void NAME_build(T *v, size_t n, CTX ctx)            V[0, N) in any order made a heap
 *   void NAME_sift_down(T *v, size_t n, size_t i, CTX ctx)
 *                                                        V[I] may now sort after its children
 *                                                        (the top's key grew: I = 0)
 *   void NAME_push(T *v, size_t *n, const T *x, CTX ctx)
 *                                                        adds *X; V has room for *N + 1
 *   void NAME_pop(T *v, size_t *n, CTX ctx)             removes the top (*N 0: nothing)
 *   void NAME_replace_top(T *v, size_t n, const T *x, CTX ctx)
 *                                                        the top replaced by *X (N > 0)
 * X points outside V (the element is copied in once, where it lands).
 * LESS(ctx, a, b): nonzero when *a sorts before *b (a and b are const T *; CTX is the caller's
 * context, of type CTX, passed through). Elements LESS calls equal come out in an order that
 * depends on the heap's history: make the order total (a sequence number last) when ties
 * must come out in a fixed order. The sift moves a hole (one copy of the element in all),
 * comparing the left child first and taking the right one only when strictly less, as the
 * textbook heap does; the same inputs give the same array.
 *
 * Ownership: the array is the caller's; nothing is allocated. NULL handling: V may be NULL
 * only with N 0. Thread safety: none (one owner); thread safe as LESS is.
 */
#ifndef OPSCOPE_UTIL_HEAP_H
#define OPSCOPE_UTIL_HEAP_H

#include <stddef.h>

/* A template's function: a caller uses some of them (clang warns of unused static inline
 * functions defined in a .c file). */
#define OPSCOPE_HEAP_FN_ static inline __attribute__((unused))

#define OPSCOPE_HEAP_DEFINE(NAME, T, CTX, LESS)                                                     \
    /* *X into the hole at V[I], moved down past every child that sorts before it (X is not         \
     * in V) */                                                                                     \
    OPSCOPE_HEAP_FN_ void NAME##_sift_(T *v, size_t n, size_t i, const T *x, CTX ctx) {             \
        if (i >= n) return;                                                                         \
        for (;;) {                                                                                  \
            size_t l = 2 * i + 1, m = i;                                                            \
            const T *least = x;                                                                     \
            if (l < n && LESS(ctx, &v[l], least)) m = l, least = &v[l];                             \
            if (l + 1 < n && LESS(ctx, &v[l + 1], least)) m = l + 1;                                \
            if (m == i) break;                                                                      \
            v[i] = v[m];                                                                            \
            i = m;                                                                                  \
        }                                                                                           \
        v[i] = *x;                                                                                  \
    }                                                                                               \
    OPSCOPE_HEAP_FN_ void NAME##_sift_down(T *v, size_t n, size_t i, CTX ctx) {                     \
        if (i >= n) return;                                                                         \
        T x = v[i];                                                                                 \
        NAME##_sift_(v, n, i, &x, ctx);                                                             \
    }                                                                                               \
    OPSCOPE_HEAP_FN_ void NAME##_build(T *v, size_t n, CTX ctx) {                                   \
        for (size_t i = n / 2; i-- > 0;) NAME##_sift_down(v, n, i, ctx);                            \
    }                                                                                               \
    OPSCOPE_HEAP_FN_ void NAME##_push(T *v, size_t *n, const T *x, CTX ctx) {                       \
        size_t i = (*n)++;                                                                          \
        while (i > 0) {                                                                             \
            size_t p = (i - 1) / 2;                                                                 \
            if (!LESS(ctx, x, &v[p])) break;                                                        \
            v[i] = v[p];                                                                            \
            i = p;                                                                                  \
        }                                                                                           \
        v[i] = *x;                                                                                  \
    }                                                                                               \
    OPSCOPE_HEAP_FN_ void NAME##_pop(T *v, size_t *n, CTX ctx) {                                    \
        if (!*n) return;                                                                            \
        if (!--*n) return;                                                                          \
        T x = v[*n]; /* the last element, into the top's hole */                                    \
        NAME##_sift_(v, *n, 0, &x, ctx);                                                            \
    }                                                                                               \
    OPSCOPE_HEAP_FN_ void NAME##_replace_top(T *v, size_t n, const T *x, CTX ctx) {                 \
        NAME##_sift_(v, n, 0, x, ctx);                                                              \
    }

#endif /* OPSCOPE_UTIL_HEAP_H */
