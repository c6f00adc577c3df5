/*
 * cap_cpu.c - CPU graphs: which graph nodes each abort-callback timestamp closes. ggml-cpu
 * skips empty ops and nodes without the COMPUTE flag and may fuse nodes into one step; this
 * file replicates those rules (cap_attr.c pairs the steps with the timestamps).
 */
#include "capture/timing/cap_cpu.h"

#include "capture/timing/cap_attr.h"
#include "capture/store/cap_counters.h"
#include "capture/timing/cap_record.h"
#include "capture/resolve/cap_resolve.h"
#include "capture/store/cap_tables.h"
#include "util/hash.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* The parallel arrays *A and *B (entries of A_SIZE and B_SIZE bytes) grown to N entries; one
 * grown stays so when the other fails (false: out of memory, the capacity not to be raised). */
static bool grow_pair(void **a, size_t a_size, void **b, size_t b_size, int n) {
    void *na = realloc(*a, (size_t)n * a_size);
    if (na) *a = na;
    void *nb = realloc(*b, (size_t)n * b_size);
    if (nb) *b = nb;
    return na && nb;
}

/* Use counts of the RMS_NORM outputs that could fuse with the MUL after them, inside this
 * graph (ggml counts them over the scheduler's whole graph; a split sees fewer uses, which
 * the callback count check then catches). Only those candidates are counted, by comparing
 * source pointers: no source tensor is read, so the walk does not touch memory the compute
 * pushed out of the caches. */
/* Its own table, not util/hindex.h: scratch of the walk inside the host's compute, refilled
 * per graph in place (keys and counts side by side, no entry array, no allocation once warm). */
static int32_t *use_find(opscope_cap_walk *w, const void *key) {
    uint32_t h = (uint32_t)opscope_mix64((uintptr_t)key) & (uint32_t)(w->ucap - 1);
    while (w->uk[h]) {
        if (w->uk[h] == key) {
            return &w->uv[h];
        }
        h = (h + 1) & (uint32_t)(w->ucap - 1);
    }
    return NULL;
}

static bool count_uses(opscope_cap_walk *w, struct ggml_tensor *const *nodes, int n, const int32_t *cand,
                       int n_cand) {
    int need = 16;
    while (need < n_cand * 2) {
        need *= 2;
    }
    if (need > w->ucap) {
        if (!grow_pair((void **)&w->uk, sizeof *w->uk, (void **)&w->uv, sizeof *w->uv, need)) {
            return false;
        }
        w->ucap = need;
    }
    memset(w->uk, 0, (size_t)w->ucap * sizeof *w->uk);
    memset(w->uv, 0, (size_t)w->ucap * sizeof *w->uv);
    for (int c = 0; c < n_cand; c++) {
        const void *key = nodes[cand[c]];
        uint32_t h = (uint32_t)opscope_mix64((uintptr_t)key) & (uint32_t)(w->ucap - 1);
        while (w->uk[h] && w->uk[h] != key) {
            h = (h + 1) & (uint32_t)(w->ucap - 1);
        }
        w->uk[h] = key;
    }
    for (int j = 0; j < n; j++) {
        const struct ggml_tensor *t = nodes[j];
        for (int s = 0; s < GGML_MAX_SRC; s++) {
            int32_t *u = t->src[s] ? use_find(w, t->src[s]) : NULL;
            if (u) {
                (*u)++;
            }
        }
    }
    return true;
}

static bool same_shape(const struct ggml_tensor *a, const struct ggml_tensor *b) {
    return a->ne[0] == b->ne[0] && a->ne[1] == b->ne[1] && a->ne[2] == b->ne[2] && a->ne[3] == b->ne[3];
}

/* ggml-cpu's ggml_cpu_try_fuse_ops, as of ggml 0.27: RMS_NORM followed by the MUL that
 * consumes it (only user, same shape, f32, weight rows contiguous) runs as one step. */
