/* cap_replay.c - gather, sort and convert the captured records (see cap_replay.h). */
#include "capture/store/cap_replay.h"
#include "capture/store/cap_meta.h"

#include "capture/store/cap_buf.h"
#include "capture/store/cap_clock.h"
#include "capture/store/cap_convert.h"
#include "capture/store/cap_counters.h"
#include "capture/store/cap_drops.h"
#include "capture/store/cap_tables.h"
#include "capture/store/cap_window.h"
#include "util/sort.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static bool gather_push(opscope_cap_gather *g, uint64_t t0, uint64_t t1, const opscope_cap_rec *r, int32_t step) {
    if (g->n == g->cap) {
        size_t nc = g->cap ? g->cap * 2 : 4096;
        opscope_cap_gather_ent *nv = realloc(g->v, nc * sizeof *nv);
        if (!nv) {
            g->oom = true;
            return false;
        }
        g->v = nv;
        g->cap = nc;
    }
    g->v[g->n].t0 = t0;
    g->v[g->n].t1 = t1;
    g->v[g->n].r = r;
    g->v[g->n].step = step;
    g->n++;
    return true;
}

static bool sched_wanted(const opscope_cap_gather *g, int sched, uint64_t t0) {
    if (g->sched >= 0 && sched != g->sched) {
        return false;
    }
    return !(sched >= 0 && sched < OPSCOPE_CAP_MAX_SCHEDS && t0 < opscope_cap_sched_reset_tick(sched));
}

int opscope_cap_gather_one(void *ud, const opscope_cap_rec *r) {
    opscope_cap_gather *g = ud;
    int sched;
    uint64_t t0, t1;
    if (r->kind == OPSCOPE_CAP_KIND_CALL) {
        const opscope_cap_call *c = (const opscope_cap_call *)r;
        for (int32_t k = 0; k < c->n; k++) {
            if (sched_wanted(g, c->sched, c->t[2 * k]) &&
                !gather_push(g, c->t[2 * k], c->t[2 * k + 1], r, k)) {
                return 1;
            }
        }
        return 0;
    }
    if (r->kind == OPSCOPE_CAP_KIND_EVENT) {
        const opscope_cap_event *e = (const opscope_cap_event *)r;
        sched = e->sched;
        t0 = e->t0;
        t1 = e->t1;
    } else if (r->kind == OPSCOPE_CAP_KIND_GPU) {
        const opscope_cap_gpu *e = (const opscope_cap_gpu *)r;
        sched = e->sched;
        t0 = e->tick0;
        t1 = e->tick1;
    } else if (r->kind == OPSCOPE_CAP_KIND_OP || r->kind == OPSCOPE_CAP_KIND_COPY) {
        sched = r->sched;
        t0 = r->t0;
        t1 = r->t1;
    } else {
        return 0; /* graph, description and plan records are not records of the profile */
    }
    if (!sched_wanted(g, sched, t0)) {
        return 0;
    }
    return gather_push(g, t0, t1, r, 0) ? 0 : 1;
}

static int by_start(const void *a, const void *b) {
    const opscope_cap_gather_ent *x = a, *y = b;
    if (x->t0 != y->t0) {
        return x->t0 < y->t0 ? -1 : 1;
    }
    return x->t1 < y->t1 ? -1 : x->t1 > y->t1;
}

void opscope_cap_gather_sort(opscope_cap_gather *g) {
    if (g->n > 1) {
        opscope_sort(g->v, g->n, sizeof *g->v, by_start);
    }
}

static bool ent_after(const opscope_cap_gather_ent *x, const opscope_cap_gather_ent *y) {
    return x->t0 != y->t0 ? x->t0 > y->t0 : x->t1 > y->t1;
}

void opscope_cap_gather_sort_with(opscope_cap_gather *g, opscope_cap_gather_ent *tmp) {
    opscope_cap_gather_ent *a = g->v, *b = tmp;
    size_t n = g->n;
    for (size_t w = 1; w < n; w *= 2) { /* bottom-up: runs of W merged into runs of 2W */
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) {
                b[k++] = ent_after(&a[i], &a[j]) ? a[j++] : a[i++]; /* ties: the left run first */
            }
            while (i < mid) b[k++] = a[i++];
            while (j < hi) b[k++] = a[j++];
        }
        opscope_cap_gather_ent *t = a;
        a = b;
        b = t;
    }
    if (a != g->v) {
        memcpy(g->v, a, n * sizeof *a);
    }
}

int opscope_cap_replay(int sched, const opscope_sink *sink) {
    opscope_cap_gather g = {0};
    g.sched = sched;
    opscope_cap_buf_foreach(opscope_cap_gather_one, &g);
    if (g.oom) {
        free(g.v);
        return -1;
    }
    opscope_cap_gather_sort(&g);
    opscope_cap_clock_calibrate();

    int rc = 0;
    uint64_t total = 0;
    opscope_cap_strbuf buf;
    opscope_record rec;
    for (size_t i = 0; i < g.n; i++) {
        uint64_t a = opscope_cap_ticks_to_ns(g.v[i].t0), b = opscope_cap_ticks_to_ns(g.v[i].t1);
        total += b > a ? b - a : 0;
    }
    opscope_meta meta = {0};
    meta.profiler = "opscope";
    meta.version = 3;
    meta.total_records = g.n;
    meta.total_ns = total;
    /* device work a GPU source could not time is missing from the profile too */
    opscope_cap_drops_meta(&meta);
    opscope_capture_info cap = *opscope_cap_meta_get();
    opscope_cap_window_fill(&cap); /* the windows and marks so far */
    meta.capture = &cap;
    if (sink->on_meta && sink->on_meta(sink->ud, &meta)) {
        rc = -1;
    }
    int nb = opscope_cap_backend_count();
    for (int i = 0; i < nb && rc == 0; i++) {
        const opscope_cap_backend *cb = opscope_cap_backend_at(i);
        opscope_backend b = {i, cb->name, cb->device, cb->device_type, NULL};
        if (sink->on_backend && sink->on_backend(sink->ud, &b)) {
            rc = -1;
        }
    }
    for (size_t i = 0; i < g.n && rc == 0; i++) {
        opscope_cap_convert_any(g.v[i].r, g.v[i].step, &rec, &buf);
        if (sink->on_record && sink->on_record(sink->ud, &rec)) {
            rc = -1;
        }
    }
    if (rc == 0 && sink->on_end && sink->on_end(sink->ud)) {
        rc = -1;
    }
    free(g.v);
    return rc;
}
