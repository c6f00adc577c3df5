/* warm_defer.c - warm-up apart decided in the one read of an input (warm_defer.h). */
#include "analyze/ggml/warm_defer.h"
#include "analyze/ggml/rec_fifo.h"

#include "util/hash.h"
#include "util/hindex.h"
#include "util/sort.h"
#include "util/vec.h"

#include <stdlib.h>
#include <string.h>

/* Graphs open at once: records of a graph may come after a few others' (a pipelined compute
 * or a device-timed one beside the host's next), each open one's records are held. */
#define RING 4

typedef struct open_graph {
    int64_t id;
    bool used;
} open_graph;

typedef struct decided {
    int64_t id;
    uint8_t warm;
} decided;

typedef struct topo_first {
    uint64_t topo;
    int64_t id; /* the lowest id decided with it */
} topo_first;

struct opscope_warm_defer {
    opscope_sink steady, plain;
    size_t max_bytes;
    opscope_rec_fifo fifo;
    opscope_graphs_t *graphs; /* the exact ones, for the check, and the rule's inputs */
    bool own_graphs;          /* fed here (else by the caller, before each record comes) */
    open_graph ring[RING];
    size_t ring_pos;
    OPSCOPE_VEC(decided) dec;
    opscope_hindex dec_ix;
    OPSCOPE_VEC(topo_first) topos;
    opscope_hindex topo_ix;
    bool seen_graph, plain_mode, trace, failed;
    /* the graph of the last record in and of the last one out, looked up once per run */
    bool have_in, have_out, out_decided;
    int64_t in_id, out_id;
    open_graph *in_open; /* NULL: decided */
};

static bool dec_eq(const void *ctx, uint32_t i, const void *key) {
    return ((const opscope_warm_defer_t *)ctx)->dec.v[i].id == *(const int64_t *)key;
}

static bool topo_eq(const void *ctx, uint32_t i, const void *key) {
    return ((const opscope_warm_defer_t *)ctx)->topos.v[i].topo == *(const uint64_t *)key;
}

static const decided *dec_find(const opscope_warm_defer_t *w, int64_t id) {
    uint32_t i = opscope_hindex_find(&w->dec_ix, opscope_mix64((uint64_t)id), &id, dec_eq, w);
    return i == OPSCOPE_HINDEX_NONE ? NULL : &w->dec.v[i];
}

opscope_warm_defer_t *opscope_warm_defer_new(opscope_sink steady, opscope_sink plain, size_t max_bytes,
                                             opscope_graphs_t *graphs) {
    opscope_warm_defer_t *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    w->steady = steady;
    w->plain = plain;
    w->max_bytes = max_bytes;
    w->graphs = graphs;
    w->own_graphs = !graphs;
    if (opscope_hindex_init(&w->dec_ix, 1024) || opscope_hindex_init(&w->topo_ix, 16) ||
        (!w->graphs && !(w->graphs = opscope_graphs_new()))) {
        opscope_warm_defer_free(w);
        return NULL;
    }
    return w;
}

void opscope_warm_defer_free(opscope_warm_defer_t *w) {
    if (!w) return;
    opscope_rec_fifo_free(&w->fifo);
    if (w->own_graphs) opscope_graphs_free(w->graphs);
    free(w->dec.v);
    opscope_hindex_free(&w->dec_ix);
    free(w->topos.v);
    opscope_hindex_free(&w->topo_ix);
    free(w);
}

