/* oplog_read.c - the record log's reader (see readers.h, opscope_oplog_read). */
#include "read/readers.h"

#include "model/oplog_backend.h"
#include "model/oplog_dec.h"
#include "model/oplog_rec.h"
#include "model/oplog_run.h"
#include "model/oplog_win.h"
#include "model/run_info.h"
#include "util/heap.h"
#include "util/oplog.h"
#include "util/vec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct tmpl_ref {
    const unsigned char *p, *end; /* its bytes (to the end of its chunk's payload) */
    uint32_t has;
} tmpl_ref;

/* One RECORDS chunk being merged: its instances, the one in front decoded. */
typedef struct run {
    opscope_oplog_cur c;
    opscope_oplog_state st;
    uint64_t left;
    opscope_oplog_inst front;
    const unsigned char *front_at; /* where front's bytes begin, for its errors */
    uint32_t index; /* the chunk's order in the file: ties keep file order */
} run;

typedef struct olr {
    const unsigned char *data;
    size_t size;
    const char *name;
    const opscope_sink *sink;
    opscope_error *err;
    OPSCOPE_VEC(tmpl_ref) tmpls;
    OPSCOPE_VEC(run) runs;
    OPSCOPE_VEC(opscope_backend) backends;
    OPSCOPE_VEC(uint32_t) heap;
    opscope_meta meta;
    opscope_capture_info cap;
    opscope_run_t *run;     /* the last RUN chunk's (NULL: none) */
    opscope_run_t *dec;     /* libllama's batches from DECODES chunks (NULL: none) */
    opscope_run_seq *seqs;  /* a call's sequences while it is read */
    opscope_oplog_win win;  /* the last WINDOWS chunk's (texts borrowed from the data) */
    bool has_cap, has_end;
    uint64_t delivered;
    uint64_t weighted_ns; /* the durations times their weights: at most OPSCOPE_READ_MAX_TOTAL_NS */
    uint32_t thr[2 * OPSCOPE_MAX_THREADS]; /* the delivered record's per-thread times */
    int32_t thr_cpu[OPSCOPE_MAX_THREADS];  /* and their CPUs */
} olr;

/* A chunk reader's result when it set the error itself (a value beyond any real run). */
enum { OLR_SAID = -3 };

static int fail(olr *r, opscope_error_code code, const char *msg, const unsigned char *at) {
    if (r->err) {
        memset(r->err, 0, sizeof *r->err);
        r->err->code = code;
        r->err->msg = msg;
        r->err->pos = at ? (uint64_t)(at - r->data) : 0;
        snprintf(r->err->file, sizeof r->err->file, "%s", r->name);
    }
    return -1;
}

/* Time T, read at AT, within a real run (readers.h): 0, else OLR_SAID with MSG there. */
static int time_ok(olr *r, uint64_t t, const char *msg, const unsigned char *at) {
    if (t <= OPSCOPE_READ_MAX_TIME_NS) return 0;
    fail(r, OPSCOPE_ERROR_RANGE, msg, at);
    return OLR_SAID;
}

static int read_meta(olr *r, opscope_oplog_cur *c) {
    opscope_capture_info *k = &r->cap;
    const char *end = k->end, *sig = k->end_signal;
    uint64_t end_ns = k->end_ns, died = k->died_ns;
    memset(k, 0, sizeof *k);
    k->host = opscope_oplog_get_cstr(c);
    k->program = opscope_oplog_get_cstr(c);
    k->clock = opscope_oplog_get_cstr(c);
    k->boot_id = opscope_oplog_get_cstr(c);
    k->pid = opscope_oplog_get_i(c);
    k->time_ns = opscope_oplog_get_u(c);
    const unsigned char *rt_at = c->p;
    k->realtime_offset_ns = opscope_oplog_get_i(c);
    const unsigned char *start_at = c->p;
    k->start_ns = opscope_oplog_get_u(c);
    k->has = (uint32_t)opscope_oplog_get_u(c);
    k->end = end;
    k->end_signal = sig;
    k->end_ns = end_ns;
    k->died_ns = died;
    r->has_cap = true;
    if (c->bad) return -1;
    /* a signed difference of two clocks: bounded either way from 0 */
    uint64_t rt = k->realtime_offset_ns < 0 ? 0 - (uint64_t)k->realtime_offset_ns : (uint64_t)k->realtime_offset_ns;
    int rc = time_ok(r, rt, OPSCOPE_READ_TIME_MSG("capture.realtime_offset_ns"), rt_at);
    return rc ? rc : time_ok(r, k->start_ns, OPSCOPE_READ_TIME_MSG("capture.start_ns"), start_at);
}

