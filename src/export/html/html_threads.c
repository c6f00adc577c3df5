/*
 * html_threads.c - per-thread work and wait of CPU nodes for the viewer (see html_threads.h).
 * Per record 4 columns of varints, sorted by start: the signature, the start after the
 * previous one's, the thread count, then each thread's work and wait: arrays, not objects,
 * so a million-record profile's page stays a few bytes per thread per record.
 */
#include "export/html/html_threads.h"
#include "export/fmt/json_fmt.h"
#include "export/html/html_varint.h"
#include "util/sort.h"
#include "util/strbuf.h"
#include "util/vec.h"

#include <stdlib.h>
#include <string.h>

/* One kept record: its start, its place in the stream, its signature, its pairs in ww. */
typedef struct thr_rec {
    uint64_t start, idx;
    uint32_t sig, off; /* off: the record's first pair in ww */
    uint32_t nt;
} thr_rec;

struct opscope_html_threads {
    OPSCOPE_VEC(thr_rec) recs;
    OPSCOPE_VEC(uint32_t) ww; /* work, wait per thread per record */
    int32_t cpus[OPSCOPE_MAX_THREADS]; /* each thread's last known CPU, -1 unknown */
    int32_t max_nt;
};

opscope_html_threads_t *opscope_html_threads_new(void) {
    opscope_html_threads_t *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    for (int i = 0; i < OPSCOPE_MAX_THREADS; i++) t->cpus[i] = -1;
    return t;
}

void opscope_html_threads_free(opscope_html_threads_t *t) {
    if (!t) return;
    free(t->recs.v);
    free(t->ww.v);
    free(t);
}

int opscope_html_threads_add(opscope_html_threads_t *t, const opscope_record *rec, uint32_t sig, uint64_t idx) {
    if (!t || !(rec->has & OPSCOPE_HAS_THREADS) || !rec->threads || rec->n_threads <= 0) return 0;
    int nt = rec->n_threads > OPSCOPE_MAX_THREADS ? OPSCOPE_MAX_THREADS : rec->n_threads;
    if (t->ww.n + 2 * (size_t)nt > UINT32_MAX) return 0; /* past 2^32 pairs: no more kept */
    thr_rec r = {rec->start_ns, idx, sig, (uint32_t)t->ww.n, (uint32_t)nt};
    if (OPSCOPE_VEC_PUSH(t->recs, r) ||
        opscope_vec_reserve((void **)&t->ww.v, &t->ww.cap, t->ww.n + 2 * (size_t)nt, sizeof *t->ww.v, 4096))
        return -1;
    memcpy(t->ww.v + t->ww.n, rec->threads, 2 * (size_t)nt * sizeof *t->ww.v);
    t->ww.n += 2 * (size_t)nt;
    for (int i = 0; rec->thread_cpus && i < nt; i++)
        if (rec->thread_cpus[i] >= 0) t->cpus[i] = rec->thread_cpus[i];
    if (nt > t->max_nt) t->max_nt = nt;
    return 0;
}

void opscope_html_threads_decimate(opscope_html_threads_t *t, uint64_t stride) {
    if (!t) return;
    size_t w = 0, ww = 0;
    for (size_t i = 0; i < t->recs.n; i++) {
        thr_rec r = t->recs.v[i];
        if (r.idx % stride) continue;
        memmove(t->ww.v + ww, t->ww.v + r.off, 2 * (size_t)r.nt * sizeof *t->ww.v);
        r.off = (uint32_t)ww;
        ww += 2 * (size_t)r.nt;
        t->recs.v[w++] = r;
    }
    t->recs.n = w;
    t->ww.n = ww;
}

/* By start, then stream order (idx is unique): the order the viewer draws them in. */
static int cmp_rec(const void *a, const void *b) {
    const thr_rec *x = a, *y = b;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

int opscope_html_threads_write(opscope_out_t *w, const opscope_html_threads_t *t, uint64_t t0) {
    if (!t || !t->recs.n) return 0;
    size_t n = t->recs.n;
    thr_rec *order = malloc(n * sizeof *order); /* a sorted copy: T is read-only here */
    opscope_strbuf cols[4];
    memset(cols, 0, sizeof cols);
    int rc = -1;
    if (!order) goto done;
    memcpy(order, t->recs.v, n * sizeof *order);
    opscope_sort(order, n, sizeof *order, cmp_rec);
    uint64_t prev = t0;
    for (size_t i = 0; i < n; i++) {
        const thr_rec *r = &order[i];
        uint64_t s = r->start < prev ? prev : r->start; /* t0 is the kept records' first start */
        opscope_html_vb_u64(&cols[0], r->sig);
        opscope_html_vb_u64(&cols[1], s - prev);
        opscope_html_vb_u64(&cols[2], r->nt);
        for (uint32_t p = 0; p < 2u * r->nt; p++) opscope_html_vb_u64(&cols[3], t->ww.v[r->off + p]);
        prev = s;
    }
    for (int c = 0; c < 4; c++)
        if (cols[c].failed) goto done;
    opscope_jw j = opscope_jw_resume(w);
    opscope_jw_obj(&j, "threads");
    opscope_jw_u64(&j, "n", n);
    opscope_jw_i64(&j, "threads", t->max_nt);
    opscope_jw_arr(&j, "cpus");
    for (int i = 0; i < t->max_nt; i++) opscope_jw_item_i64(&j, t->cpus[i]);
    opscope_jw_end_arr(&j);
    static const char *const names[4] = {"sig", "start", "nt", "ww"};
    for (int c = 0; c < 4; c++) {
        opscope_jw_key(&j, names[c]);
        opscope_html_out_base64(w, &cols[c]);
    }
    opscope_jw_end_obj(&j);
    rc = 0;
done:
    for (int c = 0; c < 4; c++) opscope_strbuf_free(&cols[c]);
    free(order);
    return rc;
}
