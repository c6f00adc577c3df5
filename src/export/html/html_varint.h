/*
 * html_varint.h - the viewer data's columns: LEB128 varints into a growable byte buffer and
 * their base64 text (docs/viewer.md, "Data format"). Used by html_data.c and html_threads.c.
 * Thread safety: none; each call touches only its arguments.
 */
#ifndef OPSCOPE_HTML_VARINT_H
#define OPSCOPE_HTML_VARINT_H

#include "util/out.h"
#include "util/strbuf.h"

#include <stdint.h>

/* Appends V to B as a LEB128 varint; out of memory sets B->failed (util/strbuf.h). Inline:
 * a page of a million records calls it several times per record. */
static inline void opscope_html_vb_u64(opscope_strbuf *b, uint64_t v) {
    if (v < 0x80) { /* one byte: most ids, types and small counts */
        opscope_strbuf_add_char(b, (char)v);
        return;
    }
    if (opscope_strbuf_room(b, 10)) return;
    unsigned char *p = (unsigned char *)b->s + b->len, *q = p;
    while (v >= 0x80) {
        *q++ = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    *q++ = (unsigned char)v;
    opscope_strbuf_commit(b, (size_t)(q - p));
}

/* Appends V zigzag-encoded (small negatives stay short). */
void opscope_html_vb_zz(opscope_strbuf *b, int64_t v);

/* Appends a string id: 0 for UINT32_MAX (none), else ID + 1. */
void opscope_html_vb_id(opscope_strbuf *b, uint32_t id);

/* Writes VB's bytes to W as a quoted base64 string (standard alphabet, padded). */
void opscope_html_out_base64(opscope_out_t *w, const opscope_strbuf *vb);

#endif /* OPSCOPE_HTML_VARINT_H */