static int read_backend(olr *r, opscope_oplog_cur *c) {
    opscope_backend b;
    if (opscope_oplog_get_backend(c, &b)) return -1;
    return OPSCOPE_VEC_PUSH(r->backends, b);
}

/* A RECORDS chunk: its templates are noted, its instances become a run. */
static int read_records(olr *r, opscope_oplog_cur *c, const unsigned char *at) {
    uint64_t n = opscope_oplog_get_u(c), total = opscope_oplog_get_u(c), n_tmpl = opscope_oplog_get_u(c);
    opscope_record scratch;
    for (uint64_t k = 0; k < n_tmpl && !c->bad; k++) {
        uint64_t id = opscope_oplog_get_u(c);
        const unsigned char *p = c->p;
        /* the writer numbers templates densely: an id past those defined so far plus one per
         * byte left is damage (and would make the table huge) */
        if (id >= UINT32_MAX || id > r->tmpls.n + (uint64_t)(c->end - c->p) ||
            opscope_oplog_get_tmpl(c, &scratch)) {
            return fail(r, OPSCOPE_ERROR_SCHEMA, "damaged record template in the record log", p);
        }
        if (id >= r->tmpls.n) {
            if (opscope_vec_reserve((void **)&r->tmpls.v, &r->tmpls.cap, (size_t)id + 1, sizeof *r->tmpls.v, 256))
                return fail(r, OPSCOPE_ERROR_NOMEM, "out of memory", at);
            memset(r->tmpls.v + r->tmpls.n, 0, ((size_t)id + 1 - r->tmpls.n) * sizeof *r->tmpls.v);
            r->tmpls.n = (size_t)id + 1;
        }
        r->tmpls.v[id] = (tmpl_ref){p, c->end, scratch.has};
    }
    if (c->bad) return fail(r, OPSCOPE_ERROR_SCHEMA, "damaged records chunk in the record log", at);
    r->meta.total_records += n;
    if (total > OPSCOPE_READ_MAX_TOTAL_NS || (r->meta.total_ns += total) > OPSCOPE_READ_MAX_TOTAL_NS)
        return fail(r, OPSCOPE_ERROR_RANGE, OPSCOPE_READ_TOTAL_MSG, at);
    if (n == 0) return 0;
    run ru = {.c = *c, .left = n, .index = (uint32_t)r->runs.n};
    return OPSCOPE_VEC_PUSH(r->runs, ru) ? fail(r, OPSCOPE_ERROR_NOMEM, "out of memory", at) : 0;
}

static int read_drops(olr *r, opscope_oplog_cur *c) {
    r->meta.dropped_records = opscope_oplog_get_u(c);
    r->meta.dropped_graphs = opscope_oplog_get_u(c);
    r->meta.dropped_first_graph = opscope_oplog_get_i(c);
    r->meta.dropped_last_graph = opscope_oplog_get_i(c);
    r->meta.capture_cap_mb = opscope_oplog_get_u(c);
    uint64_t cause = opscope_oplog_get_u(c);
    r->meta.dropped_cause = cause <= OPSCOPE_DROP_LOG_CAP ? (opscope_drop_cause)cause : OPSCOPE_DROP_UNKNOWN;
    return c->bad ? -1 : 0;
}

/* What ran: the last RUN chunk counts (the capture appends one when it changed). Returns 0,
 * -1 (damage), -2 (out of memory) or OLR_SAID (a time beyond any real run, at AT: the chunk). */
