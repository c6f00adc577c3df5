/*
 * diff_label.c - the final groups of one side of `opscope diff` (diff_label.h): each atom's
 * key components named (op display, backend, shape, category, CPU op, layer, phase) and
 * joined into a canonical key and a display name, the atoms of one key merged; the work-pair
 * fallback of two traces (opscope_diff_sides_pair); the names of the --by keys.
 */
#include "analyze/diff/diff_label.h"
#include "util/strbuf.h"
#include "analyze/diff/diff_side_state.h"
#include "analyze/record/op_display.h"
#include "analyze/record/shape_fmt.h"
#include "util/sort.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------------------------- */
/* Labels: the components of a key, named.                                                  */

/* The phase key's name ("prefill", "forward", "data_loading"...; "none" when not known). */
static const char *phase_text(uint32_t p) {
    switch (p) {
    case OPSCOPE_KINETO_PHASE_PREFILL: return "prefill";
    case OPSCOPE_KINETO_PHASE_DECODE: return "decode";
    case OPSCOPE_KINETO_PHASE_MIXED: return "mixed";
    case OPSCOPE_KINETO_PHASE_FORWARD: return "forward";
    case OPSCOPE_KINETO_PHASE_BACKWARD: return "backward";
    case OPSCOPE_KINETO_PHASE_OPTIMIZER: return "optimizer";
    case PHASE_DATA: return "data_loading";
    default: return "none";
    }
}

/* Backend ID's name as the input described it, else "backend N", in S's strings (NULL when out
 * of memory). */
static const char *backend_name(opscope_diff_side_t *s, int32_t id) {
    for (size_t i = 0; i < s->n_described; i++)
        if (s->described[i].id == id && s->described[i].name[0]) return s->described[i].name;
    char b[32];
    snprintf(b, sizeof b, "backend %d", (int)id);
    return opscope_strtab_intern(s->strings, b, strlen(b), NULL);
}

size_t opscope_diff_side_n_backend_names(const opscope_diff_side_t *s) {
    return s->n_seen_backends;
}

const char *opscope_diff_side_backend_name(const opscope_diff_side_t *s, size_t i) {
    if (i >= s->n_seen_backends) return NULL;
    return backend_name((opscope_diff_side_t *)s, s->seen_backends[i]);
}

uint32_t opscope_diff_work_label(opscope_diff_side_t *s, work_cache *c, uint32_t cpu_sid, uint32_t dims,
                                 const opscope_strtab_t *names) {
    if (c->id != NONE32 && c->cpu == cpu_sid && c->dims == dims) return c->id;
    const char *op = opscope_strtab_get(s->strings, cpu_sid);
    const char *d = dims != NONE32 ? opscope_strtab_get(names, dims) : NULL;
    uint32_t id;
    if (!d || !*d) {
        id = cpu_sid;
    } else {
        size_t n = strlen(op), m = strlen(d);
        char *buf = malloc(n + m + 2);
        if (!buf) return NONE32;
        memcpy(buf, op, n);
        buf[n] = ' ';
        memcpy(buf + n + 1, d, m + 1);
        id = opscope_diff_side_intern(s, buf, n + m + 1);
        free(buf);
    }
    *c = (work_cache){cpu_sid, dims, id};
    return id;
}

/* ---------------------------------------------------------------------------------------- */
/* The --by keys by name.                                                                   */

static const struct {
    unsigned bit;
    const char *name;
} k_key_names[] = {
    {OPSCOPE_DIFF_KEY_OP, "op"},           {OPSCOPE_DIFF_KEY_KERNEL, "kernel"},
    {OPSCOPE_DIFF_KEY_SHAPE, "shape"},     {OPSCOPE_DIFF_KEY_CATEGORY, "category"},
    {OPSCOPE_DIFF_KEY_CPU_OP, "cpu-op"},   {OPSCOPE_DIFF_KEY_LAYER, "layer"},
    {OPSCOPE_DIFF_KEY_PHASE, "phase"},
};

