/*
 * json_fmt.h - allocation-free formatting of one JSON event into a stack buffer, written to
 * an opscope_out_t with a single call (internal; the hot path of the exporters).
 *
 * Usage: json_fmt f; jf_init(&f, out); jf_lit(&f, "{\"a\":"); jf_u64(&f, 1); ... jf_flush(&f);
 * Every append checks room and flushes to OUT first when the buffer is short, so any amount
 * of text is fine; strings that need escaping (or are long) go through opscope_out_json_strn.
 * Thread safety: one json_fmt per thread.
 */
#ifndef OPSCOPE_JSON_FMT_H
#define OPSCOPE_JSON_FMT_H

#include "export/fmt/run_fmt.h"
#include "util/out.h"

#include <string.h>

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

/* [a,b,c,d] of N int64 values. */
static inline void jf_i64_array(json_fmt *f, const int64_t *v, int n) {
    jf_char(f, '[');
    for (int i = 0; i < n; i++) {
        if (i) jf_char(f, ',');
        jf_i64(f, v[i]);
    }
    jf_char(f, ']');
}

/* Writes one backend as the JSON object both seed layouts use:
 * {"id":N,"name":"...","device":"...","device_type":N}. Strings may be NULL (written null). */
/* A backend object; PROCESS (NULL: none) is the merged profile's process label. */
static inline void opscope_json_write_backend_in(opscope_out_t *w, int32_t id, const char *name,
                                                 const char *device, int device_type,
                                                 const char *process) {
    opscope_out_str(w, "{\"id\":");
    opscope_out_i64(w, id);
    opscope_out_str(w, ",\"name\":");
    opscope_out_json_str(w, name);
    opscope_out_str(w, ",\"device\":");
    opscope_out_json_str(w, device);
    opscope_out_str(w, ",\"device_type\":");
    opscope_out_i64(w, device_type);
    if (process) {
        opscope_out_str(w, ",\"process\":");
        opscope_out_json_str(w, process);
    }
    opscope_out_char(w, '}');
}

static inline void opscope_json_write_backend(opscope_out_t *w, int32_t id, const char *name,
                                              const char *device, int device_type) {
    opscope_json_write_backend_in(w, id, name, device, device_type, NULL);
}

/* The members of a "capture" object (docs/formats.md), without braces; C may be NULL. */
static inline void opscope_json_write_capture_members(opscope_out_t *w, const opscope_capture_info *c) {
    const char *sep = "";
    const char *const skeys[] = {"host", "program", "clock", "boot_id"};
    const char *const svals[] = {c->host, c->program, c->clock, c->boot_id};
    for (int i = 0; i < 4; i++) {
        if (!svals[i]) continue;
        opscope_out_str(w, sep);
        opscope_out_char(w, '"');
        opscope_out_str(w, skeys[i]);
        opscope_out_str(w, "\":");
        opscope_out_json_str(w, svals[i]);
        sep = ",";
    }
    if (c->has & OPSCOPE_CAPTURE_HAS_PID) {
        opscope_out_str(w, sep);
        opscope_out_str(w, "\"pid\":");
        opscope_out_i64(w, c->pid);
        sep = ",";
    }
    if (c->has & OPSCOPE_CAPTURE_HAS_TIME_NS) {
        opscope_out_str(w, sep);
        opscope_out_str(w, "\"time_ns\":");
        opscope_out_u64(w, c->time_ns);
        sep = ",";
    }
    if (c->has & OPSCOPE_CAPTURE_HAS_REALTIME) {
        opscope_out_str(w, sep);
        opscope_out_str(w, "\"realtime_offset_ns\":");
        opscope_out_i64(w, c->realtime_offset_ns);
        sep = ",";
    }
    if (c->has & OPSCOPE_CAPTURE_HAS_START) {
        opscope_out_str(w, sep);
        opscope_out_str(w, "\"start_ns\":");
        opscope_out_u64(w, c->start_ns);
        sep = ",";
    }
    if (c->end) {
        opscope_out_str(w, sep);
        opscope_out_str(w, "\"end\":{\"how\":");
        opscope_out_json_str(w, c->end);
        if (c->end_signal) {
            opscope_out_str(w, ",\"signal\":");
            opscope_out_json_str(w, c->end_signal);
        }
        if (c->end_ns) {
            opscope_out_str(w, ",\"at_ns\":");
            opscope_out_u64(w, c->end_ns);
        }
        if (c->died_ns) {
            opscope_out_str(w, ",\"died_ns\":");
            opscope_out_u64(w, c->died_ns);
        }
        opscope_out_char(w, '}');
        sep = ",";
    }
    opscope_json_write_run_members(w, c->run, &sep);
}

#endif /* OPSCOPE_JSON_FMT_H */
