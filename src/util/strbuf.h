/*
 * strbuf.h - the string buffer every folder shares, in two kinds:
 *
 * - growable (OPSCOPE_STRBUF_INIT, or a zeroed struct): the text lives on the heap and doubles
 *   as it grows. Out of memory never aborts: the append that did not fit is dropped, `failed`
 *   is set and stays set (the text then misses that append: use it for nothing but the error),
 *   and the append returns -1. Bytes of any value may be stored (a byte buffer: s[0, len)).
 * - bounded (opscope_strbuf_fixed): over a caller's buffer of SIZE bytes, never grown. At most
 *   SIZE - 1 bytes are stored and the text is always NUL-terminated (SIZE 0: nothing is ever
 *   written). An append that does not fit is cut at a UTF-8 character boundary (never inside
 *   a multi-byte sequence) and nothing after it is stored; every byte appended is still
 *   counted, so opscope_strbuf_wanted is the length the whole text needs (snprintf's return)
 *   and wanted > len tells that the text was cut.
 *
 * s[len] is '\0' whenever s is not NULL (a growable buffer holds s == NULL until its first
 * append: opscope_strbuf_cstr gives "" then).
 *
 * Ownership: a growable buffer owns s (opscope_strbuf_free); a bounded one never frees the
 * caller's buffer. Pointers into s stay valid until the next append to a growable buffer.
 * NULL handling: B must point to a buffer; opscope_strbuf_add_str appends nothing for a NULL
 * string; byte appends take N readable bytes at P, never NULL.
 * Thread safety: none (one owner); distinct buffers are independent.
 *
 * The appends that run per record (bytes, a char, a copy) are inline: a fast path when the
 * text fits, the rest in strbuf.c.
 */
#ifndef OPSCOPE_UTIL_STRBUF_H
#define OPSCOPE_UTIL_STRBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct opscope_strbuf {
    char *s;     /* the text (NULL: a growable buffer before its first append) */
    size_t len;  /* bytes stored */
    size_t size; /* bytes at s: the allocation, or the caller's SIZE */
    size_t lim;  /* appends store while len + n < lim: size, or len + 1 once a bounded
                  * append was cut (so nothing after it is stored) */
    size_t over; /* bytes appended but not stored (cut, or dropped for want of memory) */
    bool fixed;  /* bounded: the caller's buffer */
    bool failed; /* growable: an append ran out of memory */
} opscope_strbuf;

/* An empty growable buffer. */
#define OPSCOPE_STRBUF_INIT {0}

/* Sets B up bounded over the SIZE bytes at BUF (BUF may be NULL when SIZE is 0) and makes BUF
 * the empty string. */
static inline void opscope_strbuf_fixed(opscope_strbuf *b, char *buf, size_t size) {
    *b = (opscope_strbuf){.s = size ? buf : NULL, .size = size, .lim = size, .fixed = true};
    if (size) buf[0] = '\0';
}

/* Empties B, keeping its storage (and `failed`); a bounded buffer's whole room reopens. */
static inline void opscope_strbuf_reset(opscope_strbuf *b) {
    b->len = 0;
    b->over = 0;
    b->lim = b->size;
    if (b->s) b->s[0] = '\0';
}

/* Frees a growable buffer's text and makes B an empty growable buffer again (`failed`
 * cleared); a bounded buffer is only emptied (opscope_strbuf_reset). */
void opscope_strbuf_free(opscope_strbuf *b);

/* The text: s, or "" while a growable buffer has none. Valid until the next append. */
static inline const char *opscope_strbuf_cstr(const opscope_strbuf *b) { return b->s ? b->s : ""; }

/* The length the whole text needs: the bytes stored plus those cut or dropped. */
static inline size_t opscope_strbuf_wanted(const opscope_strbuf *b) { return b->len + b->over; }

/* Keeps the first N bytes of the text (N >= len: nothing changes); a cut bounded buffer
 * stays closed. */
static inline void opscope_strbuf_truncate(opscope_strbuf *b, size_t n) {
    if (n >= b->len) return;
    b->len = n;
    b->s[n] = '\0';
}

/* The slow paths of the inline appends below (not to be called directly). */
int opscope_strbuf_add_slow(opscope_strbuf *b, const void *p, size_t n);
int opscope_strbuf_room_slow(opscope_strbuf *b, size_t n);

/* Appends the N bytes at P. 0, or -1 when a growable buffer ran out of memory (a cut is 0). */
static inline int opscope_strbuf_add(opscope_strbuf *b, const void *p, size_t n) {
    char *s = b->s; /* locals: the bytes stored may alias *B, so B's fields are read first */
    size_t len = b->len;
    if (b->lim - len > n) {
        memcpy(s + len, p, n);
        s[len + n] = '\0';
        b->len = len + n;
        return 0;
    }
    return opscope_strbuf_add_slow(b, p, n);
}

/* Appends the string S (NULL: nothing). As opscope_strbuf_add. */
static inline int opscope_strbuf_add_str(opscope_strbuf *b, const char *s) {
    return s ? opscope_strbuf_add(b, s, strlen(s)) : 0;
}

/* Appends the byte C. As opscope_strbuf_add. */
static inline int opscope_strbuf_add_char(opscope_strbuf *b, char c) {
    char *s = b->s;
    size_t len = b->len;
    if (b->lim - len > 1) {
        s[len] = c;
        s[len + 1] = '\0';
        b->len = len + 1;
        return 0;
    }
    return opscope_strbuf_add_slow(b, &c, 1);
}

/* Makes the text the N bytes at P (a copy: reset, then append). As opscope_strbuf_add. */
static inline int opscope_strbuf_set(opscope_strbuf *b, const void *p, size_t n) {
    b->over = 0;
    b->lim = b->size;
    if (b->size > n) { /* the copy of a reader's token: the storage fits it, usually */
        char *s = b->s;
        memcpy(s, p, n);
        s[n] = '\0';
        b->len = n;
        return 0;
    }
    opscope_strbuf_reset(b);
    return opscope_strbuf_add_slow(b, p, n);
}

/* V in decimal ("0", "18446744073709551615"; "-9223372036854775808"). As opscope_strbuf_add. */
int opscope_strbuf_add_u64(opscope_strbuf *b, uint64_t v);
int opscope_strbuf_add_i64(opscope_strbuf *b, int64_t v);

/* printf-style (vsnprintf's conversions), then as opscope_strbuf_add: a bounded buffer cuts
 * the formatted text at a UTF-8 boundary too. -1 also when the format fails (an encoding
 * error); nothing is appended then. */
int opscope_strbuf_printf(opscope_strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Room to write N bytes at s + len directly (an encoder's bytes), then
 * opscope_strbuf_commit(b, K) with K <= N. 0, or -1: a growable buffer out of memory
 * (`failed` set), or a bounded one without N bytes of room (nothing is counted then). */
static inline int opscope_strbuf_room(opscope_strbuf *b, size_t n) {
    return b->lim - b->len > n ? 0 : opscope_strbuf_room_slow(b, n);
}

/* Takes K bytes at s + len into the text after opscope_strbuf_room (K <= its N) and ends
 * the text after them. */
static inline void opscope_strbuf_commit(opscope_strbuf *b, size_t k) {
    size_t len = b->len + k;
    b->len = len;
    b->s[len] = '\0';
}

#endif /* OPSCOPE_UTIL_STRBUF_H */
