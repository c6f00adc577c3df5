/*
 * diff_attrib.c - a Kineto trace's GPU activities attributed to the groups of one side of
 * `opscope diff` (diff_attrib.h): the CPU op, layer and phase the trace analysis found for
 * each, the work that launched it (work pairs), distinct CPU op calls, and per CPU op its
 * kernels (fusion differences).
 */
#include "analyze/diff/diff_attrib.h"
#include "analyze/diff/diff_cpu_kernels.h"
#include "analyze/diff/diff_label.h"
#include "analyze/diff/diff_side_state.h"

#include <stdlib.h>
#include <string.h>

/* A set of 64-bit values (distinct CPU op calls). */
typedef struct u64set {
    OPSCOPE_VEC(uint64_t) v;
    opscope_hindex ix;
} u64set;

/* Grown as values come: distinct calls are often far fewer than activities. */
static int u64set_init(u64set *x) {
    memset(x, 0, sizeof *x);
    return opscope_diff_ix_init(&x->ix);
}

static void u64set_free(u64set *x) {
    free(x->v.v);
    opscope_hindex_free(&x->ix);
}

static bool u64_eq(const void *ctx, uint32_t i, const void *key) {
    return ((const u64set *)ctx)->v.v[i] == *(const uint64_t *)key;
}

/* Adds V; returns 1 when new, 0 when present, -1 when out of memory. */
static int u64set_add(u64set *x, uint64_t v) {
    uint64_t h = opscope_mix64(v);
    if (opscope_hindex_find(&x->ix, h, &v, u64_eq, x) != OPSCOPE_HINDEX_NONE) return 0;
    if (x->v.n >= OPSCOPE_HINDEX_NONE || OPSCOPE_VEC_PUSH(x->v, v)) return -1;
    if (opscope_hindex_add(&x->ix, h, (uint32_t)(x->v.n - 1))) {
        x->v.n--;
        return -1;
    }
    return 1;
}

/* Hands each of the N CPU ops of CPU its kernels by name from the tally CK (names from the
 * trace's table NAMES, interned in the side's strings). Returns 0 or -1. */
static int cpu_kernels(opscope_diff_side_t *s, opscope_diff_cpu_op *cpu, size_t n,
                       opscope_diff_cpuk *ck, const opscope_strtab_t *names) {
    opscope_diff_cpuk_sort(ck);
    s->cpu_kern = malloc((ck->n ? ck->n : 1) * sizeof *s->cpu_kern);
    if (!s->cpu_kern) return -1;
    for (size_t i = 0; i < ck->n; i++) {
        const opscope_diff_cpuk_ent *e = &ck->v[i];
        const char *nm = opscope_strtab_get(names, e->name);
        uint32_t id = opscope_diff_side_intern(s, nm, strlen(nm));
        if (id == NONE32 || e->op >= n) return -1;
        s->cpu_kern[i] = (opscope_diff_kernel){opscope_strtab_get(s->strings, id), OPSCOPE_RECORD_OP,
                                               e->count, e->total_ns, e->cat};
        if (!cpu[e->op].n_kern) cpu[e->op].kern = &s->cpu_kern[i];
        cpu[e->op].n_kern++;
    }
    return 0;
}

