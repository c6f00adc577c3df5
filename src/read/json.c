/*
 * json.c - streaming JSON pull parser (see json.h).
 *
 * The input lives in one growable buffer: BUF[0..LEN) holds the bytes not yet released, BUF[LEN]
 * is always a 0 sentinel (so scanning loops need no bounds check: a 0 byte stops every loop and
 * the loop then asks whether it stopped at the sentinel), and JSON_PAD bytes after CAP allow
 * 16-byte loads past the end. Everything before TOK (the first byte of the token being scanned)
 * may be discarded when more input is read; token scanners keep indices, never pointers, across
 * a refill. String escapes are decoded in place (the decoded form is never longer), so a string
 * token is returned NUL-terminated without a copy.
 *
 * Lines are counted while skipping whitespace: a raw newline can only appear there in valid
 * JSON, and an invalid one stops the parser where it is, so line and column of any error at or
 * after the last whitespace run are exact without re-reading discarded input.
 */
#include "read/json.h"

#include <errno.h>
#include <float.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define JSON_CHUNK ((size_t)1 << 20) /* bytes asked of the source per read */
#define JSON_PAD 64                  /* readable slack after the buffer's capacity */
#define JSON_MAX_DEPTH 1024

/* The per-token path is a few dozen instructions; call overhead would be a large share of it. */
#if defined(__GNUC__)
#define JSON_HOT static inline __attribute__((always_inline))
#else
#define JSON_HOT static inline
#endif

enum {
    ST_VALUE,     /* a value must come next (top level, after ':' or ',' in an array) */
    ST_COLON,     /* a key was returned; ':' and a value must come next */
    ST_ARR_FIRST, /* after '[': a value or ']' */
    ST_OBJ_FIRST, /* after '{': a key or '}' */
    ST_AFTER,     /* after a complete value: ',' / closing bracket / end of input */
    ST_DONE,
    ST_FAILED,
};

struct opscope_json {
    opscope_json_read_fn read;
    void *ud;
    const unsigned char *mem; /* memory source (read == NULL) */
    size_t mem_size, mem_off;

    unsigned char *buf;
    size_t cap;      /* usable bytes; the allocation is cap + JSON_PAD */
    size_t len;      /* valid bytes */
    size_t pos;      /* cursor */
    size_t tok;      /* first byte that must survive a refill */
    size_t floor;    /* also kept when != SIZE_MAX: the key of opscope_json_next_member */
    uint64_t base;   /* absolute offset of buf[0] */
    int src_eof;

    int state;
    int depth;
    uint64_t line;       /* 1-based line of the cursor's whitespace bookkeeping */
    uint64_t line_start; /* absolute offset of that line's first byte */

    unsigned char stack[JSON_MAX_DEPTH + 1]; /* 1 = object, 0 = array, per depth */
    opscope_error err;
    char name[256];
};

/* ------------------------------------------------------------------------------------------ */
/* Errors.                                                                                    */

static void json_set_error(opscope_json_t *j, opscope_error_code code, const char *msg,
                           uint64_t pos) {
    memset(&j->err, 0, sizeof j->err);
    j->err.code = code;
    j->err.msg = msg;
    j->err.pos = pos;
    memcpy(j->err.file, j->name, sizeof j->err.file);
    if (pos >= j->line_start && j->line <= UINT32_MAX && pos - j->line_start < UINT32_MAX) {
        j->err.line = (uint32_t)j->line;
        j->err.col = (uint32_t)(pos - j->line_start + 1);
    }
    j->state = ST_FAILED;
}

int opscope_json_fail(opscope_json_t *j, opscope_error_code code, const char *msg, uint64_t pos) {
    if (j->state != ST_FAILED) json_set_error(j, code, msg, pos);
    return -1;
}

static opscope_json_tok json_fail_tok(opscope_json_t *j, opscope_json_token *t, const char *msg,
                                      size_t idx) {
    json_set_error(j, OPSCOPE_ERROR_SYNTAX, msg, j->base + idx);
    t->type = OPSCOPE_JSON_ERROR;
    return OPSCOPE_JSON_ERROR;
}

const opscope_error *opscope_json_error(const opscope_json_t *j) { return &j->err; }

uint64_t opscope_json_bytes_read(const opscope_json_t *j) { return j->base + j->pos; }

/* ------------------------------------------------------------------------------------------ */
/* Input.                                                                                     */

/*
 * Releases BUF[0..TOK), grows the buffer when what is kept fills it, and reads once from the
 * source. Indices into the buffer held by callers must be lowered by *SHIFT. Returns the bytes
 * added (> 0), 0 at end of input, -1 on a read or allocation error (error set).
 */
