/*
 * sqlite_export.h - `opscope report PROFILE --sqlite FILE`: the profile as an SQLite database
 * (internal). Schema, indices, views and example queries: docs/formats.md, "SQLite export".
 *
 * Records stream in through the sink and are inserted with one prepared statement inside one
 * transaction; the database is written to "PATH.tmp.XXXXXX" beside PATH (no journal) and
 * renamed over PATH by opscope_sqlite_export_finish only when everything succeeded, so a bad
 * input or a full disk never leaves a partial database. Memory: SQLite's page cache (capped)
 * plus one entry per graph id and per backend, and for the RPC tables one per RPC call, per
 * copy to an RPC backend and per server graph (none without an RPC backend).
 *
 * Built into the CLI only (it links libsqlite3; the core library and the capture libraries
 * do not). Ownership: the caller owns the handle and ends it with finish or abort, once.
 * Strings handed to the sink are copied by SQLite during the callback. Thread safety: none.
 */
#ifndef OPSCOPE_SQLITE_EXPORT_H
#define OPSCOPE_SQLITE_EXPORT_H

#include "analyze/record/derived.h"
#include "analyze/kineto/kineto.h"
#include "analyze/rpc/rpc_calls.h"
#include "analyze/session/session.h"
#include "opscope.h"

typedef struct opscope_sqlite_export opscope_sqlite_export_t;

/* Creates the temporary database beside PATH with every table, and starts the transaction.
 * SOURCE (the input's name, may be NULL) goes into the meta table. NULL with ERR filled on
 * failure (nothing is left on disk). */
opscope_sqlite_export_t *opscope_sqlite_export_new(const char *path, const char *source,
                                                   opscope_error *err);

/* The sink to feed while reading. A callback returns non-zero after a database failure
 * (opscope_sqlite_export_error then says what failed). */
opscope_sink opscope_sqlite_export_sink(opscope_sqlite_export_t *x);
/* Its on_record with the record's derived values (analyze/record/derived.h; UD is X), for a session. */
int opscope_sqlite_export_derived(void *ud, const opscope_record *r, opscope_derived *d);

/* The RPC analysis (analyze/rpc/rpc_calls.h) written to the rpc_servers and rpc_calls tables: fed
 * by the caller from the same read, finished here at the latest. Borrowed until finish or
 * abort; NULL (the default): those tables stay empty. */
void opscope_sqlite_export_set_rpc(opscope_sqlite_export_t *x, opscope_rpc_t *rpc);

/* The graphs table from G (borrowed: fed by its owner, the session, with the records' FLOPs;
 * it must outlive the finish) instead of X's own aggregate. NULL: X keeps its own. Call before
 * the first record. */
void opscope_sqlite_export_use_graphs(opscope_sqlite_export_t *x, opscope_graphs_t *g);

/* The first failure of a sink callback (code OPSCOPE_OK when none). */
const opscope_error *opscope_sqlite_export_error(const opscope_sqlite_export_t *x);

/* Writes the finished Kineto analysis K's kernel links (K kept them: opscope_kineto_keep_links)
 * into kineto_links. K may be NULL (no Kineto input). Returns 0 or -1 with ERR filled. */
int opscope_sqlite_export_kineto(opscope_sqlite_export_t *x, const opscope_kineto_t *k,
                                 opscope_error *err);

/* Writes graphs, backends and meta, creates the indices and views, commits, closes and renames
 * the file into place. Frees X whatever the outcome. Returns 0 or -1 with ERR filled (the
 * temporary file is then removed). */
int opscope_sqlite_export_finish(opscope_sqlite_export_t *x, opscope_error *err);

/* Discards everything: closes and removes the temporary file, frees X. NULL is a no-op. */
void opscope_sqlite_export_abort(opscope_sqlite_export_t *x);

/* The database as a session output (export/outputs/outputs.h): the RPC tables and the Kineto links
 * from the session's analyses, the graphs table from GRAPHS (borrowed, the session's: it
 * must outlive the output's finish; NULL: the output aggregates its own); its commit writes
 * the indices and views and renames the file (the commit likeliest to fail: add it first).
 * 0, or -1 with ERR filled. */
int opscope_output_sqlite(opscope_output *o, const char *path, const char *source,
                          opscope_graphs_t *graphs, opscope_error *err);

#endif /* OPSCOPE_SQLITE_EXPORT_H */
