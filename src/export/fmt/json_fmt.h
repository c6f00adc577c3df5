/*
 * json_fmt.h - the JSON writers every output shares (internal, header-only): a per-event
 * buffer for the hot paths, the member writer for everything else, and the objects several
 * outputs write alike (a backend, the "capture" object and its run members).
 *
 * How to use
 *
 * A per-record event (the profile's records, Chrome events): a json_fmt on the stack, text
 * appended to it and flushed to OUT in one write:
 *     json_fmt f; jf_init(&f, out); jf_lit(&f, "{\"a\":"); jf_u64(&f, 1);
 *     jf_key(&f, "b"); jf_str(&f, s); jf_char(&f, '}'); jf_flush(&f);
 * jf_key writes `,"b":` for a literal key: the comma is the caller's knowledge, at no cost.
 *
 * Anything else (summaries, reports, diffs, pages' data): an opscope_jw, a writer of an
 * object's members or an array's items onto OUT that puts the commas itself:
 *     opscope_jw j = opscope_jw_object(out);       {
 *     opscope_jw_u64(&j, "kernels", n);            "kernels":12
 *     opscope_jw_str(&j, "name", s);               ,"name":"..."    (NULL: null)
 *     opscope_jw_arr(&j, "steps");                 ,"steps":[
 *     for (...) {
 *         opscope_jw_item_obj(&j);                 {   (after the first: ,{)
 *         opscope_jw_i64(&j, "number", v);         "number":-1
 *         opscope_jw_end_obj(&j);                  }
 *     }
 *     opscope_jw_end_arr(&j);                      ]
 *     opscope_jw_end_obj(&j);                      }
 * A function that writes members into an object its caller opened takes the caller's
 * opscope_jw, or makes one: opscope_jw_begin(out) when no member precedes (the first one
 * writes no comma), opscope_jw_resume(out) after members written elsewhere (every member
 * writes a comma first). Between calls, OUT may take one value right after opscope_jw_key
 * (opscope_jw_key_json: a key from the data, escaped) or opscope_jw_item, or whole members
 * from a writer that puts a comma before each of its own (a comma is due after them as
 * well). opscope_jw_nl puts a line break between members, after the comma. Values: _str
 * (opscope_out_json_str), _u64, _i64, _fixed (N decimals), _double (the shortest round-trip
 * text, null for NaN and infinities), _g17 (printf's "%.17g"), _bool, _null, _raw: each
 * writes the same text as the opscope_out_* call (or format) named, so converting an output
 * to the writer keeps its bytes.
 *
 * Thread safety: one writer (json_fmt, opscope_jw, OUT) per thread.
 */
#ifndef OPSCOPE_JSON_FMT_H
#define OPSCOPE_JSON_FMT_H

#include "opscope.h"
#include "util/out.h"

#include <stdbool.h>
#include <string.h>

/* ---- the per-event buffer ------------------------------------------------------------------
 * Allocation-free formatting of one JSON event into a stack buffer, written to OUT with a
 * single call. Every append checks room and flushes to OUT first when the buffer is short, so
 * any amount of text is fine; strings that need escaping (or are long) go through
 * opscope_out_json_str. */

#define JSON_FMT_CAP 4096

typedef struct json_fmt {
    opscope_out_t *out;
    size_t len;
    char buf[JSON_FMT_CAP];
} json_fmt;

static inline void jf_init(json_fmt *f, opscope_out_t *out) {
    f->out = out;
    f->len = 0;
}

static inline void jf_flush(json_fmt *f) {
    if (f->len) opscope_out_write(f->out, f->buf, f->len);
    f->len = 0;
}

static inline char *jf_room(json_fmt *f, size_t n) {
    if (f->len + n > JSON_FMT_CAP) jf_flush(f);
    return f->buf + f->len;
}

