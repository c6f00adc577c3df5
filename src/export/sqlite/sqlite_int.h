/*
 * sqlite_int.h - internals of the SQLite export, shared by its files:
 *   sqlite_schema.c   the SQL of the tables (made first) and of the indices and views (last)
 *   sqlite_writer.c   the writer thread: batches of rows, prepared statements, inserts
 *   sqlite_export.c   the sink (runs on the reading thread), shapes, graphs, life cycle
 *   sqlite_rpc.c      the RPC tables of a merged profile (written at finish)
 *   sqlite_win.c      a capture's windows and marks (written at finish)
 *
 * The reading thread turns each record into a compact row (strings copied into the batch,
 * display name, sub-op, FLOPs and shape id computed there) and hands full batches to the
 * writer thread, which only binds and steps: parsing and inserting run on two cores.
 * Ownership: every batch belongs to the reader while it fills it and to the writer between
 * submit and release. Thread safety: the queue's fields are guarded by its mutex; the
 * connection is used by the writer thread only while it runs, by the caller's thread before
 * and after.
 */
#ifndef OPSCOPE_SQLITE_INT_H
#define OPSCOPE_SQLITE_INT_H

#include "analyze/ggml/graphs.h"
#include "analyze/rpc/rpc_calls.h"
#include "opscope.h"
#include "util/strbuf.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SQLITE_SCHEMA_VERSION 5

extern const char opscope_sqlite_schema[];
extern const char opscope_sqlite_finish_sql[];

#define SQ_NONE UINT32_MAX /* a NULL string offset */

/* One record, as the writer binds it. Strings are offsets into the batch's arena. */
typedef struct sq_rec {
    uint64_t start, dur, host_start, host_end, bytes, flops;
    int64_t graph_id, shape_id;
    int32_t backend_id, split_id, node_index, n_fused, thread_id;
    int32_t sub_op_value; /* ggml's enum value, -1 none */
    uint32_t has;
    uint32_t name, sub_op, extra, op, tensor, category;
    uint8_t type;
} sq_rec;

/* A new row of `shapes`. */
typedef struct sq_shape {
    int64_t id;
    int32_t n_src, src_type[2], out_type; /* -1 unknown */
    int64_t ne_src[2][OPSCOPE_MAX_DIMS], ne[OPSCOPE_MAX_DIMS];
    bool has_out;
    uint32_t text, srcs, params;
} sq_shape;

typedef struct sq_backend {
    int32_t id;
    uint32_t name, device, process; /* process: SQ_NONE when not a merged profile */
    const char *device_type; /* static */
} sq_backend;

#define SQ_BATCH_RECS 4096
#define SQ_BATCHES 4

typedef struct sq_batch {
    sq_rec recs[SQ_BATCH_RECS];
    size_t n_recs;
    sq_shape *shapes;
    size_t n_shapes, cap_shapes;
    sq_backend *backends;
    size_t n_backends, cap_backends;
    opscope_strbuf arena; /* the strings, each with its NUL (growable) */
} sq_batch;

/* The writer: a connection, its statements, and the queue of batches. */
typedef struct sq_writer {
    sqlite3 *db;
    sqlite3_stmt *ins_rec, *ins_shape, *ins_backend;
    sq_batch batches[SQ_BATCHES];
    size_t fill, head, n_full; /* the reader fills batches[fill]; the writer takes head */
    pthread_mutex_t mu;
    pthread_cond_t cv_full, cv_free;
    pthread_t thread;
    bool threaded, done, failed;
    int fail_rc, fail_errno; /* the failed step's codes */
    uint64_t n_recs;         /* records inserted (ids 1..n_recs) */
} sq_writer;

/* Prepares the statements on DB (tables made) and starts the writer thread (or runs inline
 * when no thread can be made). Returns 0, or -1 (statements failed; nothing started). */
int opscope_sq_writer_start(sq_writer *w, sqlite3 *db);

/* The batch the reader fills now. */
sq_batch *opscope_sq_writer_current(sq_writer *w);

/* Copies S (NULL: SQ_NONE) into B's arena; SQ_NONE also when out of memory (OOM set). */
uint32_t opscope_sq_str(sq_batch *b, const char *s, bool *oom);

/* Hands the current batch to the writer (waits while every batch is full). Returns 0, or -1
 * once the writer failed. */
int opscope_sq_writer_submit(sq_writer *w);

/* Submits what is left, waits for the writer to end. Returns 0, or -1 if any insert failed.
 * Idempotent. */
int opscope_sq_writer_stop(sq_writer *w);

/* Stops (if running) and frees the statements and batches; the connection stays open. */
void opscope_sq_writer_free(sq_writer *w);

/* Inserts R's (finished) servers and calls into rpc_servers and rpc_calls, on the caller's
 * thread (the writer stopped). Returns 0, or -1 on a database failure. */
int opscope_sq_write_rpc(sqlite3 *db, const opscope_rpc_t *r);

/* Inserts C's windows (with the graph computes of G, finished, each holds; G may be NULL:
 * counts 0) and marks into windows and marks, on the caller's thread (the writer stopped).
 * Returns 0, or -1 on a database failure or out of memory. */
int opscope_sq_write_windows(sqlite3 *db, const opscope_capture_info *c, const opscope_graphs_t *g);

#endif /* OPSCOPE_SQLITE_INT_H */
