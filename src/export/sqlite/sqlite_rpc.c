/* sqlite_rpc.c - the RPC tables of a merged profile: rpc_servers and rpc_calls, the figures
 * of the report's "RPC servers" and "RPC calls" sections (src/analyze/rpc_calls.h). */
#include "export/sqlite/sqlite_int.h"

static void bind_u64(sqlite3_stmt *s, int col, uint64_t v) {
    if (v <= (uint64_t)INT64_MAX) sqlite3_bind_int64(s, col, (sqlite3_int64)v);
    else sqlite3_bind_double(s, col, (double)v);
}

static int step(sqlite3_stmt *s) {
    int rc = sqlite3_step(s) == SQLITE_DONE ? 0 : -1;
    sqlite3_reset(s);
    return rc;
}

static int write_servers(sqlite3 *db, const opscope_rpc_t *r) {
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(db, "INSERT INTO rpc_servers VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)", -1, &s,
                           NULL) != SQLITE_OK)
        return -1;
    int rc = 0;
    for (size_t i = 0; i < opscope_rpc_n_servers(r) && !rc; i++) {
        const opscope_rpc_server *v = opscope_rpc_server_at(r, i);
        sqlite3_bind_text(s, 1, v->process, -1, SQLITE_STATIC);
        if (v->endpoint[0]) sqlite3_bind_text(s, 2, v->endpoint, -1, SQLITE_STATIC);
        else sqlite3_bind_null(s, 2);
        const uint64_t cols[] = {v->calls,  v->calls_served, v->call_ns,    v->submit_ns,
                                 v->compute_ns, v->other_ns, v->copies,     v->copy_bytes,
                                 v->copy_ns, v->graphs,      v->graphs_inside, v->max_outside_ns};
        for (int c = 0; c < (int)(sizeof cols / sizeof *cols); c++) bind_u64(s, 3 + c, cols[c]);
        rc = step(s);
    }
    sqlite3_finalize(s);
    return rc;
}

static int write_calls(sqlite3 *db, const opscope_rpc_t *r) {
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(db, "INSERT INTO rpc_calls VALUES(?,?,?,?,?,?,?,?,?,?,?,?)", -1, &s, NULL) !=
        SQLITE_OK)
        return -1;
    int rc = 0;
    for (size_t k = 0; k < opscope_rpc_n_calls(r) && !rc; k++) {
        const opscope_rpc_call *c = opscope_rpc_call_at(r, k);
        uint64_t span_ns = c->end_ns - c->start_ns;
        sqlite3_bind_int64(s, 1, (sqlite3_int64)k);
        sqlite3_bind_text(s, 2, opscope_rpc_call_endpoint(r, k), -1, SQLITE_STATIC);
        if (c->server >= 0) {
            sqlite3_bind_text(s, 3, opscope_rpc_server_at(r, (size_t)c->server)->process, -1,
                              SQLITE_STATIC);
            bind_u64(s, 7, c->compute_start_ns);
        } else {
            sqlite3_bind_null(s, 3);
            sqlite3_bind_null(s, 7);
        }
        bind_u64(s, 4, c->start_ns);
        bind_u64(s, 5, c->end_ns);
        bind_u64(s, 6, c->submit_ns);
        bind_u64(s, 8, c->compute_ns);
        bind_u64(s, 9, span_ns > c->compute_ns ? span_ns - c->compute_ns : 0);
        bind_u64(s, 10, c->copies);
        bind_u64(s, 11, c->copy_ns);
        sqlite3_bind_int(s, 12, c->end_known);
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
