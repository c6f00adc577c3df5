/* rpc_cover.c - the client's RPC time that its servers' records cover (see rpc_cover.h). */
#include "analyze/rpc/rpc_cover.h"

#include <string.h>

static bool is_rpc_name(const char *name) { return name && strncmp(name, "RPC", 3) == 0; }

opscope_rpc_role opscope_rpc_cover_role(const opscope_rpc_cover *c, const char *name,
                                        const char *process) {
    if (!c->client || !process) return OPSCOPE_RPC_ROLE_NONE;
    if (strcmp(process, c->client) != 0) return OPSCOPE_RPC_ROLE_SERVER;
    return is_rpc_name(name) ? OPSCOPE_RPC_ROLE_CLIENT : OPSCOPE_RPC_ROLE_NONE;
}

void opscope_rpc_cover_backend(opscope_rpc_cover *c, const char *name, const char *process) {
    if (is_rpc_name(name) && process) c->client = process;
}

static uint64_t overlap(uint64_t a0, uint64_t a1, uint64_t b0, uint64_t b1) {
    uint64_t lo = a0 > b0 ? a0 : b0, hi = a1 < b1 ? a1 : b1;
    return hi > lo ? hi - lo : 0;
}

/* Drops the open client records that end by T: no later server work can cover them. */
static void prune(opscope_rpc_cover *c, uint64_t t) {
    size_t k = 0;
    for (size_t i = 0; i < c->n_open; i++)
        if (c->open[i].end > t) c->open[k++] = c->open[i];
    c->n_open = k;
}

void opscope_rpc_cover_add(opscope_rpc_cover *c, opscope_rpc_role role, uint64_t start,
                           uint64_t end, const opscope_rpc_cover_ref *ref,
                           opscope_rpc_cover_credit credit, void *ud) {
    if (role == OPSCOPE_RPC_ROLE_NONE || c->unsorted) return;
    if (start < c->last_start) {
        c->unsorted = true;
        return;
    }
    c->last_start = start;
    prune(c, start);
    if (role == OPSCOPE_RPC_ROLE_SERVER) {
        /* every earlier server record started at or before START: their union from START on
         * is [START, servers_end), so only [max(START, servers_end), END) is new */
        uint64_t from = start > c->servers_end ? start : c->servers_end;
        if (end <= from) return;
        for (size_t i = 0; i < c->n_open; i++) {
            uint64_t ns = overlap(from, end, c->open[i].start, c->open[i].end);
            if (ns) credit(ud, &c->open[i].ref, ns);
        }
        c->servers_end = end;
        return;
    }
    /* a client record: the servers' work so far covers [START, servers_end) of it */
    uint64_t ns = overlap(start, end, start, c->servers_end);
    if (ns) credit(ud, ref, ns);
    if (end <= c->servers_end) return;
    if (c->n_open == OPSCOPE_RPC_COVER_OPEN) {
        /* more client calls at once than kept: the one ending first stops being credited */
        size_t m = 0;
        for (size_t i = 1; i < c->n_open; i++)
            if (c->open[i].end < c->open[m].end) m = i;
        c->open[m] = c->open[--c->n_open];
    }
    c->open[c->n_open++] = (opscope_rpc_cover_open){start, end, *ref};
}
