/* sqlite_export.c - the profile as an SQLite database: the sink, run on the reading thread,
 * and the export's life cycle (see sqlite_export.h, sqlite_int.h, docs/formats.md). */
#include "export/sqlite/sqlite_export.h"

#include "analyze/record/fused_name.h"
#include "analyze/ggml/graphs.h"
#include "analyze/record/shape_fmt.h"
#include "export/sqlite/sqlite_int.h"
#include "analyze/ggml/stats.h"
#include "export/sections/win_out.h"
#include "model/record.h"
#include "model/strtab.h"
#include "util/hash.h"
#include "util/hindex.h"
#include "util/strbuf.h"
#include "util/vec.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Distinct shapes kept for deduplication; past the cap every new shape gets its own row, so
 * memory stays bounded whatever the input. */
#define MAX_SHAPES (1u << 20)
#define MAX_SHAPE_BYTES ((size_t)256 << 20)

typedef struct shape_ent {
    size_t off;   /* key bytes in the arena */
    uint32_t len;
    int64_t id;   /* the row */
} shape_ent;

struct opscope_sqlite_export {
    sq_writer w;
    sqlite3 *db;
    char *path, *tmp, *source;
    uint64_t n; /* records seen */
    opscope_meta meta; /* its capture NULL: the read's is gone by the finish */
    char *profiler;
    opscope_win_copy win; /* the capture's windows and marks (windows, marks, meta.windowed) */
    opscope_graphs_t *graphs;
    bool own_graphs; /* false: the session's (opscope_output_sqlite), fed by the session */
    OPSCOPE_VEC(shape_ent) sh;     /* the distinct shapes kept */
    opscope_hindex sh_index;       /* their keys' hashes -> sh */
    unsigned char *arena;          /* the keys */
    size_t arena_len, arena_cap;
    int64_t n_shapes;
    unsigned char key[2048];
    opscope_rpc_t *rpc; /* the RPC calls of a merged profile (rpc_servers, rpc_calls), borrowed */
    opscope_error err; /* first sink failure */
    char op[512], srcs[4096], params[256], shape[1024];
};

/* ---- errors -------------------------------------------------------------------------------- */

static void set_err(opscope_error *err, const char *path, opscope_error_code code, const char *msg,
                    int errno_value) {
    if (!err) return;
    memset(err, 0, sizeof *err);
    err->code = code;
    err->msg = msg;
    err->errno_value = errno_value;
    if (path) snprintf(err->file, sizeof err->file, "%s", path);
}

/* A failed SQLite call (codes RC and E, the system errno): an I/O error, or out of memory. */
static void db_err_codes(opscope_sqlite_export_t *x, opscope_error *err, int rc, int e, const char *msg) {
    if (rc == SQLITE_NOMEM) {
        set_err(err, x->path, OPSCOPE_ERROR_NOMEM, "out of memory", ENOMEM);
        return;
    }
    if (rc == SQLITE_FULL && !e) e = ENOSPC;
    set_err(err, x->path, OPSCOPE_ERROR_IO, msg, e ? e : EIO);
}

static void db_err(opscope_sqlite_export_t *x, opscope_error *err, const char *msg) {
    db_err_codes(x, err, sqlite3_errcode(x->db), sqlite3_system_errno(x->db), msg);
}

static int exec(opscope_sqlite_export_t *x, const char *sql, opscope_error *err, const char *what) {
    if (sqlite3_exec(x->db, sql, NULL, NULL, NULL) == SQLITE_OK) return 0;
    db_err(x, err, what);
    return -1;
}

static void bind_u64(sqlite3_stmt *s, int col, uint64_t v) {
    if (v <= (uint64_t)INT64_MAX) sqlite3_bind_int64(s, col, (sqlite3_int64)v);
    else sqlite3_bind_double(s, col, (double)v);
}

static void bind_str(sqlite3_stmt *s, int col, const char *v) {
    if (v) sqlite3_bind_text(s, col, v, -1, SQLITE_STATIC);
    else sqlite3_bind_null(s, col);
}