static int cpu_fuse_len(opscope_cap_walk *w, struct ggml_tensor *const *nodes, int i, int n) {
    const struct ggml_tensor *t = nodes[i];
    if (t->op != GGML_OP_RMS_NORM || i + 1 >= n) {
        return 0;
    }
    const struct ggml_tensor *m = nodes[i + 1];
    if (m->op != GGML_OP_MUL || !(m->flags & GGML_TENSOR_FLAG_COMPUTE)) {
        return 0;
    }
    const int32_t *uses = use_find(w, t);
    if (t->view_src || (t->flags & GGML_TENSOR_FLAG_OUTPUT) || !uses || *uses != 1) {
        return 0;
    }
    if ((m->src[0] != t && m->src[1] != t) || !same_shape(t, m)) {
        return 0;
    }
    const struct ggml_tensor *wt = m->src[0] == t ? m->src[1] : m->src[0];
    if (!t->src[0] || !wt || t->src[0]->type != GGML_TYPE_F32 || m->type != GGML_TYPE_F32 ||
        wt->type != GGML_TYPE_F32 || wt->ne[0] != t->ne[0] || wt->nb[0] != sizeof(float)) {
        return 0;
    }
    return 2;
}

/* ---- plans: what a split graph's steps are, cached while the graph stays the same ----
 *
 * llama.cpp computes the same split graphs at every decode step (it reuses its graph; the
 * scheduler keeps its splits until the next split_graph/reset). A plan holds the node
 * pointers and ggml-cpu's step rules applied to them, and writes what each step is (its
 * description, node, bytes) once into the record buffer as plan pages; a repeated compute
 * then costs one pass over the timestamps and one CALL record of 16 bytes per step,
 * instead of a walk of every tensor and an 80-byte event per step.
 * A plan is used only while its scheduler's generation (bumped by the interposed
 * ggml_backend_sched_split_graph and _reset) and the record buffers' generation are the
 * ones it was made in, the graph has the same node pointers, and the callbacks matched
 * its steps exactly; anything else takes the full walk. */

#define PLAN_SLOTS 32

struct opscope_cap_plan {
    struct ggml_cgraph *g;
    int sched, n, n_steps;
    unsigned sched_gen, buf_gen;
    bool made;                   /* false: the graph was seen once (only the key is set) */
    uint64_t used;               /* last use, for replacement */
    struct ggml_tensor **node;   /* n */
    opscope_cap_node *rules;     /* n */
    const opscope_cap_plan_page **pages; /* the templates in the record buffer */
    int n_pages, cap_nodes, cap_pages;
};

static _Atomic unsigned g_sched_gen[OPSCOPE_CAP_MAX_SCHEDS];
static _Atomic unsigned g_all_gen; /* bumped for a scheduler without an id */
static _Thread_local uint64_t t_plan_clock;

void opscope_cap_cpu_sched_changed(int sched) {
    if (sched >= 0 && sched < OPSCOPE_CAP_MAX_SCHEDS) {
        atomic_fetch_add_explicit(&g_sched_gen[sched], 1, memory_order_release);
    } else {
        atomic_fetch_add_explicit(&g_all_gen, 1, memory_order_release);
    }
}

static unsigned sched_gen(int sched) {
    unsigned g = (unsigned)opscope_mix64(atomic_load_explicit(&g_all_gen, memory_order_acquire));
    return g + atomic_load_explicit(&g_sched_gen[sched], memory_order_acquire);
}

void opscope_cap_cpu_plans_clear(opscope_cap_walk *w, bool free_all) {
    if (!w->plans) {
        return;
    }
    for (int i = 0; i < PLAN_SLOTS; i++) {
        opscope_cap_plan *p = &w->plans[i];
        p->g = NULL;
        if (free_all) {
            free(p->node);
            free(p->rules);
            free(p->pages);
            memset(p, 0, sizeof *p);
        }
    }
    if (free_all) {
        free(w->plans);
        w->plans = NULL;
    }
}

static bool plan_cacheable(int sched) {
    return sched >= 0 && sched < OPSCOPE_CAP_MAX_SCHEDS;
}

static opscope_cap_plan *plan_find(opscope_cap_walk *w, struct ggml_cgraph *g, int sched, int n) {
    if (!w->plans) {
        return NULL;
    }
    for (int i = 0; i < PLAN_SLOTS; i++) {
        opscope_cap_plan *p = &w->plans[i];
        if (p->g == g && p->sched == sched) {
            if (p->n != n || p->sched_gen != sched_gen(sched) ||
                p->buf_gen != opscope_cap_buf_generation()) {
                p->g = NULL; /* stale */
                return NULL;
            }
            for (int j = 0; p->made && j < n; j++) {
                if (opscope_cap_ggml.graph_node(g, j) != p->node[j]) {
                    p->g = NULL;
                    return NULL;
                }
            }
            p->used = ++t_plan_clock;
            return p;
        }
    }
    return NULL;
}

