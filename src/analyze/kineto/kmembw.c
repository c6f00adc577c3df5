/* kmembw.c - memory bandwidth over time by HTA's definitions (see kmembw.h). */
#include "analyze/kineto/kmembw.h"

#include "util/sort.h"
#include "util/vec.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* HTA rounds a 0 us memory activity up to 1 us (its unit), so that its end follows its start. */
#define KMEMBW_MIN_DUR_NS 1000
/* At most this many kinds (each a name's first 11 bytes); the finish walks the activities
 * once per kind. */
#define KMEMBW_MAX_KINDS 64

typedef struct mact {
    int64_t start, end, device;
    double bw;
    uint32_t kind;
} mact;

struct opscope_kmembw {
    const opscope_strtab_t *names;
    bool keep;
    OPSCOPE_VEC(uint16_t) name_kind; /* per name id: 0 unseen, 1 not memory, else 2 + kind */
    OPSCOPE_VEC(mact) acts;
    OPSCOPE_VEC(opscope_kmembw_kind) kinds;
};

opscope_kmembw_t *opscope_kmembw_new(const opscope_strtab_t *names) {
    opscope_kmembw_t *m = calloc(1, sizeof *m);
    if (m) m->names = names;
    return m;
}

void opscope_kmembw_free(opscope_kmembw_t *m) {
    if (!m) return;
    for (size_t i = 0; i < m->kinds.n; i++) free((void *)m->kinds.v[i].pts);
    free(m->kinds.v);
    free(m->acts.v);
    free(m->name_kind.v);
    free(m);
}

void opscope_kmembw_keep_series(opscope_kmembw_t *m) { m->keep = true; }

/* HTA's memory kernel test (^(hip)?Memcpy, ^(hip)?Memset, ^dma) and its kind of NAME into
 * OUT; false for other names. */
static bool memory_kind(const char *name, char out[16]) {
    const char *n = !strncmp(name, "hip", 3) ? name + 3 : name;
    if (strncmp(n, "Memcpy", 6) && strncmp(n, "Memset", 6) && strncmp(name, "dma", 3)) return false;
    if (!strncmp(name, "Memset", 6)) snprintf(out, 16, "Memset");
    else if (strncmp(name, "Memcpy", 6)) snprintf(out, 16, "Memcpy Unknown");
    else snprintf(out, 16, "%.11s", name);
    return true;
}

/* The kind index of name id NAME (UINT32_MAX: not a memory activity; -1 out of memory in *RC). */
static uint32_t kind_of(opscope_kmembw_t *m, uint32_t name, int *rc) {
    if (name >= m->name_kind.n) {
        size_t old = m->name_kind.n, want = (size_t)name + 1;
        if (opscope_vec_reserve((void **)&m->name_kind.v, &m->name_kind.cap, want, sizeof *m->name_kind.v, 64))
            return *rc = -1, UINT32_MAX;
        memset(m->name_kind.v + old, 0, (want - old) * sizeof *m->name_kind.v);
        m->name_kind.n = want;
    }
    uint16_t c = m->name_kind.v[name];
    if (c) return c == 1 ? UINT32_MAX : (uint32_t)(c - 2);
    char label[16];
    const char *s = opscope_strtab_get(m->names, name);
    if (!s || !memory_kind(s, label)) {
        m->name_kind.v[name] = 1;
        return UINT32_MAX;
    }
    /* kinds are 11-byte prefixes: beyond KMEMBW_MAX_KINDS (no real trace) they fold into one */
    if (m->kinds.n >= KMEMBW_MAX_KINDS) snprintf(label, sizeof label, "Memcpy Unknown");
    size_t k = 0;
    while (k < m->kinds.n && strcmp(m->kinds.v[k].name, label)) k++;
    if (k == m->kinds.n) {
        opscope_kmembw_kind row = {0};
        memcpy(row.name, label, sizeof label);
        if (OPSCOPE_VEC_PUSH(m->kinds, row)) return *rc = -1, UINT32_MAX;
    }
    m->name_kind.v[name] = (uint16_t)(k + 2);
    return (uint32_t)k;
}

