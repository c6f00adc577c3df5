/* threads.c - per-thread work and wait over a profile (see threads.h). */
#include "analyze/threads/threads.h"

#include "model/ggml_vocab.h"
#include "util/hash.h"
#include "util/hindex.h"
#include "util/vec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One graph id's sums; its threads' held time and clear MUL_MAT records at OFF in the pool. */
typedef struct thr_graph {
    int64_t id;
    uint64_t work, wait, mm_n;
    size_t off;
    int nt;
} thr_graph;

typedef struct thr_graph_th {
    uint64_t held, mm_slowest;
} thr_graph_th;

struct opscope_threads {
    opscope_thread_sum th[OPSCOPE_MAX_THREADS];
    int n_th;
    OPSCOPE_VEC(opscope_thread_group) groups;
    size_t last; /* the group found last: records of one op come in runs */
    OPSCOPE_VEC(thr_graph) graphs;
    OPSCOPE_VEC(thr_graph_th) pool;
    opscope_hindex gix; /* graph id -> graphs */
    uint32_t glast;     /* the graph found last: a graph's records come in runs */
};

opscope_threads_t *opscope_threads_new(void) {
    opscope_threads_t *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    if (opscope_hindex_init(&t->gix, 64)) {
        free(t);
        return NULL;
    }
    t->glast = OPSCOPE_HINDEX_NONE;
    for (int i = 0; i < OPSCOPE_MAX_THREADS; i++) {
        t->th[i].thread = i;
        t->th[i].cpu = -1;
    }
    return t;
}

void opscope_threads_free(opscope_threads_t *t) {
    if (!t) return;
    for (size_t i = 0; i < t->groups.n; i++) free((char *)t->groups.v[i].display);
    free(t->groups.v);
    free(t->graphs.v);
    free(t->pool.v);
    opscope_hindex_free(&t->gix);
    free(t);
}

static opscope_thread_group *group_of(opscope_threads_t *t, const char *display, int32_t backend) {
    if (t->last < t->groups.n) {
        opscope_thread_group *g = &t->groups.v[t->last];
        if (g->backend_id == backend && strcmp(g->display, display) == 0) return g;
    }
    for (size_t i = 0; i < t->groups.n; i++) {
        opscope_thread_group *g = &t->groups.v[i];
        if (g->backend_id == backend && strcmp(g->display, display) == 0) {
            t->last = i;
            return g;
        }
    }
    if (opscope_vec_reserve((void **)&t->groups.v, &t->groups.cap, t->groups.n + 1, sizeof *t->groups.v, 16))
        return NULL;
    char *d = strdup(display);
    if (!d) return NULL;
    opscope_thread_group *g = &t->groups.v[t->groups.n];
    memset(g, 0, sizeof *g);
    g->display = d;
    g->backend_id = backend;
    t->last = t->groups.n++;
    return g;
}

static bool graph_eq(const void *ctx, uint32_t id, const void *key) {
    return ((const thr_graph *)ctx)[id].id == *(const int64_t *)key;
}

/* The sums of graph ID, made with room for NT threads when new; NULL when out of memory. */
static thr_graph *graph_of(opscope_threads_t *t, int64_t id, int nt) {
    if (t->glast != OPSCOPE_HINDEX_NONE && t->graphs.v[t->glast].id == id) return &t->graphs.v[t->glast];
    if (opscope_vec_reserve((void **)&t->pool.v, &t->pool.cap, t->pool.n + (size_t)nt, sizeof *t->pool.v, 256))
        return NULL;
    bool added;
    uint32_t g = opscope_hindex_find_or_append(&t->gix, opscope_mix64((uint64_t)id), &id, graph_eq, t->graphs.v,
                                               (void **)&t->graphs.v, &t->graphs.cap, &t->graphs.n,
                                               sizeof *t->graphs.v, &added);
    if (g == OPSCOPE_HINDEX_NONE) return NULL;
    if (added) {
        t->graphs.v[g] = (thr_graph){.id = id, .off = t->pool.n, .nt = nt};
        memset(&t->pool.v[t->pool.n], 0, (size_t)nt * sizeof *t->pool.v);
        t->pool.n += (size_t)nt;
    }
    t->glast = g;
    return &t->graphs.v[g];
}