int opscope_diff_keys_parse(const char *spec, unsigned *keys, const char **bad) {
    unsigned k = 0;
    const char *p = spec;
    for (;;) {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        size_t i = 0, nk = sizeof k_key_names / sizeof k_key_names[0];
        for (; i < nk; i++)
            if (strlen(k_key_names[i].name) == n && !memcmp(k_key_names[i].name, p, n)) break;
        if (i == nk) {
            if (bad) *bad = p;
            return -1;
        }
        k |= k_key_names[i].bit;
        if (!e) break;
        p = e + 1;
    }
    *keys = k;
    return 0;
}

void opscope_diff_keys_name(unsigned keys, char *buf, size_t size) {
    size_t at = 0;
    if (size) buf[0] = '\0';
    for (size_t i = 0; i < sizeof k_key_names / sizeof k_key_names[0]; i++) {
        if (!(keys & k_key_names[i].bit)) continue;
        int n = snprintf(buf + at, size > at ? size - at : 0, "%s%s", at ? "," : "",
                         k_key_names[i].name);
        if (n > 0) at += (size_t)n;
        if (at >= size) break;
    }
}

/* ---------------------------------------------------------------------------------------- */
/* Final groups: the atoms merged by canonical key.                                         */

/* Adds atom G's noise to group F: the variance of its total is estimated from its per-call
 * durations and from its per-graph sums (calls of one graph are not independent: a slow
 * graph slows them all), the larger of the two counting; n_tested: the samples it rests on.
 * A single call (the prompt's one GET_ROWS, often the first touch of its table: 0.3 to
 * 1 ms between identical runs against 3 us warm) has no spread to measure; it counts as
 * uncertain as its own size (standard deviation = its duration, one degree of freedom)
 * rather than as exact, which made identical runs fail the regression check. */
static void atom_noise(opscope_diff_group *f, const dgroup *g) {
    if (g->m.n == 1) {
        double x = (double)g->m.shift, v = x * x;
        f->var_total += v;
        f->df_den += v * v;
        f->n_tested += 1;
        return;
    }
    double vc = g->m.n >= 2 ? (double)g->m.n * opscope_moments_var(&g->m) : -1;
    double vg = g->gm.n >= 2 ? (double)g->gm.n * opscope_moments_var(&g->gm) : -1;
    if (vc < 0 && vg < 0) return;
    bool graphs = vg >= vc;
    double v = graphs ? vg : vc;
    uint64_t n = graphs ? g->gm.n : g->m.n;
    f->var_total += v;
    f->df_den += v * v / (double)(n - 1);
    f->n_tested += n;
    if (graphs) f->n_graph_tested += n;
}

/* One atom's share of a final group: its kernel (op identity) and time. */
typedef struct katom {
    size_t group;
    uint32_t op;
    uint64_t count, total_ns;
} katom;

static int katom_cmp(const void *pa, const void *pb) {
    const katom *a = pa, *b = pb;
    if (a->group != b->group) return a->group < b->group ? -1 : 1;
    if (a->op != b->op) return a->op < b->op ? -1 : 1;
    return 0;
}

static int katom_time_cmp(const void *pa, const void *pb) {
    const katom *a = pa, *b = pb;
    if (a->group != b->group) return a->group < b->group ? -1 : 1;
    if (a->total_ns != b->total_ns) return a->total_ns > b->total_ns ? -1 : 1;
    return a->op < b->op ? -1 : a->op > b->op;
}

/* Work pairs: each group's kernels (atoms of one op identity summed), longest first. */
static int group_kernels(opscope_diff_side_t *s, katom *a, size_t n) {
    opscope_sort(a, n, sizeof *a, katom_cmp);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (m && a[m - 1].group == a[i].group && a[m - 1].op == a[i].op) {
            a[m - 1].count += a[i].count;
            a[m - 1].total_ns += a[i].total_ns;
        } else {
            a[m++] = a[i];
        }
    }
    opscope_sort(a, m, sizeof *a, katom_time_cmp);
    s->kernels = malloc((m ? m : 1) * sizeof *s->kernels);
    s->kernel_at = calloc(s->n_final + 1, sizeof *s->kernel_at);
    if (!s->kernels || !s->kernel_at) return -1;
    for (size_t i = 0; i < m; i++) {
        const dop *o = &s->ops[a[i].op];
        s->kernels[i] = (opscope_diff_kernel){o->name, o->type, a[i].count, a[i].total_ns, -1};
        s->kernel_at[a[i].group + 1]++;
    }
    for (size_t g = 0; g < s->n_final; g++) s->kernel_at[g + 1] += s->kernel_at[g];
    s->n_kernels = m;
    return 0;
}

