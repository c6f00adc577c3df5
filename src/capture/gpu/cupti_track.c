/*
 * cupti_track.c - launches to scopes and places (see cupti_track.h).
 */
#include "capture/gpu/cupti_track.h"

#include "capture/gpu/cupti_abi.h"
#include "util/hash.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define N_CORR (1u << 16)  /* launches in flight (direct-mapped by correlation id) */
#define N_SCOPE 1024u      /* open scopes (direct-mapped by scope id, which count up) */
#define N_NODES (1u << 16) /* graph node ids (open addressing, cleared when half full) */
#define N_PTR 1024u        /* graphs and execs (direct-mapped by address) */

typedef struct corr_ent {
    uint64_t scope;
    uint32_t corr, base, n, got;
    bool used, graph;
} corr_ent;

typedef struct scope_ent {
    uint64_t scope; /* 0: free */
    uint32_t next;
    bool unknown;
} scope_ent;

/* Fixed-size and lossy (emptied when half full), filled under the lock on CUPTI's callback
 * threads: no allocation there, so not util/hindex.h, which grows. */
typedef struct node_map {
    struct {
        uint64_t id; /* 0: free */
        uint32_t ord;
    } e[N_NODES];
    uint32_t n;
} node_map;

typedef struct ptr_ent {
    const void *key;
    uint32_t count;
} ptr_ent;

struct opscope_cupti_track {
    pthread_mutex_t mu;
    corr_ent corr[N_CORR];
    scope_ent scope[N_SCOPE];
    node_map created, cloned;
    ptr_ent graph[N_PTR], clones[N_PTR], exec[N_PTR];
};

opscope_cupti_track_t *opscope_cupti_track_new(void) {
    opscope_cupti_track_t *t = calloc(1, sizeof *t);
    if (t) {
        pthread_mutex_init(&t->mu, NULL);
    }
    return t;
}

void opscope_cupti_track_free(opscope_cupti_track_t *t) {
    if (t) {
        pthread_mutex_destroy(&t->mu);
        free(t);
    }
}

static ptr_ent *ptr_slot(ptr_ent *tab, const void *key) {
    return &tab[opscope_mix64((uint64_t)(uintptr_t)key) & (N_PTR - 1)];
}

static bool node_get(const node_map *m, uint64_t id, uint32_t *ord) {
    for (uint32_t i = (uint32_t)opscope_mix64(id) & (N_NODES - 1), k = 0; k < N_NODES; i = (i + 1) & (N_NODES - 1), k++) {
        if (m->e[i].id == 0) {
            return false;
        }
        if (m->e[i].id == id) {
            *ord = m->e[i].ord;
            return true;
        }
    }
    return false;
}

static void node_put(node_map *m, uint64_t id, uint32_t ord) {
    if (id == 0) {
        return;
    }
    if (m->n >= N_NODES / 2) {
        memset(m->e, 0, sizeof m->e); /* bounded: the oldest ids are the ones no longer needed */
        m->n = 0;
    }
    uint32_t i = (uint32_t)opscope_mix64(id) & (N_NODES - 1);
    while (m->e[i].id != 0 && m->e[i].id != id) {
        i = (i + 1) & (N_NODES - 1);
    }
    if (m->e[i].id == 0) {
        m->n++;
    }
    m->e[i].id = id;
    m->e[i].ord = ord;
}

static scope_ent *scope_get(opscope_cupti_track_t *t, uint64_t scope, bool add) {
    scope_ent *s = &t->scope[scope & (N_SCOPE - 1)];
    if (s->scope == scope) {
        return s;
    }
    if (!add) {
        return NULL;
    }
    /* a scope 1024 ids older still open: it was abandoned */
    memset(s, 0, sizeof *s);
    s->scope = scope;
    return s;
}

bool opscope_cupti_track_launch(opscope_cupti_track_t *t, uint64_t scope, uint32_t corr, opscope_cupti_role role,
                                const void *exec) {
    if (scope == 0 || role == OPSCOPE_CUPTI_ROLE_NONE) {
        return true;
    }
    pthread_mutex_lock(&t->mu);
    if (scope == OPSCOPE_CUPTI_SCOPE_UNTIMED) {
        /* no places, no count: its records only need to be known, to be dropped */
        const ptr_ent *e = role == OPSCOPE_CUPTI_ROLE_GRAPH ? ptr_slot(t->exec, exec) : NULL;
        uint32_t n = !e ? 1 : e->key == exec && e->count ? e->count : UINT32_MAX;
        t->corr[corr & (N_CORR - 1)] = (corr_ent){.scope = scope, .corr = corr, .n = n, .used = true,
                                                  .graph = role == OPSCOPE_CUPTI_ROLE_GRAPH};
        pthread_mutex_unlock(&t->mu);
        return true;
    }
    scope_ent *s = scope_get(t, scope, true);
    uint32_t n = 1;
    if (role == OPSCOPE_CUPTI_ROLE_GRAPH) {
        ptr_ent *e = ptr_slot(t->exec, exec);
        n = e->key == exec ? e->count : 0;
        if (n == 0) {
            s->unknown = true;
        }
    }
    corr_ent *c = &t->corr[corr & (N_CORR - 1)];
    *c = (corr_ent){.scope = scope, .corr = corr, .base = s->next, .n = n, .used = n > 0,
                    .graph = role == OPSCOPE_CUPTI_ROLE_GRAPH};
    s->next += n;
    bool ok = !s->unknown;
    pthread_mutex_unlock(&t->mu);
    return ok;
}