static long json_more(opscope_json_t *j, size_t *shift) {
    *shift = 0;
    if (j->src_eof) return 0;
    size_t keep = j->tok < j->floor ? j->tok : j->floor;
    if (keep > 0) {
        memmove(j->buf, j->buf + keep, j->len - keep);
        j->len -= keep;
        j->pos -= keep;
        j->tok -= keep;
        if (j->floor != SIZE_MAX) j->floor -= keep;
        j->base += keep;
        j->buf[j->len] = 0; /* the sentinel moves with the data */
        *shift = keep;
    }
    size_t room = j->cap - j->len;
    if (room == 0 || (room < JSON_CHUNK / 4 && j->len >= j->cap / 2)) {
        if (j->cap > SIZE_MAX / 4) {
            json_set_error(j, OPSCOPE_ERROR_NOMEM, "token too large", j->base + j->len);
            return -1;
        }
        size_t ncap = j->cap * 2 < JSON_CHUNK ? JSON_CHUNK : j->cap * 2;
        unsigned char *nb = realloc(j->buf, ncap + JSON_PAD);
        if (!nb) {
            json_set_error(j, OPSCOPE_ERROR_NOMEM, "out of memory (token too large)",
                           j->base + j->len);
            return -1;
        }
        memset(nb + ncap, 0, JSON_PAD);
        j->buf = nb;
        j->cap = ncap;
        room = ncap - j->len;
    }
    if (room > JSON_CHUNK) room = JSON_CHUNK;
    long n;
    if (j->read) {
        do {
            errno = 0;
            n = j->read(j->ud, (char *)j->buf + j->len, room);
        } while (n < 0 && errno == EINTR);
        if (n < 0 || (size_t)n > room) {
            int e = errno;
            json_set_error(j, OPSCOPE_ERROR_IO, "read failed", j->base + j->len);
            j->err.errno_value = e;
            j->err.line = 0;
            j->err.col = 0;
            return -1;
        }
    } else {
        size_t left = j->mem_size - j->mem_off;
        n = (long)(left < room ? left : room);
        if (n > 0) memcpy(j->buf + j->len, j->mem + j->mem_off, (size_t)n);
        j->mem_off += (size_t)n;
    }
    if (n == 0) {
        j->src_eof = 1;
        return 0;
    }
    j->len += (size_t)n;
    j->buf[j->len] = 0;
    return n;
}

/* Makes at least N bytes available from *I (lowering *I and *W on a refill).
 * Returns 1, 0 if input ended first, -1 on error. */
static int json_ensure(opscope_json_t *j, size_t *i, size_t *w, size_t n) {
    while (j->len - *i < n) {
        size_t sh;
        long r = json_more(j, &sh);
        *i -= sh;
        if (w) *w -= sh;
        if (r < 0) return -1;
        if (r == 0) return 0;
    }
    return 1;
}

opscope_json_t *opscope_json_new(opscope_json_read_fn read, void *ud, const void *data,
                                 size_t size, const char *name) {
    opscope_json_t *j = calloc(1, sizeof *j);
    if (!j) return NULL;
    j->read = read;
    j->ud = ud;
    if (!read) {
        j->mem = data;
        j->mem_size = data ? size : 0;
    }
    /* Small memory inputs (tests, fuzzing) get a small buffer; it grows on demand. */
    j->cap = (!read && j->mem_size < JSON_CHUNK) ? j->mem_size + 16 : JSON_CHUNK;
    j->buf = calloc(1, j->cap + JSON_PAD); /* buf[0] == 0 is the first sentinel */
    if (!j->buf) {
        free(j);
        return NULL;
    }
    j->line = 1;
    j->floor = SIZE_MAX;
    j->state = ST_VALUE;
    if (name) {
        size_t n = strlen(name);
        if (n >= sizeof j->name) n = sizeof j->name - 1;
        memcpy(j->name, name, n);
        j->name[n] = 0;
    }
    return j;
}

void opscope_json_free(opscope_json_t *j) {
    if (!j) return;
    free(j->buf);
    free(j);
}

/* ------------------------------------------------------------------------------------------ */
/* Scanners.                                                                                  */

/* Skips whitespace, counting lines. Returns the next byte, -1 at end of input, -2 on error.
 * Sets TOK to the cursor (nothing before it is needed any more). */
static int json_skip_ws(opscope_json_t *j) {
    for (;;) {
        const unsigned char *b = j->buf;
        size_t i = j->pos;
        for (;;) {
            unsigned char c = b[i];
            if (c == ' ' || c == '\t' || c == '\r') {
                i++;
            } else if (c == '\n') {
                i++;
                j->line++;
                j->line_start = j->base + i;
            } else {
                break;
            }
        }
        j->pos = i;
        j->tok = i;
        if (i < j->len) return b[i];
        size_t sh;
        long r = json_more(j, &sh);
        if (r < 0) return -2;
        if (r == 0) return -1;
    }
}

/* The common cases inline: no whitespace, or one space, before the next token. */
JSON_HOT int json_peek(opscope_json_t *j) {
    const unsigned char *b = j->buf;
    size_t i = j->pos;
    unsigned char c = b[i];
    if (c > ' ') { /* never the sentinel, so i < len */
        j->tok = i;
        return c;
    }
    if (c == ' ' && b[i + 1] > ' ') {
        j->pos = j->tok = i + 1;
        return b[i + 1];
    }
    return json_skip_ws(j);
}

