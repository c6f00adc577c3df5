/*
 * cap_walk.c - the per-thread scratch of the CPU and BLAS walks (opscope_cap_walk): its
 * per-node arrays and their release, used by the hooks both libraries share (cap_hooks.c),
 * so a field added to the walk is allocated in one place.
 */
#include "capture/timing/cap_walk.h"

#include <stdlib.h>

bool opscope_cap_walk_grow(opscope_cap_walk *w, int n) {
    if (n <= w->nodes_cap) {
        return true;
    }
    int cap = n < 1024 ? 1024 : n * 2;
    opscope_cap_node *nd = realloc(w->nodes, (size_t)cap * sizeof *nd);
    if (nd) w->nodes = nd;
    opscope_cap_step *st = realloc(w->steps, (size_t)cap * sizeof *st);
    if (st) w->steps = st;
    struct ggml_tensor **pt = realloc(w->ptrs, (size_t)cap * sizeof *pt);
    if (pt) w->ptrs = pt;
    int32_t *cd = realloc(w->cand, (size_t)cap * sizeof *cd);
    if (cd) w->cand = cd;
    opscope_cap_event *ev = realloc(w->ev, (size_t)cap * sizeof *ev);
    if (ev) w->ev = ev;
    if (!nd || !st || !pt || !cd || !ev) {
        return false;
    }
    w->nodes_cap = cap;
    return true;
}

void opscope_cap_walk_free(opscope_cap_walk *w) {
    free(w->pool);
    free(w->bar_pool);
    free(w->pend);
    free(w->nodes);
    free(w->steps);
    free(w->ptrs);
    free(w->cand);
    free(w->ev);
    free(w->uk);
    free(w->uv);
    free(w->thr_pool);
    opscope_cap_thr_free(&w->thr);
}