/* [{"type":"f32","ne":[..],"nb":[..]}, ...]: every source with its type, shape, strides.
 * Sized for the worst case, never cut: 10 sources of at most 201 bytes each (a 7-letter type,
 * 8 numbers of 20 digits), 2012 bytes in all. */
static const char *srcs_json(opscope_sqlite_export_t *x, const opscope_record *r) {
    opscope_strbuf b;
    opscope_strbuf_fixed(&b, x->srcs, sizeof x->srcs);
    opscope_strbuf_add_str(&b, "[");
    for (int i = 0; i < r->n_src; i++) {
        opscope_strbuf_add_str(&b, i ? ",{\"type\":" : "{\"type\":");
        int32_t t = r->has & OPSCOPE_HAS_SRC_TYPES ? r->type_src[i] : -1;
        if (t < 0) {
            opscope_strbuf_add_str(&b, "null");
        } else {
            opscope_strbuf_add_str(&b, "\"");
            opscope_strbuf_add_str(&b, opscope_ggml_type_name(t));
            opscope_strbuf_add_str(&b, "\"");
        }
        opscope_strbuf_add_str(&b, ",\"ne\":[");
        for (int d = 0; d < OPSCOPE_MAX_DIMS; d++) {
            if (d) opscope_strbuf_add_str(&b, ",");
            opscope_strbuf_add_i64(&b, r->ne_src[i][d]);
        }
        opscope_strbuf_add_str(&b, "]");
        if (r->has & OPSCOPE_HAS_STRIDES) {
            opscope_strbuf_add_str(&b, ",\"nb\":[");
            for (int d = 0; d < OPSCOPE_MAX_DIMS; d++) {
                if (d) opscope_strbuf_add_str(&b, ",");
                opscope_strbuf_add_u64(&b, r->nb_src[i][d]);
            }
            opscope_strbuf_add_str(&b, "]");
        }
        opscope_strbuf_add_str(&b, "}");
    }
    opscope_strbuf_add_str(&b, "]");
    return x->srcs;
}

static const char *params_json(opscope_sqlite_export_t *x, const opscope_record *r) {
    opscope_strbuf b; /* 16 numbers of at most 11 characters: 193 bytes at most */
    opscope_strbuf_fixed(&b, x->params, sizeof x->params);
    opscope_strbuf_add_str(&b, "[");
    for (int i = 0; i < OPSCOPE_MAX_OP_PARAMS; i++) {
        if (i) opscope_strbuf_add_str(&b, ",");
        opscope_strbuf_add_i64(&b, r->op_params[i]);
    }
    opscope_strbuf_add_str(&b, "]");
    return x->params;
}

/* ---- shapes: one row per distinct (sources, types, strides, output, op params) ------------- */

static void key_put(unsigned char **p, const void *v, size_t n) {
    memcpy(*p, v, n);
    *p += n;
}

/* The bytes that identify a record's shape row (everything the row holds). */
static size_t shape_key(opscope_sqlite_export_t *x, const opscope_record *r) {
    unsigned char *p = x->key;
    int32_t n = opscope_record_n_src(r);
    uint32_t has = r->has & (OPSCOPE_HAS_OUT | OPSCOPE_HAS_STRIDES | OPSCOPE_HAS_SRC_TYPES | OPSCOPE_HAS_OP_PARAMS);
    key_put(&p, &has, sizeof has);
    key_put(&p, &n, sizeof n);
    key_put(&p, r->ne_src, (size_t)n * sizeof r->ne_src[0]);
    if (has & OPSCOPE_HAS_STRIDES) key_put(&p, r->nb_src, (size_t)n * sizeof r->nb_src[0]);
    if (has & OPSCOPE_HAS_SRC_TYPES) key_put(&p, r->type_src, (size_t)n * sizeof r->type_src[0]);
    if (has & OPSCOPE_HAS_OUT) {
        key_put(&p, &r->out_type, sizeof r->out_type);
        key_put(&p, r->ne, sizeof r->ne);
    }
    if (has & OPSCOPE_HAS_OP_PARAMS) key_put(&p, r->op_params, sizeof r->op_params);
    return (size_t)(p - x->key);
}