static inline void jf_mem(json_fmt *f, const char *s, size_t n) {
    if (n > JSON_FMT_CAP / 2) {
        jf_flush(f);
        opscope_out_write(f->out, s, n);
        return;
    }
    memcpy(jf_room(f, n), s, n);
    f->len += n;
}
#define jf_lit(f, lit) jf_mem((f), (lit), sizeof(lit) - 1)

static inline void jf_char(json_fmt *f, char c) {
    *jf_room(f, 1) = c;
    f->len++;
}

static inline void jf_u64(json_fmt *f, uint64_t v) {
    /* Two digits per division: timestamps have 13+ digits and one is written per event. */
    static const char pairs[201] = "00010203040506070809101112131415161718192021222324252627282930"
                                   "31323334353637383940414243444546474849505152535455565758596061"
                                   "62636465666768697071727374757677787980818283848586878889909192"
                                   "939495969798" "99";
    char tmp[20];
    int i = 20;
    while (v >= 100) {
        unsigned r = (unsigned)(v % 100);
        v /= 100;
        tmp[--i] = pairs[2 * r + 1];
        tmp[--i] = pairs[2 * r];
    }
    if (v >= 10) {
        tmp[--i] = pairs[2 * v + 1];
        tmp[--i] = pairs[2 * v];
    } else {
        tmp[--i] = (char)('0' + v);
    }
    jf_mem(f, tmp + i, (size_t)(20 - i));
}

static inline void jf_i64(json_fmt *f, int64_t v) {
    if (v < 0) {
        jf_char(f, '-');
        jf_u64(f, (uint64_t)0 - (uint64_t)v);
    } else {
        jf_u64(f, (uint64_t)v);
    }
}

/* NS as microseconds, exact: "12", "12.3", "12.345" (same text as opscope_out_ns_as_us). */
static inline void jf_ns_as_us(json_fmt *f, uint64_t ns) {
    jf_u64(f, ns / 1000);
    unsigned frac = (unsigned)(ns % 1000);
    if (!frac) return;
    char t[4] = {'.', (char)('0' + frac / 100), (char)('0' + frac / 10 % 10), (char)('0' + frac % 10)};
    size_t n = 4;
    while (t[n - 1] == '0') n--;
    jf_mem(f, t, n);
}

/* A JSON string literal; NULL writes null. Plain printable ASCII is copied directly. */
static inline void jf_str(json_fmt *f, const char *s) {
    if (!s) {
        jf_lit(f, "null");
        return;
    }
    size_t n = 0;
    while (n < 256) {
        unsigned char c = (unsigned char)s[n];
        if (c == 0) break;
        if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\') goto slow;
        n++;
    }
    if (s[n] != '\0') goto slow;
    {
        char *p = jf_room(f, n + 2);
        p[0] = '"';
        memcpy(p + 1, s, n);
        p[n + 1] = '"';
        f->len += n + 2;
        return;
    }
slow:
    jf_flush(f);
    opscope_out_json_str(f->out, s);
}

/* `,"KEY":` for a literal key. */
#define jf_key(f, lit) jf_mem((f), "," "\"" lit "\":", sizeof("," "\"" lit "\":") - 1)

/* jf_key(F, LIT) and the value V: one member of an event after its first. */
#define jf_key_i64(f, lit, v) \
    do {                      \
        jf_key(f, lit);       \
        jf_i64((f), (v));     \
    } while (0)
#define jf_key_u64(f, lit, v) \
    do {                      \
        jf_key(f, lit);       \
        jf_u64((f), (v));     \
    } while (0)
#define jf_key_str(f, lit, s) \
    do {                      \
        jf_key(f, lit);       \
        jf_str((f), (s));     \
    } while (0)

/* "[a, b]" of NE: dims > 0 without trailing 1s after the first (as opscope_fmt_ne). */
static inline void jf_ne_text(json_fmt *f, const int64_t *ne) {
    int nd = 4;
    while (nd > 1 && ne[nd - 1] <= 1) nd--;
    int any = 0;
    for (int d = 0; d < nd; d++) {
        if (ne[d] <= 0) continue;
        if (any)
            jf_lit(f, ", ");
        else
            jf_char(f, '[');
        jf_i64(f, ne[d]);
        any = 1;
    }
    if (any) jf_char(f, ']');
}

