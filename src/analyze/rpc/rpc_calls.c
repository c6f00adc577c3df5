/* rpc_calls.c - ggml RPC calls of a merged profile (see rpc_calls.h). */
#include "analyze/rpc/rpc_calls.h"
#include "model/backend_names.h"
#include "util/sort.h"
#include "util/vec.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef struct rb {
    int32_t id;
    opscope_backend_names names;
} rb;

/* What a client record on an RPC backend is to a call. */
enum { EV_OTHER = 0, EV_SPLIT, EV_SYNC, EV_GET, EV_COPY_OUT, EV_GET_ASYNC };

typedef struct span {
    int32_t backend;
    int32_t kind;  /* EV_* (client events), 0 for server graphs */
    int64_t graph;
    uint64_t t0, t1, bytes;
} span;

typedef OPSCOPE_VEC(span) vec;

struct opscope_rpc {
    rb *be;
    size_t n_be, cap_be;
    vec ev, copies, graphs; /* client events on RPC backends, their copies, server graphs */
    size_t *last_run; /* per backend slot: index+1 of its open graph run in graphs */
    size_t n_last;
    opscope_rpc_server *servers;
    size_t n_servers;
    opscope_rpc_call *calls;
    size_t n_calls;
    char **endpoints; /* per call: its endpoint (borrowed from be) */
    bool any_rpc;     /* an RPC backend was described: until then records cost nothing */
    bool finished, oom;
};

static int push(opscope_rpc_t *r, vec *v, span s) {
    if (OPSCOPE_VEC_PUSH(*v, s)) return r->oom = true, -1;
    return 0;
}

opscope_rpc_t *opscope_rpc_new(void) { return calloc(1, sizeof(opscope_rpc_t)); }

void opscope_rpc_free(opscope_rpc_t *r) {
    if (!r) return;
    for (size_t i = 0; i < r->n_be; i++) opscope_backend_names_free(&r->be[i].names);
    free(r->be);
    free(r->ev.v);
    free(r->copies.v);
    free(r->graphs.v);
    free(r->last_run);
    free(r->servers);
    free(r->calls);
    free(r->endpoints);
    free(r);
}

static rb *find_be(const opscope_rpc_t *r, int32_t id, size_t *slot) {
    for (size_t i = 0; i < r->n_be; i++)
        if (r->be[i].id == id) {
            if (slot) *slot = i;
            return &r->be[i];
        }
    return NULL;
}

static bool is_rpc(const rb *b) { return b && strncmp(b->names.name, "RPC", 3) == 0; }

static int on_backend(void *ud, const opscope_backend *b) {
    opscope_rpc_t *r = ud;
    rb *e = find_be(r, b->id, NULL);
    if (!e) {
        if (opscope_vec_reserve((void **)&r->be, &r->cap_be, r->n_be + 1, sizeof *r->be, 8))
            return r->oom = true, -1;
        e = &r->be[r->n_be++];
        memset(e, 0, sizeof *e);
    }
    e->id = b->id;
    if (opscope_backend_names_set(&e->names, b)) return r->oom = true, -1;
    if (is_rpc(e)) r->any_rpc = true;
    return 0;
}