/* The least recently used slot, emptied (NULL when none can be had). */
static opscope_cap_plan *plan_lru(opscope_cap_walk *w) {
    if (!w->plans) {
        w->plans = calloc(PLAN_SLOTS, sizeof *w->plans);
        if (!w->plans) {
            return NULL;
        }
    }
    opscope_cap_plan *p = &w->plans[0];
    for (int i = 1; i < PLAN_SLOTS && p->g; i++) {
        if (!w->plans[i].g || w->plans[i].used < p->used) {
            p = &w->plans[i];
        }
    }
    p->g = NULL;
    return p;
}

/* Slot P as graph G of SCHED (N nodes), MADE (its steps kept) or only seen once, valid for the
 * current generations of the scheduler and the buffers, and used now. */
static void plan_set(opscope_cap_plan *p, struct ggml_cgraph *g, int sched, int n, bool made) {
    p->sched = sched;
    p->n = n;
    p->made = made;
    p->sched_gen = sched_gen(sched);
    p->buf_gen = opscope_cap_buf_generation();
    p->used = ++t_plan_clock;
    p->g = g;
}

/* Notes that graph G of SCHED (N nodes) was walked once: a plan is made only when the same
 * graph computes again, so programs that build a new graph every time (whisper's decoder,
 * llama.cpp with graph reuse off) pay nothing for plans. */
static void plan_note_seen(opscope_cap_walk *w, struct ggml_cgraph *g, int sched, int n) {
    opscope_cap_plan *p = plan_lru(w);
    if (!p) {
        return;
    }
    plan_set(p, g, sched, n, false);
}

/* Room in slot P for a plan of N nodes. */
static opscope_cap_plan *plan_slot(opscope_cap_plan *p, int n) {
    p->g = NULL;
    if (n > p->cap_nodes) {
        if (!grow_pair((void **)&p->node, sizeof *p->node, (void **)&p->rules, sizeof *p->rules, n)) {
            return NULL;
        }
        p->cap_nodes = n;
    }
    return p;
}

/* Per-thread direct-mapped cache: a page's content hash -> a page written before with that
 * content. Pages are kept for the whole run (cap_buf.h) and a server re-plans the same graph
 * whenever its scheduler splits again (every batch): an equal page is shared instead of
 * written again, so pages stop growing once the program's graphs are seen. */
#define PAGE_SLOTS 1024
typedef struct page_slot {
    uint64_t hash;
    const opscope_cap_plan_page *page;
} page_slot;
static _Thread_local page_slot *t_pages;
static _Thread_local unsigned t_pages_gen;

static uint64_t page_hash(const opscope_cap_event *ev, int m) {
    uint64_t h = opscope_hash_word(OPSCOPE_FNV_BASIS, (uint64_t)m);
    for (int j = 0; j < m; j++) {
        const opscope_cap_event *e = &ev[j];
        h = opscope_hash_word(h, (uintptr_t)e->desc);
        h = opscope_hash_word(h, e->bytes);
        h = opscope_hash_word(h, (uint64_t)(uint32_t)e->node << 8 | e->n_fused);
        uint64_t f;
        memcpy(&f, e->fused, sizeof f);
        h = opscope_hash_word(h, f);
    }
    return opscope_mix64(h);
}

static bool page_equal(const opscope_cap_plan_page *pg, const opscope_cap_event *ev, int m) {
    if (pg->n != m) {
        return false;
    }
    for (int j = 0; j < m; j++) {
        const opscope_cap_tmpl *t = &pg->step[j];
        const opscope_cap_event *e = &ev[j];
        if (t->desc != e->desc || t->bytes != e->bytes || t->node != e->node || t->n_fused != e->n_fused ||
            memcmp(t->fused, e->fused, sizeof t->fused) != 0) {
            return false;
        }
    }
    return true;
}