static int read_run(olr *r, opscope_oplog_cur *c, const unsigned char *at) {
    opscope_run_t *got = opscope_run_new();
    int rc = got ? opscope_oplog_get_run(c, got) : -2;
    const opscope_run_info *v = rc ? NULL : opscope_run_view(got);
    for (size_t i = 0; v && !rc && i < v->n_contexts; i++) { /* its times, at the chunk */
        const opscope_run_context *x = &v->contexts[i];
        rc = time_ok(r, x->end_ns, OPSCOPE_READ_TIME_MSG("a llama context's end_ns"), at);
        for (size_t k = 0; !rc && k < x->n_reps; k++)
            rc = time_ok(r, x->reps_ns[k], OPSCOPE_READ_TIME_MSG("a llama context's repetition"), at);
    }
    if (rc) {
        opscope_run_free(got);
        return rc;
    }
    opscope_run_free(r->run);
    r->run = got;
    return 0;
}

static int read_end(olr *r, opscope_oplog_cur *c) {
    r->cap.end = opscope_oplog_get_cstr(c);
    r->cap.end_signal = opscope_oplog_get_cstr(c);
    const unsigned char *end_at = c->p;
    r->cap.end_ns = opscope_oplog_get_u(c);
    const unsigned char *died_at = c->p;
    r->cap.died_ns = opscope_oplog_get_u(c);
    r->has_end = true;
    if (c->bad || !r->cap.end) return -1;
    int rc = time_ok(r, r->cap.end_ns, OPSCOPE_READ_TIME_MSG("capture.end.at_ns"), end_at);
    return rc ? rc : time_ok(r, r->cap.died_ns, OPSCOPE_READ_TIME_MSG("capture.end.died_ns"), died_at);
}

static int read_decodes(olr *r, opscope_oplog_cur *c) {
    if (!r->dec && !(r->dec = opscope_run_new())) return -2;
    if (!r->seqs && !(r->seqs = malloc(OPSCOPE_OPLOG_DEC_MAX_SEQS * sizeof *r->seqs))) return -2;
    uint64_t lost = opscope_oplog_get_u(c), n = opscope_oplog_get_u(c);
    if (c->bad) return -1;
    opscope_run_set_decodes_lost(r->dec, lost);
    for (uint64_t i = 0; i < n; i++) {
        opscope_run_decode d;
        const unsigned char *at = c->p;
        if (opscope_oplog_get_decode(c, &d, r->seqs)) return -1;
        int rc = time_ok(r, d.start_ns, OPSCOPE_READ_TIME_MSG("a decode's start_ns"), at);
        if (rc || (rc = time_ok(r, d.end_ns, OPSCOPE_READ_TIME_MSG("a decode's end_ns"), at))) return rc;
        if (opscope_run_add_decode(r->dec, &d)) return -2;
    }
    if (c->p == c->end) return 0; /* written before the wiped marks */
    size_t first = opscope_run_view(r->dec)->n_decodes - (size_t)n;
    uint64_t marks = opscope_oplog_get_u(c);
    for (uint64_t i = 0; i < marks && !c->bad; i++) {
        uint64_t k = opscope_oplog_get_u(c);
        if (k >= n) return -1;
        opscope_run_set_decode_wiped(r->dec, first + (size_t)k);
    }
    return c->bad ? -1 : 0;
}

/* Windows and marks: the last WINDOWS chunk counts (the capture appends the whole list when
 * it changed). Returns 0, -1 (damage), -2 (out of memory) or OLR_SAID (a time beyond any
 * real run, at AT: the chunk). */
static int read_win(olr *r, opscope_oplog_cur *c, const unsigned char *at) {
    int rc = opscope_oplog_get_win(c, &r->win);
    for (size_t i = 0; !rc && i < r->win.windows.n; i++) {
        rc = time_ok(r, r->win.windows.v[i].start_ns, OPSCOPE_READ_TIME_MSG("a window's start_ns"), at);
        if (!rc) rc = time_ok(r, r->win.windows.v[i].end_ns, OPSCOPE_READ_TIME_MSG("a window's end_ns"), at);
    }
    for (size_t i = 0; !rc && i < r->win.marks.n; i++)
        rc = time_ok(r, r->win.marks.v[i].ts_ns, OPSCOPE_READ_TIME_MSG("a mark's ts_ns"), at);
    if (rc) r->win.windows.n = r->win.marks.n = 0;
    return rc;
}

