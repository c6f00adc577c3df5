/* ktrace_out.c - the trace written back with counter tracks (see ktrace_out.h). */
#include "export/kineto/ktrace_out.h"

#include "analyze/kineto/kmembw.h"
#include "analyze/kineto/kqueue.h"
#include "analyze/kineto/kstats.h"
#include "util/out.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

typedef struct ktrace_output {
    opscope_out_t *w;
    const char *path, *source;
} ktrace_output;

/* Where a byte of the trace is: a small JSON scanner that finds the end of the event array
 * (the value of the top object's "traceEvents", or the top array itself) without keeping it. */
typedef struct scan {
    int depth;          /* nesting depth after the bytes so far */
    bool in_str, esc;
    char last;          /* the last significant byte outside strings */
    int target;         /* depth inside the event array: 0 not yet found, -1 closed */
    bool any;           /* the array has an element */
    bool want_arr;      /* "traceEvents": seen as a key of the top object, value next */
    char key[12];       /* the top object's key being read (its first 12 bytes) */
    size_t klen;
    bool in_key;
} scan;

static void set_err(opscope_error *err, opscope_error_code code, const char *msg, const char *file, uint64_t pos) {
    memset(err, 0, sizeof *err);
    err->code = code;
    err->msg = msg;
    err->pos = pos;
    if (file) snprintf(err->file, sizeof err->file, "%s", file);
}

static void put_sep(opscope_out_t *w, bool *first) {
    opscope_out_str(w, *first ? "\n" : ",\n");
    *first = false;
}

/* The queue counter events of one stream's changes: the length after each (the event's text
 * up to its time made once per stream). */
static void queue_events(opscope_out_t *w, const opscope_kqueue_stream *st, int out, const char *name, bool *first) {
    char head[192], mid[96];
    snprintf(head, sizeof head, "{\"ph\":\"C\",\"name\":\"%s\",\"pid\":%" PRId64 ",\"id\":%" PRId64 ",\"ts\":", name,
             st->device, st->stream);
    snprintf(mid, sizeof mid, ",\"args\":{\"%s\":", name);
    int64_t v = 0;
    for (size_t i = 0; i < st->n_keys[out]; i++) {
        int64_t key = st->keys[out][i], t = opscope_kqueue_key_time(key);
        v += opscope_kqueue_key_up(key) ? 1 : -1;
        put_sep(w, first);
        opscope_out_str(w, head);
        if (t < 0) opscope_out_char(w, '-');
        opscope_out_ns_as_us(w, (uint64_t)(t < 0 ? -t : t));
        opscope_out_str(w, mid);
        opscope_out_i64(w, v);
        opscope_out_str(w, "}}");
    }
}

/* Every counter event, each after a separator (the first after FIRST's). */
static void counter_events(opscope_out_t *w, const opscope_kineto_t *k, bool first) {
    size_t nq, nm;
    const opscope_kqueue_stream *q = opscope_kqueue_streams(opscope_kstats_queue(opscope_kineto_kstats(k)), &nq);
    for (size_t i = 0; i < nq; i++) queue_events(w, &q[i], OPSCOPE_KQUEUE_OUT_START, "Queue Length", &first);
    for (size_t i = 0; i < nq; i++)
        queue_events(w, &q[i], OPSCOPE_KQUEUE_OUT_END, "Queue Length (out at end)", &first);
    const opscope_kmembw_kind *m = opscope_kmembw_kinds(opscope_kineto_kmembw(k), &nm);
    for (size_t i = 0; i < nm; i++)
        for (size_t p = 0; p < m[i].n_pts; p++) {
            const opscope_kmembw_point *pt = &m[i].pts[p];
            put_sep(w, &first);
            opscope_out_str(w, "{\"ph\":\"C\",\"name\":");
            opscope_out_json_str(w, m[i].name);
            opscope_out_str(w, ",\"pid\":");
            opscope_out_i64(w, pt->device);
            opscope_out_str(w, ",\"ts\":");
            opscope_out_ns_as_us(w, pt->ts_ns > 0 ? (uint64_t)pt->ts_ns : 0);
            opscope_out_str(w, ",\"args\":{\"Memcpy BW\":");
            opscope_out_double(w, pt->gbps);
            opscope_out_str(w, "}}");
        }
}

