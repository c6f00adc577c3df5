/*
 * rpc_cover.h - the part of a ggml RPC client's time that its servers' records already count
 * (internal; used by the stats of a merged profile, opscope merge).
 *
 * In a merged profile the client's records on an RPC backend (SYNCHRONIZE: waiting for the
 * server; GRAPH_SPLIT: sending a graph; tensor set/get: transfers) stand for work that the
 * server's own records show on the same timeline. Counting both would count an instant
 * twice: %Time counts each instant once per machine, so the instants of a client RPC record
 * during which any server record runs are the server's ("covered"), and the rest of the
 * record (network, serialisation, waiting the server's profile does not show) the client's.
 *
 * Roles come from the backends: the client is the process of the backends named "RPC...",
 * a server record is one on a backend of another process. The sweep needs the records of
 * both roles in start order (opscope merge writes them so); it keeps only the client records
 * still open (at most OPSCOPE_RPC_COVER_OPEN; older ones stop being credited) and the end
 * of the servers' latest work. Input out of order sets `unsorted`: the caller then drops the
 * figures (they would be partial).
 *
 * Ownership: the caller owns the struct (zero-initialised = empty; nothing to free) and the
 * CLIENT string. Thread safety: none.
 */
#ifndef OPSCOPE_ANALYZE_RPC_COVER_H
#define OPSCOPE_ANALYZE_RPC_COVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define OPSCOPE_RPC_COVER_OPEN 64

typedef enum opscope_rpc_role {
    OPSCOPE_RPC_ROLE_NONE = 0,
    OPSCOPE_RPC_ROLE_CLIENT, /* a client record on an RPC backend */
    OPSCOPE_RPC_ROLE_SERVER, /* a record of another process than the client's */
} opscope_rpc_role;

/* What to credit for a client record: the caller's indices (a stats group, its shape group or
 * -1, its backend id). */
typedef struct opscope_rpc_cover_ref {
    long group, shape;
    int32_t backend_id;
} opscope_rpc_cover_ref;

typedef void (*opscope_rpc_cover_credit)(void *ud, const opscope_rpc_cover_ref *ref, uint64_t ns);

typedef struct opscope_rpc_cover_open {
    uint64_t start, end;
    opscope_rpc_cover_ref ref;
} opscope_rpc_cover_open;

typedef struct opscope_rpc_cover {
    const char *client;     /* the client's process, NULL until an RPC backend is described */
    uint64_t servers_end;   /* end of the latest server work so far (0: none yet) */
    uint64_t last_start;    /* start of the latest record of either role */
    bool unsorted;          /* a record of either role came out of start order */
    opscope_rpc_cover_open open[OPSCOPE_RPC_COVER_OPEN];
    size_t n_open;
} opscope_rpc_cover;

/* The role of a record on a backend NAME of PROCESS (either may be NULL). */
opscope_rpc_role opscope_rpc_cover_role(const opscope_rpc_cover *c, const char *name,
                                        const char *process);

/* Notes a described backend: one named "RPC..." with a process makes that process the client. */
void opscope_rpc_cover_backend(opscope_rpc_cover *c, const char *name, const char *process);

/* Feeds a record [START, END) of ROLE; calls CREDIT (with UD) for each covered part of a
 * client record, as soon as it is known. REF is used for a client record. */
void opscope_rpc_cover_add(opscope_rpc_cover *c, opscope_rpc_role role, uint64_t start,
                           uint64_t end, const opscope_rpc_cover_ref *ref,
                           opscope_rpc_cover_credit credit, void *ud);

#endif /* OPSCOPE_ANALYZE_RPC_COVER_H */