/* The fine keys of a side's groups, to look up from the other side. */
typedef struct fine_set {
    const char **v;
    size_t n;
    opscope_hindex ix;
} fine_set;

static bool fine_eq(const void *ctx, uint32_t i, const void *key) {
    return !strcmp(((const fine_set *)ctx)->v[i], key);
}

static bool fine_has(const fine_set *fs, const char *key, size_t len) {
    return opscope_hindex_find(&fs->ix, opscope_hash_bytes(key, len), key, fine_eq, fs) != OPSCOPE_HINDEX_NONE;
}

/* The canonical key of COMP into KEY. */
static void canon_key(opscope_strbuf *key, const char *const comp[7]) {
    opscope_strbuf_reset(key);
    for (int c = 0; c < 7; c++) {
        if (c) opscope_strbuf_add(key, "\x1f", 1);
        if (comp[c]) opscope_strbuf_add_str(key, comp[c]);
    }
}

/* Work pairs: a label "op [dims]" whose exact form the other side lacks falls back to the
 * CPU op alone, so a call whose shapes changed (another batch, a padded vocabulary) still
 * pairs; the group then holds every shape of that op not paired exactly. */
static const char *coarse_label(opscope_diff_side_t *s, const char *fine) {
    const char *d = strstr(fine, " [");
    if (!d) return fine;
    const char *c = opscope_strtab_intern(s->strings, fine, (size_t)(d - fine), NULL);
    return c ? c : fine;
}

static bool final_eq(const void *ctx, uint32_t i, const void *key) {
    return !strcmp(((const opscope_diff_side_t *)ctx)->final[i].key, key);
}

/* A new final group of canonical KEY (hash H) and components COMP, indexed in FX; NAME is
 * scratch. NULL when out of memory. */
static opscope_diff_group *new_final(opscope_diff_side_t *s, opscope_hindex *fx, const char *const comp[7],
                                     const opscope_strbuf *key, opscope_strbuf *name, uint64_t h) {
    opscope_diff_group *f = &s->final[s->n_final];
    f->key = opscope_strtab_intern(s->strings, key->s, key->len, NULL);
    /* display: phase · layer · CPU op · category · op @backend shape */
    opscope_strbuf_reset(name);
    static const int order[] = {6, 5, 4, 3};
    for (size_t c = 0; c < 4; c++) {
        if (!comp[order[c]]) continue;
        if (name->len) opscope_strbuf_add_str(name, " \xc2\xb7 ");
        opscope_strbuf_add_str(name, comp[order[c]]);
    }
    if (comp[0]) {
        if (name->len) opscope_strbuf_add_str(name, " \xc2\xb7 ");
        opscope_strbuf_add_str(name, comp[0]);
        if (comp[1]) {
            opscope_strbuf_add_str(name, " @");
            opscope_strbuf_add_str(name, comp[1]);
        }
        if (comp[2]) {
            opscope_strbuf_add_str(name, " ");
            opscope_strbuf_add_str(name, comp[2]);
        }
    }
    if (!name->len) opscope_strbuf_add_str(name, "(all)");
    const char **dst[7] = {&f->op, &f->backend, &f->shape, &f->category, &f->cpu_op, &f->layer, &f->phase};
    for (int c = 0; c < 7; c++)
        if (comp[c] && !(*dst[c] = opscope_strtab_intern(s->strings, comp[c], strlen(comp[c]), NULL)))
            return NULL;
    f->name = name->failed ? NULL : opscope_strtab_intern(s->strings, name->s, name->len, NULL);
    if (!f->key || !f->name || s->n_final >= OPSCOPE_HINDEX_NONE ||
        opscope_hindex_add(fx, h, (uint32_t)s->n_final))
        return NULL;
    s->n_final++;
    return f;
}

