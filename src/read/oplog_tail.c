/* oplog_tail.c - the record log read as it grows (see oplog_tail.h). */
#include "read/oplog_tail.h"

#include "model/oplog_backend.h"
#include "model/oplog_dec.h"
#include "model/oplog_rec.h"
#include "util/oplog.h"
#include "util/vec.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A template's own bytes: the records of later chunks name it after its chunk is gone. */
typedef struct tmpl_copy {
    unsigned char *bytes;
    size_t len;
} tmpl_copy;

struct opscope_oplog_tail {
    char *path;
    int fd;
    dev_t dev;
    ino_t ino;
    uint64_t off;            /* the next chunk's offset (0: the file header not read yet) */
    OPSCOPE_VEC(tmpl_copy) tmpls;
    OPSCOPE_VEC(unsigned char) buf; /* one chunk, header and payload */
    opscope_run_seq *seqs;
    opscope_capture_info cap;
    char program[256];
    opscope_oplog_tail_status st;
    bool replaced;
};

static int fail(opscope_oplog_tail_t *t, opscope_error *err, opscope_error_code code, const char *msg,
                uint64_t pos) {
    if (err) {
        memset(err, 0, sizeof *err);
        err->code = code;
        err->msg = msg;
        err->pos = pos;
        err->errno_value = code == OPSCOPE_ERROR_IO ? errno : 0;
        snprintf(err->file, sizeof err->file, "%s", t->path);
    }
    return -1;
}

opscope_oplog_tail_t *opscope_oplog_tail_new(const char *path) {
    opscope_oplog_tail_t *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->path = strdup(path ? path : "");
    t->seqs = malloc(OPSCOPE_OPLOG_DEC_MAX_SEQS * sizeof *t->seqs);
    if (!t->path || !t->seqs) {
        opscope_oplog_tail_free(t);
        return NULL;
    }
    t->fd = -1;
    return t;
}

void opscope_oplog_tail_free(opscope_oplog_tail_t *t) {
    if (!t) return;
    if (t->fd >= 0) close(t->fd);
    for (size_t i = 0; i < t->tmpls.n; i++) free(t->tmpls.v[i].bytes);
    free(t->tmpls.v);
    free(t->buf.v);
    free(t->seqs);
    free(t->path);
    free(t);
}

/* Opens the path when not open yet and reads the file header. 0 (open, or WAITING / NOT_LOG
 * said in the status), -1 on a read error. */
static int open_log(opscope_oplog_tail_t *t, opscope_error *err) {
    if (t->fd >= 0) return 0;
    int fd = open(t->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT) return 0; /* WAITING: the capture renames the log in place later */
        return fail(t, err, OPSCOPE_ERROR_IO, "cannot open the record log", 0);
    }
    unsigned char head[OPSCOPE_OPLOG_HEAD];
    ssize_t n = pread(fd, head, sizeof head, 0);
    struct stat sb;
    if (n < 0 || fstat(fd, &sb) != 0) {
        close(fd);
        return fail(t, err, OPSCOPE_ERROR_IO, "cannot read the record log", 0);
    }
    if (n < (ssize_t)sizeof head) { /* empty or its header being written: WAITING */
        close(fd);
        if (memcmp(head, OPSCOPE_OPLOG_MAGIC, (size_t)n < 8 ? (size_t)n : 8) != 0)
            t->st.state = OPSCOPE_OPLOG_TAIL_NOT_LOG; /* a short file of something else */
        return 0;
    }
    if (!opscope_oplog_is_log(head, sizeof head)) {
        close(fd);
        t->st.state = OPSCOPE_OPLOG_TAIL_NOT_LOG;
        return 0;
    }
    t->fd = fd;
    t->dev = sb.st_dev;
    t->ino = sb.st_ino;
    t->off = OPSCOPE_OPLOG_HEAD;
    t->st.state = OPSCOPE_OPLOG_TAIL_GROWING;
    return 0;
}

/* The chunk at t->off into t->buf. 1: read (*TYPE, *P, *LEN set), 0: none whole yet, -1: error. */
static int next_chunk(opscope_oplog_tail_t *t, uint32_t *type, const unsigned char **p, uint32_t *len,
                      opscope_error *err) {
    unsigned char h[OPSCOPE_OPLOG_CHUNK_HEAD];
    ssize_t n = pread(t->fd, h, sizeof h, (off_t)t->off);
    if (n < 0) return fail(t, err, OPSCOPE_ERROR_IO, "cannot read the record log", t->off);
    if (n < (ssize_t)sizeof h) return 0;
    uint32_t plen = (uint32_t)h[8] | (uint32_t)h[9] << 8 | (uint32_t)h[10] << 16 | (uint32_t)h[11] << 24;
    if (memcmp(h, "OPCK", 4) != 0 || plen > OPSCOPE_OPLOG_MAX_CHUNK) return 0; /* cut or damaged */
    size_t whole = sizeof h + plen;
    if (opscope_vec_reserve((void **)&t->buf.v, &t->buf.cap, whole, 1, 4096))
        return fail(t, err, OPSCOPE_ERROR_NOMEM, "out of memory", t->off);
    n = pread(t->fd, t->buf.v, whole, (off_t)t->off);
    if (n < 0) return fail(t, err, OPSCOPE_ERROR_IO, "cannot read the record log", t->off);
    if ((size_t)n < whole) return 0; /* the rest is not written yet */
    return opscope_oplog_chunk_at(t->buf.v, whole, 0, type, p, len) ? 1 : 0;
}