static const char HEXVAL[256] = {
    ['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7, ['7'] = 8,
    ['8'] = 9, ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
    ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

/* Four hex digits at P; returns the value or -1. */
static long json_hex4(const unsigned char *p) {
    long v = 0;
    for (int k = 0; k < 4; k++) {
        int h = HEXVAL[p[k]];
        if (!h) return -1;
        v = v * 16 + (h - 1);
    }
    return v;
}

static size_t json_put_utf8(unsigned char *w, uint32_t cp) {
    if (cp < 0x80) {
        w[0] = (unsigned char)cp;
        return 1;
    }
    if (cp < 0x800) {
        w[0] = (unsigned char)(0xC0 | (cp >> 6));
        w[1] = (unsigned char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        w[0] = (unsigned char)(0xE0 | (cp >> 12));
        w[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        w[2] = (unsigned char)(0x80 | (cp & 0x3F));
        return 3;
    }
    w[0] = (unsigned char)(0xF0 | (cp >> 18));
    w[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
    w[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
    w[3] = (unsigned char)(0x80 | (cp & 0x3F));
    return 4;
}

/* Length of the valid UTF-8 sequence at P (N bytes available, N >= 1), or 0 if invalid. */
static size_t json_utf8_len(const unsigned char *p, size_t n) {
    unsigned char c = p[0];
    if (c >= 0xC2 && c <= 0xDF) {
        return (n >= 2 && (p[1] & 0xC0) == 0x80) ? 2 : 0;
    }
    if (c >= 0xE0 && c <= 0xEF) {
        if (n < 3) return 0;
        unsigned char lo = 0x80, hi = 0xBF;
        if (c == 0xE0) lo = 0xA0;      /* overlong */
        else if (c == 0xED) hi = 0x9F; /* UTF-16 surrogates */
        if (p[1] < lo || p[1] > hi || (p[2] & 0xC0) != 0x80) return 0;
        return 3;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        if (n < 4) return 0;
        unsigned char lo = 0x80, hi = 0xBF;
        if (c == 0xF0) lo = 0x90;      /* overlong */
        else if (c == 0xF4) hi = 0x8F; /* above U+10FFFF */
        if (p[1] < lo || p[1] > hi || (p[2] & 0xC0) != 0x80 || (p[3] & 0xC0) != 0x80) return 0;
        return 4;
    }
    return 0;
}

/* Index of the first byte at or after I that is '"', '\\', < 0x20 or >= 0x80. The sentinel 0
 * at LEN guarantees a stop. */
JSON_HOT size_t json_scan_plain(const unsigned char *b, size_t i) {
#if defined(__SSE2__)
    const __m128i q = _mm_set1_epi8('"');
    const __m128i bs = _mm_set1_epi8('\\');
    const __m128i sp = _mm_set1_epi8(0x20);
    for (;;) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(b + i));
        /* signed compare: bytes >= 0x80 are negative, so "< 0x20" catches both ranges */
        __m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, q), _mm_cmpeq_epi8(v, bs)),
                                 _mm_cmplt_epi8(v, sp));
        unsigned mask = (unsigned)_mm_movemask_epi8(m);
        if (mask) return i + (size_t)__builtin_ctz(mask);
        i += 16;
    }
#else
    for (;;) {
        unsigned char c = b[i];
        if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80) return i;
        i++;
    }
#endif
}

/* Scans the string whose opening quote is at the cursor; decodes it in place. On success points
 * S, N at the NUL-terminated content and moves the cursor past the closing quote. */
static int json_scan_string(opscope_json_t *j, const char **s, size_t *n, const char **msg,
                            size_t *epos) {
    size_t i = j->pos + 1; /* read index */
    size_t w = i;          /* write index (== i until the first escape) */
    for (;;) {
        size_t k = json_scan_plain(j->buf, i);
        if (w != i) memmove(j->buf + w, j->buf + i, k - i);
        w += k - i;
        i = k;
        unsigned char *b = j->buf;
        unsigned char c = b[i];
        if (c == '"') {
            b[w] = 0;
            *s = (const char *)b + j->tok + 1;
            *n = w - (j->tok + 1);
            j->pos = i + 1;
            return 0;
        }
        if (i >= j->len) {
            int r = json_ensure(j, &i, &w, 1);
            if (r < 0) return -2;
            if (r == 0) {
                *msg = "unterminated string";
                *epos = i;
                return -1;
            }
            continue;
        }
        if (c == '\\') {
            int r = json_ensure(j, &i, &w, 2);
            if (r < 0) return -2;
            b = j->buf;
            if (r == 0) {
                *msg = "unterminated string";
                *epos = i + 1;
                return -1;
            }
            unsigned char e = b[i + 1], out;
            switch (e) {
            case '"': out = '"'; break;
            case '\\': out = '\\'; break;
            case '/': out = '/'; break;
            case 'b': out = '\b'; break;
            case 'f': out = '\f'; break;
            case 'n': out = '\n'; break;
            case 'r': out = '\r'; break;
            case 't': out = '\t'; break;
            case 'u': {
                r = json_ensure(j, &i, &w, 6);
                if (r < 0) return -2;
                b = j->buf;
                long cp = r ? json_hex4(b + i + 2) : -1;
                if (cp < 0) {
                    *msg = "invalid \\u escape (expected 4 hex digits)";
                    *epos = i;
                    return -1;
                }
                size_t used = 6;
                if (cp >= 0xD800 && cp <= 0xDBFF) {
                    /* a high surrogate: combine with a following low one */
                    r = json_ensure(j, &i, &w, 12);
                    if (r < 0) return -2;
                    b = j->buf;
                    long lo = -1;
                    if (r && b[i + 6] == '\\' && b[i + 7] == 'u') lo = json_hex4(b + i + 8);
                    if (lo >= 0xDC00 && lo <= 0xDFFF) {
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                        used = 12;
                    } else {
                        cp = 0xFFFD; /* lone surrogate: replaced, the output stays valid UTF-8 */
                    }
                } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                    cp = 0xFFFD;
                }
                w += json_put_utf8(b + w, (uint32_t)cp);
                i += used;
                continue;
            }
            default:
                *msg = "invalid escape in string";
                *epos = i;
                return -1;
            }
            b[w++] = out;
            i += 2;
            continue;
        }
        if (c < 0x20) {
            *msg = "control character in string (must be escaped)";
            *epos = i;
            return -1;
        }
        /* c >= 0x80: a UTF-8 sequence */
        int r = json_ensure(j, &i, &w, 4);
        if (r < 0) return -2;
        b = j->buf;
        size_t len = json_utf8_len(b + i, j->len - i);
        if (!len) {
            *msg = "invalid UTF-8 byte in string";
            *epos = i;
            return -1;
        }
        if (w != i) memmove(b + w, b + i, len);
        i += len;
        w += len;
    }
}

