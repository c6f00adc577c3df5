/* oplog_win.c - the WINDOWS chunk's payload (see oplog_win.h). */
#include "model/oplog_win.h"

#include <stdlib.h>
#include <string.h>

/* Fields in this order (docs/formats.md): windowed, the windows (start, end), the marks
 * (time, text). */
int opscope_oplog_put_win(opscope_oplog_buf *b, uint8_t windowed, const opscope_window *w, size_t n_windows,
                          const opscope_mark *m, size_t n_marks) {
    int e = opscope_oplog_put_u(b, windowed) | opscope_oplog_put_u(b, n_windows);
    for (size_t i = 0; i < n_windows; i++)
        e |= opscope_oplog_put_u(b, w[i].start_ns) | opscope_oplog_put_u(b, w[i].end_ns);
    e |= opscope_oplog_put_u(b, n_marks);
    for (size_t i = 0; i < n_marks; i++)
        e |= opscope_oplog_put_u(b, m[i].ts_ns) | opscope_oplog_put_str(b, m[i].text ? m[i].text : "");
    return e ? -1 : 0;
}

int opscope_oplog_get_win(opscope_oplog_cur *c, opscope_oplog_win *out) {
    out->windows.n = out->marks.n = 0;
    uint64_t windowed = opscope_oplog_get_u(c);
    uint64_t nw = opscope_oplog_get_count(c);
    if (windowed > 1 || nw > OPSCOPE_WIN_MAX_WINDOWS) c->bad = true;
    out->windowed = (uint8_t)windowed;
    for (uint64_t i = 0; i < nw && !c->bad; i++) {
        opscope_window w = {.start_ns = opscope_oplog_get_u(c)};
        w.end_ns = opscope_oplog_get_u(c);
        /* in time order, each closed before the next opens */
        const opscope_window *prev = out->windows.n ? &out->windows.v[out->windows.n - 1] : NULL;
        if ((w.end_ns && w.end_ns < w.start_ns) || (prev && (!prev->end_ns || prev->end_ns > w.start_ns)))
            c->bad = true;
        if (!c->bad && OPSCOPE_VEC_PUSH(out->windows, w)) return -2;
    }
    uint64_t nm = c->bad ? 0 : opscope_oplog_get_count(c);
    if (nm > OPSCOPE_WIN_MAX_MARKS) c->bad = true;
    for (uint64_t i = 0; i < nm && !c->bad; i++) {
        opscope_mark m = {.ts_ns = opscope_oplog_get_u(c)};
        size_t len = 0;
        m.text = opscope_oplog_get_str(c, &len);
        if (!m.text || len > OPSCOPE_WIN_MAX_TEXT || (out->marks.n && out->marks.v[out->marks.n - 1].ts_ns > m.ts_ns))
            c->bad = true;
        if (!c->bad && OPSCOPE_VEC_PUSH(out->marks, m)) return -2;
    }
    return c->bad ? -1 : 0;
}

void opscope_oplog_win_free(opscope_oplog_win *out) {
    free(out->windows.v);
    free(out->marks.v);
    out->windows.v = NULL;
    out->marks.v = NULL;
    out->windows.n = out->windows.cap = out->marks.n = out->marks.cap = 0;
}

void *opscope_capture_win_copy(opscope_capture_info *dst, const opscope_capture_info *src, int *failed) {
    size_t nw = src->n_windows, nm = src->n_marks, text = 0;
    const opscope_window *sw = src->windows;
    const opscope_mark *sm = src->marks;
    for (size_t i = 0; i < nm; i++) text += strlen(sm[i].text ? sm[i].text : "") + 1;
    dst->windows = NULL;
    dst->marks = NULL;
    dst->n_windows = dst->n_marks = 0;
    if (!nw && !nm) return NULL;
    /* marks first: both structs hold 8-byte fields, the texts go last */
    unsigned char *b = malloc(nm * sizeof *sm + nw * sizeof *sw + text);
    if (!b) {
        *failed = 1;
        return NULL;
    }
    opscope_mark *m = (opscope_mark *)b;
    opscope_window *w = (opscope_window *)(b + nm * sizeof *sm);
    char *t = (char *)(b + nm * sizeof *sm + nw * sizeof *sw);
    if (nw) memcpy(w, sw, nw * sizeof *sw);
    for (size_t i = 0; i < nm; i++) {
        size_t len = strlen(sm[i].text ? sm[i].text : "");
        memcpy(t, sm[i].text ? sm[i].text : "", len + 1);
        m[i] = (opscope_mark){.ts_ns = sm[i].ts_ns, .text = t};
        t += len + 1;
    }
    dst->windows = nw ? w : NULL;
    dst->n_windows = nw;
    dst->marks = nm ? m : NULL;
    dst->n_marks = nm;
    return b;
}