/* The slot of a page of the M steps EV (NULL without a cache); a page written before with that
 * content is in (*slot)->page when page_equal says so. */
static page_slot *page_cached(const opscope_cap_event *ev, int m, uint64_t *hash) {
    page_slot *cache = opscope_cap_buf_cache((void **)&t_pages, &t_pages_gen, PAGE_SLOTS, sizeof *t_pages);
    if (!cache) {
        return NULL;
    }
    *hash = page_hash(ev, m);
    return &cache[*hash % PAGE_SLOTS];
}

/* Writes the N_STEPS templates EV into the record buffer as P's plan pages. */
static bool plan_pages(opscope_cap_plan *p, const opscope_cap_event *ev, int n_steps) {
    int n_pages = (n_steps + OPSCOPE_CAP_PAGE_STEPS - 1) / OPSCOPE_CAP_PAGE_STEPS;
    if (n_pages > p->cap_pages) {
        const opscope_cap_plan_page **pp = realloc(p->pages, (size_t)n_pages * sizeof *pp);
        if (!pp) {
            return false;
        }
        p->pages = pp;
        p->cap_pages = n_pages;
    }
    p->n_pages = 0;
    for (int k = 0; k < n_steps; k += OPSCOPE_CAP_PAGE_STEPS) {
        int m = n_steps - k < OPSCOPE_CAP_PAGE_STEPS ? n_steps - k : OPSCOPE_CAP_PAGE_STEPS;
        uint64_t hash = 0;
        page_slot *slot = page_cached(&ev[k], m, &hash);
        if (slot && slot->page && slot->hash == hash && page_equal(slot->page, &ev[k], m)) {
            p->pages[p->n_pages++] = slot->page; /* the same steps: the same page */
            continue;
        }
        size_t size = opscope_cap_page_size(m);
        opscope_cap_plan_page *page = opscope_cap_buf_keep_bytes(size); /* calls point at it */
        if (!page) {
            return false;
        }
        memset(page, 0, size);
        page->size = (uint16_t)size;
        page->kind = OPSCOPE_CAP_KIND_PLAN;
        page->n = m;
        for (int j = 0; j < m; j++) {
            const opscope_cap_event *e = &ev[k + j];
            opscope_cap_tmpl *t = &page->step[j];
            t->desc = e->desc;
            t->bytes = e->bytes;
            t->node = e->node;
            t->n_fused = e->n_fused;
            memcpy(t->fused, e->fused, sizeof t->fused);
        }
        opscope_cap_buf_keep_commit(size);
        p->pages[p->n_pages++] = page;
        if (slot) {
            slot->hash = hash;
            slot->page = page;
        }
    }
    return true;
}

/* Emits the steps of a compute from the graph's NODES, with their templates made into EV.
 * Returns whether every template was made. */
static bool emit_all(struct ggml_tensor *const *nodes, const opscope_cap_step *steps, int n_steps,
                     opscope_cap_event *ev, uint8_t flags, const opscope_cap_compute *c, const uint32_t *thr, int nt) {
    int made = 0;
    for (int k = 0; k < n_steps; k++) {
        if (!opscope_cap_event_make(nodes, &steps[k], &ev[made])) {
            break; /* the buffer is full: the rest would be dropped too */
        }
        made++;
    }
    /* the threads' CPUs follow the pairs of all the compute's steps: only a whole compute has them */
    int written = opscope_cap_event_put_all(ev, steps, made, flags, c, opscope_cap_buf_thread_id(),
                                            made == n_steps ? thr : NULL, nt);
    if (made < n_steps) { /* put_all counted its own losses; these steps never got that far */
        opscope_cap_buf_note_dropped((uint64_t)(n_steps - made));
    }
    uint64_t op_ticks = 0;
    for (int k = 0; k < written; k++) {
        op_ticks += steps[k].t1 - steps[k].t0;
    }
    atomic_fetch_add_explicit(&opscope_cap_stats.op_ticks, op_ticks, memory_order_relaxed);
    atomic_fetch_add_explicit(&opscope_cap_stats.records, (uint64_t)written, memory_order_relaxed);
    return made == n_steps;
}