/* Queues the shapes row of R into B. Returns its id, or -1 when out of memory. */
static int64_t shape_new(opscope_sqlite_export_t *x, sq_batch *b, const opscope_record *r) {
    if (b->n_shapes == b->cap_shapes) {
        size_t cap = b->cap_shapes ? b->cap_shapes * 2 : 64;
        sq_shape *ns = realloc(b->shapes, cap * sizeof *ns);
        if (!ns) return -1;
        b->shapes = ns;
        b->cap_shapes = cap;
    }
    opscope_shape sh;
    opscope_shape_of_record(&sh, r);
    opscope_fmt_sources(x->shape, sizeof x->shape, &sh);
    sq_shape *q = &b->shapes[b->n_shapes];
    memset(q, 0, sizeof *q);
    q->id = x->n_shapes + 1;
    q->n_src = sh.n_src;
    for (int i = 0; i < 2; i++) {
        q->src_type[i] = i < sh.n_src && (r->has & OPSCOPE_HAS_SRC_TYPES) ? r->type_src[i] : -1;
        if (i < sh.n_src) memcpy(q->ne_src[i], r->ne_src[i], sizeof q->ne_src[i]);
    }
    q->has_out = sh.has_out;
    q->out_type = sh.out_type;
    memcpy(q->ne, sh.ne, sizeof q->ne);
    bool oom = false;
    q->text = opscope_sq_str(b, x->shape, &oom);
    q->srcs = opscope_sq_str(b, srcs_json(x, r), &oom);
    q->params = r->has & OPSCOPE_HAS_OP_PARAMS ? opscope_sq_str(b, params_json(x, r), &oom) : SQ_NONE;
    if (oom) return -1;
    b->n_shapes++;
    return ++x->n_shapes;
}

static bool shape_eq(const void *ctx, uint32_t id, const void *key) {
    const opscope_sqlite_export_t *x = ctx;
    const shape_ent *e = &x->sh.v[id];
    return e->len == *(const size_t *)key && !memcmp(x->arena + e->off, x->key, e->len);
}

static int64_t shape_id(opscope_sqlite_export_t *x, sq_batch *b, const opscope_record *r) {
    size_t len = shape_key(x, r);
    uint64_t h = opscope_hash_bytes(x->key, len);
    if (!x->sh_index.slots && opscope_hindex_init(&x->sh_index, 512)) return -1;
    uint32_t found = opscope_hindex_find(&x->sh_index, h, &len, shape_eq, x);
    if (found != OPSCOPE_HINDEX_NONE) return x->sh.v[found].id;
    if (x->sh.n >= MAX_SHAPES || x->arena_len + len > MAX_SHAPE_BYTES) return shape_new(x, b, r);
    if (opscope_vec_reserve((void **)&x->arena, &x->arena_cap, x->arena_len + len, 1, 65536) ||
        opscope_vec_reserve((void **)&x->sh.v, &x->sh.cap, x->sh.n + 1, sizeof *x->sh.v, 1024))
        return -1;
    int64_t id = shape_new(x, b, r);
    if (id < 0 || opscope_hindex_add(&x->sh_index, h, (uint32_t)x->sh.n)) return -1;
    memcpy(x->arena + x->arena_len, x->key, len);
    x->sh.v[x->sh.n++] = (shape_ent){.off = x->arena_len, .len = (uint32_t)len, .id = id};
    x->arena_len += len;
    return id;
}

/* ---- sink ---------------------------------------------------------------------------------- */

static int nomem(opscope_sqlite_export_t *x) {
    if (x->err.code == OPSCOPE_OK) set_err(&x->err, x->path, OPSCOPE_ERROR_NOMEM, "out of memory", ENOMEM);
    return -1;
}