/* Graph E's verdict, by graphs.c's rule over the graphs decided so far. 0, or -1 (memory). */
static int decide(opscope_warm_defer_t *w, open_graph *e) {
    opscope_graph_warm v = OPSCOPE_GRAPH_STEADY;
    uint64_t topo = 0;
    bool split_only = false, weighted = false;
    opscope_graphs_peek(w->graphs, e->id, &topo, &split_only, &weighted); /* its records so far */
    if (!(weighted && split_only)) {
        uint64_t h = opscope_mix64(topo);
        uint32_t i = opscope_hindex_find(&w->topo_ix, h, &topo, topo_eq, w);
        if (i == OPSCOPE_HINDEX_NONE) {
            topo_first t = {topo, e->id};
            if (OPSCOPE_VEC_PUSH(w->topos, t) || opscope_hindex_add(&w->topo_ix, h, (uint32_t)(w->topos.n - 1)))
                return -1;
            v = OPSCOPE_GRAPH_WARMUP;
        } else if (w->topos.v[i].id > e->id) { /* a later id decided first: the check will say */
            w->topos.v[i].id = e->id;
            v = OPSCOPE_GRAPH_WARMUP;
        }
    }
    decided d = {e->id, (uint8_t)v};
    if (OPSCOPE_VEC_PUSH(w->dec, d) ||
        opscope_hindex_add(&w->dec_ix, opscope_mix64((uint64_t)e->id), (uint32_t)(w->dec.n - 1)))
        return -1;
    e->used = false;
    if (w->have_in && w->in_open == e) w->in_open = NULL;
    w->have_out = false; /* the cached "not decided" may be this one */
    return 0;
}

/* Everything held goes to PLAIN, and so does what comes next (no graph computes). */
static int go_plain(opscope_warm_defer_t *w) {
    w->plain_mode = true;
    for (const opscope_record *r; (r = opscope_rec_fifo_head(&w->fifo)); opscope_rec_fifo_pop(&w->fifo))
        if (w->plain.on_record && w->plain.on_record(w->plain.ud, r)) return -1;
    return 0;
}

/* Lets the held records whose graph is decided go, in order, up to the first that is not. */
static int release(opscope_warm_defer_t *w) {
    bool has;
    int64_t id;
    for (; opscope_rec_fifo_head_graph(&w->fifo, &has, &id); opscope_rec_fifo_pop(&w->fifo)) {
        if (has) {
            if (!w->have_out || w->out_id != id) {
                w->have_out = true;
                w->out_id = id;
                w->out_decided = dec_find(w, id) != NULL;
            }
            if (!w->out_decided) break;
        } else if (!w->seen_graph) {
            break; /* the load, or a profile without graph ids: not known yet */
        }
        const opscope_record *r = opscope_rec_fifo_head(&w->fifo);
        if (w->steady.on_record && w->steady.on_record(w->steady.ud, r)) return -1;
    }
    return 0;
}

/* Over the bound: the oldest held record's graph is decided now (or, before any graph, the
 * input is taken to have none). */
static int bound(opscope_warm_defer_t *w) {
    bool has;
    int64_t id;
    while (opscope_rec_fifo_bytes(&w->fifo) > w->max_bytes) {
        if (!w->seen_graph) return go_plain(w);
        opscope_rec_fifo_head_graph(&w->fifo, &has, &id);
        open_graph *e = NULL;
        for (size_t i = 0; i < RING && !e; i++)
            if (w->ring[i].used && w->ring[i].id == id) e = &w->ring[i];
        if (!e || decide(w, e)) return -1; /* a held graph record's graph is open */
        if (release(w)) return -1;
    }
    return 0;
}

/* The open graph of ID, opened now when it is neither open nor decided; NULL: decided. */
static int graph_in(opscope_warm_defer_t *w, int64_t id) {
    w->have_in = true;
    w->in_id = id;
    w->in_open = NULL;
    for (size_t i = 0; i < RING; i++)
        if (w->ring[i].used && w->ring[i].id == id) {
            w->in_open = &w->ring[i];
            return 0;
        }
    if (dec_find(w, id)) return 0;
    open_graph *e = &w->ring[w->ring_pos];
    w->ring_pos = (w->ring_pos + 1) % RING;
    if (e->used && decide(w, e)) return -1;
    *e = (open_graph){.id = id, .used = true};
    w->in_open = e;
    return 0;
}