/* A string without escapes or non-ASCII bytes, wholly in the buffer: no decoding, no call.
 * Returns 1 when it applied, 0 when json_scan_string must do the work. */
JSON_HOT int json_string_fast(opscope_json_t *j, const char **s, size_t *n) {
    unsigned char *b = j->buf;
    size_t i = j->pos + 1;
    size_t k = json_scan_plain(b, i);
    if (b[k] != '"') return 0; /* also when k == len: the sentinel is 0 */
    b[k] = 0;
    *s = (const char *)b + i;
    *n = k - i;
    j->pos = k + 1;
    return 1;
}

/* Bytes that may appear in a number token. */
static const unsigned char NUMCHAR[256] = {
    ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1,
    ['8'] = 1, ['9'] = 1, ['-'] = 1, ['+'] = 1, ['.'] = 1, ['e'] = 1, ['E'] = 1,
};

#define IS_DIGIT(c) ((unsigned)((c) - '0') < 10u)

/*
 * The value of a grammatical number P[0..N) as strtod rounds it, when that needs no big-number
 * arithmetic (Clinger's fast path): at most 19 significant digits whose value m is exact in a
 * double (m <= 2^53) and a decimal exponent e with |e| <= 22, so 10^|e| is exact too and m * 10^e
 * or m / 10^-e is one correctly rounded IEEE operation. Kineto's timestamps ("ts": 1700000000.123)
 * all take it; strtod cost ~40x more per number. Returns 1 with *D set, 0 to leave it to strtod.
 */
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0
/* The powers of ten exact in a double (Clinger's fast path, here and in json_decimal). */
static const double P10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                               1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
#endif

static int json_decimal_exact(const unsigned char *p, size_t n, double *d) {
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0
    size_t i = 0;
    int neg = p[0] == '-';
    i += (size_t)neg;
    uint64_t m = 0;
    int digits = 0, exp10 = 0;
    for (; i < n && IS_DIGIT(p[i]); i++) {
        if (digits || p[i] != '0') digits++;
        if (digits > 19) return 0;
        m = m * 10 + (unsigned)(p[i] - '0');
    }
    if (i < n && p[i] == '.') {
        for (i++; i < n && IS_DIGIT(p[i]); i++) {
            if (digits || p[i] != '0') digits++;
            if (digits > 19) return 0;
            m = m * 10 + (unsigned)(p[i] - '0');
            exp10--;
        }
    }
    if (i < n) { /* 'e' or 'E', then an optional sign and digits (the grammar was checked) */
        i++;
        int eneg = p[i] == '-';
        if (p[i] == '-' || p[i] == '+') i++;
        int ev = 0;
        for (; i < n; i++) {
            if (ev > 1000) return 0;
            ev = ev * 10 + (p[i] - '0');
        }
        exp10 += eneg ? -ev : ev;
    }
    if (m > ((uint64_t)1 << 53)) return 0;
    double v = (double)m;
    if (m != 0) {
        if (exp10 < -22 || exp10 > 22) return 0;
        v = exp10 < 0 ? v / P10[-exp10] : v * P10[exp10];
    }
    *d = neg ? -v : v;
    return 1;
#else
    (void)p;
    (void)n;
    (void)d;
    return 0;
#endif
}