/* The current batch is full (or must go): hand it over; a writer failure stops the read. */
static int submit(opscope_sqlite_export_t *x) {
    if (opscope_sq_writer_submit(&x->w) == 0) return 0;
    if (x->err.code == OPSCOPE_OK)
        db_err_codes(x, &x->err, x->w.fail_rc, x->w.fail_errno, "cannot write the SQLite database");
    return -1;
}

int opscope_sqlite_export_derived(void *ud, const opscope_record *r, opscope_derived *d) {
    opscope_sqlite_export_t *x = ud;
    if (x->err.code != OPSCOPE_OK) return -1;
    sq_batch *b = opscope_sq_writer_current(&x->w);
    int32_t sub_value;
    const char *sub = opscope_derived_sub_op(d, &sub_value);
    uint64_t flops = opscope_derived_flops(d);
    int64_t sid = shape_id(x, b, r);
    if (sid < 0) return nomem(x);
    const char *fused = opscope_derived_fused(d); /* the report's vocabulary: RMS_NORM+MUL */
    const char *op = opscope_derived_display(d, x->op, sizeof x->op);
    sq_rec *q = &b->recs[b->n_recs];
    bool oom = false;
    q->type = (uint8_t)r->type;
    q->name = opscope_sq_str(b, r->name, &oom);
    q->sub_op = opscope_sq_str(b, sub, &oom);
    q->extra = opscope_sq_str(b, fused, &oom);
    q->op = opscope_sq_str(b, op, &oom);
    q->tensor = opscope_sq_str(b, r->tensor_name, &oom);
    q->category = opscope_sq_str(b, r->category, &oom);
    if (oom) return nomem(x);
    q->has = r->has;
    q->sub_op_value = sub_value;
    q->backend_id = r->backend_id;
    q->split_id = r->split_id;
    q->graph_id = r->graph_id;
    q->node_index = r->node_index;
    q->n_fused = r->n_fused;
    q->thread_id = r->thread_id;
    q->start = r->start_ns;
    q->dur = r->duration_ns;
    q->host_start = r->host_start_ns;
    q->host_end = r->host_end_ns;
    q->bytes = r->bytes;
    q->flops = flops;
    q->shape_id = sid;
    b->n_recs++;
    x->n++;
    if (x->own_graphs && opscope_graphs_add(x->graphs, r, flops)) return nomem(x);
    return b->n_recs == SQ_BATCH_RECS ? submit(x) : 0;
}

static const char *device_type_name(opscope_device_type t) {
    switch (t) {
    case OPSCOPE_DEVICE_CPU: return "CPU";
    case OPSCOPE_DEVICE_GPU: return "GPU";
    case OPSCOPE_DEVICE_ACCEL: return "ACCEL";
    default: return "OTHER";
    }
}

static int on_backend(void *ud, const opscope_backend *k) {
    opscope_sqlite_export_t *x = ud;
    if (x->err.code != OPSCOPE_OK) return -1;
    sq_batch *b = opscope_sq_writer_current(&x->w);
    if (b->n_backends == b->cap_backends) {
        size_t cap = b->cap_backends ? b->cap_backends * 2 : 16;
        sq_backend *nb = realloc(b->backends, cap * sizeof *nb);
        if (!nb) return nomem(x);
        b->backends = nb;
        b->cap_backends = cap;
    }
    bool oom = false;
    sq_backend *q = &b->backends[b->n_backends];
    q->id = k->id;
    q->name = opscope_sq_str(b, k->name, &oom);
    q->device = opscope_sq_str(b, k->device, &oom);
    q->process = opscope_sq_str(b, k->process, &oom);
    q->device_type = device_type_name(k->device_type);
    if (oom) return nomem(x);
    b->n_backends++;
    return 0;
}