static int on_record(void *ud, const opscope_record *r) {
    opscope_warm_defer_t *w = ud;
    if (w->trace) return w->failed || !w->plain.on_record ? 0 : w->plain.on_record(w->plain.ud, r);
    if (r->category) { /* a trace: no warm-up to find (the exact list is empty) */
        w->trace = true;
        if (w->failed) return 0;
        if (w->seen_graph) {
            w->failed = true; /* graph records went to the filter already */
            return 0;
        }
        if (go_plain(w)) return -1;
        return w->plain.on_record ? w->plain.on_record(w->plain.ud, r) : 0;
    }
    if (w->own_graphs && opscope_graphs_add(w->graphs, r, 0)) return -1;
    if (w->failed) return 0;
    bool graph = r->has & OPSCOPE_HAS_GRAPH;
    if (w->plain_mode) {
        if (graph) {
            w->failed = true; /* taken for an input without graph computes */
            return 0;
        }
        return w->plain.on_record ? w->plain.on_record(w->plain.ud, r) : 0;
    }
    bool ready = w->seen_graph; /* a record without a graph after the first graph's: passes */
    if (graph) {
        w->seen_graph = true;
        if ((!w->have_in || w->in_id != r->graph_id) && graph_in(w, r->graph_id)) return -1;
        ready = !w->in_open;
    }
    if (ready && !w->fifo.n) return w->steady.on_record ? w->steady.on_record(w->steady.ud, r) : 0;
    if (opscope_rec_fifo_push(&w->fifo, r) || release(w)) return -1;
    return bound(w);
}

static opscope_sink *current(opscope_warm_defer_t *w) {
    return w->plain_mode || w->trace ? &w->plain : &w->steady;
}

static int on_meta(void *ud, const opscope_meta *m) {
    opscope_warm_defer_t *w = ud;
    if (m->profiler && (!strcmp(m->profiler, "kineto") || !strcmp(m->profiler, "chrome")) && !w->trace) {
        w->trace = true; /* the trace readers say what they read first */
        if (w->seen_graph) w->failed = true;
        else if (go_plain(w)) return -1;
    }
    opscope_sink *s = current(w);
    return w->failed || !s->on_meta ? 0 : s->on_meta(s->ud, m);
}

static int on_backend(void *ud, const opscope_backend *b) {
    opscope_warm_defer_t *w = ud;
    opscope_sink *s = current(w);
    return w->failed || !s->on_backend ? 0 : s->on_backend(s->ud, b);
}

static int by_id(const void *a, const void *b) {
    const open_graph *x = *(const open_graph *const *)a, *y = *(const open_graph *const *)b;
    return (x->id > y->id) - (x->id < y->id);
}

static int on_end(void *ud) {
    opscope_warm_defer_t *w = ud;
    if (w->failed) return 0;
    if (!w->trace && !w->plain_mode) {
        open_graph *open[RING];
        size_t n = 0;
        for (size_t i = 0; i < RING; i++)
            if (w->ring[i].used) open[n++] = &w->ring[i];
        opscope_sort(open, n, sizeof *open, by_id); /* the lower id first, as the rule's */
        for (size_t i = 0; i < n; i++)
            if (decide(w, open[i])) return -1;
        if (release(w)) return -1;
        if (!w->seen_graph && go_plain(w)) return -1; /* no graph computes at all */
    }
    opscope_sink *s = current(w);
    return s->on_end ? s->on_end(s->ud) : 0;
}

opscope_sink opscope_warm_defer_sink(opscope_warm_defer_t *w) {
    opscope_sink s = {w, on_meta, on_backend, on_record, on_end};
    return s;
}

opscope_graph_warm opscope_warm_defer_verdict(const void *ctx, int64_t id) {
    const decided *d = dec_find(ctx, id);
    return d ? (opscope_graph_warm)d->warm : OPSCOPE_GRAPH_STEADY;
}

int opscope_warm_defer_check(opscope_warm_defer_t *w, opscope_warm_apart *apart, bool *held) {
    memset(apart, 0, sizeof *apart);
    *held = !w->failed;
    if (w->trace) return 0; /* no warm-up to find: all steady */
    if (opscope_graphs_finish(w->graphs) || opscope_warm_apart_from(apart, w->graphs, NULL, NULL)) return -1;
    size_t n = opscope_graphs_n(w->graphs);
    if (w->plain_mode) {
        *held &= n == 0;
        return 0;
    }
    for (size_t i = 0; i < n && *held; i++) {
        const opscope_graph_stats *s = opscope_graphs_at(w->graphs, i);
        const decided *d = dec_find(w, s->id);
        *held = d && d->warm == (uint8_t)s->warm;
    }
    return 0;
}
