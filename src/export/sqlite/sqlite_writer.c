/* sqlite_writer.c - the SQLite export's writer thread: binds and inserts batches of rows
 * (see sqlite_int.h). */
#include "export/sqlite/sqlite_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The arena's offsets stay below SQ_NONE: at most 2^31 bytes (the doubling's last size). */
#define SQ_ARENA_MAX ((size_t)1 << 31)

uint32_t opscope_sq_str(sq_batch *b, const char *s, bool *oom) {
    if (!s) return SQ_NONE;
    size_t n = strlen(s) + 1, off = b->arena.len;
    if (n > SQ_ARENA_MAX - off || opscope_strbuf_add(&b->arena, s, n)) {
        *oom = true;
        return SQ_NONE;
    }
    return (uint32_t)off;
}

static void bind_u64(sqlite3_stmt *s, int col, uint64_t v) {
    /* SQLite integers are signed 64-bit: larger values become REAL rather than wrap */
    if (v <= (uint64_t)INT64_MAX) sqlite3_bind_int64(s, col, (sqlite3_int64)v);
    else sqlite3_bind_double(s, col, (double)v);
}

static void bind_off(sqlite3_stmt *s, int col, const sq_batch *b, uint32_t off) {
    if (off == SQ_NONE) sqlite3_bind_null(s, col);
    else sqlite3_bind_text(s, col, b->arena.s + off, -1, SQLITE_STATIC);
}

static void bind_type(sqlite3_stmt *s, int col, int32_t type) {
    if (type < 0) sqlite3_bind_null(s, col);
    else sqlite3_bind_text(s, col, opscope_ggml_type_name(type), -1, SQLITE_STATIC);
}

static int step(sqlite3_stmt *s) {
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    return rc == SQLITE_DONE ? 0 : -1;
}

static int insert_shape(sq_writer *w, const sq_batch *b, const sq_shape *sh) {
    sqlite3_stmt *s = w->ins_shape;
    sqlite3_bind_int64(s, 1, sh->id);
    bind_off(s, 2, b, sh->text);
    sqlite3_bind_int(s, 3, sh->n_src);
    for (int i = 0; i < 2; i++) {
        int c = 4 + 5 * i;
        if (i < sh->n_src) {
            bind_type(s, c, sh->src_type[i]);
            for (int d = 0; d < OPSCOPE_MAX_DIMS; d++) sqlite3_bind_int64(s, c + 1 + d, sh->ne_src[i][d]);
        } else {
            for (int k = 0; k < 5; k++) sqlite3_bind_null(s, c + k);
        }
    }
    if (sh->has_out) {
        bind_type(s, 14, sh->out_type);
        for (int d = 0; d < OPSCOPE_MAX_DIMS; d++) sqlite3_bind_int64(s, 15 + d, sh->ne[d]);
    } else {
        for (int c = 14; c <= 18; c++) sqlite3_bind_null(s, c);
    }
    bind_off(s, 19, b, sh->srcs);
    bind_off(s, 20, b, sh->params);
    return step(s);
}

static int insert_backend(sq_writer *w, const sq_batch *b, const sq_backend *k) {
    sqlite3_stmt *s = w->ins_backend;
    sqlite3_bind_int(s, 1, k->id);
    bind_off(s, 2, b, k->name);
    bind_off(s, 3, b, k->device);
    sqlite3_bind_text(s, 4, k->device_type, -1, SQLITE_STATIC);
    bind_off(s, 5, b, k->process);
    return step(s);
}

static int insert_rec(sq_writer *w, const sq_batch *b, const sq_rec *r) {
    sqlite3_stmt *s = w->ins_rec;
    /* NULL id: SQLite appends rowid max + 1 (1, 2, ... in input order, as n_recs counts)
     * without the uniqueness seek an explicit id costs */
    w->n_recs++;
    sqlite3_bind_null(s, 1);
    sqlite3_bind_text(s, 2, r->type == OPSCOPE_RECORD_COPY ? "COPY" : "OP", -1, SQLITE_STATIC);
    bind_off(s, 3, b, r->name);
    bind_off(s, 4, b, r->sub_op);
    bind_off(s, 5, b, r->extra);
    bind_off(s, 6, b, r->op);
    bind_off(s, 7, b, r->category);
    sqlite3_bind_int(s, 8, r->backend_id);
    sqlite3_bind_int(s, 9, r->split_id);
    if (r->has & OPSCOPE_HAS_GRAPH) sqlite3_bind_int64(s, 10, r->graph_id);
    else sqlite3_bind_null(s, 10);
    if (r->has & OPSCOPE_HAS_NODE) sqlite3_bind_int(s, 11, r->node_index);
    else sqlite3_bind_null(s, 11);
    sqlite3_bind_int(s, 12, r->n_fused);
    if (r->has & OPSCOPE_HAS_THREAD) sqlite3_bind_int(s, 13, r->thread_id);
    else sqlite3_bind_null(s, 13);
    bind_off(s, 14, b, r->tensor);
    bind_u64(s, 15, r->start);
    bind_u64(s, 16, r->dur);
    if (r->has & OPSCOPE_HAS_HOST_TIME) {
        bind_u64(s, 17, r->host_start);
        bind_u64(s, 18, r->host_end);
    } else {
        sqlite3_bind_null(s, 17);
        sqlite3_bind_null(s, 18);
    }
    bind_u64(s, 19, r->bytes);
    bind_u64(s, 20, r->flops);
    sqlite3_bind_int64(s, 21, r->shape_id);
    if (r->sub_op_value >= 0) sqlite3_bind_int(s, 22, r->sub_op_value);
    else sqlite3_bind_null(s, 22);
    return step(s);
}