/* One CALL record of steps [FIRST, FIRST + M) of PAGE, which are the compute's steps K.. (W's
 * steps hold their times); THR: NT threads' work and wait of every step of the compute, or
 * NULL, and CPUS their CPUs. Returns the records written (0 when the buffer had no room: counted as dropped). */
static int put_call(opscope_cap_walk *w, const opscope_cap_compute *cc, const opscope_cap_plan_page *page,
                    int first, int m, int k, const uint32_t *thr, const uint32_t *cpus, int nt) {
    size_t size = thr ? opscope_cap_call_size_threads(m, nt) : opscope_cap_call_size(m);
    opscope_cap_call *c = opscope_cap_buf_alloc_bytes(size);
    if (!c) {
        opscope_cap_buf_note_dropped((uint64_t)m);
        return 0;
    }
    c->size = (uint16_t)size;
    c->kind = OPSCOPE_CAP_KIND_CALL;
    c->flags = 0;
    c->backend = (int16_t)cc->bi;
    c->sched = (int16_t)cc->sched;
    c->thread = (int16_t)opscope_cap_buf_thread_id();
    c->n_threads = (int16_t)(thr ? nt : 0);
    c->split = cc->split;
    c->n = m;
    c->first = first;
    c->graph = cc->gid;
    c->page = page;
    for (int j = 0; j < m; j++) {
        c->t[2 * j] = w->steps[k + j].t0;
        c->t[2 * j + 1] = w->steps[k + j].t1;
    }
    if (thr) { /* this CALL's steps' pairs, then the compute's CPUs */
        uint32_t *dst = (uint32_t *)(void *)&c->t[2 * (size_t)m];
        memcpy(dst, thr + (size_t)k * (size_t)nt * 2, (size_t)m * (size_t)nt * 2 * sizeof *thr);
        memcpy(dst + (size_t)m * (size_t)nt * 2, cpus, (size_t)nt * sizeof *cpus);
    }
    opscope_cap_buf_commit_bytes(size);
    return m;
}

/* The cached path: true when PLAN's steps matched the callbacks and the records are out. */
static bool emit_planned(opscope_cap_walk *w, const opscope_cap_stream *st, const opscope_cap_plan *p,
                         const opscope_cap_compute *cc) {
    int n_ts = st->n < st->cap ? st->n : st->cap;
    if (cc->aborted || st->n != p->n_steps) {
        return false;
    }
    int n_steps = 0;
    int attr = opscope_cap_attribute(p->rules, p->n, st->ts, n_ts, cc->t0, false, w->steps, &n_steps);
    if (attr != OPSCOPE_CAP_ATTR_EXACT || n_steps != p->n_steps) {
        return false;
    }
    uint64_t tail = opscope_cap_close_steps(w->steps, n_steps, attr, st->bar, n_ts, cc->t1);
    int nt = st->thr && st->nt > 0 && st->nt <= OPSCOPE_CAP_THR_MAX ? st->nt : 0;
    /* with threads, a page goes out as several CALLs, each below the 64 KiB record size */
    int per_call = nt ? (int)((60000u - sizeof(opscope_cap_call) - 4u * (unsigned)nt) / (16u + 8u * (unsigned)nt))
                      : OPSCOPE_CAP_PAGE_STEPS;
    const uint32_t *cpus = nt ? st->thr + (size_t)n_ts * (size_t)nt * 2 : NULL;
    int written = 0;
    for (int pg = 0, k = 0; pg < p->n_pages; pg++) {
        const opscope_cap_plan_page *page = p->pages[pg];
        for (int first = 0; first < page->n; first += per_call) {
            int m = page->n - first < per_call ? page->n - first : per_call;
            written += put_call(w, cc, page, first, m, k, nt ? st->thr : NULL, cpus, nt);
            k += m;
        }
    }
    uint64_t op_ticks = 0;
    for (int k = 0; k < n_steps; k++) {
        op_ticks += w->steps[k].t1 - w->steps[k].t0;
    }
    atomic_fetch_add_explicit(&opscope_cap_stats.op_ticks, op_ticks, memory_order_relaxed);
    atomic_fetch_add_explicit(&opscope_cap_stats.records, (uint64_t)written, memory_order_relaxed);
    opscope_cap_graph_rec_add(n_steps, attr, tail);
    atomic_fetch_add_explicit(&opscope_cap_stats.planned_graphs, 1, memory_order_relaxed);
    return true;
}