/* Folds group I of S into its final group F: counts, extremes, moments, noise, per-run totals. */
static void final_add(opscope_diff_side_t *s, opscope_diff_group *f, size_t i) {
    const dgroup *g = &s->groups[i];
    if (!f->count || g->min_ns < f->min_ns) f->min_ns = g->min_ns;
    if (g->max_ns > f->max_ns) f->max_ns = g->max_ns;
    f->count += g->count;
    f->total_ns += g->total_ns;
    f->calls += g->calls;
    f->est_ns += g->est_ns;
    if (g->timed > f->timed_computes) f->timed_computes = g->timed;
    if (g->sampled > f->sampled_computes) f->sampled_computes = g->sampled;
    opscope_moments_merge(&f->m, &g->m);
    opscope_diff_threads_add(&f->threads, &g->th);
    atom_noise(f, g);
    if (!s->final_runs) return;
    size_t inputs = s->totals.inputs;
    uint64_t *fr = s->final_runs + (size_t)(f - s->final) * inputs;
    for (size_t r = 0; r < inputs; r++) {
        uint64_t now = i < s->run_snap_n[r] ? s->run_snap[r][i] : g->total_ns;
        uint64_t before = r && i < s->run_snap_n[r - 1] ? s->run_snap[r - 1][i] : 0;
        fr[r] += now - before;
    }
}

/* Builds the final groups from the atoms, merged by canonical key; OTHER (NULL: none) is the
 * other side's fine keys and LUMPED the coarse keys kept whole on both sides (work pairs).
 * Replaces earlier finals. */