/* [a,b,c,d] of N integers of WIDTH bytes (8: int64_t, 4: int32_t) from V. */
static inline void jf_int_array(json_fmt *f, const void *v, int n, size_t width) {
    jf_char(f, '[');
    for (int i = 0; i < n; i++) {
        if (i) jf_char(f, ',');
        jf_i64(f, width == 4 ? ((const int32_t *)v)[i] : ((const int64_t *)v)[i]);
    }
    jf_char(f, ']');
}

/* [a,b,c,d] of N int64 / int32 values. */
static inline void jf_i64_array(json_fmt *f, const int64_t *v, int n) { jf_int_array(f, v, n, 8); }

static inline void jf_i32_array(json_fmt *f, const int32_t *v, int n) { jf_int_array(f, v, n, 4); }

/* ---- the member writer ----------------------------------------------------------------------
 * For output written once per run (every JSON but the per-record events above): a few calls
 * into OUT per member, no allocation, no formatting beyond the value's own. */

/* A JSON object or array being written to OUT. COMMA is its one separator state: true when
 * the next member or item must be preceded by a comma (something was written at this level
 * already), false at the start of an object or array and right after opscope_jw_break (and
 * opscope_jw_nl). Opening a nested object or array clears it and closing one sets it, so one
 * opscope_jw serves a whole document, its nested levels included. SPACED writes ", " and ": "
 * for "," and ":" (the peak file's layout); set it after making the writer.
 * A value on the stack, owning nothing: OUT stays the caller's. J, OUT and every KEY are
 * never NULL; a string value may be NULL where its function says so (written null). */
typedef struct opscope_jw {
    opscope_out_t *out;
    bool comma;
    bool spaced;
} opscope_jw;

/* A writer of members that start here (the first writes no comma); writes nothing. */
static inline opscope_jw opscope_jw_begin(opscope_out_t *out) {
    opscope_jw j = {out, false, false};
    return j;
}

/* A writer of members after others written elsewhere (every member writes a comma first). */
static inline opscope_jw opscope_jw_resume(opscope_out_t *out) {
    opscope_jw j = {out, true, false};
    return j;
}

/* Writes '{' and returns a writer of the object's members (end it with opscope_jw_end_obj). */
static inline opscope_jw opscope_jw_object(opscope_out_t *out) {
    opscope_out_char(out, '{');
    return opscope_jw_begin(out);
}

/* The separator before an array item the caller writes next (as one value) onto J->out. */
static inline void opscope_jw_item(opscope_jw *j) {
    if (j->comma) {
        opscope_out_char(j->out, ',');
        if (j->spaced) opscope_out_char(j->out, ' ');
    }
    j->comma = true;
}

/* The separator and `"KEY":` of a member whose value the caller writes next (one value) onto
 * J->out. KEY is written as it is: a name that needs no escaping (see opscope_jw_key_json). */
static inline void opscope_jw_key(opscope_jw *j, const char *key) {
    char buf[80];
    size_t n = strlen(key), at = 0;
    if (n + 6 > sizeof buf) { /* a long key: in pieces */
        opscope_jw_item(j);
        opscope_out_char(j->out, '"');
        opscope_out_write(j->out, key, n);
        opscope_out_str(j->out, j->spaced ? "\": " : "\":");
        return;
    }
    if (j->comma) {
        buf[at++] = ',';
        if (j->spaced) buf[at++] = ' ';
    }
    buf[at++] = '"';
    memcpy(buf + at, key, n);
    at += n;
    buf[at++] = '"';
    buf[at++] = ':';
    if (j->spaced) buf[at++] = ' ';
    opscope_out_write(j->out, buf, at);
    j->comma = true;
}