/* Inserts a whole batch (shapes and backends first). Returns 0 or -1. */
static int write_batch(sq_writer *w, const sq_batch *b) {
    for (size_t i = 0; i < b->n_shapes; i++)
        if (insert_shape(w, b, &b->shapes[i])) return -1;
    for (size_t i = 0; i < b->n_backends; i++)
        if (insert_backend(w, b, &b->backends[i])) return -1;
    for (size_t i = 0; i < b->n_recs; i++)
        if (insert_rec(w, b, &b->recs[i])) return -1;
    return 0;
}

static void note_failure(sq_writer *w) {
    /* called with the mutex held (or with no thread running) */
    w->failed = true;
    w->fail_rc = sqlite3_errcode(w->db);
    w->fail_errno = sqlite3_system_errno(w->db);
}

static void *writer_main(void *arg) {
    sq_writer *w = arg;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (!w->n_full && !w->done) pthread_cond_wait(&w->cv_full, &w->mu);
        if (!w->n_full) break; /* done and drained */
        sq_batch *b = &w->batches[w->head];
        bool skip = w->failed; /* after a failure, batches are only released */
        pthread_mutex_unlock(&w->mu);
        int rc = skip ? 0 : write_batch(w, b);
        pthread_mutex_lock(&w->mu);
        if (rc) note_failure(w);
        w->head = (w->head + 1) % SQ_BATCHES;
        w->n_full--;
        pthread_cond_signal(&w->cv_free);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

static const char INSERT_REC[] =
    "INSERT INTO records VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
static const char INSERT_SHAPE[] =
    "INSERT INTO shapes VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
static const char INSERT_BACKEND[] = "INSERT OR REPLACE INTO backends VALUES(?,?,?,?,?)";

int opscope_sq_writer_start(sq_writer *w, sqlite3 *db) {
    w->db = db;
    unsigned fl = SQLITE_PREPARE_PERSISTENT;
    if (sqlite3_prepare_v3(db, INSERT_REC, -1, fl, &w->ins_rec, NULL) != SQLITE_OK ||
        sqlite3_prepare_v3(db, INSERT_SHAPE, -1, fl, &w->ins_shape, NULL) != SQLITE_OK ||
        sqlite3_prepare_v3(db, INSERT_BACKEND, -1, fl, &w->ins_backend, NULL) != SQLITE_OK)
        return -1;
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv_full, NULL);
    pthread_cond_init(&w->cv_free, NULL);
    w->threaded = pthread_create(&w->thread, NULL, writer_main, w) == 0;
    return 0;
}

sq_batch *opscope_sq_writer_current(sq_writer *w) { return &w->batches[w->fill]; }

int opscope_sq_writer_submit(sq_writer *w) {
    sq_batch *b = &w->batches[w->fill];
    if (!w->threaded) {
        if (!w->failed && write_batch(w, b)) note_failure(w);
    } else {
        pthread_mutex_lock(&w->mu);
        w->n_full++;
        w->fill = (w->fill + 1) % SQ_BATCHES;
        pthread_cond_signal(&w->cv_full);
        while (w->n_full == SQ_BATCHES) pthread_cond_wait(&w->cv_free, &w->mu);
        pthread_mutex_unlock(&w->mu);
        b = &w->batches[w->fill]; /* released by the writer: ours again */
    }
    b->n_recs = b->n_shapes = b->n_backends = 0;
    opscope_strbuf_reset(&b->arena);
    pthread_mutex_lock(&w->mu); /* a plain read would race with the writer's note_failure */
    bool failed = w->failed;
    pthread_mutex_unlock(&w->mu);
    return failed ? -1 : 0;
}

int opscope_sq_writer_stop(sq_writer *w) {
    if (!w->db) return -1;
    if (!w->done) {
        sq_batch *b = &w->batches[w->fill];
        if (b->n_recs || b->n_shapes || b->n_backends) opscope_sq_writer_submit(w);
        pthread_mutex_lock(&w->mu);
        w->done = true;
        pthread_cond_signal(&w->cv_full);
        pthread_mutex_unlock(&w->mu);
        if (w->threaded) pthread_join(w->thread, NULL);
        w->threaded = false;
    }
    return w->failed ? -1 : 0;
}

void opscope_sq_writer_free(sq_writer *w) {
    if (w->ins_rec && w->ins_shape && w->ins_backend) opscope_sq_writer_stop(w); /* started */
    sqlite3_finalize(w->ins_rec);
    sqlite3_finalize(w->ins_shape);
    sqlite3_finalize(w->ins_backend);
    w->ins_rec = w->ins_shape = w->ins_backend = NULL;
    for (int i = 0; i < SQ_BATCHES; i++) {
        free(w->batches[i].shapes);
        free(w->batches[i].backends);
        opscope_strbuf_free(&w->batches[i].arena);
    }
    memset(w->batches, 0, sizeof w->batches);
}
