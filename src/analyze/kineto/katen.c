/* katen.c - each aten op call's kernels and launch delays (see katen.h). */
#include "analyze/kineto/katen.h"

#include "analyze/kineto/kbreak.h"

#include "util/sort.h"

#include <stdlib.h>

/* By start, then the later in the trace first: the last op started at or before a time that
 * holds a call is HTA's pick, the latest start and of ops starting together the first in the
 * trace (its stable sort by start, descending, over the ops holding the call). */
static int op_cmp(const void *pa, const void *pb) {
    const opscope_katen_op *a = pa, *b = pb;
    if (a->start != b->start) return a->start < b->start ? -1 : 1;
    return (a->seq < b->seq) - (a->seq > b->seq);
}

static int launch_cmp(const void *pa, const void *pb) {
    const opscope_katen_launch *a = pa, *b = pb;
    if (a->call != b->call) return a->call < b->call ? -1 : 1;
    return (a > b) - (a < b);
}

typedef struct hit {       /* a launch with its op */
    size_t op;
    const opscope_katen_launch *l;
} hit;

/* By op, then as the launches. */
static int hit_cmp(const void *pa, const void *pb) {
    const hit *a = pa, *b = pb;
    return a->op != b->op ? (a->op > b->op) - (a->op < b->op) : launch_cmp(a->l, b->l);
}

/* The op calls' patterns from the hits H[0..M) (sorted by op, then call). */
static int group(opscope_kseq_t *s, const opscope_katen_op *ops, const hit *h, size_t m, uint32_t *names) {
    for (size_t i = 0, j; i < m; i = j) {
        size_t len = 0;
        for (j = i; j < m && h[j].op == h[i].op; j++) names[len++] = h[j].l->name;
        const opscope_katen_op *op = &ops[h[i].op];
        /* as HTA measures them: differences of its doubles (kbreak.h) */
        int64_t aten_delay = opscope_kbreak_delta_ns(op->start, h[i].l->call);
        int64_t runtime_delay = opscope_kbreak_delta_ns(h[i].l->call, h[i].l->start);
        /* the sums are kept modulo 2^64: a negative runtime delay (clock skew) adds right */
        if (opscope_kseq_add(s, op->name, names, len, (uint64_t)runtime_delay, (uint64_t)aten_delay, op->start))
            return -1;
    }
    return 0;
}

/* Each launch of L[0..N_L) (by call) with its op, into H (returns their number): the deepest op
 * holding the call is the last started among the ops alive at the call's start. ACT lists the
 * ops started so far in start order, the ended ones dropped whenever it doubled, so a look-up
 * costs the ops alive at once (threads x depth), not the trace's length. */
static size_t find_ops(const opscope_katen_op *ops, size_t n_ops, const opscope_katen_launch *l, size_t n_l,
                       size_t *act, hit *h) {
    size_t na = 0, next = 0, keep = 64, m = 0;
    for (size_t i = 0; i < n_l; i++) {
        while (next < n_ops && ops[next].start <= l[i].call) act[na++] = next++;
        if (na >= keep) {
            size_t w = 0;
            for (size_t x = 0; x < na; x++)
                if (ops[act[x]].end >= l[i].call) act[w++] = act[x];
            na = w;
            keep = 2 * na > 64 ? 2 * na : 64;
        }
        for (size_t x = na; x-- > 0;) {
            if (ops[act[x]].end >= l[i].call_end) {
                h[m++] = (hit){act[x], &l[i]};
                break;
            }
        }
    }
    return m;
}

opscope_kseq_t *opscope_katen_make(opscope_katen_op *ops, size_t n_ops, opscope_katen_launch *l, size_t n_l) {
    opscope_kseq_t *s = opscope_kseq_new(NULL, 0);
    hit *h = malloc((n_l ? n_l : 1) * sizeof *h);
    uint32_t *names = malloc((n_l ? n_l : 1) * sizeof *names);
    size_t *act = malloc((n_ops ? n_ops : 1) * sizeof *act);
    int rc = s && h && names && act ? 0 : -1;
    if (!rc) {
        opscope_sort(ops, n_ops, sizeof *ops, op_cmp);
        opscope_sort(l, n_l, sizeof *l, launch_cmp);
        size_t m = find_ops(ops, n_ops, l, n_l, act, h);
        opscope_sort(h, m, sizeof *h, hit_cmp);
        rc = group(s, ops, h, m, names) || opscope_kseq_finish(s) ? -1 : 0;
    }
    free(h);
    free(names);
    free(act);
    if (rc) {
        opscope_kseq_free(s);
        return NULL;
    }
    return s;
}
