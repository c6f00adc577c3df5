/* sqlite_rpc.c - the RPC tables of a merged profile: rpc_servers and rpc_calls, the figures
 * of the report's "RPC servers" and "RPC calls" sections (src/analyze/rpc/rpc_calls.h). */
#include "export/sqlite/sqlite_int.h"

static void bind_u64(sqlite3_stmt *s, int col, uint64_t v) {
    if (v <= (uint64_t)INT64_MAX) sqlite3_bind_int64(s, col, (sqlite3_int64)v);
    else sqlite3_bind_double(s, col, (double)v);
}

static void bind_text(sqlite3_stmt *s, int col, const char *v) {
    if (v && *v) sqlite3_bind_text(s, col, v, -1, SQLITE_STATIC);
    else sqlite3_bind_null(s, col);
}

/* Binds N counters from column COL on. */
static void bind_counters(sqlite3_stmt *s, int col, const uint64_t *values, size_t n) {
    for (size_t i = 0; i < n; i++) bind_u64(s, col + (int)i, values[i]);
}

static int step(sqlite3_stmt *s) {
    int rc = sqlite3_step(s) == SQLITE_DONE ? 0 : -1;
    sqlite3_reset(s);
    return rc;
}

/* rpc_servers: process, endpoint, then the counters (opscope_rpc_server_names) */
static int write_servers(sqlite3 *db, const opscope_rpc_t *r) {
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(db, "INSERT INTO rpc_servers VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)", -1, &s,
                           NULL) != SQLITE_OK)
        return -1;
    uint64_t v[OPSCOPE_RPC_SERVER_N];
    int rc = 0;
    for (size_t i = 0; i < opscope_rpc_n_servers(r) && !rc; i++) {
        const opscope_rpc_server *sv = opscope_rpc_server_at(r, i);
        bind_text(s, 1, sv->process);
        bind_text(s, 2, sv->endpoint);
        opscope_rpc_server_values(sv, v);
        bind_counters(s, 3, v, OPSCOPE_RPC_SERVER_N);
        rc = step(s);
    }
    sqlite3_finalize(s);
    return rc;
}

/* rpc_calls: call, endpoint, server, the counters (opscope_rpc_call_names), compute_start_ns,
 * end_known */
static int write_calls(sqlite3 *db, const opscope_rpc_t *r) {
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(db, "INSERT INTO rpc_calls VALUES(?,?,?,?,?,?,?,?,?,?,?,?)", -1, &s, NULL) !=
        SQLITE_OK)
        return -1;
    uint64_t v[OPSCOPE_RPC_CALL_N];
    int rc = 0;
    for (size_t k = 0; k < opscope_rpc_n_calls(r) && !rc; k++) {
        const opscope_rpc_call *c = opscope_rpc_call_at(r, k);
        const opscope_rpc_server *sv = c->server >= 0 ? opscope_rpc_server_at(r, (size_t)c->server) : NULL;
        sqlite3_bind_int64(s, 1, (sqlite3_int64)k);
        bind_text(s, 2, opscope_rpc_call_endpoint(r, k));
        bind_text(s, 3, sv ? sv->process : NULL);
        opscope_rpc_call_values(c, v);
        bind_counters(s, 4, v, OPSCOPE_RPC_CALL_N);
        if (sv) bind_u64(s, 4 + OPSCOPE_RPC_CALL_N, c->compute_start_ns);
        else sqlite3_bind_null(s, 4 + OPSCOPE_RPC_CALL_N);
        sqlite3_bind_int(s, 5 + OPSCOPE_RPC_CALL_N, c->end_known);
        rc = step(s);
    }
    sqlite3_finalize(s);
    return rc;
}

int opscope_sq_write_rpc(sqlite3 *db, const opscope_rpc_t *r) {
    /* as the text report: calls only where a server's profile was merged in */
    if (!opscope_rpc_n_servers(r)) return 0;
    return write_servers(db, r) || write_calls(db, r) ? -1 : 0;
}