static opscope_json_tok json_scan_number(opscope_json_t *j, opscope_json_token *t) {
    /* 1: find the span (resumable across refills), 2: check the grammar on it */
    size_t i = j->pos;
    for (;;) {
        const unsigned char *b = j->buf;
        while (NUMCHAR[b[i]]) i++;
        if (i < j->len) break;
        int r = json_ensure(j, &i, NULL, 1);
        if (r < 0) {
            t->type = OPSCOPE_JSON_ERROR;
            return OPSCOPE_JSON_ERROR;
        }
        if (r == 0) break;
    }
    unsigned char *b = j->buf;
    size_t s = j->tok, end = i, k = s;
    int neg = 0;
    if (b[k] == '-') {
        neg = 1;
        k++;
    }
    if (k >= end || !IS_DIGIT(b[k])) return json_fail_tok(j, t, "expected a digit after '-'", k);
    uint64_t u = 0;
    int fits = 1;
    if (b[k] == '0') {
        k++;
        if (k < end && IS_DIGIT(b[k]))
            return json_fail_tok(j, t, "leading zeros are not allowed in numbers", k);
    } else {
        size_t d0 = k;
        while (k < end && IS_DIGIT(b[k])) {
            unsigned dig = (unsigned)(b[k] - '0');
            if (u > (UINT64_MAX - dig) / 10) fits = 0;
            else u = u * 10 + dig;
            k++;
        }
        if (k - d0 > 20) fits = 0;
    }
    int is_int = 1;
    if (k < end && b[k] == '.') {
        is_int = 0;
        k++;
        if (k >= end || !IS_DIGIT(b[k])) return json_fail_tok(j, t, "expected a digit after '.'", k);
        while (k < end && IS_DIGIT(b[k])) k++;
    }
    if (k < end && (b[k] == 'e' || b[k] == 'E')) {
        is_int = 0;
        k++;
        if (k < end && (b[k] == '+' || b[k] == '-')) k++;
        if (k >= end || !IS_DIGIT(b[k]))
            return json_fail_tok(j, t, "expected a digit in the exponent", k);
        while (k < end && IS_DIGIT(b[k])) k++;
    }
    if (k != end) return json_fail_tok(j, t, "invalid character in number", k);

    t->type = OPSCOPE_JSON_NUMBER;
    t->str = (const char *)b + s;
    t->len = end - s;
    t->dec = -1;
    t->is_int = false;
    t->i = 0;
    if (is_int && fits && (neg ? u <= (uint64_t)INT64_MAX + 1 : u <= (uint64_t)INT64_MAX)) {
        t->is_int = true;
        t->i = neg ? (u == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)u) : (int64_t)u;
        t->d = (double)t->i;
    } else if (!json_decimal_exact(b + s, end - s, &t->d)) {
        /* strtod needs a terminator: borrow the byte after the span (padding exists) */
        unsigned char save = b[end];
        b[end] = 0;
        t->d = strtod((const char *)b + s, NULL);
        b[end] = save;
    }
    j->pos = end;
    return OPSCOPE_JSON_NUMBER;
}

/* Digits at P (8 bytes readable): how many of the first 8 bytes are ASCII digits, and their
 * value. SWAR: one 8-byte load instead of a loop per digit. */
JSON_HOT unsigned json_digits8(const unsigned char *p, uint64_t *val) {
    uint64_t v;
    memcpy(&v, p, 8);
    uint64_t x = v ^ 0x3030303030303030ull; /* digits become 0..9 */
    uint64_t m = (x & 0xF0F0F0F0F0F0F0F0ull) |
                 (((x & 0x0F0F0F0F0F0F0F0Full) + 0x0606060606060606ull) & 0xF0F0F0F0F0F0F0F0ull);
    /* m: a non-zero byte for each non-digit */
    uint64_t nz = (((m & 0x7F7F7F7F7F7F7F7Full) + 0x7F7F7F7F7F7F7F7Full) | m) & 0x8080808080808080ull;
    unsigned n = nz ? (unsigned)__builtin_ctzll(nz) / 8 : 8;
    if (n == 0) {
        *val = 0;
        return 0;
    }
    x <<= 8 * (8 - n); /* the n digits become the low-order end of 8 (leading zeros) */
    x = (x * 10) + (x >> 8);
    x = (((x & 0x000000FF000000FFull) * (100 + (1000000ull << 32))) +
         (((x >> 16) & 0x000000FF000000FFull) * (1 + (10000ull << 32)))) >> 32;
    *val = x;
    return n;
}

static const uint64_t POW10[9] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};

/* Up to 16 leading digits at P (16 bytes readable) and their value; the caller checks that no
 * digit follows. Short numbers (most shapes and ids) take the scalar loop, long ones SWAR. */
JSON_HOT unsigned json_digits16(const unsigned char *p, uint64_t *val) {
    uint64_t u = 0, lo;
    unsigned n = 0;
    while (n < 4 && IS_DIGIT(p[n])) {
        u = u * 10 + (unsigned)(p[n] - '0');
        n++;
    }
    if (n == 4) {
        unsigned k = json_digits8(p + 4, &lo);
        u = u * POW10[k] + lo;
        n += k;
        while (n < 16 && IS_DIGIT(p[n])) {
            u = u * 10 + (unsigned)(p[n] - '0');
            n++;
        }
    }
    *val = u;
    return n;
}

/* A number from S whose integer part U (NEG: its sign) ends at the '.' at I: up to 8
 * fraction digits and 19 digits in all with no exponent ("3605057436108.407", a Kineto
 * timestamp) here, their value exact as one division of two exact doubles (correctly rounded,
 * as strtod), the digits kept in the token (mant, dec) for an exact reading in other units;
 * any other number by the general scanner. */