int opscope_kmembw_add(opscope_kmembw_t *m, uint32_t name, int64_t device, int64_t start_ns, int64_t dur_ns,
                       double bw_gbps) {
    if (name == UINT32_MAX) return 0;
    int rc = 0;
    uint32_t k = kind_of(m, name, &rc);
    if (k == UINT32_MAX) return rc;
    mact a = {start_ns, start_ns + (dur_ns > 0 ? dur_ns : KMEMBW_MIN_DUR_NS), device, bw_gbps, k};
    m->kinds.v[k].activities++;
    return OPSCOPE_VEC_PUSH(m->acts, a);
}

/* A change of one kind: its time, the order it came in (starts first, then ends, each in
 * input order). */
typedef struct chg { int64_t ts; size_t ord; int64_t device; double delta; } chg;

static int chg_cmp(const void *pa, const void *pb) {
    const chg *a = pa, *b = pb;
    return a->ts != b->ts ? (a->ts > b->ts) - (a->ts < b->ts) : (a->ord > b->ord) - (a->ord < b->ord);
}

static int dbl_cmp(const void *pa, const void *pb) {
    double x = *(const double *)pa, y = *(const double *)pb;
    return (x > y) - (x < y);
}

/* Kind K's series from its changes C[0..N) in order, and describe() of its points above 0
 * (POS: scratch of N doubles). */
static int kind_finish(opscope_kmembw_t *m, opscope_kmembw_kind *k, const chg *c, size_t n, double *pos) {
    double sum = 0, mean = 0, ss = 0;
    size_t np = 0;
    opscope_kmembw_point *pts = m->keep ? malloc((n ? n : 1) * sizeof *pts) : NULL;
    if (m->keep && !pts) return -1;
    for (size_t i = 0; i < n; i++) {
        sum += c[i].delta;
        if (pts) pts[i] = (opscope_kmembw_point){c[i].ts, c[i].device, sum};
        if (sum > 0) pos[np++] = sum;
    }
    k->pts = pts;
    k->n_pts = pts ? n : 0;
    for (size_t i = 0; i < np; i++) mean += pos[i];
    mean = np ? mean / (double)np : 0;
    for (size_t i = 0; i < np; i++) ss += (pos[i] - mean) * (pos[i] - mean);
    opscope_sort(pos, np, sizeof *pos, dbl_cmp);
    k->bw = (opscope_kdescribe){.count = np, .mean = mean, .std = np > 1 ? sqrt(ss / (double)(np - 1)) : 0,
                                    .min = np ? pos[0] : 0, .max = np ? pos[np - 1] : 0,
                                    .p25 = opscope_kdescribe_quantile(pos, np, 0.25),
                                    .p50 = opscope_kdescribe_quantile(pos, np, 0.5),
                                    .p75 = opscope_kdescribe_quantile(pos, np, 0.75)};
    return 0;
}

static int kind_name_cmp(const void *pa, const void *pb) {
    return strcmp(((const opscope_kmembw_kind *)pa)->name, ((const opscope_kmembw_kind *)pb)->name);
}

int opscope_kmembw_finish(opscope_kmembw_t *m) {
    size_t n = m->acts.n;
    chg *c = malloc((2 * n + 1) * sizeof *c);
    double *pos = malloc((2 * n + 1) * sizeof *pos);
    int rc = c && pos ? 0 : -1;
    /* one kind at a time (a handful): its starts, then its ends, sorted by time */
    for (uint32_t k = 0; !rc && k < m->kinds.n; k++) {
        size_t na = 0;
        for (size_t i = 0; i < n; i++) na += m->acts.v[i].kind == k;
        for (size_t i = 0, x = 0; i < n; i++) {
            const mact *a = &m->acts.v[i];
            if (a->kind != k) continue;
            c[x] = (chg){a->start, x, a->device, a->bw};
            c[na + x] = (chg){a->end, na + x, a->device, -a->bw};
            x++;
        }
        opscope_sort(c, 2 * na, sizeof *c, chg_cmp);
        rc = kind_finish(m, &m->kinds.v[k], c, 2 * na, pos);
    }
    free(c);
    free(pos);
    free(m->acts.v);
    memset(&m->acts, 0, sizeof m->acts);
    if (!rc) opscope_sort(m->kinds.v, m->kinds.n, sizeof *m->kinds.v, kind_name_cmp);
    return rc;
}

const opscope_kmembw_kind *opscope_kmembw_kinds(const opscope_kmembw_t *m, size_t *n) {
    *n = m ? m->kinds.n : 0;
    return m ? m->kinds.v : NULL;
}