/* opscope_jw_key with a key from the data (a backend's name): escaped as a JSON string. */
static inline void opscope_jw_key_json(opscope_jw *j, const char *key) {
    opscope_jw_item(j);
    opscope_out_json_str(j->out, key);
    opscope_out_str(j->out, j->spaced ? ": " : ":");
}

/* Members: KEY and a value. */
static inline void opscope_jw_str(opscope_jw *j, const char *key, const char *s) { /* NULL: null */
    opscope_jw_key(j, key);
    opscope_out_json_str(j->out, s);
}

static inline void opscope_jw_u64(opscope_jw *j, const char *key, uint64_t v) {
    opscope_jw_key(j, key);
    opscope_out_u64(j->out, v);
}

static inline void opscope_jw_i64(opscope_jw *j, const char *key, int64_t v) {
    opscope_jw_key(j, key);
    opscope_out_i64(j->out, v);
}

/* V with DECIMALS digits after the point (opscope_out_fixed: NaN and infinities as nan, inf). */
static inline void opscope_jw_fixed(opscope_jw *j, const char *key, double v, int decimals) {
    opscope_jw_key(j, key);
    opscope_out_fixed(j->out, v, decimals);
}

/* V's shortest round-trip text (opscope_out_double: an integer without a point, NaN and
 * infinities as null). */
static inline void opscope_jw_double(opscope_jw *j, const char *key, double v) {
    opscope_jw_key(j, key);
    opscope_out_double(j->out, v);
}

/* V as printf's "%.17g" (17 significant digits; NaN and infinities as printf writes them). */
static inline void opscope_jw_g17(opscope_jw *j, const char *key, double v) {
    opscope_jw_key(j, key);
    opscope_out_printf(j->out, "%.17g", v);
}

static inline void opscope_jw_bool(opscope_jw *j, const char *key, bool v) {
    opscope_jw_key(j, key);
    opscope_out_str(j->out, v ? "true" : "false");
}

static inline void opscope_jw_null(opscope_jw *j, const char *key) {
    opscope_jw_key(j, key);
    opscope_out_str(j->out, "null");
}

/* TEXT, a value already in JSON, written as it is. */
static inline void opscope_jw_raw(opscope_jw *j, const char *key, const char *text) {
    opscope_jw_key(j, key);
    opscope_out_str(j->out, text);
}

/* A run of number members from a table: each KV[i] in order, as opscope_jw_u64 /
 * opscope_jw_i64 writes it (the same bytes as those calls one by one). N: KV's entries. */
typedef struct opscope_jw_u64_kv {
    const char *key;
    uint64_t v;
} opscope_jw_u64_kv;

typedef struct opscope_jw_i64_kv {
    const char *key;
    int64_t v;
} opscope_jw_i64_kv;

static inline void opscope_jw_u64s(opscope_jw *j, const opscope_jw_u64_kv *kv, size_t n) {
    for (size_t i = 0; i < n; i++) opscope_jw_u64(j, kv[i].key, kv[i].v);
}

static inline void opscope_jw_i64s(opscope_jw *j, const opscope_jw_i64_kv *kv, size_t n) {
    for (size_t i = 0; i < n; i++) opscope_jw_i64(j, kv[i].key, kv[i].v);
}

/* BRACKET, then the comma state COMMA: a nested level opened (false) or closed (true). */
static inline void opscope_jw_bracket(opscope_jw *j, char bracket, bool comma) {
    opscope_out_char(j->out, bracket);
    j->comma = comma;
}

/* '{' / '[' as the value of the key just written (opscope_jw_key, opscope_jw_key_json): the
 * nested object's members or array's items follow, the first with no comma. */
static inline void opscope_jw_open_obj(opscope_jw *j) { opscope_jw_bracket(j, '{', false); }

static inline void opscope_jw_open_arr(opscope_jw *j) { opscope_jw_bracket(j, '[', false); }

/* `"KEY":{` / `"KEY":[`: the nested object's members or array's items follow. */
static inline void opscope_jw_obj(opscope_jw *j, const char *key) {
    opscope_jw_key(j, key);
    opscope_jw_open_obj(j);
}