static int on_meta(void *ud, const opscope_meta *m) {
    opscope_sqlite_export_t *x = ud;
    char *p = strdup(m->profiler ? m->profiler : "");
    if (!p) return nomem(x);
    free(x->profiler);
    x->profiler = p;
    x->meta = *m;
    x->meta.profiler = x->profiler;
    x->meta.capture = NULL;
    return opscope_win_copy_take(&x->win, m->capture) ? nomem(x) : 0;
}

void opscope_sqlite_export_use_graphs(opscope_sqlite_export_t *x, opscope_graphs_t *g) {
    if (!g) return;
    if (x->own_graphs) opscope_graphs_free(x->graphs);
    x->graphs = g;
    x->own_graphs = false;
}

void opscope_sqlite_export_set_rpc(opscope_sqlite_export_t *x, opscope_rpc_t *rpc) {
    x->rpc = rpc;
}

OPSCOPE_DERIVED_ON_RECORD(on_record, opscope_sqlite_export_derived)

opscope_sink opscope_sqlite_export_sink(opscope_sqlite_export_t *x) {
    return opscope_record_sink(x, on_meta, on_backend, on_record);
}

const opscope_error *opscope_sqlite_export_error(const opscope_sqlite_export_t *x) { return &x->err; }

/* ---- life cycle ---------------------------------------------------------------------------- */

static void release(opscope_sqlite_export_t *x, bool remove_tmp) {
    opscope_sq_writer_free(&x->w);
    sqlite3_close(x->db);
    if (remove_tmp && x->tmp) unlink(x->tmp);
    free(x->path);
    free(x->tmp);
    free(x->source);
    free(x->profiler);
    opscope_win_copy_free(&x->win);
    if (x->own_graphs) opscope_graphs_free(x->graphs);
    free(x->sh.v);
    opscope_hindex_free(&x->sh_index);
    free(x->arena);
    free(x);
}

void opscope_sqlite_export_abort(opscope_sqlite_export_t *x) {
    if (x) release(x, true);
}

opscope_sqlite_export_t *opscope_sqlite_export_new(const char *path, const char *source,
                                                   opscope_error *err) {
    opscope_sqlite_export_t *x = calloc(1, sizeof *x);
    size_t n = strlen(path);
    if (x) {
        x->path = strdup(path);
        x->tmp = malloc(n + 16);
        x->source = source ? strdup(source) : NULL;
        x->graphs = opscope_graphs_new();
        x->own_graphs = true;
    }
    if (!x || !x->path || !x->tmp || (source && !x->source) || !x->graphs) {
        set_err(err, path, OPSCOPE_ERROR_NOMEM, "out of memory", ENOMEM);
        if (x) {
            free(x->tmp);
            x->tmp = NULL;
            release(x, false);
        }
        return NULL;
    }
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        set_err(err, path, OPSCOPE_ERROR_IO, "an SQLite database must go to a regular file", EINVAL);
        free(x->tmp);
        x->tmp = NULL;
        release(x, false);
        return NULL;
    }
    snprintf(x->tmp, n + 16, "%s.tmp.XXXXXX", path);
    int fd = mkostemp(x->tmp, O_CLOEXEC);
    if (fd < 0) {
        set_err(err, path, OPSCOPE_ERROR_IO, "cannot create output file", errno);
        free(x->tmp);
        x->tmp = NULL;
        release(x, false);
        return NULL;
    }
    /* mkostemp creates 0600; give the file the mode a plain fopen would */
    mode_t um = umask(0);
    umask(um);
    (void)fchmod(fd, 0666 & ~um);
    close(fd);
    /* NOMUTEX: one thread at a time uses the connection (sqlite_int.h), so SQLite's own
     * per-call locking would be pure cost */
    if (sqlite3_open_v2(x->tmp, &x->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
        if (!x->db) set_err(err, path, OPSCOPE_ERROR_NOMEM, "out of memory", ENOMEM);
        else db_err(x, err, "cannot create the SQLite database");
        release(x, true);
        return NULL;
    }
    /* A fresh private file renamed into place only on success: no journal, no fsync, one
     * writer. The page cache is capped, so memory stays bounded on any input; index builds
     * may sort on a second thread. */
    static const char pragmas[] = "PRAGMA page_size = 65536; PRAGMA journal_mode = OFF;"
                                  "PRAGMA synchronous = OFF; PRAGMA locking_mode = EXCLUSIVE;"
                                  "PRAGMA cache_size = -65536; PRAGMA temp_store = FILE;"
                                  "PRAGMA threads = 2;";
    if (exec(x, pragmas, err, "cannot set up the SQLite database") ||
        exec(x, "BEGIN", err, "cannot write the SQLite database") ||
        exec(x, opscope_sqlite_schema, err, "cannot write the SQLite database")) {
        release(x, true);
        return NULL;
    }
    if (opscope_sq_writer_start(&x->w, x->db)) {
        db_err(x, err, "cannot write the SQLite database");
        release(x, true);
        return NULL;
    }
    return x;
}

