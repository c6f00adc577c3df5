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

struct opscope_html_threads {
    uint64_t *start, *idx;
    uint32_t *sig, *off; /* off: the record's first pair in ww */
    uint8_t *nt;
    size_t n, cap;
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
    free(t->start);
    free(t->idx);
    free(t->sig);
    free(t->off);
    free(t->nt);
    free(t->ww.v);
    free(t);
}

static int grow(opscope_html_threads_t *t) {
    size_t nc = t->cap ? t->cap * 2 : 1024;
    if (opscope_vec_resize((void **)&t->start, nc, sizeof *t->start) ||
        opscope_vec_resize((void **)&t->idx, nc, sizeof *t->idx) ||
        opscope_vec_resize((void **)&t->sig, nc, sizeof *t->sig) ||
        opscope_vec_resize((void **)&t->off, nc, sizeof *t->off) ||
        opscope_vec_resize((void **)&t->nt, nc, sizeof *t->nt))
        return -1;
    t->cap = nc;
    return 0;
}

int opscope_html_threads_add(opscope_html_threads_t *t, const opscope_record *rec, uint32_t sig, uint64_t idx) {
    if (!t || !(rec->has & OPSCOPE_HAS_THREADS) || !rec->threads || rec->n_threads <= 0) return 0;
    int nt = rec->n_threads > OPSCOPE_MAX_THREADS ? OPSCOPE_MAX_THREADS : rec->n_threads;
    if (t->ww.n + 2 * (size_t)nt > UINT32_MAX) return 0; /* past 2^32 pairs: no more kept */
    if ((t->n == t->cap && grow(t)) ||
        opscope_vec_reserve((void **)&t->ww.v, &t->ww.cap, t->ww.n + 2 * (size_t)nt, sizeof *t->ww.v, 4096))
        return -1;
    t->start[t->n] = rec->start_ns;
    t->idx[t->n] = idx;
    t->sig[t->n] = sig;
    t->off[t->n] = (uint32_t)t->ww.n;
    t->nt[t->n] = (uint8_t)nt;
    t->n++;
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
    for (size_t i = 0; i < t->n; i++) {
        if (t->idx[i] % stride) continue;
        size_t np = 2 * (size_t)t->nt[i];
        memmove(t->ww.v + ww, t->ww.v + t->off[i], np * sizeof *t->ww.v);
        t->start[w] = t->start[i];
        t->idx[w] = t->idx[i];
        t->sig[w] = t->sig[i];
        t->nt[w] = t->nt[i];
        t->off[w] = (uint32_t)ww;
        ww += np;
        w++;
    }
    t->n = w;
    t->ww.n = ww;
}

typedef struct thr_key {
    uint64_t start;
    uint32_t k;
} thr_key;

static int cmp_thr(const void *a, const void *b) {
    const thr_key *x = a, *y = b;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    return x->k < y->k ? -1 : x->k > y->k;
}

int opscope_html_threads_write(opscope_out_t *w, const opscope_html_threads_t *t, uint64_t t0) {
    if (!t || !t->n) return 0;
    thr_key *keys = malloc(t->n * sizeof *keys);
    opscope_strbuf cols[4];
    memset(cols, 0, sizeof cols);
    int rc = -1;
    if (!keys) goto done;
    for (size_t i = 0; i < t->n; i++) keys[i] = (thr_key){t->start[i], (uint32_t)i};
    opscope_sort(keys, t->n, sizeof *keys, cmp_thr);
    uint64_t prev = t0;
    for (size_t i = 0; i < t->n; i++) {
        uint32_t k = keys[i].k;
        uint64_t s = t->start[k] < prev ? prev : t->start[k]; /* t0 is the kept records' first start */
        opscope_html_vb_u64(&cols[0], t->sig[k]);
        opscope_html_vb_u64(&cols[1], s - prev);
        opscope_html_vb_u64(&cols[2], t->nt[k]);
        for (uint32_t p = 0; p < 2u * t->nt[k]; p++) opscope_html_vb_u64(&cols[3], t->ww.v[t->off[k] + p]);
        prev = s;
    }
    for (int c = 0; c < 4; c++)
        if (cols[c].failed) goto done;
    opscope_jw j = opscope_jw_resume(w);
    opscope_jw_obj(&j, "threads");
    opscope_jw_u64(&j, "n", t->n);
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
    free(keys);
    return rc;
}