/* A node's slowest thread (*SLOW), the wait it caused (*HELD) and whether it was the slowest by
 * the margin (returned). THR: NT pairs of work and wait. */
static bool node_judge(const uint32_t *thr, int nt, int *slow, uint64_t *held) {
    uint64_t hi = 0, second = 0, sum = 0;
    *slow = 0;
    for (int i = 0; i < nt; i++) {
        uint64_t w = thr[2 * i];
        sum += w;
        if (w > hi) {
            second = hi;
            hi = w;
            *slow = i;
        } else if (w > second) {
            second = w;
        }
    }
    *held = hi * (uint64_t)nt - sum;
    return nt > 1 && hi > 0 && (double)(hi - second) >= OPSCOPE_THREADS_MARGIN * (double)hi;
}

static void thread_cpu(opscope_thread_sum *s, int32_t cpu) {
    if (cpu < 0 || s->moved) return;
    if (s->cpu < 0) {
        s->cpu = cpu;
    } else if (s->cpu != cpu) {
        s->cpu = -1;
        s->moved = true;
    }
}

int opscope_threads_add(opscope_threads_t *t, const opscope_record *r, const opscope_derived *dv) {
    if (!(r->has & OPSCOPE_HAS_THREADS) || !r->threads || r->n_threads <= 0) return 0;
    int nt = r->n_threads > OPSCOPE_MAX_THREADS ? OPSCOPE_MAX_THREADS : r->n_threads;
    const char *display = dv && dv->display ? dv->display : r->name;
    opscope_thread_group *g = group_of(t, display ? display : "", r->backend_id);
    thr_graph *gr = g ? graph_of(t, r->has & OPSCOPE_HAS_GRAPH ? r->graph_id : -1, nt) : NULL;
    if (!gr) return -1;
    uint64_t lo = UINT64_MAX, hi = 0, sum = 0, wait = 0, held;
    int slow;
    bool clear = node_judge(r->threads, nt, &slow, &held);
    for (int i = 0; i < nt; i++) {
        uint64_t w = r->threads[2 * i], x = r->threads[2 * i + 1];
        t->th[i].work_ns += w;
        t->th[i].wait_ns += x;
        t->th[i].nodes++;
        thread_cpu(&t->th[i], r->thread_cpus ? r->thread_cpus[i] : -1);
        lo = w < lo ? w : lo;
        hi = w > hi ? w : hi;
        sum += w;
        wait += x;
    }
    bool mm = r->name && opscope_ggml_op_is(r->name, OPSCOPE_GGML_OP_MUL_MAT);
    t->th[slow].held_ns += held;
    t->th[slow].slowest_nodes += clear;
    if (nt > t->n_th) t->n_th = nt;
    g->n++;
    g->work_min_ns += lo;
    g->work_max_ns += hi;
    g->work_mean_ns += sum / (uint64_t)nt;
    g->wait_ns += wait;
    g->slowest[slow] += clear;
    g->held[slow] += held;
    gr->work += sum;
    gr->wait += wait;
    gr->mm_n += mm;
    if (slow < gr->nt) {
        t->pool.v[gr->off + (size_t)slow].held += held;
        t->pool.v[gr->off + (size_t)slow].mm_slowest += mm && clear;
    }
    return 0;
}

int opscope_threads_add_derived(void *ud, const opscope_record *rec, opscope_derived *dv) {
    return opscope_threads_add(ud, rec, dv);
}

static int on_record(void *ud, const opscope_record *rec) {
    return opscope_threads_add(ud, rec, NULL);
}

opscope_sink opscope_threads_sink(opscope_threads_t *t) {
    opscope_sink s = {.ud = t, .on_record = on_record};
    return s;
}

int opscope_threads_n(const opscope_threads_t *t) {
    return t ? t->n_th : 0;
}

const opscope_thread_sum *opscope_threads_thread(const opscope_threads_t *t, int i) {
    return &t->th[i];
}