static inline void opscope_jw_arr(opscope_jw *j, const char *key) {
    opscope_jw_key(j, key);
    opscope_jw_open_arr(j);
}

/* `"KEY":{` when P is not NULL (true: its members follow), else `"KEY":null` (false): the
 * member of a side that may be missing. */
static inline bool opscope_jw_obj_or_null(opscope_jw *j, const char *key, const void *p) {
    if (!p) {
        opscope_jw_null(j, key);
        return false;
    }
    opscope_jw_obj(j, key);
    return true;
}

/* Closes the innermost object / array; what follows at the outer level takes a comma. */
static inline void opscope_jw_end_obj(opscope_jw *j) { opscope_jw_bracket(j, '}', true); }

static inline void opscope_jw_end_arr(opscope_jw *j) { opscope_jw_bracket(j, ']', true); }

/* Array items: an object or array (its members follow), a number, a string (NULL: null). */
static inline void opscope_jw_item_obj(opscope_jw *j) {
    opscope_jw_item(j);
    opscope_jw_open_obj(j);
}

static inline void opscope_jw_item_arr(opscope_jw *j) {
    opscope_jw_item(j);
    opscope_jw_open_arr(j);
}

static inline void opscope_jw_item_u64(opscope_jw *j, uint64_t v) {
    opscope_jw_item(j);
    opscope_out_u64(j->out, v);
}

static inline void opscope_jw_item_i64(opscope_jw *j, int64_t v) {
    opscope_jw_item(j);
    opscope_out_i64(j->out, v);
}

static inline void opscope_jw_item_str(opscope_jw *j, const char *s) {
    opscope_jw_item(j);
    opscope_out_json_str(j->out, s);
}

/* The pending comma, if any, then TEXT (a line break, an indentation): the next member or
 * item writes no comma of its own. opscope_jw_nl: TEXT "\n". */
static inline void opscope_jw_break(opscope_jw *j, const char *text) {
    if (j->comma) opscope_out_char(j->out, ',');
    opscope_out_str(j->out, text);
    j->comma = false;
}

static inline void opscope_jw_nl(opscope_jw *j) { opscope_jw_break(j, "\n"); }

/* ---- objects several outputs write ---------------------------------------------------------- */

/* A backend as the JSON object both seed layouts use:
 * {"id":N,"name":"...","device":"...","device_type":N}, with "process" after them when
 * PROCESS is not NULL (the merged profile's process label). Strings may be NULL (null). */
static inline void opscope_json_write_backend_in(opscope_out_t *w, int32_t id, const char *name,
                                                 const char *device, int device_type,
                                                 const char *process) {
    opscope_jw j = opscope_jw_object(w);
    opscope_jw_i64(&j, "id", id);
    opscope_jw_str(&j, "name", name);
    opscope_jw_str(&j, "device", device);
    opscope_jw_i64(&j, "device_type", device_type);
    if (process) opscope_jw_str(&j, "process", process);
    opscope_jw_end_obj(&j);
}

static inline void opscope_json_write_backend(opscope_out_t *w, int32_t id, const char *name,
                                              const char *device, int device_type) {
    opscope_json_write_backend_in(w, id, name, device, device_type, NULL);
}

/* The "capture" object's run members (docs/formats.md, "capture"): argv, models, contexts,
 * blas, cpu_cores, decodes; written by every writer of that object through
 * opscope_json_write_capture_members. */

static inline void opscope_json_write_run_model(opscope_jw *j, const opscope_run_model *m) {
    opscope_jw_item_obj(j);
    if (m->path) opscope_jw_str(j, "path", m->path);
    if (m->size_bytes) opscope_jw_u64(j, "size", m->size_bytes);
    if (m->architecture) opscope_jw_str(j, "architecture", m->architecture);
    if (m->name) opscope_jw_str(j, "name", m->name);
    if (m->n_params) opscope_jw_u64(j, "n_params", m->n_params);
    if (m->file_type >= 0) opscope_jw_i64(j, "file_type", m->file_type);
    opscope_jw_end_obj(j);
}