/* The DECODES chunks' calls join what the last RUN chunk says (a RUN chunk replaces the run
 * before it, the calls accumulate over chunks). Returns 0 or -1 (out of memory). */
static int take_decodes(olr *r) {
    if (!r->dec) return 0;
    if (!r->run) {
        r->run = r->dec;
        r->dec = NULL;
        return 0;
    }
    if (opscope_run_move_decodes(r->run, r->dec)) return -1;
    opscope_run_free(r->dec);
    r->dec = NULL;
    return 0;
}

/* Every chunk up to the first that is not whole (the end, or a write a crash cut). */
static int scan(olr *r) {
    size_t off = OPSCOPE_OPLOG_HEAD;
    for (;;) {
        uint32_t type, len;
        const unsigned char *p;
        size_t next = opscope_oplog_chunk_at(r->data, r->size, off, &type, &p, &len);
        if (!next) break;
        opscope_oplog_cur c = {p, p + len, false};
        int rc = 0;
        switch (type) {
        case OPSCOPE_OPLOG_META: rc = read_meta(r, &c); break;
        case OPSCOPE_OPLOG_BACKEND: rc = read_backend(r, &c); break;
        case OPSCOPE_OPLOG_RECORDS:
            if (read_records(r, &c, r->data + off)) return -1;
            break;
        case OPSCOPE_OPLOG_DROPS: rc = read_drops(r, &c); break;
        case OPSCOPE_OPLOG_END: rc = read_end(r, &c); break;
        case OPSCOPE_OPLOG_DECODES: rc = read_decodes(r, &c); break;
        case OPSCOPE_OPLOG_RUN: rc = read_run(r, &c, r->data + off); break;
        case OPSCOPE_OPLOG_WINDOWS: rc = read_win(r, &c, r->data + off); break;
        default: break; /* a chunk of a later version: skipped */
        }
        if (rc == OLR_SAID) return -1;
        if (rc == -2) return fail(r, OPSCOPE_ERROR_NOMEM, "out of memory", r->data + off);
        if (rc) return fail(r, OPSCOPE_ERROR_SCHEMA, "damaged chunk in the record log", r->data + off);
        off = next;
    }
    if (off < r->size) r->meta.truncated_at = off;
    return 0;
}

/* Which of F's values at AT is beyond any real run (run_next saw one past its bounds): -1 with
 * the error set, or 0 when none is (a time of exactly 2^62 ns). */
static int beyond(olr *r, const opscope_oplog_inst *f, const unsigned char *at) {
    if (time_ok(r, f->start_ns, OPSCOPE_READ_TIME_MSG("start_ns"), at) ||
        time_ok(r, f->host_start_ns, OPSCOPE_READ_TIME_MSG("host_start_ns"), at) ||
        time_ok(r, f->host_end_ns, OPSCOPE_READ_TIME_MSG("host_end_ns"), at) ||
        time_ok(r, f->key, OPSCOPE_READ_TIME_MSG("a record's order key (its host start)"), at) ||
        time_ok(r, f->key_end, OPSCOPE_READ_TIME_MSG("a record's order key's end"), at))
        return -1;
    if (f->duration_ns > OPSCOPE_READ_MAX_DURATION_NS)
        return fail(r, OPSCOPE_ERROR_RANGE, OPSCOPE_READ_DURATION_MSG("duration_ns"), at);
    return 0;
}

/* Decodes RU's next instance into front: 0, 1 when a value may be beyond any real run (the
 * caller asks beyond()), or -1 with the error set. */