static int take_meta(opscope_oplog_tail_t *t, opscope_oplog_cur *c, const opscope_oplog_tail_cb *cb) {
    opscope_capture_info *k = &t->cap;
    memset(k, 0, sizeof *k);
    for (int i = 0; i < 4; i++) { /* host, program, clock, boot id: the program kept */
        const char *s = opscope_oplog_get_cstr(c);
        if (i == 1) snprintf(t->program, sizeof t->program, "%s", s ? s : "");
    }
    k->program = t->program;
    k->pid = opscope_oplog_get_i(c);
    k->time_ns = opscope_oplog_get_u(c);
    k->realtime_offset_ns = opscope_oplog_get_i(c);
    k->start_ns = opscope_oplog_get_u(c);
    k->has = (uint32_t)opscope_oplog_get_u(c);
    if (c->bad) return -1;
    return cb->on_capture && cb->on_capture(cb->ud, k) ? -3 : 0;
}

static int take_backend(opscope_oplog_cur *c, const opscope_oplog_tail_cb *cb) {
    opscope_backend b;
    if (opscope_oplog_get_backend(c, &b)) return -1;
    return cb->on_backend && cb->on_backend(cb->ud, &b) ? -3 : 0;
}

/* A RECORDS chunk's templates: copied (0, -1 damage, -2 out of memory). */
static int take_tmpls(opscope_oplog_tail_t *t, opscope_oplog_cur *c, uint64_t n_tmpl) {
    opscope_record scratch;
    for (uint64_t k = 0; k < n_tmpl; k++) {
        uint64_t id = opscope_oplog_get_u(c);
        const unsigned char *p = c->p;
        if (c->bad || id >= UINT32_MAX || id > t->tmpls.n + (uint64_t)(c->end - c->p) ||
            opscope_oplog_get_tmpl(c, &scratch))
            return -1;
        if (id >= t->tmpls.n) {
            if (opscope_vec_reserve((void **)&t->tmpls.v, &t->tmpls.cap, (size_t)id + 1, sizeof *t->tmpls.v, 256))
                return -2;
            memset(t->tmpls.v + t->tmpls.n, 0, ((size_t)id + 1 - t->tmpls.n) * sizeof *t->tmpls.v);
            t->tmpls.n = (size_t)id + 1;
        }
        size_t len = (size_t)(c->p - p);
        unsigned char *copy = malloc(len);
        if (!copy) return -2;
        memcpy(copy, p, len);
        free(t->tmpls.v[id].bytes);
        t->tmpls.v[id] = (tmpl_copy){copy, len};
    }
    return 0;
}

/* A RECORDS chunk: its records handed on in chunk order. 0, -1 damage, -2 no memory, -3 stop. */
static int take_records(opscope_oplog_tail_t *t, opscope_oplog_cur *c, const opscope_oplog_tail_cb *cb) {
    uint64_t n = opscope_oplog_get_u(c);
    (void)opscope_oplog_get_u(c); /* the chunk's summed duration: the records say it again */
    uint64_t n_tmpl = opscope_oplog_get_u(c);
    int rc = take_tmpls(t, c, n_tmpl);
    if (rc) return rc;
    opscope_oplog_state st = {0};
    for (uint64_t i = 0; i < n; i++) {
        unsigned parts;
        uint32_t id = opscope_oplog_get_inst_tmpl(c, &parts);
        if (c->bad || id >= t->tmpls.n || !t->tmpls.v[id].bytes) return -1;
        opscope_record rec;
        opscope_oplog_cur tc = {t->tmpls.v[id].bytes, t->tmpls.v[id].bytes + t->tmpls.v[id].len, false};
        if (opscope_oplog_get_tmpl(&tc, &rec)) return -1;
        if (rec.has & OPSCOPE_HAS_GRAPH) parts |= OPSCOPE_OPLOG_INST_GRAPH;
        /* per-thread times are passed over: the live view shows no thread figures */
        if (rec.has & OPSCOPE_HAS_THREADS) parts |= OPSCOPE_OPLOG_INST_THREADS;
        rec.has &= ~(uint32_t)OPSCOPE_HAS_THREADS;
        opscope_oplog_inst in;
        opscope_oplog_get_inst_rest(c, &st, parts, &in);
        if (c->bad) return -1;
        if (rec.has & OPSCOPE_HAS_GRAPH) rec.graph_id = in.graph;
        rec.start_ns = in.start_ns;
        rec.duration_ns = in.duration_ns;
        rec.host_start_ns = in.host_start_ns;
        rec.host_end_ns = in.host_end_ns;
        t->st.records++;
        if (cb->on_record && cb->on_record(cb->ud, &rec, id)) return -3;
    }
    return 0;
}

