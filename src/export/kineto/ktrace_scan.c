/* ktrace_scan.c - a trace copied with events added and changed (see ktrace_scan.h). */
#include "export/kineto/ktrace_scan.h"

#include "util/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

enum { M_NONE, M_PH, M_PID, M_TID, M_TS, M_DUR, M_ARGS, M_CAT, M_OTHER };

typedef struct scan {
    int depth;          /* nesting depth after the bytes so far */
    bool in_str, esc;
    char last;          /* the last significant byte outside strings */
    int target;         /* depth inside the event array: 0 not yet found, -1 closed */
    bool any;           /* the array has an element */
    bool want_arr;      /* "traceEvents" seen as a key of the top object: its value next */
    char key[12];       /* the key being read (its first 12 bytes) */
    size_t klen;
    bool in_key;
    /* inside an event object (with EVENT): its top-level members */
    bool in_ev, in_num, in_val_str;
    int member;         /* M_*: the member whose value comes or is read */
    char *val;          /* where a scalar value goes (a field of m), NULL none */
    size_t vlen;
    long off;           /* offset of the byte in the event's text */
    bool args_next;     /* the '{' of args opened: is the next byte its '}'? */
    opscope_ktrace_members m;
} scan;

typedef enum { S_NONE, S_END, S_EV_BEGIN, S_EV_END } scan_ev;

void opscope_ktrace_error(opscope_error *err, opscope_error_code code, const char *msg, const char *file, uint64_t pos) {
    memset(err, 0, sizeof *err);
    err->code = code;
    err->msg = msg;
    err->pos = pos;
    if (file) snprintf(err->file, sizeof err->file, "%s", file);
}

static int member_of(const char *k, size_t n) {
    static const char *const names[] = {"ph", "pid", "tid", "ts", "dur", "args", "cat"};
    for (int i = 0; i < 7; i++)
        if (strlen(names[i]) == n && !memcmp(k, names[i], n)) return M_PH + i;
    return M_OTHER;
}

/* The field of S->m a scalar value of the member goes to, and whether it is a string. */
static char *value_field(scan *s, bool str) {
    opscope_ktrace_members *m = &s->m;
    switch (s->member) {
    case M_PH: return str ? m->ph : NULL;
    case M_PID: m->pid_str = str; return m->pid;
    case M_TID: m->tid_str = str; return m->tid;
    case M_TS: m->ts_str = str; return m->ts;
    case M_DUR: m->dur_str = str; return m->dur;
    case M_CAT: return str ? m->cat : NULL;
    default: return NULL;
    }
}

static void val_put(scan *s, char c) {
    size_t cap = s->member == M_PH ? sizeof s->m.ph : sizeof s->m.pid;
    if (s->val && s->vlen + 1 < cap) s->val[s->vlen++] = c;
}

/* A byte inside a string. */
static void scan_str(scan *s, char c) {
    if (s->esc) {
        s->esc = false;
    } else if (c == '\\') {
        s->esc = true;
    } else if (c == '"') {
        s->in_str = false;
        if (s->in_key && s->in_ev) s->member = member_of(s->key, s->klen);
        else if (s->in_key) s->want_arr = s->klen == 11 && !memcmp(s->key, "traceEvents", 11);
        s->in_key = s->in_val_str = false;
        return;
    }
    if (s->in_key && s->klen < sizeof s->key) s->key[s->klen++] = c;
    if (s->in_val_str) val_put(s, c);
}

/* A byte of an event's top level (depth target + 1) that starts a key or a value. */
static void scan_member(scan *s, char c) {
    if (c == '"' && (s->last == '{' || s->last == ',')) {
        s->in_key = true;
        s->klen = 0;
        s->m.n_members++;
    } else if (s->last == ':') {
        bool str = c == '"';
        s->val = value_field(s, str);
        s->vlen = 0;
        s->in_val_str = str;
        s->in_num = !str && c != '{' && c != '[';
        if (s->in_num) val_put(s, c);
        if (c == '{' && s->member == M_ARGS) {
            s->m.args_at = s->off;
            s->args_next = true;
        }
    }
}

/* Scans byte C (at offset OFF of the current event, with events); what it begins or ends. */
static scan_ev scan_byte(scan *s, char c, bool events) {
    if (s->in_str) {
        scan_str(s, c);
        return S_NONE;
    }
    if (s->in_num) {
        if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E') {
            val_put(s, c);
            return S_NONE;
        }
        s->in_num = false;
    }
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') return S_NONE;
    if (s->args_next) {
        s->m.args_empty = c == '}';
        s->args_next = false;
    }
    scan_ev r = S_NONE;
    bool elem = s->target > 0 && s->depth == s->target && c != ']' && c != ',' && (s->last == '[' || s->last == ',');
    if (elem) s->any = true;
    if (s->in_ev && s->depth == s->target + 1) scan_member(s, c);
    if (c == '"') {
        s->in_str = true;
        if (!s->in_ev) {
            s->in_key = s->depth == 1 && s->target == 0 && (s->last == '{' || s->last == ',');
            s->klen = 0;
        }
    } else if (c == '[' || c == '{') {
        if (c == '[' && s->target == 0 && (s->depth == 0 || (s->want_arr && s->last == ':'))) s->target = s->depth + 1;
        if (elem && c == '{' && events) {
            s->in_ev = true;
            memset(&s->m, 0, sizeof s->m);
            s->m.args_at = -1;
            r = S_EV_BEGIN;
        }
        s->depth++;
    } else if (c == ']' || c == '}') {
        if (c == ']' && s->depth == s->target) r = S_END;
        s->depth--;
        if (c == '}' && s->in_ev && s->depth == s->target) {
            s->in_ev = false;
            r = S_EV_END;
        }
    }
    if (c != ':' && c != '"') s->want_arr = false;
    s->last = c;
    return r;
}