static int run_next(olr *r, run *ru) {
    unsigned parts;
    const unsigned char *at = ru->c.p;
    uint32_t id = opscope_oplog_get_inst_tmpl(&ru->c, &parts);
    if (ru->c.bad || id >= r->tmpls.n || !r->tmpls.v[id].p)
        return fail(r, OPSCOPE_ERROR_SCHEMA, "record of an undefined template in the record log", at);
    if (r->tmpls.v[id].has & OPSCOPE_HAS_GRAPH) parts |= OPSCOPE_OPLOG_INST_GRAPH;
    if (r->tmpls.v[id].has & OPSCOPE_HAS_THREADS) parts |= OPSCOPE_OPLOG_INST_THREADS;
    opscope_oplog_get_inst_rest(&ru->c, &ru->st, parts, &ru->front);
    ru->front.tmpl = id;
    ru->front_at = at;
    if (ru->c.bad) return fail(r, OPSCOPE_ERROR_SCHEMA, "damaged record in the record log", at);
    ru->left--;
    const opscope_oplog_inst *f = &ru->front;
    /* times and duration within a real run (readers.h): one test per record (a host-timed
     * one's times are its key and key end), the field named only when it fails */
    uint64_t any = f->key | f->key_end;
    if (parts & OPSCOPE_OPLOG_INST_EXT) any |= f->start_ns | f->host_start_ns | f->host_end_ns;
    return (int)((any >> 62) | (f->duration_ns > OPSCOPE_READ_MAX_DURATION_NS)); /* 1: beyond() says */
}

/* run_next, and beyond() when it saw a value past its bounds (out of run_next: its registers
 * stay few). 0 or -1. */
static inline int run_step(olr *r, run *ru) {
    int rc = run_next(r, ru);
    return rc > 0 ? beyond(r, &ru->front, ru->front_at) : rc;
}

/* The heap of runs (by index): by the front's key, key end, then file order. */
static inline bool before(const olr *r, const uint32_t *a, const uint32_t *b) {
    const run *x = &r->runs.v[*a], *y = &r->runs.v[*b];
    if (x->front.key != y->front.key) return x->front.key < y->front.key;
    if (x->front.key_end != y->front.key_end) return x->front.key_end < y->front.key_end;
    return x->index < y->index;
}
OPSCOPE_HEAP_DEFINE(run_heap, uint32_t, const olr *, before)

static int emit(olr *r, const run *ru) {
    opscope_record rec;
    const tmpl_ref *t = &r->tmpls.v[ru->front.tmpl];
    opscope_oplog_cur c = {t->p, t->end, false};
    if (opscope_oplog_get_tmpl(&c, &rec)) return fail(r, OPSCOPE_ERROR_SCHEMA, "damaged record template", t->p);
    const opscope_oplog_inst *in = &ru->front;
    /* the sums never wrap (readers.h), as in the JSON reader; run_next checked the duration */
    if (rec.weight > 1 && in->duration_ns > OPSCOPE_READ_MAX_DURATION_NS / rec.weight)
        return fail(r, OPSCOPE_ERROR_RANGE, OPSCOPE_READ_DURATION_MSG("duration_ns times weight"), ru->front_at);
    r->weighted_ns += in->duration_ns * (rec.weight > 1 ? rec.weight : 1);
    if (r->weighted_ns > OPSCOPE_READ_MAX_TOTAL_NS)
        return fail(r, OPSCOPE_ERROR_RANGE,
                    OPSCOPE_READ_TOTAL_MSG, ru->front_at);
    if (rec.has & OPSCOPE_HAS_GRAPH) rec.graph_id = in->graph;
    rec.start_ns = in->start_ns;
    rec.duration_ns = in->duration_ns;
    rec.host_start_ns = in->host_start_ns;
    rec.host_end_ns = in->host_end_ns;
    if (rec.has & OPSCOPE_HAS_THREADS) {
        int nt = opscope_oplog_get_threads(in->thr_at, ru->c.end, r->thr, r->thr_cpu);
        if (nt < 0) return fail(r, OPSCOPE_ERROR_SCHEMA, "damaged per-thread times in the record log", in->thr_at);
        rec.threads = r->thr;
        rec.n_threads = nt;
        rec.thread_cpus = r->thr_cpu;
    }
    r->delivered++;
    if (r->sink->on_record && r->sink->on_record(r->sink->ud, &rec))
        return fail(r, OPSCOPE_ERROR_ABORTED, "the consumer stopped the reader", r->data);
    return 0;
}