static inline void opscope_json_write_run_context(opscope_jw *j, const opscope_run_context *c) {
    opscope_jw_item_obj(j);
    opscope_jw_i64(j, "model", c->model);
    const char *const keys[] = {"n_ctx", "n_batch", "n_ubatch", "n_threads"};
    const uint32_t vals[] = {c->n_ctx, c->n_batch, c->n_ubatch, c->n_threads};
    for (int i = 0; i < 4; i++) opscope_jw_u64(j, keys[i], vals[i]);
    opscope_jw_u64(j, "end_ns", c->end_ns);
    opscope_jw_arr(j, "reps_ns");
    for (size_t i = 0; i < c->n_reps; i++) opscope_jw_item_u64(j, c->reps_ns[i]);
    opscope_jw_end_arr(j);
    opscope_jw_end_obj(j);
}

static inline void opscope_json_write_run_decode(opscope_jw *j, const opscope_run_decode *d) {
    opscope_jw_item_obj(j);
    const opscope_jw_u64_kv span[] = {{"start_ns", d->start_ns}, {"end_ns", d->end_ns}};
    opscope_jw_u64s(j, span, sizeof span / sizeof *span);
    opscope_jw_i64(j, "graph", d->graph);
    const opscope_jw_u64_kv counts[] = {{"graphs", d->n_graphs}, {"tokens", d->n_tokens}, {"outputs", d->n_outputs}};
    opscope_jw_u64s(j, counts, sizeof counts / sizeof *counts);
    const opscope_jw_i64_kv ids[] = {{"context", d->context}, {"ret", d->ret}};
    opscope_jw_i64s(j, ids, sizeof ids / sizeof *ids);
    if (d->wiped) opscope_jw_u64(j, "wiped", 1);
    opscope_jw_arr(j, "seqs");
    for (size_t i = 0; i < d->n_seqs; i++) {
        const opscope_run_seq *q = &d->seqs[i];
        opscope_jw_item_obj(j);
        opscope_jw_i64(j, "seq", q->seq);
        const opscope_jw_u64_kv seq[] = {{"request", q->request}, {"tokens", q->n_tokens},
                                         {"prompt", q->n_prompt}, {"outputs", q->n_outputs}};
        opscope_jw_u64s(j, seq, sizeof seq / sizeof *seq);
        opscope_jw_end_obj(j);
    }
    opscope_jw_end_arr(j);
    opscope_jw_end_obj(j);
}

/* R's members, through J (R may be NULL: nothing). */
static inline void opscope_json_write_run_members(opscope_jw *j, const opscope_run_info *r) {
    if (!r) return;
    if (r->n_argv) {
        opscope_jw_arr(j, "argv");
        for (size_t i = 0; i < r->n_argv; i++) opscope_jw_item_str(j, r->argv[i] ? r->argv[i] : "");
        opscope_jw_end_arr(j);
    }
    if (r->n_models) {
        opscope_jw_arr(j, "models");
        for (size_t i = 0; i < r->n_models; i++) opscope_json_write_run_model(j, &r->models[i]);
        opscope_jw_end_arr(j);
    }
    if (r->n_contexts) {
        opscope_jw_arr(j, "contexts");
        for (size_t i = 0; i < r->n_contexts; i++) opscope_json_write_run_context(j, &r->contexts[i]);
        opscope_jw_end_arr(j);
    }
    if (r->blas) {
        opscope_jw_obj(j, "blas");
        opscope_jw_str(j, "name", r->blas);
        if (r->blas_path) opscope_jw_str(j, "path", r->blas_path);
        if (r->blas_threads) opscope_jw_i64(j, "threads", r->blas_threads);
        opscope_jw_end_obj(j);
    }
    if (r->cpu_cores) opscope_jw_i64(j, "cpu_cores", r->cpu_cores);
    if (r->n_decodes) {
        opscope_jw_arr(j, "decodes");
        for (size_t i = 0; i < r->n_decodes; i++) {
            opscope_jw_nl(j);
            opscope_json_write_run_decode(j, &r->decodes[i]);
        }
        opscope_jw_end_arr(j);
    }
    if (r->decodes_lost) opscope_jw_u64(j, "decodes_lost", r->decodes_lost);
}