static int on_record(void *ud, const opscope_record *rec) {
    opscope_rpc_t *r = ud;
    if (!r->any_rpc) return 0;
    span s = {rec->backend_id, EV_OTHER, (rec->has & OPSCOPE_HAS_GRAPH) ? rec->graph_id : -1, rec->start_ns,
              rec->start_ns + rec->duration_ns, rec->bytes};
    if (rec->type == OPSCOPE_RECORD_COPY) {
        if (!is_rpc(find_be(r, rec->backend_id, NULL))) return 0;
        const char *x = rec->extra ? rec->extra : "";
        /* the same rules as opscope merge's (src/cli/merge.c): reads that wait for a server,
         * a blocking get (of its endpoint) or a copy out of an RPC device (of any: its
         * source is not recorded) */
        if (!strcmp(x, "tensor_get") || !strcmp(x, "tensor_get_2d"))
            s.kind = EV_GET;
        else if (!strcmp(x, "tensor_copy") && (!strcmp(rec->name, "copy_D2D") || !strcmp(rec->name, "copy_D2H")))
            s.kind = EV_COPY_OUT;
        else if (!strncmp(x, "tensor_get", 10) && strstr(x, "async"))
            s.kind = EV_GET_ASYNC;
        if (push(r, &r->copies, s)) return -1;
        return s.kind ? push(r, &r->ev, s) : 0;
    }
    if (!strcmp(rec->name, "GRAPH_SPLIT") || !strcmp(rec->name, "SYNCHRONIZE")) {
        if (!is_rpc(find_be(r, rec->backend_id, NULL))) return 0;
        s.kind = rec->name[0] == 'G' ? EV_SPLIT : EV_SYNC;
        return push(r, &r->ev, s);
    }
    if (s.graph < 0) return 0;
    /* fold the records of one graph compute of one backend as they stream */
    size_t slot = 0;
    if (!find_be(r, rec->backend_id, &slot)) return 0;
    if (slot >= r->n_last) {
        size_t nn = r->n_be;
        size_t *n = realloc(r->last_run, nn * sizeof *n);
        if (!n) return r->oom = true, -1;
        for (size_t i = r->n_last; i < nn; i++) n[i] = 0;
        r->last_run = n;
        r->n_last = nn;
    }
    size_t k = r->last_run[slot];
    if (k && r->graphs.v[k - 1].graph == s.graph) {
        span *g = &r->graphs.v[k - 1];
        if (s.t0 < g->t0) g->t0 = s.t0;
        if (s.t1 > g->t1) g->t1 = s.t1;
        return 0;
    }
    if (push(r, &r->graphs, s)) return -1;
    r->last_run[slot] = r->graphs.n;
    return 0;
}

static int on_end(void *ud) { return opscope_rpc_finish(ud); }

opscope_sink opscope_rpc_sink(opscope_rpc_t *r) {
    opscope_sink s = {r, NULL, on_backend, on_record, on_end};
    return s;
}

static int cmp_span(const void *a, const void *b) {
    const span *x = a, *y = b;
    if (x->t0 != y->t0) return x->t0 < y->t0 ? -1 : 1;
    return x->backend < y->backend ? -1 : x->backend > y->backend;
}

static const char *endpoint_of(const opscope_rpc_t *r, int32_t backend) {
    const rb *b = find_be(r, backend, NULL);
    return b ? b->names.device : "";
}

/* How far [t0, t1] lies outside call C (0 when inside). */
static uint64_t outside(const opscope_rpc_call *c, uint64_t t0, uint64_t t1) {
    uint64_t d = 0;
    if (t0 < c->start_ns) d += c->start_ns - t0;
    if (t1 > c->end_ns) d += t1 - c->end_ns;
    return d;
}