/* The runs merged by start (each run is sorted: the capture sorted each flush). */
static int merge(olr *r) {
    if (opscope_vec_reserve((void **)&r->heap.v, &r->heap.cap, r->runs.n, sizeof *r->heap.v, 16))
        return fail(r, OPSCOPE_ERROR_NOMEM, "out of memory", r->data);
    for (size_t i = 0; i < r->runs.n; i++) {
        if (run_step(r, &r->runs.v[i])) return -1;
        r->heap.v[r->heap.n++] = (uint32_t)i;
    }
    run_heap_build(r->heap.v, r->heap.n, r);
    while (r->heap.n) {
        run *ru = &r->runs.v[r->heap.v[0]];
        if (emit(r, ru)) return -1;
        if (ru->left) {
            if (run_step(r, ru)) return -1;
            run_heap_sift_down(r->heap.v, r->heap.n, 0, r);
        } else {
            run_heap_pop(r->heap.v, &r->heap.n, r);
        }
    }
    return 0;
}

static void copy_str(char *dst, size_t size, const char *s) {
    snprintf(dst, size, "%s", s ? s : "");
}

static int deliver(olr *r) {
    const opscope_sink *s = r->sink;
    r->meta.profiler = "opscope";
    r->meta.version = 3;
    if (r->has_cap && take_decodes(r)) return fail(r, OPSCOPE_ERROR_NOMEM, "out of memory", r->data);
    if (r->has_cap) {
        r->cap.run = opscope_run_view(r->run);
        r->cap.windowed = r->win.windowed;
        r->cap.n_windows = r->win.windows.n;
        r->cap.windows = r->win.windows.n ? r->win.windows.v : NULL;
        r->cap.n_marks = r->win.marks.n;
        r->cap.marks = r->win.marks.n ? r->win.marks.v : NULL;
    }
    r->meta.capture = r->has_cap ? &r->cap : NULL;
    if (s->on_meta && s->on_meta(s->ud, &r->meta))
        return fail(r, OPSCOPE_ERROR_ABORTED, "the consumer stopped the reader", r->data);
    for (size_t i = 0; i < r->backends.n; i++) {
        if (s->on_backend && s->on_backend(s->ud, &r->backends.v[i]))
            return fail(r, OPSCOPE_ERROR_ABORTED, "the consumer stopped the reader", r->data);
    }
    if (merge(r)) return -1;
    if (s->on_end && s->on_end(s->ud))
        return fail(r, OPSCOPE_ERROR_ABORTED, "the consumer stopped the reader", r->data);
    return 0;
}

int opscope_oplog_read(const void *data, size_t size, const char *name, const opscope_sink *sink,
                       opscope_read_status *status, opscope_error *err) {
    static const opscope_sink none = {0};
    olr r;
    memset(&r, 0, sizeof r);
    r.data = data;
    r.size = size;
    r.name = name ? name : "";
    r.sink = sink ? sink : &none;
    r.err = err;
    int rc = opscope_oplog_is_log(data, size) ? 0 : fail(&r, OPSCOPE_ERROR_FORMAT, "not a record log", data);
    if (rc == 0) rc = scan(&r);
    if (rc == 0) rc = deliver(&r);
    if (rc == 0 && status) {
        memset(status, 0, sizeof *status);
        status->truncated_at = r.meta.truncated_at;
        status->records = r.delivered;
        if (r.has_cap) {
            copy_str(status->program, sizeof status->program, r.cap.program);
            copy_str(status->end, sizeof status->end, r.cap.end);
            copy_str(status->end_signal, sizeof status->end_signal, r.cap.end_signal);
            status->end_ns = r.cap.end_ns;
            status->died_ns = r.cap.died_ns;
        }
    }
    free(r.tmpls.v);
    free(r.runs.v);
    free(r.backends.v);
    free(r.heap.v);
    opscope_run_free(r.run);
    opscope_run_free(r.dec);
    free(r.seqs);
    opscope_oplog_win_free(&r.win);
    return rc;
}
