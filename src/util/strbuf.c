/* strbuf.c - the string buffer's slow paths: growth, the bounded cut, numbers, printf
 * (see strbuf.h). */
#include "util/strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void opscope_strbuf_free(opscope_strbuf *b) {
    if (b->fixed) {
        opscope_strbuf_reset(b);
        return;
    }
    free(b->s);
    *b = (opscope_strbuf)OPSCOPE_STRBUF_INIT;
}

/* Grows a growable B to hold N more bytes and the NUL: 0, or -1 (`failed` set). */
static int grow(opscope_strbuf *b, size_t n) {
    if (n > SIZE_MAX - 1 - b->len) {
        b->failed = true;
        return -1;
    }
    size_t need = b->len + n + 1, nc = b->size ? b->size : 64;
    while (nc < need) {
        if (nc > SIZE_MAX / 2) {
            nc = need;
            break;
        }
        nc *= 2;
    }
    char *ns = realloc(b->s, nc);
    if (!ns) {
        b->failed = true;
        return -1;
    }
    if (!b->s) ns[0] = '\0';
    b->s = ns;
    b->size = b->lim = nc;
    return 0;
}

/* Stores what fits of the N bytes at P in a bounded B: a cut falls before the first byte
 * that continues a UTF-8 character, and closes the buffer. */
static void add_bounded(opscope_strbuf *b, const unsigned char *p, size_t n) {
    size_t room = b->lim > b->len ? b->lim - 1 - b->len : 0, k = n;
    if (n > room) {
        k = room;
        while (k > 0 && (p[k] & 0xC0) == 0x80) k--;
    }
    if (k) memcpy(b->s + b->len, p, k);
    b->len += k;
    b->over += n - k;
    if (b->lim) {
        b->s[b->len] = '\0';
        if (k < n) b->lim = b->len + 1;
    }
}

int opscope_strbuf_add_slow(opscope_strbuf *b, const void *p, size_t n) {
    if (b->fixed) {
        add_bounded(b, p, n);
        return 0;
    }
    if (b->lim - b->len <= n && grow(b, n)) {
        b->over += n;
        return -1;
    }
    if (n) memcpy(b->s + b->len, p, n);
    b->len += n;
    b->s[b->len] = '\0';
    return 0;
}

int opscope_strbuf_room_slow(opscope_strbuf *b, size_t n) {
    if (b->fixed) return b->lim - b->len > n ? 0 : -1;
    return b->lim - b->len > n ? 0 : grow(b, n);
}

/* V's decimal digits, backwards, ending at END: returns where they start. */
static char *digits(char *end, uint64_t v) {
    do {
        *--end = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    return end;
}

int opscope_strbuf_add_u64(opscope_strbuf *b, uint64_t v) {
    char t[24];
    char *p = digits(t + sizeof t, v);
    return opscope_strbuf_add(b, p, (size_t)(t + sizeof t - p));
}

int opscope_strbuf_add_i64(opscope_strbuf *b, int64_t v) {
    char t[24];
    char *p = digits(t + sizeof t, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v);
    if (v < 0) *--p = '-';
    return opscope_strbuf_add(b, p, (size_t)(t + sizeof t - p));
}

/* Formats into the room at s + len; a text that does not fit is formatted again: in place
 * after growing a growable buffer, into a scratch copy for a bounded one (its cut needs the
 * bytes past the room). */
int opscope_strbuf_printf(opscope_strbuf *b, const char *fmt, ...) {
    va_list ap, aq;
    va_start(ap, fmt);
    va_copy(aq, ap);
    size_t room = b->lim > b->len ? b->lim - b->len : 0;
    int n = vsnprintf(room ? b->s + b->len : NULL, room, fmt, ap);
    va_end(ap);
    int rc = 0;
    if (n < 0) {
        rc = -1;
    } else if ((size_t)n < room) {
        b->len += (size_t)n;
    } else if (!b->fixed) {
        if (grow(b, (size_t)n)) {
            b->over += (size_t)n;
            rc = -1;
        } else {
            vsnprintf(b->s + b->len, b->lim - b->len, fmt, aq);
            b->len += (size_t)n;
        }
    } else {
        char stack[512];
        char *t = (size_t)n < sizeof stack ? stack : malloc((size_t)n + 1);
        if (t) {
            vsnprintf(t, (size_t)n + 1, fmt, aq);
            add_bounded(b, (const unsigned char *)t, (size_t)n);
            if (t != stack) free(t);
        } else { /* no scratch copy: nothing of it stored, the buffer closed as by a cut */
            b->over += (size_t)n;
            if (b->lim) b->lim = b->len + 1;
            rc = -1;
        }
    }
    if (b->s) b->s[b->len] = '\0'; /* also ends what a failed format left past the text */
    va_end(aq);
    return rc;
}