int opscope_rpc_finish(opscope_rpc_t *r) {
    if (r->finished) return r->oom ? -1 : 0;
    r->finished = true;
    if (r->oom) return -1;
    opscope_sort(r->ev.v, r->ev.n, sizeof(span), cmp_span);
    opscope_sort(r->copies.v, r->copies.n, sizeof(span), cmp_span);
    opscope_sort(r->graphs.v, r->graphs.n, sizeof(span), cmp_span);
    /* the client: the process of the RPC backends */
    const char *client = NULL;
    bool any_rpc = false;
    size_t n_splits = 0;
    for (size_t i = 0; i < r->n_be; i++)
        if (is_rpc(&r->be[i])) {
            any_rpc = true;
            if (r->be[i].names.process) client = r->be[i].names.process;
        }
    for (size_t i = 0; i < r->ev.n; i++) n_splits += r->ev.v[i].kind == EV_SPLIT;
    if (!any_rpc || n_splits == 0) return 0;
    r->calls = calloc(n_splits, sizeof *r->calls);
    r->endpoints = calloc(n_splits, sizeof *r->endpoints);
    if (!r->calls || !r->endpoints) return r->oom = true, -1;
    /* calls: a split up to the end of the first read that waited for its results (a blocking
     * read, or the synchronize that collected an asynchronous get), before the endpoint's
     * next split */
    for (size_t i = 0; i < r->ev.n; i++) {
        const span *sp = &r->ev.v[i];
        if (sp->kind != EV_SPLIT) continue;
        const char *ep = endpoint_of(r, sp->backend);
        opscope_rpc_call *c = &r->calls[r->n_calls++];
        c->start_ns = sp->t0;
        c->end_ns = sp->t1;
        c->submit_ns = sp->t1 - sp->t0;
        c->server = -1;
        r->endpoints[r->n_calls - 1] = (char *)ep;
        bool pending_get = false;
        for (size_t j = i + 1; j < r->ev.n; j++) {
            const span *e = &r->ev.v[j];
            bool mine = !strcmp(endpoint_of(r, e->backend), ep);
            if (e->kind == EV_SPLIT && mine) break;
            if ((e->kind == EV_GET && mine) || e->kind == EV_COPY_OUT ||
                (e->kind == EV_SYNC && mine && pending_get)) {
                c->end_ns = e->t1;
                c->end_known = 1;
                break;
            }
            if (e->kind == EV_GET_ASYNC && mine) pending_get = true;
        }
    }
    /* copies of an endpoint belong to its next call (the inputs it sends, the outputs of the
     * call before it that it reads back) */
    for (size_t i = 0; i < r->copies.n; i++) {
        const span *cp = &r->copies.v[i];
        const char *ep = endpoint_of(r, cp->backend);
        size_t a = 0, b = r->n_calls; /* the calls start in order: from a few before the copy */
        while (a < b) {
            size_t m = a + (b - a) / 2;
            if (r->calls[m].start_ns <= cp->t0) a = m + 1; else b = m;
        }
        for (size_t k = a > 8 ? a - 8 : 0; k < r->n_calls; k++) {
            if (r->calls[k].end_ns >= cp->t1 && !strcmp(r->endpoints[k], ep)) {
                r->calls[k].copies++;
                r->calls[k].copy_ns += cp->t1 - cp->t0;
                break;
            }
        }
    }
    /* servers: the processes of the other backends */
    r->servers = calloc(r->n_be, sizeof *r->servers);
    if (!r->servers) return r->oom = true, -1;
    int *graph_server = calloc(r->graphs.n ? r->graphs.n : 1, sizeof *graph_server);
    if (!graph_server) return r->oom = true, -1;
    for (size_t g = 0; g < r->graphs.n; g++) {
        const rb *b = find_be(r, r->graphs.v[g].backend, NULL);
        graph_server[g] = -1;
        if (!b || !b->names.process || is_rpc(b) || (client && !strcmp(b->names.process, client))) continue;
        size_t s = 0;
        while (s < r->n_servers && strcmp(r->servers[s].process, b->names.process)) s++;
        if (s == r->n_servers) {
            memset(&r->servers[s], 0, sizeof r->servers[s]);
            r->servers[s].process = b->names.process;
            r->servers[s].endpoint = "";
            r->n_servers++;
        }
        graph_server[g] = (int)s;
    }
    /* each server graph: the call that holds it (or the nearest) */
    for (size_t g = 0; g < r->graphs.n; g++) {
        if (graph_server[g] < 0) continue;
        const span *gr = &r->graphs.v[g];
        opscope_rpc_server *sv = &r->servers[graph_server[g]];
        sv->graphs++;
        size_t a = 0, b = r->n_calls; /* last call starting at or before the graph */
        while (a < b) {
            size_t m = a + (b - a) / 2;
            if (r->calls[m].start_ns <= gr->t0) a = m + 1; else b = m;
        }
        long best = -1;
        uint64_t best_d = UINT64_MAX;
        for (long k = (long)a - 1; k >= 0 && k >= (long)a - 8; k--) {
            uint64_t d = outside(&r->calls[k], gr->t0, gr->t1);
            if (d < best_d) best_d = d, best = k;
        }
        if (a < r->n_calls) {
            uint64_t d = outside(&r->calls[a], gr->t0, gr->t1);
            if (d < best_d) best_d = d, best = (long)a;
        }
        if (best < 0) continue;
        if (best_d == 0) sv->graphs_inside++;
        else if (best_d > sv->max_outside_ns) sv->max_outside_ns = best_d;
        opscope_rpc_call *c = &r->calls[best];
        /* a graph wholly outside every call (another client's, or no wait was recorded) is
         * no call's compute; one overlapping its call (a slight misalignment) is */
        if (gr->t0 > c->end_ns || gr->t1 < c->start_ns) continue;
        if (c->server < 0) {
            c->server = graph_server[g];
            c->compute_start_ns = gr->t0;
        }
        if (c->server == graph_server[g]) c->compute_ns += gr->t1 - gr->t0;
    }
    free(graph_server);
    /* each server's endpoint: the one its calls went to */
    for (size_t s = 0; s < r->n_servers; s++) {
        opscope_rpc_server *sv = &r->servers[s];
        for (size_t k = 0; k < r->n_calls; k++)
            if (r->calls[k].server == (int)s) {
                sv->endpoint = r->endpoints[k];
                break;
            }
        for (size_t k = 0; k < r->n_calls; k++) {
            const opscope_rpc_call *c = &r->calls[k];
            if (strcmp(r->endpoints[k], sv->endpoint)) continue;
            sv->calls++;
            sv->call_ns += c->end_ns - c->start_ns;
            sv->submit_ns += c->submit_ns;
            if (c->server == (int)s) {
                sv->calls_served++;
                sv->compute_ns += c->compute_ns;
            }
        }
        sv->other_ns = sv->call_ns > sv->compute_ns ? sv->call_ns - sv->compute_ns : 0;
        for (size_t i = 0; i < r->copies.n; i++)
            if (!strcmp(endpoint_of(r, r->copies.v[i].backend), sv->endpoint)) {
                sv->copies++;
                sv->copy_bytes += r->copies.v[i].bytes;
                sv->copy_ns += r->copies.v[i].t1 - r->copies.v[i].t0;
            }
    }
    return 0;
}