/* A DECODES chunk: its calls handed on in call order, each with its wiped mark (the marks come
 * after the calls: a first pass finds them). 0, -1 damage, -2 no memory, -3 stop. */
static int take_decodes(opscope_oplog_tail_t *t, opscope_oplog_cur *c, const opscope_oplog_tail_cb *cb) {
    (void)opscope_oplog_get_u(c); /* calls lost so far */
    uint64_t n = opscope_oplog_get_count(c);
    if (c->bad) return -1;
    opscope_oplog_cur calls = *c;
    opscope_run_decode d;
    for (uint64_t i = 0; i < n; i++)
        if (opscope_oplog_get_decode(c, &d, t->seqs)) return -1;
    uint8_t *wiped = n ? calloc((size_t)n, 1) : NULL;
    if (n && !wiped) return -2;
    uint64_t marks = c->p < c->end ? opscope_oplog_get_u(c) : 0; /* a chunk before the marks: none */
    for (uint64_t i = 0; i < marks && !c->bad; i++) {
        uint64_t k = opscope_oplog_get_u(c);
        if (k < n) wiped[k] = 1;
        else c->bad = true;
    }
    int rc = c->bad ? -1 : 0;
    for (uint64_t i = 0; i < n && !rc; i++) {
        if (opscope_oplog_get_decode(&calls, &d, t->seqs)) rc = -1;
        else if ((d.wiped = wiped[i]), cb->on_decode && cb->on_decode(cb->ud, &d)) rc = -3;
    }
    free(wiped);
    return rc;
}

static int take_end(opscope_oplog_tail_t *t, opscope_oplog_cur *c) {
    const char *how = opscope_oplog_get_cstr(c);
    if (c->bad || !how) return -1;
    snprintf(t->st.end, sizeof t->st.end, "%s", how);
    return 0;
}

static int take_chunk(opscope_oplog_tail_t *t, uint32_t type, opscope_oplog_cur *c, const opscope_oplog_tail_cb *cb) {
    switch (type) {
    case OPSCOPE_OPLOG_META: return take_meta(t, c, cb);
    case OPSCOPE_OPLOG_BACKEND: return take_backend(c, cb);
    case OPSCOPE_OPLOG_RECORDS: return take_records(t, c, cb);
    case OPSCOPE_OPLOG_DECODES: return take_decodes(t, c, cb);
    case OPSCOPE_OPLOG_END: return take_end(t, c);
    default: return 0; /* drops, what ran, a later version's chunk: not a live figure */
    }
}

/* Has another file taken the path (the profile, at the program's end)? Asked before the
 * chunks are read: the capture renames the profile over the log after its last append, so a
 * read after a "yes" reaches the log's end through the descriptor still open on it. */
static bool path_moved(const opscope_oplog_tail_t *t) {
    struct stat sb;
    return stat(t->path, &sb) != 0 || sb.st_dev != t->dev || sb.st_ino != t->ino;
}

int opscope_oplog_tail_poll(opscope_oplog_tail_t *t, const opscope_oplog_tail_cb *cb,
                            opscope_oplog_tail_status *st, opscope_error *err) {
    static const opscope_oplog_tail_cb none = {0};
    if (!cb) cb = &none;
    int rc = t->replaced ? 0 : open_log(t, err);
    bool moved = rc == 0 && t->fd >= 0 && !t->replaced && path_moved(t);
    while (rc == 0 && t->fd >= 0 && !t->replaced) {
        uint32_t type, len;
        const unsigned char *p;
        int got = next_chunk(t, &type, &p, &len, err);
        if (got < 0) rc = -1;
        if (got <= 0) break;
        opscope_oplog_cur c = {p, p + len, false};
        int tr = take_chunk(t, type, &c, cb);
        if (tr == -2) rc = fail(t, err, OPSCOPE_ERROR_NOMEM, "out of memory", t->off);
        else if (tr == -3) rc = fail(t, err, OPSCOPE_ERROR_ABORTED, "the consumer stopped the reader", t->off);
        else if (tr) rc = fail(t, err, OPSCOPE_ERROR_SCHEMA, "damaged chunk in the record log", t->off);
        if (rc) break;
        t->off += OPSCOPE_OPLOG_CHUNK_HEAD + len;
        t->st.chunks++;
    }
    if (rc == 0 && moved) {
        t->replaced = true;
        t->st.state = OPSCOPE_OPLOG_TAIL_REPLACED;
    }
    t->st.offset = t->off;
    if (st) *st = t->st;
    return rc;
}