/* Records of one CPU graph from the step timestamps. */
void opscope_cap_cpu_emit(opscope_cap_walk *w, const opscope_cap_stream *st, const opscope_cap_compute *cc,
                          bool lasting) {
    struct ggml_cgraph *g = cc->g;
    const int n = cc->n, sched = cc->sched;
    bool cacheable = plan_cacheable(sched) && lasting;
    opscope_cap_plan *seen = NULL;
    if (cacheable) {
        opscope_cap_plan *p = plan_find(w, g, sched, n);
        if (p && p->made && emit_planned(w, st, p, cc)) {
            return;
        }
        seen = p && !p->made ? p : NULL;
    }
    /* node pointers first (the graph's array), then the nodes with prefetching: after a
     * compute they are mostly out of the caches */
    struct ggml_tensor **nodes = w->ptrs;
    for (int i = 0; i < n; i++) {
        nodes[i] = opscope_cap_ggml.graph_node(g, i);
    }
    int n_cand = 0;
    for (int i = 0; i < n; i++) {
        if (i + 8 < n) {
            __builtin_prefetch((const char *)nodes[i + 8] + offsetof(struct ggml_tensor, op));
            __builtin_prefetch((const char *)nodes[i + 8] + offsetof(struct ggml_tensor, flags));
        }
        const struct ggml_tensor *t = nodes[i];
        w->nodes[i].skip = opscope_cap_op_is_empty(t->op) || !(t->flags & GGML_TENSOR_FLAG_COMPUTE);
        w->nodes[i].fuse = 0;
        if (t->op == GGML_OP_MUL && i > 0 && nodes[i - 1]->op == GGML_OP_RMS_NORM) {
            w->cand[n_cand++] = i - 1;
        }
    }
    if (n_cand > 0 && count_uses(w, nodes, n, w->cand, n_cand)) {
        for (int c = 0; c < n_cand; c++) {
            int i = w->cand[c];
            if (!w->nodes[i].skip) {
                w->nodes[i].fuse = (uint8_t)cpu_fuse_len(w, nodes, i, n);
            }
        }
    }
    int n_ts = st->n < st->cap ? st->n : st->cap;
    int n_steps = 0;
    int attr = opscope_cap_attribute(w->nodes, n, st->ts, n_ts, cc->t0, cc->aborted, w->steps, &n_steps);
    uint64_t tail = opscope_cap_close_steps(w->steps, n_steps, attr, st->bar, n_ts, cc->t1);
    if (attr == OPSCOPE_CAP_ATTR_INEXACT) {
        atomic_fetch_add_explicit(&opscope_cap_stats.inexact_graphs, 1, memory_order_relaxed);
    } else if (attr == OPSCOPE_CAP_ATTR_NOFUSION) {
        atomic_fetch_add_explicit(&opscope_cap_stats.nofusion_graphs, 1, memory_order_relaxed);
    }
    uint8_t flags = attr == OPSCOPE_CAP_ATTR_INEXACT ? OPSCOPE_CAP_F_INEXACT : 0;
    opscope_cap_plan *p = NULL;
    if (cacheable && attr == OPSCOPE_CAP_ATTR_EXACT) {
        if (seen) {
            p = plan_slot(seen, n);
        } else {
            plan_note_seen(w, g, sched, n);
        }
    }
    /* step k is callback k when every callback paired with a step */
    bool paired = (attr == OPSCOPE_CAP_ATTR_EXACT || attr == OPSCOPE_CAP_ATTR_NOFUSION) && n_steps == n_ts &&
                  st->n <= st->cap && st->thr && st->nt > 0;
    bool kept = emit_all(nodes, w->steps, n_steps, w->ev, flags, cc, paired ? st->thr : NULL, paired ? st->nt : 0);
    opscope_cap_graph_rec_add(n_steps, attr, tail);
    if (p && kept && st->n == n_steps && plan_pages(p, w->ev, n_steps)) {
        memcpy(p->node, nodes, (size_t)n * sizeof *p->node);
        memcpy(p->rules, w->nodes, (size_t)n * sizeof *p->rules);
        p->n_steps = n_steps;
        plan_set(p, g, sched, n, true);
    }
}
