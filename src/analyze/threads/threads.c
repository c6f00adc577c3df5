/* threads.c - per-thread work and wait over a profile (see threads.h). */
#include "analyze/threads/threads.h"

#include "util/vec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct opscope_threads {
    opscope_thread_sum th[OPSCOPE_MAX_THREADS];
    int n_th;
    OPSCOPE_VEC(opscope_thread_group) groups;
    size_t last; /* the group found last: records of one op come in runs */
};

opscope_threads_t *opscope_threads_new(void) {
    opscope_threads_t *t = calloc(1, sizeof *t);
    if (!t) return NULL;
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

int opscope_threads_add(opscope_threads_t *t, const opscope_record *r, const opscope_derived *dv) {
    if (!(r->has & OPSCOPE_HAS_THREADS) || !r->threads || r->n_threads <= 0) return 0;
    int nt = r->n_threads > OPSCOPE_MAX_THREADS ? OPSCOPE_MAX_THREADS : r->n_threads;
    const char *display = dv && dv->display ? dv->display : r->name;
    opscope_thread_group *g = group_of(t, display ? display : "", r->backend_id);
    if (!g) return -1;
    uint64_t lo = UINT64_MAX, hi = 0, sum = 0, wait = 0;
    int slow = 0;
    for (int i = 0; i < nt; i++) {
        uint64_t w = r->threads[2 * i], x = r->threads[2 * i + 1];
        t->th[i].work_ns += w;
        t->th[i].wait_ns += x;
        t->th[i].nodes++;
        int32_t cpu = r->thread_cpus ? r->thread_cpus[i] : -1;
        if (cpu >= 0 && !t->th[i].moved) {
            if (t->th[i].cpu < 0) {
                t->th[i].cpu = cpu;
            } else if (t->th[i].cpu != cpu) {
                t->th[i].cpu = -1;
                t->th[i].moved = true;
            }
        }
        if (w < lo) lo = w;
        if (w > hi) {
            hi = w;
            slow = i;
        }
        sum += w;
        wait += x;
    }
    t->th[slow].slowest_nodes++;
    if (nt > t->n_th) t->n_th = nt;
    g->n++;
    g->work_min_ns += lo;
    g->work_max_ns += hi;
    g->work_mean_ns += sum / (uint64_t)nt;
    g->wait_ns += wait;
    g->slowest[slow]++;
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

static void group_derive(opscope_thread_group *g) {
    g->imbalance = g->work_mean_ns ? (double)g->work_max_ns / (double)g->work_mean_ns : 0.0;
    int best = 0;
    for (int i = 1; i < OPSCOPE_MAX_THREADS; i++) {
        if (g->slowest[i] > g->slowest[best]) best = i;
    }
    g->slowest_thread = best;
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

const opscope_thread_group *opscope_threads_heaviest(opscope_threads_t *t) {
    size_t best = SIZE_MAX;
    for (size_t i = 0; t && i < t->groups.n; i++) {
        if (best == SIZE_MAX || t->groups.v[i].work_max_ns > t->groups.v[best].work_max_ns) best = i;
    }
    return best == SIZE_MAX ? NULL : opscope_threads_group(t, best);
}

bool opscope_threads_finding(opscope_threads_t *t, char *buf, size_t size) {
    uint64_t work, wait;
    opscope_threads_totals(t, &work, &wait);
    if (work + wait == 0 || wait * 10 < work + wait) return false;
    double share = 100.0 * (double)wait / (double)(work + wait);
    const opscope_thread_group *g = opscope_threads_heaviest(t);
    if (g && g->n) {
        snprintf(buf, size, "CPU threads wait at barriers for %.0f%% of their time; thread %d is the "
                 "slowest in %.0f%% of %s nodes (imbalance %.2f)", share, g->slowest_thread,
                 100.0 * g->slowest_share, g->display, g->imbalance);
    } else {
        snprintf(buf, size, "CPU threads wait at barriers for %.0f%% of their time", share);
    }
    return true;
}