static int build_finals(opscope_diff_side_t *s, const fine_set *other, const fine_set *lumped) {
    bool merge_backends = s->merge_backends;
    const opscope_diff_totals *t = &s->totals;
    free(s->final);
    free(s->final_runs);
    free(s->kernels);
    free(s->kernel_at);
    s->final = NULL;
    s->final_runs = NULL;
    s->kernels = NULL;
    s->kernel_at = NULL;
    s->n_final = s->n_kernels = 0;
    unsigned keys = s->keys;
    bool work = opscope_diff_side_work_pairs(s) && s->kin;
    katom *atoms = NULL;
    size_t n_atoms = 0, cap_atoms = 0;
    bool per_backend = !merge_backends &&
                       (keys & (OPSCOPE_DIFF_KEY_OP | OPSCOPE_DIFF_KEY_KERNEL | OPSCOPE_DIFF_KEY_SHAPE));
    s->final = calloc(s->n_groups ? s->n_groups : 1, sizeof *s->final);
    opscope_hindex fx = {0};
    if (!s->final || opscope_diff_ix_init(&fx)) {
        opscope_hindex_free(&fx);
        return -1;
    }
    /* per-run totals, unless the trace analysis attributed records after the runs ended */
    bool per_run = t->inputs >= 2 && t->inputs <= MAX_INPUTS && !s->attributed;
    if (per_run && !(s->final_runs = calloc((s->n_groups ? s->n_groups : 1) * t->inputs,
                                            sizeof *s->final_runs))) {
        opscope_hindex_free(&fx);
        return -1;
    }
    int rc = -1;
    opscope_strbuf key = OPSCOPE_STRBUF_INIT, name = OPSCOPE_STRBUF_INIT;
    for (size_t i = 0; i < s->n_groups; i++) {
        const dgroup *g = &s->groups[i];
        const dkey *k = &g->key;
        if (!g->count) continue;
        const char *comp[7] = {NULL, NULL, NULL, NULL, NULL, NULL, NULL};
        char opbuf[512], *opheap = NULL;
        const char *opdisp = NULL;
        if (k->op != NONE32) {
            const dop *o = &s->ops[k->op];
            size_t n = opscope_op_display(opbuf, sizeof opbuf, o->type, o->name, o->sub, o->extra);
            opdisp = opbuf;
            if (n >= sizeof opbuf) {
                if (!(opheap = malloc(n + 1))) goto out;
                opscope_op_display(opheap, n + 1, o->type, o->name, o->sub, o->extra);
                opdisp = opheap;
            }
        }
        if (keys & (OPSCOPE_DIFF_KEY_OP | OPSCOPE_DIFF_KEY_KERNEL | OPSCOPE_DIFF_KEY_SHAPE))
            comp[0] = opdisp;
        char wbuf[128];
        bool traced = work && k->op != NONE32 && s->ops[k->op].in_cat_id;
        if (traced && (keys & OPSCOPE_DIFF_KEY_SHAPE)) comp[2] = ""; /* no input dims */
        if (traced) {
            if (k->work) {
                comp[0] = opscope_strtab_get(s->strings, k->work - 1);
                const char *dims = (keys & OPSCOPE_DIFF_KEY_SHAPE) ? strstr(comp[0], " [") : NULL;
                if (dims) { /* --by shape: the CPU op and its input dims, apart */
                    free(opheap);
                    if (!(opheap = strndup(comp[0], (size_t)(dims - comp[0])))) goto out;
                    comp[0] = opheap;
                    comp[2] = dims + 1;
                }
            } else { /* no CPU op: the kernel family, which survives vendor and dtype renames */
                snprintf(wbuf, sizeof wbuf, "(no CPU op) %s", s->ops[k->op].cat);
                comp[0] = wbuf;
            }
        }
        if (per_backend) comp[1] = backend_name(s, k->backend);
        char shbuf[1024];
        if ((keys & OPSCOPE_DIFF_KEY_SHAPE) && !traced) { /* a trace's: its input dims (above) */
            if (k->shape == SHAPE_OTHER) snprintf(shbuf, sizeof shbuf, "(other shapes)");
            else opscope_fmt_sources(shbuf, sizeof shbuf, &s->shapes[k->shape]);
            comp[2] = shbuf;
        }
        if (keys & OPSCOPE_DIFF_KEY_CATEGORY) comp[3] = opscope_strtab_get(s->strings, k->cat - 1);
        if (keys & OPSCOPE_DIFF_KEY_CPU_OP)
            comp[4] = k->cpu == CPU_FROM_OP ? opdisp
                      : k->cpu == NONE32    ? "(no CPU op)"
                                            : opscope_strtab_get(s->strings, k->cpu);
        char lbuf[32];
        if (keys & OPSCOPE_DIFF_KEY_LAYER) {
            if (k->layer == NONE32) snprintf(lbuf, sizeof lbuf, "(no layer)");
            else snprintf(lbuf, sizeof lbuf, "layer %u", (unsigned)k->layer);
            comp[5] = lbuf;
        }
        if (keys & OPSCOPE_DIFF_KEY_PHASE) comp[6] = phase_text(k->phase);
        canon_key(&key, comp);
        if (other && work && k->work && !key.failed) {
            bool exact = fine_has(other, key.s, key.len);
            const char *fine = comp[0];
            comp[0] = coarse_label(s, fine);
            canon_key(&key, comp);
            if (exact && !key.failed && !fine_has(lumped, key.s, key.len)) {
                comp[0] = fine;
                canon_key(&key, comp);
            }
        }
        if (key.failed) {
            free(opheap);
            goto out;
        }
        uint64_t h = opscope_hash_bytes(key.s, key.len);
        uint32_t fi = opscope_hindex_find(&fx, h, key.s, final_eq, s);
        opscope_diff_group *f = fi != OPSCOPE_HINDEX_NONE ? &s->final[fi] : NULL;
        if (!f) {
            f = new_final(s, &fx, comp, &key, &name, h);
            if (!f) {
                free(opheap);
                goto out;
            }
        }
        free(opheap);
        if (work && k->op != NONE32) {
            if (opscope_vec_reserve((void **)&atoms, &cap_atoms, n_atoms + 1, sizeof *atoms, 64)) goto out;
            atoms[n_atoms++] = (katom){(size_t)(f - s->final), k->op, g->count, g->total_ns};
        }
        final_add(s, f, i);
    }
    for (size_t i = 0; s->final_runs && i < s->n_final; i++)
        s->final[i].run_ns = s->final_runs + i * t->inputs;
    if (work && group_kernels(s, atoms, n_atoms)) goto out;
    rc = 0;
out:
    free(atoms);
    opscope_hindex_free(&fx);
    opscope_strbuf_free(&key);
    opscope_strbuf_free(&name);
    return rc;
}

int opscope_diff_finals_build(opscope_diff_side_t *s) { return build_finals(s, NULL, NULL); }

/* ---------------------------------------------------------------------------------------- */
/* Work pairs of two traces: the fallback to the CPU op alone.                              */

