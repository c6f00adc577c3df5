/* html_varint.c - LEB128 varint columns and their base64 text (see html_varint.h). */
#include "export/html/html_varint.h"

void opscope_html_vb_zz(opscope_strbuf *b, int64_t v) {
    opscope_html_vb_u64(b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

void opscope_html_vb_id(opscope_strbuf *b, uint32_t id) {
    opscope_html_vb_u64(b, id == UINT32_MAX ? 0 : (uint64_t)id + 1);
}

/* Writes the bytes of VB as a quoted base64 string (standard alphabet, padded). */
void opscope_html_out_base64(opscope_out_t *w, const opscope_strbuf *vb) {
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const unsigned char *p = (const unsigned char *)vb->s;
    size_t n = vb->len;
    char chunk[4096 + 8];
    size_t c = 0, i = 0;
    opscope_out_char(w, '"');
    for (; i + 3 <= n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
        chunk[c++] = tab[v >> 18];
        chunk[c++] = tab[(v >> 12) & 63];
        chunk[c++] = tab[(v >> 6) & 63];
        chunk[c++] = tab[v & 63];
        if (c >= 4096) {
            opscope_out_write(w, chunk, c);
            c = 0;
        }
    }
    if (i < n) {
        uint32_t v = (uint32_t)p[i] << 16;
        if (i + 1 < n) v |= (uint32_t)p[i + 1] << 8;
        chunk[c++] = tab[v >> 18];
        chunk[c++] = tab[(v >> 12) & 63];
        chunk[c++] = i + 1 < n ? tab[(v >> 6) & 63] : '=';
        chunk[c++] = '=';
    }
    opscope_out_write(w, chunk, c);
    opscope_out_char(w, '"');
}