size_t opscope_rpc_n_servers(const opscope_rpc_t *r) { return r->n_servers; }
const opscope_rpc_server *opscope_rpc_server_at(const opscope_rpc_t *r, size_t i) { return &r->servers[i]; }
size_t opscope_rpc_n_calls(const opscope_rpc_t *r) { return r->n_calls; }
const opscope_rpc_call *opscope_rpc_call_at(const opscope_rpc_t *r, size_t i) { return &r->calls[i]; }
const char *opscope_rpc_call_endpoint(const opscope_rpc_t *r, size_t i) { return r->endpoints[i]; }

const char *const opscope_rpc_server_names[OPSCOPE_RPC_SERVER_N] = {
    "calls", "calls_served", "call_ns", "submit_ns", "compute_ns", "other_ns",
    "copies", "copy_bytes", "copy_ns", "graphs", "graphs_inside", "max_outside_ns"};

void opscope_rpc_server_values(const opscope_rpc_server *v, uint64_t values[OPSCOPE_RPC_SERVER_N]) {
    const uint64_t x[OPSCOPE_RPC_SERVER_N] = {v->calls,      v->calls_served, v->call_ns,
                                              v->submit_ns,  v->compute_ns,   v->other_ns,
                                              v->copies,     v->copy_bytes,   v->copy_ns,
                                              v->graphs,     v->graphs_inside, v->max_outside_ns};
    memcpy(values, x, sizeof x);
}

const char *const opscope_rpc_call_names[OPSCOPE_RPC_CALL_N] = {
    "start_ns", "end_ns", "submit_ns", "compute_ns", "other_ns", "copies", "copy_ns"};

void opscope_rpc_call_values(const opscope_rpc_call *c, uint64_t values[OPSCOPE_RPC_CALL_N]) {
    uint64_t span_ns = c->end_ns - c->start_ns;
    const uint64_t x[OPSCOPE_RPC_CALL_N] = {c->start_ns, c->end_ns, c->submit_ns, c->compute_ns,
                                            span_ns > c->compute_ns ? span_ns - c->compute_ns : 0,
                                            c->copies, c->copy_ns};
    memcpy(values, x, sizeof x);
}