static opscope_json_tok json_decimal(opscope_json_t *j, opscope_json_token *t, size_t s, size_t i,
                                     uint64_t u, int neg) {
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0
    const unsigned char *b = j->buf;
    uint64_t f;
    unsigned nf = json_digits8(b + i + 1, &f);
    size_t e = i + 1 + nf, digits = i - s - (size_t)neg + nf;
    if (nf && e < j->len && !NUMCHAR[b[e]] && digits <= 19) {
        uint64_t m = u * POW10[nf] + f;
        if (m <= ((uint64_t)1 << 53)) {
            double v = (double)m / P10[nf];
            t->type = OPSCOPE_JSON_NUMBER;
            t->str = (const char *)b + s;
            t->len = e - s;
            t->is_int = false;
            t->i = 0;
            t->d = neg ? -v : v;
            t->mant = m;
            t->dec = (int)nf;
            j->pos = e;
            return OPSCOPE_JSON_NUMBER;
        }
    }
#else
    (void)s, (void)i, (void)u, (void)neg;
#endif
    return json_scan_number(j, t);
}

/* Integers of up to 16 digits wholly in the buffer, plain decimals by json_decimal; anything
 * else goes to json_scan_number. */
JSON_HOT opscope_json_tok json_number(opscope_json_t *j, opscope_json_token *t) {
    const unsigned char *b = j->buf;
    size_t s = j->pos, i = s;
    int neg = b[i] == '-';
    i += (size_t)neg;
    uint64_t u = 0;
    if (b[i] >= '1' && b[i] <= '9') {
        i += json_digits16(b + i, &u);
    } else if (b[i] == '0') {
        i++;
    } else {
        return json_scan_number(j, t);
    }
    if (b[i] == '.') return json_decimal(j, t, s, i, u, neg);
    if (NUMCHAR[b[i]] || i >= j->len) return json_scan_number(j, t);
    t->type = OPSCOPE_JSON_NUMBER;
    t->str = (const char *)b + s;
    t->len = i - s;
    t->dec = -1;
    t->is_int = true;
    t->i = neg ? -(int64_t)u : (int64_t)u;
    t->d = (double)t->i;
    j->pos = i;
    return OPSCOPE_JSON_NUMBER;
}

static opscope_json_tok json_scan_literal(opscope_json_t *j, opscope_json_token *t) {
    size_t i = j->pos;
    int r = json_ensure(j, &i, NULL, 5);
    if (r < 0) {
        t->type = OPSCOPE_JSON_ERROR;
        return OPSCOPE_JSON_ERROR;
    }
    const unsigned char *b = j->buf + i;
    size_t avail = j->len - i;
    const char *lit;
    opscope_json_tok type;
    switch (b[0]) {
    case 't': lit = "true"; type = OPSCOPE_JSON_TRUE; break;
    case 'f': lit = "false"; type = OPSCOPE_JSON_FALSE; break;
    default: lit = "null"; type = OPSCOPE_JSON_NULL; break;
    }
    size_t n = strlen(lit);
    if (avail < n || memcmp(b, lit, n) != 0) return json_fail_tok(j, t, "invalid literal (expected true, false or null)", i);
    t->type = type;
    t->str = (const char *)b;
    t->len = n;
    j->pos = i + n;
    return type;
}

/* ------------------------------------------------------------------------------------------ */
/* Grammar.                                                                                   */

static opscope_json_tok json_io_error(opscope_json_token *t) {
    t->type = OPSCOPE_JSON_ERROR;
    return OPSCOPE_JSON_ERROR;
}

/* The string at the cursor into T's str and len: the fast scan, else the full one. Returns 0,
 * or -1 with T an error token (and the parser's error set). */
JSON_HOT int json_string_tok(opscope_json_t *j, opscope_json_token *t) {
    if (json_string_fast(j, &t->str, &t->len)) return 0;
    const char *msg = NULL;
    size_t epos = 0;
    int r = json_scan_string(j, &t->str, &t->len, &msg, &epos);
    if (r == -2) json_io_error(t);
    else if (r < 0) json_fail_tok(j, t, msg, epos);
    return r < 0 ? -1 : 0;
}

JSON_HOT opscope_json_tok json_key(opscope_json_t *j, opscope_json_token *t) {
    if (json_string_tok(j, t)) return OPSCOPE_JSON_ERROR;
    t->type = OPSCOPE_JSON_KEY;
    t->depth = j->depth;
    j->state = ST_COLON;
    return OPSCOPE_JSON_KEY;
}

/* A value starting at the next non-whitespace byte. */
JSON_HOT opscope_json_tok json_value(opscope_json_t *j, opscope_json_token *t) {
    int c = json_peek(j);
    if (c == -2) return json_io_error(t);
    t->pos = j->base + j->pos;
    if (c == -1) return json_fail_tok(j, t, "unexpected end of input, expected a value", j->pos);
    t->str = NULL;
    t->len = 0;
    switch (c) {
    case '{':
    case '[':
        if (j->depth >= JSON_MAX_DEPTH)
            return json_fail_tok(j, t, "nesting deeper than 1024 levels", j->pos);
        j->depth++;
        j->stack[j->depth] = (c == '{');
        j->pos++;
        j->state = c == '{' ? ST_OBJ_FIRST : ST_ARR_FIRST;
        t->depth = j->depth;
        t->type = c == '{' ? OPSCOPE_JSON_OBJ_BEGIN : OPSCOPE_JSON_ARR_BEGIN;
        return t->type;
    case '"':
        if (json_string_tok(j, t)) return OPSCOPE_JSON_ERROR;
        t->type = OPSCOPE_JSON_STRING;
        break;
    case 't':
    case 'f':
    case 'n':
        if (json_scan_literal(j, t) == OPSCOPE_JSON_ERROR) return OPSCOPE_JSON_ERROR;
        break;
    default:
        if (c == '-' || IS_DIGIT(c)) {
            if (json_number(j, t) == OPSCOPE_JSON_ERROR) return OPSCOPE_JSON_ERROR;
            break;
        }
        return json_fail_tok(j, t, "expected a value", j->pos);
    }
    t->depth = j->depth;
    j->state = ST_AFTER;
    return t->type;
}

