/*
 * rpc_calls.h - ggml RPC calls of a merged profile (opscope merge): what each remote graph
 * compute the client made cost, split into the server's compute and the rest (internal).
 *
 * A call is a client GRAPH_SPLIT on an RPC backend (whose name starts with "RPC"; its device
 * is the server's endpoint, "host:port") up to the end of the first SYNCHRONIZE of that
 * endpoint after it: ggml-rpc sends the graph and returns, and the client waits for the
 * server in the synchronize. A server graph compute (the OP records of one graph id on a
 * backend of another process) belongs to the call that contains it on the merged timeline
 * (or overlaps it: a slight misalignment); one outside every call is counted, not charged.
 * Per call: submit (the client sending the graph), the server's compute, and the rest
 * (network and waiting); per server, those summed plus the copies (tensor set/get over RPC:
 * serialisation and transfer) the client made to its endpoint.
 *
 * Memory: one entry per call, per copy to an RPC backend and per server graph (records of
 * one graph are folded as they stream). Records before the first RPC backend is described
 * are ignored (a profile without one costs a branch per record). Not thread safe.
 */
#ifndef OPSCOPE_RPC_CALLS_H
#define OPSCOPE_RPC_CALLS_H

#include "opscope.h"

typedef struct opscope_rpc opscope_rpc_t;

typedef struct opscope_rpc_server {
    const char *process;     /* the server's process label */
    const char *endpoint;    /* the client's RPC device for it ("127.0.0.1:50052"), or "" */
    uint64_t calls;          /* the client's calls to that endpoint */
    uint64_t calls_served;   /* calls holding one of this server's graph computes */
    uint64_t call_ns;        /* sum over calls of their span (submit to the end of the wait) */
    uint64_t submit_ns;      /* the client sending graphs */
    uint64_t compute_ns;     /* the server's graph computes inside calls (first op to last) */
    uint64_t other_ns;       /* call_ns - compute_ns: network, serialisation, waiting */
    uint64_t copies, copy_bytes, copy_ns; /* client copies to and from the endpoint */
    uint64_t graphs;         /* the server's graph computes */
    uint64_t graphs_inside;  /* ... lying inside a call of the client */
    uint64_t max_outside_ns; /* the farthest a server graph lies outside every call */
} opscope_rpc_server;

typedef struct opscope_rpc_call {
    uint64_t start_ns, end_ns, submit_ns;
    uint64_t compute_start_ns, compute_ns; /* 0 when no server graph was found in it */
    uint64_t copies, copy_ns;
    int server;   /* index into the servers, -1 when none */
    int end_known; /* a SYNCHRONIZE ended it */
} opscope_rpc_call;

/* NULL when out of memory. */
opscope_rpc_t *opscope_rpc_new(void);
void opscope_rpc_free(opscope_rpc_t *r);
/* A sink collecting what the analysis needs; on_end finishes it. */
opscope_sink opscope_rpc_sink(opscope_rpc_t *r);
/* Builds calls and servers (idempotent). 0, or -1 out of memory. */
int opscope_rpc_finish(opscope_rpc_t *r);

size_t opscope_rpc_n_servers(const opscope_rpc_t *r);
const opscope_rpc_server *opscope_rpc_server_at(const opscope_rpc_t *r, size_t i);
size_t opscope_rpc_n_calls(const opscope_rpc_t *r);
const opscope_rpc_call *opscope_rpc_call_at(const opscope_rpc_t *r, size_t i);
/* Call I's endpoint (the device of its RPC backend); owned by R. */
const char *opscope_rpc_call_endpoint(const opscope_rpc_t *r, size_t i);

/* The counters of a server and of a call by name, in the order the JSON summary and the
 * SQLite tables hold them (docs/formats.md): NAMES[i] is VALUES[i]. A call's others are its
 * endpoint, server, compute_start_ns (none without a server graph) and end_known. */
#define OPSCOPE_RPC_SERVER_N 12
#define OPSCOPE_RPC_CALL_N 7
extern const char *const opscope_rpc_server_names[OPSCOPE_RPC_SERVER_N];
extern const char *const opscope_rpc_call_names[OPSCOPE_RPC_CALL_N];
void opscope_rpc_server_values(const opscope_rpc_server *v, uint64_t values[OPSCOPE_RPC_SERVER_N]);
void opscope_rpc_call_values(const opscope_rpc_call *c, uint64_t values[OPSCOPE_RPC_CALL_N]);


#endif /* OPSCOPE_RPC_CALLS_H */
