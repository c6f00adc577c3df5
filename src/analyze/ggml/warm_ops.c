/* warm_ops.c - the op groups' warm-up and load time, streamed (warm_ops.h). */
#include "analyze/ggml/warm_ops.h"

#include "util/hash.h"
#include "util/hindex.h"
#include "util/vec.h"

#include <stdlib.h>
#include <string.h>

#define RING 64

typedef struct key {
    const char *display;
    int32_t backend;
    opscope_record_type type;
    uint64_t count, ns; /* in warm-ups and the load */
} key;

typedef struct part { /* a record of an open graph */
    const char *display;
    int32_t backend;
    opscope_record_type type;
    uint64_t ns;
} part;

typedef struct open_graph {
    bool used, split;
    int64_t id;
    uint64_t topo;
    OPSCOPE_VEC(part) parts;
} open_graph;

struct opscope_warm_ops {
    OPSCOPE_VEC(key) keys;
    opscope_hindex ix;          /* key hash -> keys */
    OPSCOPE_VEC(uint64_t) seen; /* topologies of closed graphs (few: one per topology) */
    open_graph ring[RING];
    size_t pos, last;
    bool any_graph, weighted;
};

opscope_warm_ops_t *opscope_warm_ops_new(void) {
    opscope_warm_ops_t *w = calloc(1, sizeof *w);
    if (w && opscope_hindex_init(&w->ix, 64)) {
        free(w);
        return NULL;
    }
    return w;
}

void opscope_warm_ops_free(opscope_warm_ops_t *w) {
    if (!w) return;
    free(w->keys.v);
    opscope_hindex_free(&w->ix);
    free(w->seen.v);
    for (size_t i = 0; i < RING; i++) free(w->ring[i].parts.v);
    free(w);
}

static uint64_t key_hash(const char *display, int32_t backend, opscope_record_type type) {
    return opscope_mix64((uint64_t)(uintptr_t)display ^ (uint64_t)(uint32_t)backend << 3 ^ (uint64_t)type << 62);
}

typedef struct probe {
    const char *display;
    int32_t backend;
    opscope_record_type type;
} probe;

static bool key_eq(const void *ctx, uint32_t i, const void *p) {
    const key *k = &((const opscope_warm_ops_t *)ctx)->keys.v[i];
    const probe *q = p;
    return k->display == q->display && k->backend == q->backend && k->type == q->type;
}

/* The key's index, added when new; -1 when out of memory. */
static long key_find(opscope_warm_ops_t *w, const char *display, int32_t backend, opscope_record_type type) {
    probe q = {display, backend, type};
    uint64_t h = key_hash(display, backend, type);
    uint32_t i = opscope_hindex_find(&w->ix, h, &q, key_eq, w);
    if (i != OPSCOPE_HINDEX_NONE) return (long)i;
    key k = {display, backend, type, 0, 0};
    if (w->keys.n >= OPSCOPE_HINDEX_NONE || OPSCOPE_VEC_PUSH(w->keys, k)) return -1;
    if (opscope_hindex_add(&w->ix, h, (uint32_t)(w->keys.n - 1))) {
        w->keys.n--;
        return -1;
    }
    return (long)(w->keys.n - 1);
}

/* A closed graph: a warm-up when its topology is new (an untimed compute of a sampled run
 * never is); its records go to their groups then. */
static int close_graph(opscope_warm_ops_t *w, open_graph *g) {
    if (!g->used) return 0;
    g->used = false;
    if (w->weighted && g->split) return 0;
    for (size_t i = 0; i < w->seen.n; i++)
        if (w->seen.v[i] == g->topo) return 0;
    if (OPSCOPE_VEC_PUSH(w->seen, g->topo)) return -1;
    for (size_t i = 0; i < g->parts.n; i++) {
        const part *p = &g->parts.v[i];
        long k = key_find(w, p->display, p->backend, p->type);
        if (k < 0) return -1;
        w->keys.v[k].count++;
        w->keys.v[k].ns += p->ns;
    }
    return 0;
}

/* The open graph ID, opened (the oldest closed to make room) when new; NULL: no memory. */
static open_graph *graph_of(opscope_warm_ops_t *w, int64_t id) {
    if (w->ring[w->last].used && w->ring[w->last].id == id) return &w->ring[w->last];
    for (size_t i = 0; i < RING; i++)
        if (w->ring[i].used && w->ring[i].id == id) return &w->ring[w->last = i];
    open_graph *g = &w->ring[w->pos];
    if (close_graph(w, g)) return NULL;
    w->last = w->pos;
    w->pos = (w->pos + 1) % RING;
    g->used = true;
    g->split = false;
    g->id = id;
    g->topo = 0;
    g->parts.n = 0;
    return g;
}

int opscope_warm_ops_add(opscope_warm_ops_t *w, const opscope_record *rec, const opscope_derived *d,
                         uint64_t topo) {
    if (rec->has & OPSCOPE_HAS_WEIGHT) w->weighted = true;
    if (!d->display) return 0;
    bool graph = (rec->has & OPSCOPE_HAS_GRAPH) != 0;
    if (!graph && w->any_graph) return 0; /* between computes: neither warm-up nor load */
    if (!graph) { /* the load */
        long k = key_find(w, d->display, rec->backend_id, rec->type);
        if (k < 0) return -1;
        w->keys.v[k].count++;
        w->keys.v[k].ns += rec->duration_ns;
        return 0;
    }
    w->any_graph = true;
    open_graph *g = graph_of(w, rec->graph_id);
    if (!g) return -1;
    if (rec->type == OPSCOPE_RECORD_OP) {
        g->topo += topo;
        if (rec->name && rec->name[0] == 'G' && !strcmp(rec->name, "GRAPH_SPLIT")) g->split = true;
    }
    part p = {d->display, rec->backend_id, rec->type, rec->duration_ns};
    return OPSCOPE_VEC_PUSH(g->parts, p) ? -1 : 0;
}

void opscope_warm_ops_finish(opscope_warm_ops_t *w) {
    /* oldest first: the ring's order from the next slot on */
    for (size_t i = 0; i < RING; i++) (void)close_graph(w, &w->ring[(w->pos + i) % RING]);
}

bool opscope_warm_ops_get(const opscope_warm_ops_t *w, const char *display, int32_t backend,
                          opscope_record_type type, uint64_t *count, uint64_t *ns) {
    *count = *ns = 0;
    if (!w) return false;
    probe q = {display, backend, type};
    uint32_t i = opscope_hindex_find(&w->ix, key_hash(display, backend, type), &q, key_eq, w);
    if (i == OPSCOPE_HINDEX_NONE) return false;
    *count = w->keys.v[i].count;
    *ns = w->keys.v[i].ns;
    return *count > 0;
}