JSON_HOT opscope_json_tok json_close(opscope_json_t *j, opscope_json_token *t, opscope_json_tok type) {
    t->type = type;
    t->pos = j->base + j->pos;
    t->str = NULL;
    t->len = 0;
    j->pos++;
    j->depth--;
    t->depth = j->depth;
    j->state = ST_AFTER;
    return type;
}

opscope_json_tok opscope_json_next(opscope_json_t *j, opscope_json_token *t) {
    j->tok = j->pos; /* the previous token's bytes are released */
    int c;
    switch (j->state) {
    case ST_VALUE:
        return json_value(j, t);
    case ST_COLON:
        c = json_peek(j);
        if (c == -2) return json_io_error(t);
        if (c != ':') return json_fail_tok(j, t, "expected ':' after object key", j->pos);
        j->pos++;
        return json_value(j, t);
    case ST_ARR_FIRST:
        c = json_peek(j);
        if (c == -2) return json_io_error(t);
        if (c == ']') return json_close(j, t, OPSCOPE_JSON_ARR_END);
        return json_value(j, t);
    case ST_OBJ_FIRST:
        c = json_peek(j);
        if (c == -2) return json_io_error(t);
        if (c == '}') return json_close(j, t, OPSCOPE_JSON_OBJ_END);
        if (c != '"') return json_fail_tok(j, t, "expected '\"' (an object key) or '}'", j->pos);
        t->pos = j->base + j->pos;
        return json_key(j, t);
    case ST_AFTER:
        c = json_peek(j);
        if (c == -2) return json_io_error(t);
        if (j->depth == 0) {
            if (c != -1)
                return json_fail_tok(j, t, "unexpected content after the top-level value", j->pos);
            j->state = ST_DONE;
            t->type = OPSCOPE_JSON_EOF;
            t->pos = j->base + j->pos;
            t->depth = 0;
            return OPSCOPE_JSON_EOF;
        }
        if (j->stack[j->depth]) {
            if (c == ',') {
                j->pos++;
                c = json_peek(j);
                if (c == -2) return json_io_error(t);
                if (c != '"')
                    return json_fail_tok(j, t, "expected '\"' (an object key) after ','", j->pos);
                t->pos = j->base + j->pos;
                return json_key(j, t);
            }
            if (c == '}') return json_close(j, t, OPSCOPE_JSON_OBJ_END);
            if (c == -1) return json_fail_tok(j, t, "unexpected end of input, expected ',' or '}'", j->pos);
            return json_fail_tok(j, t, "expected ',' or '}' after object member", j->pos);
        }
        if (c == ',') {
            j->pos++;
            return json_value(j, t);
        }
        if (c == ']') return json_close(j, t, OPSCOPE_JSON_ARR_END);
        if (c == -1) return json_fail_tok(j, t, "unexpected end of input, expected ',' or ']'", j->pos);
        return json_fail_tok(j, t, "expected ',' or ']' after array element", j->pos);
    case ST_DONE:
        t->type = OPSCOPE_JSON_EOF;
        t->pos = j->base + j->pos;
        t->depth = 0;
        return OPSCOPE_JSON_EOF;
    default:
        t->type = OPSCOPE_JSON_ERROR;
        return OPSCOPE_JSON_ERROR;
    }
}

/* Whitespace other than '\n' (a newline sends opscope_json_int_array to the general path,
 * which counts lines). */
static const unsigned char WS_NO_NL[256] = {[' '] = 1, ['\t'] = 1, ['\r'] = 1};

int opscope_json_int_array(opscope_json_t *j, int64_t *out, int max) {
    /* only right after ARR_BEGIN; everything must already be in the buffer */
    if (j->state != ST_ARR_FIRST) return -1;
    const unsigned char *b = j->buf;
    size_t i = j->pos;
    int n = 0;
    while (WS_NO_NL[b[i]]) i++;
    if (b[i] != ']') {
        for (;;) {
            if (n >= max) return -1;
            int neg = b[i] == '-';
            size_t d = i + (size_t)neg;
            uint64_t u = 0;
            if (b[d] >= '1' && b[d] <= '9') {
                d += json_digits16(b + d, &u);
            } else if (b[d] == '0') {
                d++;
            } else {
                return -1;
            }
            if (NUMCHAR[b[d]] || d >= j->len) return -1; /* fraction, exponent, long, or cut */
            out[n++] = neg ? -(int64_t)u : (int64_t)u;
            i = d;
            while (WS_NO_NL[b[i]]) i++;
            if (b[i] == ']') break;
            if (b[i] != ',') return -1;
            i++;
            while (WS_NO_NL[b[i]]) i++;
        }
    }
    if (i >= j->len) return -1; /* the sentinel, not a real ']' */
    j->pos = i + 1;
    j->depth--;
    j->state = ST_AFTER;
    return n;
}