size_t opscope_threads_n_groups(const opscope_threads_t *t) {
    return t ? t->groups.n : 0;
}

/* The thread with the most of V[0..N) (ties: the lower one) and V's sum. */
static int most_of(const uint64_t *v, int n, uint64_t *total) {
    int best = 0;
    *total = 0;
    for (int i = 0; i < n; i++) {
        *total += v[i];
        if (v[i] > v[best]) best = i;
    }
    return best;
}

static void group_derive(opscope_thread_group *g) {
    g->imbalance = g->work_mean_ns ? (double)g->work_max_ns / (double)g->work_mean_ns : 0.0;
    uint64_t held;
    int best = most_of(g->held, OPSCOPE_MAX_THREADS, &held);
    g->slowest_thread = best;
    g->held_share = held ? (double)g->held[best] / (double)held : 0.0;
    g->slowest_share = g->n ? (double)g->slowest[best] / (double)g->n : 0.0;
}

const opscope_thread_group *opscope_threads_group(opscope_threads_t *t, size_t i) {
    group_derive(&t->groups.v[i]);
    return &t->groups.v[i];
}

const opscope_thread_group *opscope_threads_find(opscope_threads_t *t, const char *display, int32_t backend_id) {
    if (!t || !display) return NULL;
    for (size_t i = 0; i < t->groups.n; i++) {
        if (t->groups.v[i].backend_id == backend_id && strcmp(t->groups.v[i].display, display) == 0)
            return opscope_threads_group(t, i);
    }
    return NULL;
}

void opscope_threads_totals(const opscope_threads_t *t, uint64_t *work_ns, uint64_t *wait_ns) {
    *work_ns = *wait_ns = 0;
    for (int i = 0; t && i < t->n_th; i++) {
        *work_ns += t->th[i].work_ns;
        *wait_ns += t->th[i].wait_ns;
    }
}

size_t opscope_threads_phase_sum(const opscope_threads_t *t, opscope_threads_phase_fn phase_of, void *ud, int phase,
                                 opscope_threads_phase *out) {
    memset(out, 0, sizeof *out);
    size_t n = 0;
    for (size_t i = 0; t && i < t->graphs.n; i++) {
        const thr_graph *g = &t->graphs.v[i];
        if (phase_of && phase_of(ud, g->id) != phase) continue;
        n++;
        out->work_ns += g->work;
        out->wait_ns += g->wait;
        out->mm_n += g->mm_n;
        for (int k = 0; k < g->nt; k++) {
            out->held[k] += t->pool.v[g->off + (size_t)k].held;
            out->mm_slowest[k] += t->pool.v[g->off + (size_t)k].mm_slowest;
        }
        if (g->nt > out->nt) out->nt = g->nt;
    }
    return n;
}

bool opscope_threads_phase_line(const opscope_threads_phase *p, const char *name, char *buf, size_t size) {
    uint64_t all = p->work_ns + p->wait_ns;
    if (p->nt < 2 || all == 0 || p->wait_ns * 10 < all) return false;
    int n = name ? snprintf(buf, size, "%s loses %.0f%% of its CPU time waiting at barriers", name,
                            100.0 * (double)p->wait_ns / (double)all)
                 : snprintf(buf, size, "CPU threads lose %.0f%% of their time waiting at barriers",
                            100.0 * (double)p->wait_ns / (double)all);
    uint64_t held;
    int slow = most_of(p->held, p->nt, &held);
    if (n < 0 || (size_t)n >= size || held == 0) return true;
    int m = snprintf(buf + n, size - (size_t)n, "; thread %d causes %.0f%% of that wait", slow,
                     100.0 * (double)p->held[slow] / (double)held);
    if (m < 0 || (size_t)(n + m) >= size || p->mm_n == 0) return true;
    snprintf(buf + n + m, size - (size_t)(n + m), " and is the slowest in %.0f%% of %s nodes",
             100.0 * (double)p->mm_slowest[slow] / (double)p->mm_n, opscope_ggml_op_name(OPSCOPE_GGML_OP_MUL_MAT));
    return true;
}