/* The bytes BUF[0..N) of the copy: straight to the output, or into EV while an event is read. */
typedef struct copy_state {
    scan s;
    opscope_strbuf ev;
    bool in_ev;
    long base;          /* the event's text offset of the chunk's byte 0 */
    bool after_ev;      /* with KEEP: an event ended (the text between events is dropped) */
    bool written;       /* with KEEP: an event was written */
} copy_state;

/* The bytes between events, written unless KEEP chooses the events (then only what comes
 * before the first one: the trace's head and the array's '['). */
static void copy_gap(copy_state *st, const opscope_ktrace_copy *c, const char *p, size_t n) {
    if (!(c->keep && st->after_ev)) opscope_out_write(c->w, p, n);
}

/* The event read whole: written (after its separator, when KEEP chooses) or left out. */
static void copy_event(copy_state *st, const opscope_ktrace_copy *c) {
    if (c->keep) {
        bool first = !st->after_ev;
        st->after_ev = true;
        if (!c->keep(c->ud, &st->s.m)) return;
        if (!first || st->written) opscope_out_str(c->w, st->written ? ",\n" : "\n");
        st->written = true;
    }
    c->event(c->ud, c->w, st->ev.s, st->ev.len, &st->s.m);
}

static int copy_chunk(copy_state *st, const opscope_ktrace_copy *c, const char *buf, size_t n) {
    size_t from = 0;
    scan *sc = &st->s;
    st->base = st->in_ev ? (long)st->ev.len : 0;
    for (size_t i = 0; i < n; i++) {
        /* most of a trace's bytes: inside strings, or indentation; skipped in a tight loop */
        if (sc->in_str && !sc->esc && !sc->in_key && !sc->in_val_str) {
            while (i < n && buf[i] != '"' && buf[i] != '\\') i++;
        } else if (!sc->in_str && !sc->in_num) {
            while (i < n && (buf[i] == ' ' || buf[i] == '\n' || buf[i] == '\t' || buf[i] == '\r')) i++;
        }
        if (i == n) break;
        sc->off = st->base + (long)i;
        scan_ev r = scan_byte(sc, buf[i], c->event != NULL);
        if (r == S_EV_BEGIN) {
            copy_gap(st, c, buf + from, i - from);
            from = i;
            st->in_ev = true;
            st->base = -(long)i;
            opscope_strbuf_reset(&st->ev);
        } else if (r == S_EV_END) {
            if (opscope_strbuf_add(&st->ev, buf + from, i + 1 - from)) return -1;
            copy_event(st, c);
            from = i + 1;
            st->in_ev = false;
        } else if (r == S_END) {
            copy_gap(st, c, buf + from, i - from);
            c->tail(c->ud, c->w, c->keep ? !st->written : !st->s.any);
            opscope_out_char(c->w, '\n');
            from = i;
            st->s.target = -1;
        }
    }
    if (st->in_ev) return opscope_strbuf_add(&st->ev, buf + from, n - from);
    if (st->s.target == -1) opscope_out_write(c->w, buf + from, n - from); /* after the array */
    else copy_gap(st, c, buf + from, n - from);
    return 0;
}

int opscope_ktrace_copy_run(const char *source, const opscope_ktrace_copy *c, opscope_error *err) {
    gzFile in = gzopen(source, "rb");
    if (!in) {
        opscope_ktrace_error(err, OPSCOPE_ERROR_IO, "cannot open the trace again", source, 0);
        return -1;
    }
    gzbuffer(in, 1u << 20);
    enum { BUF = 1 << 18 };
    char *buf = malloc(BUF);
    copy_state st = {0};
    uint64_t pos = 0;
    int rc = buf ? 0 : -1, n = 0;
    while (!rc && (n = gzread(in, buf, BUF)) > 0) {
        rc = copy_chunk(&st, c, buf, (size_t)n);
        pos += (uint64_t)n;
    }
    if (rc) {
        opscope_ktrace_error(err, OPSCOPE_ERROR_NOMEM, "out of memory", NULL, 0);
    } else if (n < 0) {
        opscope_ktrace_error(err, OPSCOPE_ERROR_IO, "the trace could not be read again", source, pos);
        rc = -1;
    } else if (st.s.target != -1) {
        opscope_ktrace_error(err, OPSCOPE_ERROR_SCHEMA, "no complete traceEvents array in the trace (it ends at this byte)", source,
                pos);
        rc = -1;
    }
    free(buf);
    opscope_strbuf_free(&st.ev);
    gzclose(in);
    return rc;
}