static int fine_set_of(const opscope_diff_side_t *s, fine_set *fs) {
    memset(fs, 0, sizeof *fs);
    if (opscope_diff_ix_init(&fs->ix) || !(fs->v = malloc((s->n_final ? s->n_final : 1) * sizeof *fs->v)))
        return -1;
    for (size_t i = 0; i < s->n_final; i++) {
        if (fs->n >= OPSCOPE_HINDEX_NONE ||
            opscope_hindex_add(&fs->ix, opscope_hash_bytes(s->final[i].key, strlen(s->final[i].key)), (uint32_t)fs->n))
            return -1;
        fs->v[fs->n++] = s->final[i].key;
    }
    return 0;
}

static int set_add(fine_set *fs, size_t *cap, const char *key) {
    if (fine_has(fs, key, strlen(key))) return 0;
    if (fs->n >= OPSCOPE_HINDEX_NONE || opscope_vec_reserve((void **)&fs->v, cap, fs->n + 1, sizeof *fs->v, 64) ||
        opscope_hindex_add(&fs->ix, opscope_hash_bytes(key, strlen(key)), (uint32_t)fs->n))
        return -1;
    fs->v[fs->n++] = key;
    return 0;
}

/* The coarse form of canonical KEY (its first component cut at " [") interned in S. */
static const char *coarse_key(opscope_diff_side_t *s, const char *key) {
    const char *us = strchr(key, '\x1f'), *d = strstr(key, " [");
    if (!d || (us && d > us)) return key;
    size_t n = strlen(key), cut = (size_t)((us ? us : key + n) - d);
    char *buf = malloc(n - cut + 1);
    if (!buf) return NULL;
    memcpy(buf, key, (size_t)(d - key));
    memcpy(buf + (d - key), d + cut, n - (size_t)(d - key) - cut + 1);
    const char *c = opscope_strtab_intern(s->strings, buf, n - cut, NULL);
    free(buf);
    return c;
}

/* The coarse keys of X's groups that OTHER lacks exactly, into R. */
static int remainder_of(opscope_diff_side_t *x, const fine_set *other, fine_set *r, size_t *cap) {
    for (size_t i = 0; i < x->n_final; i++) {
        const char *k = x->final[i].key;
        if (fine_has(other, k, strlen(k))) continue;
        const char *c = coarse_key(x, k);
        if (!c || set_add(r, cap, c)) return -1;
    }
    return 0;
}

int opscope_diff_sides_pair(opscope_diff_side_t *a, opscope_diff_side_t *b) {
    if (!opscope_diff_side_work_pairs(a) || !opscope_diff_side_work_pairs(b) || !a->kin || !b->kin ||
        !a->finished || !b->finished || (a->keys & OPSCOPE_DIFF_KEY_SHAPE))
        return 0;
    /* a CPU op with unpaired shapes on one side only is kept whole on both sides, so that
     * every CPU op the two runs share pairs */
    fine_set fa, fb, ra = {0}, rb = {0}, lumped = {0};
    size_t cra = 0, crb = 0, cl = 0;
    int rc = -1;
    if (fine_set_of(a, &fa) | fine_set_of(b, &fb)) goto out;
    if (opscope_diff_ix_init(&ra.ix) || opscope_diff_ix_init(&rb.ix) || opscope_diff_ix_init(&lumped.ix))
        goto out;
    if (remainder_of(a, &fb, &ra, &cra) || remainder_of(b, &fa, &rb, &crb)) goto out;
    for (int side = 0; side < 2; side++) {
        const fine_set *x = side ? &rb : &ra, *y = side ? &ra : &rb;
        for (size_t i = 0; i < x->n; i++)
            if (!fine_has(y, x->v[i], strlen(x->v[i])) && set_add(&lumped, &cl, x->v[i])) goto out;
    }
    if (build_finals(a, &fb, &lumped) || build_finals(b, &fa, &lumped)) goto out;
    rc = 0;
out:
    free(fa.v);
    opscope_hindex_free(&fa.ix);
    free(fb.v);
    opscope_hindex_free(&fb.ix);
    free(ra.v);
    opscope_hindex_free(&ra.ix);
    free(rb.v);
    opscope_hindex_free(&rb.ix);
    free(lumped.v);
    opscope_hindex_free(&lumped.ix);
    return rc;
}