int opscope_json_raw_array(opscope_json_t *j, const char **text, size_t *len) {
    if (j->state != ST_ARR_FIRST) return -1;
    const unsigned char *b = j->buf;
    size_t i = j->pos, start = j->pos;
    int depth = 1, limit = JSON_MAX_DEPTH - j->depth + 1; /* what the tokenizer would refuse */
    bool first = true;                                     /* right after '[': ']' may come */
    for (;;) {
        while (WS_NO_NL[b[i]]) i++;
        if (first && b[i] == ']') { /* an empty array closed */
            i++;
            if (--depth == 0) break;
        } else if (b[i] == '[') { /* a value: an array, an integer or a plain string */
            if (++depth > limit) return -1;
            i++;
            first = true;
            continue;
        } else if (b[i] == '"') {
            i++;
            while (b[i] >= 0x20 && b[i] < 0x7f && b[i] != '"' && b[i] != '\\') i++;
            if (b[i] != '"') return -1; /* an escape, a control or non-ASCII byte, or the end */
            i++;
        } else {
            size_t d = i + (b[i] == '-');
            if (b[d] == '0') {
                d++;
            } else if (b[d] >= '1' && b[d] <= '9') {
                while (b[d] >= '0' && b[d] <= '9') d++;
            } else {
                return -1;
            }
            i = d; /* a fraction or an exponent: refused below, as any other byte */
        }
        /* after a value or a closed array: ',' and the next value, or ']' */
        for (;;) {
            while (WS_NO_NL[b[i]]) i++;
            if (b[i] == ',') {
                i++;
                first = false;
                break;
            }
            if (b[i] != ']') return -1;
            i++;
            if (--depth == 0) break;
        }
        if (!depth) break;
    }
    /* the sentinel 0 after the buffered bytes stopped every loop above: all of it was read */
    *text = (const char *)b + start;
    *len = i - start;
    j->pos = i;
    j->depth--;
    j->state = ST_AFTER;
    return 0;
}

opscope_json_tok opscope_json_next_member(opscope_json_t *j, opscope_json_token *key,
                                          opscope_json_token *val) {
    int c;
    j->tok = j->pos;
    if (j->state == ST_OBJ_FIRST) {
        c = json_peek(j);
        if (c == -2) return json_io_error(key);
        if (c == '}') return json_close(j, key, OPSCOPE_JSON_OBJ_END);
        if (c != '"') return json_fail_tok(j, key, "expected '\"' (an object key) or '}'", j->pos);
    } else if (j->state == ST_AFTER && j->depth > 0 && j->stack[j->depth]) {
        c = json_peek(j);
        if (c == -2) return json_io_error(key);
        if (c == '}') return json_close(j, key, OPSCOPE_JSON_OBJ_END);
        if (c == -1)
            return json_fail_tok(j, key, "unexpected end of input, expected ',' or '}'", j->pos);
        if (c != ',') return json_fail_tok(j, key, "expected ',' or '}' after object member", j->pos);
        j->pos++;
        c = json_peek(j);
        if (c == -2) return json_io_error(key);
        if (c != '"') return json_fail_tok(j, key, "expected '\"' (an object key) after ','", j->pos);
    } else {
        /* not between members (or failed / done): what opscope_json_next says */
        return opscope_json_next(j, key);
    }
    key->pos = j->base + j->pos;
    if (json_key(j, key) == OPSCOPE_JSON_ERROR) return OPSCOPE_JSON_ERROR;
    /* the key, from its opening quote, must survive refills while the value is scanned */
    j->floor = j->tok;
    opscope_json_tok v;
    j->tok = j->pos;
    c = json_peek(j);
    if (c == -2) {
        v = json_io_error(val);
    } else if (c != ':') {
        v = json_fail_tok(j, val, "expected ':' after object key", j->pos);
    } else {
        j->pos++;
        v = json_value(j, val);
    }
    key->str = (const char *)j->buf + j->floor + 1;
    j->floor = SIZE_MAX;
    return v == OPSCOPE_JSON_ERROR ? OPSCOPE_JSON_ERROR : OPSCOPE_JSON_KEY;
}

int opscope_json_skip(opscope_json_t *j, const opscope_json_token *first) {
    if (first->type == OPSCOPE_JSON_ERROR) return -1;
    if (first->type != OPSCOPE_JSON_OBJ_BEGIN && first->type != OPSCOPE_JSON_ARR_BEGIN) return 0;
    int target = first->depth - 1;
    opscope_json_token t;
    for (;;) {
        opscope_json_tok k = opscope_json_next(j, &t);
        if (k == OPSCOPE_JSON_ERROR) return -1;
        if (k == OPSCOPE_JSON_EOF) return opscope_json_fail(j, OPSCOPE_ERROR_SYNTAX, "unbalanced skip", t.pos);
        if ((k == OPSCOPE_JSON_OBJ_END || k == OPSCOPE_JSON_ARR_END) && t.depth == target) return 0;
    }
}

bool opscope_json_ended_early(const opscope_json_t *j) {
    /* Errors at the end carry the end's offset; a literal cut short ("tru") its start. */
    return j->err.code == OPSCOPE_ERROR_SYNTAX && j->src_eof && j->err.pos + 8 >= j->base + j->len;
}
