/* kgann.c - GPU-side user annotations and the activities they hold (see kgann.h). */
#include "analyze/kineto/kgann.h"

#include "util/sort.h"
#include "util/strbuf.h"
#include "util/vec.h"

#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

struct opscope_kgann {
    OPSCOPE_VEC(opscope_kgann_row) rows;
    opscope_kstats_t *names; /* per-name statistics of the durations */
    uint32_t *of;            /* per activity of the finish */
    size_t n_of;
};

opscope_kgann_t *opscope_kgann_new(void) {
    opscope_kgann_t *g = calloc(1, sizeof *g);
    opscope_kstats_t *names = g ? opscope_kstats_new(0) : NULL;
    if (!names) free(g);
    else g->names = names;
    return names ? g : NULL;
}

void opscope_kgann_free(opscope_kgann_t *g) {
    if (g) {
        free(g->rows.v);
        free(g->of);
        opscope_kstats_free(g->names);
    }
    free(g);
}

int opscope_kgann_add(opscope_kgann_t *g, uint32_t name, int64_t device, int64_t stream, int64_t start_ns,
                      int64_t dur_ns) {
    opscope_kgann_row r = {name, device, stream, start_ns, dur_ns > 0 ? dur_ns : 0};
    if (opscope_kstats_add(g->names, name, 0, r.dur_ns)) return -1;
    return OPSCOPE_VEC_PUSH(g->rows, r);
}

/* An index sorted by (device, stream, start), then by position. */
typedef struct gkey {
    int64_t device, stream, start;
    uint32_t i;
} gkey;

#define CMP(x, y) (((x) > (y)) - ((x) < (y)))

static int key_stream_cmp(const gkey *a, const gkey *b) {
    int c = CMP(a->device, b->device);
    return c ? c : CMP(a->stream, b->stream);
}

static int key_cmp(const void *pa, const void *pb) {
    const gkey *a = pa, *b = pb;
    int c = key_stream_cmp(a, b);
    if (!c) c = CMP(a->start, b->start);
    return c ? c : CMP(a->i, b->i);
}

/* Whether annotation row X is more inner than Y (shorter; then later start; then later). */
static int inner(const opscope_kgann_row *v, uint32_t x, uint32_t y) {
    if (v[x].dur_ns != v[y].dur_ns) return v[x].dur_ns < v[y].dur_ns;
    if (v[x].start_ns != v[y].start_ns) return v[x].start_ns > v[y].start_ns;
    return x > y;
}

/* The sweep: activities AK (by stream and start) against annotations NK (the same order),
 * ACTIVE the annotations begun and not yet ended. */
static void sweep(opscope_kgann_t *g, const opscope_kgann_act *a, const gkey *ak, size_t n, const gkey *nk,
                  size_t m, uint32_t *active) {
    const opscope_kgann_row *v = g->rows.v;
    size_t j = 0, n_active = 0;
    for (size_t i = 0; i < n; i++) {
        const opscope_kgann_act *x = &a[ak[i].i];
        if (i && key_stream_cmp(&ak[i - 1], &ak[i])) n_active = 0; /* a new stream */
        while (j < m && key_stream_cmp(&nk[j], &ak[i]) < 0) j++;  /* annotations of earlier streams */
        while (j < m && !key_stream_cmp(&nk[j], &ak[i]) && nk[j].start < x->end) active[n_active++] = nk[j++].i;
        uint32_t best = NONE;
        size_t keep = 0;
        for (size_t k = 0; k < n_active; k++) {
            const opscope_kgann_row *r = &v[active[k]];
            if (r->start_ns + r->dur_ns <= x->start) continue; /* ended: no later activity holds it */
            active[keep++] = active[k];
            if (r->start_ns < x->end && x->start < r->start_ns + r->dur_ns && (best == NONE || inner(v, active[k], best)))
                best = active[k];
        }
        n_active = keep;
        g->of[ak[i].i] = best;
    }
}

int opscope_kgann_finish(opscope_kgann_t *g, const opscope_kgann_act *a, size_t n) {
    size_t m = g->rows.n;
    if (m) { /* a trace without GPU annotations keeps nothing per activity */
        g->of = malloc((n ? n : 1) * sizeof *g->of);
        gkey *ak = malloc((n ? n : 1) * sizeof *ak), *nk = malloc(m * sizeof *nk);
        uint32_t *active = malloc(m * sizeof *active);
        int ok = g->of && ak && nk && active;
        for (size_t i = 0; ok && i < n; i++) {
            ak[i] = (gkey){a[i].device, a[i].stream, a[i].start, (uint32_t)i};
            g->of[i] = NONE;
        }
        for (size_t i = 0; ok && i < m; i++)
            nk[i] = (gkey){g->rows.v[i].device, g->rows.v[i].stream, g->rows.v[i].start_ns, (uint32_t)i};
        if (ok) {
            g->n_of = n;
            opscope_sort(ak, n, sizeof *ak, key_cmp);
            opscope_sort(nk, m, sizeof *nk, key_cmp);
            sweep(g, a, ak, n, nk, m, active);
        }
        free(ak);
        free(nk);
        free(active);
        if (!ok) return -1;
    }
    return opscope_kstats_finish(g->names, NULL, 0);
}

const opscope_kgann_row *opscope_kgann_rows(const opscope_kgann_t *g, size_t *n) {
    *n = g->rows.n;
    return g->rows.v;
}

const uint32_t *opscope_kgann_of(const opscope_kgann_t *g, size_t *n) {
    *n = g->n_of;
    return g->of;
}

const opscope_kstats_kernel *opscope_kgann_names(const opscope_kgann_t *g, size_t *n) {
    return opscope_kstats_kernels(g->names, n);
}

/* Drops B's text back to its last OPEN, that included (everything when there is none). */
static void drop_to(opscope_strbuf *b, char open) {
    size_t n = b->len;
    while (n && b->s[n - 1] != open) n--;
    opscope_strbuf_truncate(b, n ? n - 1 : 0);
}

int opscope_kgann_short_name(const char *name, opscope_strbuf *out) {
    opscope_strbuf_reset(out);
    if (!name) return 0;
    static const char *const memory[] = {"Memcpy", "Memset", "hipMemcpy", "hipMemset", "dma"};
    bool plain = !strchr(name, '<') && !strchr(name, '(');
    for (size_t i = 0; !plain && i < sizeof memory / sizeof *memory; i++)
        plain = !strncmp(name, memory[i], strlen(memory[i]));
    if (plain) return opscope_strbuf_add_str(out, name);
    for (const char *c = name; *c; c++) {
        if (c[0] == '-' && c[1] == '>') {
            c++;
            continue;
        }
        if (*c == '>') drop_to(out, '<');
        else if (*c == ')') drop_to(out, '(');
        else if (opscope_strbuf_add(out, c, 1)) return -1;
    }
    const char *s = opscope_strbuf_cstr(out), *sp = strrchr(s, ' ');
    if (sp) memmove(out->s, sp + 1, strlen(sp + 1) + 1), out->len = strlen(out->s);
    return out->failed ? -1 : 0;
}