void opscope_cupti_track_alias(opscope_cupti_track_t *t, uint32_t corr, uint32_t corr2) {
    if (corr == corr2) {
        return;
    }
    pthread_mutex_lock(&t->mu);
    const corr_ent *c = &t->corr[corr & (N_CORR - 1)];
    if (c->used && c->corr == corr) {
        corr_ent copy = *c;
        copy.corr = corr2;
        t->corr[corr2 & (N_CORR - 1)] = copy;
    }
    pthread_mutex_unlock(&t->mu);
}

void opscope_cupti_track_unlaunch(opscope_cupti_track_t *t, uint32_t corr) {
    pthread_mutex_lock(&t->mu);
    corr_ent *c = &t->corr[corr & (N_CORR - 1)];
    if (c->used && c->corr == corr) {
        scope_ent *s = scope_get(t, c->scope, false);
        if (s && s->next == c->base + c->n) {
            s->next = c->base;
        }
        c->used = false;
    }
    pthread_mutex_unlock(&t->mu);
}

static bool device_node(uint32_t type) {
    /* events, host nodes, child graphs: no record of their own */
    return type == OPSCOPE_CU_GRAPH_NODE_TYPE_KERNEL || type == OPSCOPE_CU_GRAPH_NODE_TYPE_MEMCPY ||
           type == OPSCOPE_CU_GRAPH_NODE_TYPE_MEMSET;
}

/* GRAPH's counter in TAB, taken over (from 0) when its slot held another graph. */
static uint32_t *counter(ptr_ent *tab, const void *graph) {
    ptr_ent *g = ptr_slot(tab, graph);
    if (g->key != graph) {
        g->key = graph;
        g->count = 0;
    }
    return &g->count;
}

void opscope_cupti_track_node_created(opscope_cupti_track_t *t, const void *graph, uint64_t node, uint32_t type) {
    if (!device_node(type)) {
        return;
    }
    pthread_mutex_lock(&t->mu);
    uint32_t *n = counter(t->graph, graph);
    node_put(&t->created, node, (*n)++);
    pthread_mutex_unlock(&t->mu);
}

void opscope_cupti_track_node_cloned(opscope_cupti_track_t *t, const void *graph, uint64_t clone, uint64_t orig,
                                     uint32_t type) {
    if (!device_node(type)) {
        return;
    }
    pthread_mutex_lock(&t->mu);
    (*counter(t->clones, graph))++;
    uint32_t ord;
    if (node_get(&t->created, orig, &ord) || node_get(&t->cloned, orig, &ord)) {
        node_put(&t->cloned, clone, ord);
    }
    pthread_mutex_unlock(&t->mu);
}

void opscope_cupti_track_exec_created(opscope_cupti_track_t *t, const void *exec, const void *graph) {
    pthread_mutex_lock(&t->mu);
    const ptr_ent *g = ptr_slot(t->graph, graph), *c = ptr_slot(t->clones, graph);
    ptr_ent *e = ptr_slot(t->exec, exec);
    e->key = exec;
    e->count = g->key == graph && g->count ? g->count : c->key == graph ? c->count : 0;
    pthread_mutex_unlock(&t->mu);
}

uint64_t opscope_cupti_track_end_scope(opscope_cupti_track_t *t, uint64_t scope) {
    pthread_mutex_lock(&t->mu);
    scope_ent *s = scope_get(t, scope, false);
    uint64_t n = 0;
    if (s) {
        n = s->unknown ? 0 : s->next;
        s->scope = 0;
    }
    pthread_mutex_unlock(&t->mu);
    return n;
}

bool opscope_cupti_track_place(opscope_cupti_track_t *t, uint32_t corr, uint64_t graph_node, uint64_t *scope,
                               uint32_t *seq) {
    pthread_mutex_lock(&t->mu);
    corr_ent *c = &t->corr[corr & (N_CORR - 1)];
    bool ok = c->used && c->corr == corr;
    *scope = 0;
    *seq = 0;
    if (ok) {
        uint32_t ord = 0;
        if (c->graph) {
            /* a replayed node's place; in arrival order when its id was never seen */
            if (!(graph_node && node_get(&t->cloned, graph_node, &ord) && ord < c->n)) {
                ord = c->got < c->n ? c->got : c->n - 1;
            }
        }
        *scope = c->scope;
        *seq = c->scope == OPSCOPE_CUPTI_SCOPE_UNTIMED ? 0 : c->base + ord;
        if (++c->got >= c->n) {
            c->used = false;
        }
    }
    pthread_mutex_unlock(&t->mu);
    return ok;
}