static int put_meta(sqlite3_stmt *s, const char *key, const char *text, int64_t num) {
    sqlite3_bind_text(s, 1, key, -1, SQLITE_STATIC);
    if (text) sqlite3_bind_text(s, 2, text, -1, SQLITE_STATIC);
    else sqlite3_bind_int64(s, 2, num);
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    return rc == SQLITE_DONE ? 0 : -1;
}

static int write_meta(opscope_sqlite_export_t *x) {
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(x->db, "INSERT INTO meta VALUES(?, ?)", -1, &s, NULL) != SQLITE_OK) return -1;
    const opscope_meta *m = &x->meta;
    int rc = put_meta(s, "generator", "opscope " OPSCOPE_VERSION_STRING, 0) ||
             put_meta(s, "schema_version", NULL, SQLITE_SCHEMA_VERSION) ||
             put_meta(s, "source", x->source ? x->source : "", 0) ||
             put_meta(s, "profiler", m->profiler ? m->profiler : "", 0) ||
             put_meta(s, "format_version", NULL, m->version) ||
             put_meta(s, "total_records", NULL, (int64_t)m->total_records) ||
             put_meta(s, "total_ns", NULL, (int64_t)m->total_ns) ||
             put_meta(s, "dropped_records", NULL, (int64_t)m->dropped_records) ||
             put_meta(s, "records", NULL, (int64_t)x->w.n_recs) ||
             put_meta(s, "windowed", NULL, x->win.info.windowed != 0);
    sqlite3_finalize(s);
    return rc ? -1 : 0;
}

static int write_graphs(opscope_sqlite_export_t *x) {
    if (opscope_graphs_finish(x->graphs)) return -1;
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(x->db, "INSERT INTO graphs VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?)", -1, &s, NULL) != SQLITE_OK)
        return -1;
    int rc = 0;
    for (size_t i = 0; i < opscope_graphs_n(x->graphs) && !rc; i++) {
        const opscope_graph_stats *g = opscope_graphs_at(x->graphs, i);
        sqlite3_bind_int64(s, 1, g->id);
        bind_u64(s, 2, g->n);
        bind_u64(s, 3, g->n_ops);
        bind_u64(s, 4, g->n_copies);
        bind_u64(s, 5, g->start_ns);
        bind_u64(s, 6, g->end_ns);
        bind_u64(s, 7, g->wall_ns); /* the union of its records, as graphs_by_batch */
        bind_u64(s, 8, g->op_ns);
        bind_u64(s, 9, g->copy_ns);
        bind_u64(s, 10, g->bytes);
        bind_u64(s, 11, g->flops);
        sqlite3_bind_int64(s, 12, g->batch);
        sqlite3_bind_text(s, 13, opscope_graph_phase_name(g->phase), -1, SQLITE_STATIC);
        rc = sqlite3_step(s) == SQLITE_DONE ? 0 : -1;
        sqlite3_reset(s);
    }
    sqlite3_finalize(s);
    return rc;
}

/* Every row is in once the writer thread has stopped: it must stop before the connection is
 * used here again. */