/* Scans byte C outside and inside strings; returns true when C closes the event array. */
static bool scan_byte(scan *s, char c) {
    if (s->in_str) {
        if (s->esc) s->esc = false;
        else if (c == '\\') s->esc = true;
        else if (c == '"') {
            s->in_str = false;
            if (s->in_key) s->want_arr = s->klen == 11 && !memcmp(s->key, "traceEvents", 11);
            s->in_key = false;
        } else if (s->in_key && s->klen < sizeof s->key) s->key[s->klen++] = c;
        return false;
    }
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') return false;
    bool closes = false;
    if (s->target > 0 && s->depth == s->target && c != ']' && c != ',' && (s->last == '[' || s->last == ','))
        s->any = true;
    if (c == '"') {
        s->in_str = true;
        s->in_key = s->depth == 1 && s->target == 0 && (s->last == '{' || s->last == ',');
        s->klen = 0;
    } else if (c == '[' || c == '{') {
        if (c == '[' && s->target == 0 && (s->depth == 0 || (s->want_arr && s->last == ':'))) s->target = s->depth + 1;
        s->depth++;
    } else if (c == ']' || c == '}') {
        closes = c == ']' && s->depth == s->target;
        s->depth--;
    }
    if (c != ':' && c != '"') s->want_arr = false;
    s->last = c;
    return closes;
}

/* Copies SOURCE to W with the counter events before the end of its event array. */
static int copy_with_counters(ktrace_output *p, const opscope_kineto_t *k, opscope_error *err) {
    gzFile in = gzopen(p->source, "rb");
    if (!in) {
        set_err(err, OPSCOPE_ERROR_IO, "--counters-trace: cannot open the trace again", p->source, 0);
        return -1;
    }
    gzbuffer(in, 1u << 20);
    enum { BUF = 1 << 18 };
    char *buf = malloc(BUF);
    scan s = {0};
    uint64_t pos = 0;
    int rc = buf ? 0 : -1, n;
    if (!buf) set_err(err, OPSCOPE_ERROR_NOMEM, "out of memory", NULL, 0);
    while (!rc && (n = gzread(in, buf, BUF)) > 0) {
        size_t from = 0;
        for (size_t i = 0; i < (size_t)n; i++) {
            if (!scan_byte(&s, buf[i])) continue;
            opscope_out_write(p->w, buf + from, i - from);
            counter_events(p->w, k, !s.any);
            opscope_out_char(p->w, '\n');
            from = i;
            s.target = -1;
        }
        opscope_out_write(p->w, buf + from, (size_t)n - from);
        pos += (uint64_t)n;
    }
    if (!rc && n < 0) {
        set_err(err, OPSCOPE_ERROR_IO, "--counters-trace: the trace could not be read again", p->source, pos);
        rc = -1;
    } else if (!rc && s.target != -1) {
        set_err(err, OPSCOPE_ERROR_SCHEMA, "--counters-trace: no complete traceEvents array in the trace", p->source,
                pos);
        rc = -1;
    }
    free(buf);
    gzclose(in);
    return rc;
}

static int ktrace_finish(void *impl, opscope_session_t *s, opscope_error *err) {
    ktrace_output *p = impl;
    const opscope_kineto_t *k = opscope_session_kineto(s);
    if (!k || !opscope_kineto_get_info(k)->n_events) {
        set_err(err, OPSCOPE_ERROR_FORMAT, "--counters-trace: the input is not a trace", p->source, 0);
        return -1;
    }
    size_t nq;
    const opscope_kqueue_stream *q = opscope_kqueue_streams(opscope_kstats_queue(opscope_kineto_kstats(k)), &nq);
    for (size_t i = 0; i < nq; i++)
        if (q[i].len[0].count && !q[i].keys[0]) {
            set_err(err, OPSCOPE_ERROR_NOMEM, "out of memory", NULL, 0);
            return -1;
        }
    return copy_with_counters(p, k, err);
}

static int ktrace_commit(void *impl, opscope_error *err) {
    ktrace_output *p = impl;
    return opscope_out_commit_take(&p->w, err);
}

static void ktrace_release(void *impl, bool discard) {
    ktrace_output *p = impl;
    (void)discard;
    opscope_out_abort(p->w);
    free(p);
}

int opscope_output_counters_trace(opscope_output *o, const char *path, const char *source, opscope_error *err) {
    ktrace_output *p = calloc(1, sizeof *p);
    if (!p) {
        set_err(err, OPSCOPE_ERROR_NOMEM, "out of memory", NULL, 0);
        return -1;
    }
    if (!(p->w = opscope_out_open(path, err))) {
        free(p);
        return -1;
    }
    p->path = path;
    p->source = source;
    *o = (opscope_output){.name = "--counters-trace", .path = path, .impl = p, .kineto_series = true,
                          .finish = ktrace_finish, .commit = ktrace_commit, .release = ktrace_release};
    return 0;
}