/* The array item of window W, through J: `{"start_ns":N,"end_ns":N` (the caller may add
 * members, then closes it). */
static inline void opscope_json_window_open(opscope_jw *j, const opscope_window *w) {
    opscope_jw_item_obj(j);
    const opscope_jw_u64_kv kv[] = {{"start_ns", w->start_ns}, {"end_ns", w->end_ns}};
    opscope_jw_u64s(j, kv, 2);
}

/* "marks": C's marks as an array of {"ts_ns", "text"}, through J. */
static inline void opscope_json_write_marks(opscope_jw *j, const opscope_capture_info *c) {
    opscope_jw_arr(j, "marks");
    for (size_t i = 0; i < c->n_marks; i++) {
        opscope_jw_item_obj(j);
        opscope_jw_u64(j, "ts_ns", c->marks[i].ts_ns);
        opscope_jw_str(j, "text", c->marks[i].text ? c->marks[i].text : "");
        opscope_jw_end_obj(j);
    }
    opscope_jw_end_arr(j);
}

/* C's windows and marks, through J: "windowed", "windows" and "marks" when the capture was
 * windowed, "marks" alone when it has marks (docs/formats.md). */
static inline void opscope_json_write_windows(opscope_jw *j, const opscope_capture_info *c) {
    if (c->windowed) {
        opscope_jw_bool(j, "windowed", true);
        opscope_jw_arr(j, "windows");
        for (size_t i = 0; i < c->n_windows; i++) {
            opscope_json_window_open(j, &c->windows[i]);
            opscope_jw_end_obj(j);
        }
        opscope_jw_end_arr(j);
    }
    if (c->windowed || c->n_marks) opscope_json_write_marks(j, c);
}

/* The members of a "capture" object (docs/formats.md), without braces, the first with no
 * comma before it; C may not be NULL (its run may). */
static inline void opscope_json_write_capture_members(opscope_out_t *w, const opscope_capture_info *c) {
    opscope_jw j = opscope_jw_begin(w);
    const char *const skeys[] = {"host", "program", "clock", "boot_id"};
    const char *const svals[] = {c->host, c->program, c->clock, c->boot_id};
    for (int i = 0; i < 4; i++)
        if (svals[i]) opscope_jw_str(&j, skeys[i], svals[i]);
    if (c->has & OPSCOPE_CAPTURE_HAS_PID) opscope_jw_i64(&j, "pid", c->pid);
    if (c->has & OPSCOPE_CAPTURE_HAS_TIME_NS) opscope_jw_u64(&j, "time_ns", c->time_ns);
    if (c->has & OPSCOPE_CAPTURE_HAS_REALTIME) opscope_jw_i64(&j, "realtime_offset_ns", c->realtime_offset_ns);
    if (c->has & OPSCOPE_CAPTURE_HAS_START) opscope_jw_u64(&j, "start_ns", c->start_ns);
    if (c->end) {
        opscope_jw_obj(&j, "end");
        opscope_jw_str(&j, "how", c->end);
        if (c->end_signal) opscope_jw_str(&j, "signal", c->end_signal);
        if (c->end_ns) opscope_jw_u64(&j, "at_ns", c->end_ns);
        if (c->died_ns) opscope_jw_u64(&j, "died_ns", c->died_ns);
        opscope_jw_end_obj(&j);
    }
    opscope_json_write_windows(&j, c);
    opscope_json_write_run_members(&j, c->run);
}

#endif /* OPSCOPE_JSON_FMT_H */