static int drain(opscope_sqlite_export_t *x, opscope_error *err) {
    if (x->err.code != OPSCOPE_OK) {
        if (err) *err = x->err;
        return -1;
    }
    if (opscope_sq_writer_stop(&x->w)) {
        db_err_codes(x, err, x->w.fail_rc, x->w.fail_errno, "cannot write the SQLite database");
        return -1;
    }
    return 0;
}

int opscope_sqlite_export_kineto(opscope_sqlite_export_t *x, const opscope_kineto_t *k,
                                 opscope_error *err) {
    if (drain(x, err)) return -1;
    size_t n = 0;
    const opscope_kineto_link *lk = k ? opscope_kineto_links(k, &n) : NULL;
    if (!n) return 0;
    const opscope_strtab_t *names = opscope_kineto_names(k);
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(x->db, "INSERT INTO kineto_links VALUES(?,?,?,?,?,?,?,?)", -1, &s, NULL) !=
        SQLITE_OK) {
        db_err(x, err, "cannot write the SQLite database");
        return -1;
    }
    static const char *const how[] = {NULL, "enclosing", "external_id"};
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        const opscope_kineto_link *l = &lk[i];
        if (l->record == UINT64_MAX || l->record >= x->w.n_recs) continue; /* no record was emitted */
        bind_u64(s, 1, l->record + 1);
        if (l->corr >= 0) sqlite3_bind_int64(s, 2, l->corr);
        else sqlite3_bind_null(s, 2);
        bind_str(s, 3, l->launch_name != UINT32_MAX ? opscope_strtab_get(names, l->launch_name) : NULL);
        if (l->launch_ns >= 0) sqlite3_bind_int64(s, 4, l->launch_ns);
        else sqlite3_bind_null(s, 4);
        bind_str(s, 5, l->cpu_op != UINT32_MAX ? opscope_strtab_get(names, l->cpu_op) : NULL);
        bind_str(s, 6, l->cpu_link < 3 ? how[l->cpu_link] : NULL);
        bind_str(s, 7, l->python != UINT32_MAX ? opscope_strtab_get(names, l->python) : NULL);
        sqlite3_bind_text(s, 8, opscope_kineto_phase_name(l->phase), -1, SQLITE_STATIC);
        rc = sqlite3_step(s) == SQLITE_DONE ? 0 : -1;
        sqlite3_reset(s);
    }
    sqlite3_finalize(s);
    if (rc) db_err(x, err, "cannot write the SQLite database");
    return rc;
}

int opscope_sqlite_export_finish(opscope_sqlite_export_t *x, opscope_error *err) {
    if (drain(x, err)) {
        release(x, true);
        return -1;
    }
    if (x->rpc && opscope_rpc_finish(x->rpc)) {
        set_err(err, x->path, OPSCOPE_ERROR_NOMEM, "out of memory", ENOMEM);
        release(x, true);
        return -1;
    }
    if (write_graphs(x) || write_meta(x) || (x->rpc && opscope_sq_write_rpc(x->db, x->rpc)) ||
        opscope_sq_write_windows(x->db, &x->win.info, x->graphs)) {
        db_err(x, err, "cannot write the SQLite database");
        release(x, true);
        return -1;
    }
    if (exec(x, opscope_sqlite_finish_sql, err, "cannot write the SQLite database") ||
        exec(x, "COMMIT", err, "cannot write the SQLite database")) {
        release(x, true);
        return -1;
    }
    opscope_sq_writer_free(&x->w); /* the statements must go before the connection closes */
    if (sqlite3_close(x->db) != SQLITE_OK) {
        db_err(x, err, "cannot close the SQLite database");
        release(x, true);
        return -1;
    }
    x->db = NULL;
    if (rename(x->tmp, x->path) != 0) {
        set_err(err, x->path, OPSCOPE_ERROR_IO, "cannot rename the output into place", errno);
        release(x, true);
        return -1;
    }
    release(x, false);
    return 0;
}