int opscope_diff_attrib_kineto(opscope_diff_side_t *s) {
    const opscope_kineto_t *k = s->kin;
    size_t ng = opscope_kineto_n_gpu(k);
    const opscope_strtab_t *names = opscope_kineto_names(k);
    uint32_t nn = opscope_strtab_count(names);
    int rc = -1;
    uint32_t *sid = malloc((nn ? nn : 1) * sizeof *sid); /* collector name id -> ours */
    u64set calls, op_calls;
    keyset reduced = {0};
    work_cache wc = {NONE32, NONE32, NONE32};
    opscope_diff_cpuk ck = {0};
    int rc_calls = u64set_init(&calls), rc_op_calls = u64set_init(&op_calls);
    if (!sid || rc_calls || rc_op_calls || opscope_diff_ix_init(&reduced.ix))
        goto done;
    for (uint32_t i = 0; i < nn; i++) sid[i] = NONE32;
    /* CPU op summary (fusion differences): kernels, distinct calls, time per CPU op */
    opscope_diff_cpu_op *cpu = NULL;
    size_t n_cpu = 0, cap_cpu = 0;
    uint32_t *cpu_slot = malloc((nn ? nn : 1) * sizeof *cpu_slot);
    if (!cpu_slot) goto done;
    for (uint32_t i = 0; i < nn; i++) cpu_slot[i] = NONE32;
    for (size_t i = 0; i < ng; i++) {
        opscope_kineto_gpu_info g;
        opscope_kineto_gpu_get(k, i, &g);
        uint32_t cpu_sid = NONE32;
        if (g.cpu_op != NONE32 && g.cpu_op < nn) {
            if (sid[g.cpu_op] == NONE32) {
                const char *nm = opscope_strtab_get(names, g.cpu_op);
                sid[g.cpu_op] = opscope_diff_side_intern(s, nm, strlen(nm));
                if (sid[g.cpu_op] == NONE32) goto fail_cpu;
            }
            cpu_sid = sid[g.cpu_op];
            if (g.kind == OPSCOPE_KINETO_KERNEL) {
                if (cpu_slot[g.cpu_op] == NONE32) {
                    if (opscope_vec_reserve((void **)&cpu, &cap_cpu, n_cpu + 1, sizeof *cpu, 64)) goto fail_cpu;
                    cpu[n_cpu] = (opscope_diff_cpu_op){opscope_strtab_get(s->strings, cpu_sid), 0, 0, 0, NULL, 0};
                    cpu_slot[g.cpu_op] = (uint32_t)n_cpu++;
                }
                opscope_diff_cpu_op *c = &cpu[cpu_slot[g.cpu_op]];
                c->kernels++;
                c->total_ns += (uint64_t)g.dur_ns;
                if (opscope_diff_cpuk_add(&ck, cpu_slot[g.cpu_op], g.name_id, (int)g.kcat, (uint64_t)g.dur_ns))
                    goto fail_cpu;
                int nc = g.cpu_call ? u64set_add(&op_calls, (uint64_t)g.cpu_op << 32 | g.cpu_call) : 0;
                if (nc < 0) goto fail_cpu;
                c->calls += (uint64_t)nc;
            }
        }
        if (!s->defer || g.seq >= s->n_gpu_partial || s->gpu_partial[g.seq] == NONE32) continue;
        dkey key = s->partials.v[s->gpu_partial[g.seq]];
        if (s->keys & OPSCOPE_DIFF_KEY_CPU_OP) key.cpu = cpu_sid;
        if (opscope_diff_side_work_pairs(s) && cpu_sid != NONE32) {
            uint32_t w = opscope_diff_work_label(s, &wc, cpu_sid, g.cpu_dims, names);
            if (w == NONE32) goto fail_cpu;
            key.work = w + 1;
        }
        if (s->keys & OPSCOPE_DIFF_KEY_LAYER) key.layer = g.layer;
        if (s->keys & OPSCOPE_DIFF_KEY_PHASE) key.phase = (uint32_t)g.phase;
        long gi = opscope_diff_group_find(s, &key);
        if (gi < 0) goto fail_cpu;
        dgroup *dg = &s->groups[gi];
        opscope_diff_group_acc(dg, (uint64_t)g.dur_ns);
        /* distinct CPU op calls per group of the key (not per atom: a call that launched two
         * kernels is one call); activities without a call count one each */
        bool new_call = true;
        if ((s->keys & OPSCOPE_DIFF_KEY_CPU_OP) && g.cpu_call) {
            dkey rk = key;
            if (!(s->keys & (OPSCOPE_DIFF_KEY_OP | OPSCOPE_DIFF_KEY_KERNEL | OPSCOPE_DIFF_KEY_SHAPE))) {
                rk.op = NONE32;
                rk.backend = INT32_MIN;
            }
            long ri = opscope_diff_keyset_find(&reduced, &rk);
            if (ri < 0) goto fail_cpu;
            int nc = u64set_add(&calls, (uint64_t)ri << 32 | g.cpu_call);
            if (nc < 0) goto fail_cpu;
            new_call = nc;
        }
        if (new_call) dg->calls++;
    }
    if (cpu_kernels(s, cpu, n_cpu, &ck, names)) goto fail_cpu;
    s->cpu_ops = cpu;
    s->n_cpu_ops = n_cpu;
    cpu = NULL;
    rc = 0;
fail_cpu:
    opscope_diff_cpuk_free(&ck);
    free(cpu);
    free(cpu_slot);
done:
    free(sid);
    u64set_free(&calls);
    u64set_free(&op_calls);
    free(reduced.v);
    opscope_hindex_free(&reduced.ix);
    return rc;
}
