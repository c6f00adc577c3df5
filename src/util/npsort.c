/* npsort.c - numpy's quicksort argsort (see npsort.h). */
#include "util/npsort.h"

enum { NPSORT_SMALL = 15, NPSORT_STACK = 128 };

#define SWAP(x, y) do { uint32_t t_ = (x); (x) = (y); (y) = t_; } while (0)

/* numpy's heap is 1-based: A(i) is T[i - 1]. */
#define A(i) t[(i) - 1]

/* Sifts TMP down from place I of the heap A(1..N). */
static void sift(const int64_t *v, uint32_t *t, uint32_t tmp, size_t i, size_t n) {
    for (size_t j = i << 1; j <= n;) {
        if (j < n && v[A(j)] < v[A(j + 1)]) j++;
        if (!(v[tmp] < v[A(j)])) break;
        A(i) = A(j);
        i = j;
        j += j;
    }
    A(i) = tmp;
}

/* T[0..N) by heapsort on V, as numpy's fallback. */
static void heap_argsort(const int64_t *v, uint32_t *t, size_t n) {
    for (size_t l = n >> 1; l > 0; --l) sift(v, t, A(l), l, n);
    while (n > 1) {
        uint32_t tmp = A(n);
        A(n) = A(1);
        sift(v, t, tmp, 1, --n);
    }
}
#undef A

static int floor_log2(size_t n) {
    int d = 0;
    while (n >>= 1) d++;
    return d;
}

/* One partition of T[pl..pr] around the median of three; returns the pivot's final place. */
static size_t partition(const int64_t *v, uint32_t *t, size_t pl, size_t pr) {
    size_t pm = pl + ((pr - pl) >> 1);
    if (v[t[pm]] < v[t[pl]]) SWAP(t[pm], t[pl]);
    if (v[t[pr]] < v[t[pm]]) SWAP(t[pr], t[pm]);
    if (v[t[pm]] < v[t[pl]]) SWAP(t[pm], t[pl]);
    int64_t vp = v[t[pm]];
    size_t pi = pl, pj = pr - 1;
    SWAP(t[pm], t[pj]);
    for (;;) {
        do pi++; while (v[t[pi]] < vp);
        do pj--; while (vp < v[t[pj]]);
        if (pi >= pj) break;
        SWAP(t[pi], t[pj]);
    }
    SWAP(t[pi], t[pr - 1]);
    return pi;
}

void opscope_npsort_argsort(const int64_t *v, uint32_t *idx, size_t n) {
    for (size_t i = 0; i < n; i++) idx[i] = (uint32_t)i;
    if (n < 2) return;
    size_t stack[NPSORT_STACK][2], sp = 0, pl = 0, pr = n - 1;
    int depth[NPSORT_STACK], cdepth = floor_log2(n) * 2;
    for (;;) {
        if (cdepth < 0) {
            heap_argsort(v, idx + pl, pr - pl + 1);
        } else {
            while (pr - pl > NPSORT_SMALL) {
                size_t pi = partition(v, idx, pl, pr);
                /* the larger part waits; the smaller one is next (the stack stays log2 n deep) */
                if (pi - pl < pr - pi) {
                    stack[sp][0] = pi + 1, stack[sp][1] = pr;
                    pr = pi - 1;
                } else {
                    stack[sp][0] = pl, stack[sp][1] = pi - 1;
                    pl = pi + 1;
                }
                depth[sp++] = --cdepth;
            }
            for (size_t i = pl + 1; i <= pr; i++) {
                uint32_t vi = idx[i];
                int64_t key = v[vi];
                size_t j = i;
                for (; j > pl && key < v[idx[j - 1]]; j--) idx[j] = idx[j - 1];
                idx[j] = vi;
            }
        }
        if (!sp) break;
        sp--;
        pl = stack[sp][0], pr = stack[sp][1], cdepth = depth[sp];
    }
}
