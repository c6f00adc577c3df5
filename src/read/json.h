/*
 * json.h - opscope's streaming JSON pull parser (internal).
 *
 * A conformant (RFC 8259) tokenizer over a byte source that is read in chunks, so a file of
 * any size is parsed in memory bounded by its largest string or number token. Tokens are
 * pulled one at a time; the parser checks the full grammar (nesting, commas, colons, number
 * syntax, string escapes, UTF-8 validity, control characters, a single top-level value,
 * nothing but whitespace after it).
 *
 * Ownership: string bytes returned in a token are borrowed from the parser and valid until
 * the next call on it. Thread safety: one parser per thread.
 *
 * Errors carry line and column (1-based, bytes) when the position is at or after the last
 * whitespace the parser skipped, which holds for every syntax error and for schema errors a
 * reader reports at the token it was just given; otherwise only the byte offset.
 * Lone UTF-16 surrogates in \u escapes are accepted and decoded as U+FFFD.
 */
#ifndef OPSCOPE_JSON_H
#define OPSCOPE_JSON_H

#include "opscope.h"

#include <stdbool.h>

typedef enum opscope_json_tok {
    OPSCOPE_JSON_ERROR = 0,    /* see opscope_json_error() */
    OPSCOPE_JSON_EOF,          /* the top-level value is complete and only whitespace followed */
    OPSCOPE_JSON_OBJ_BEGIN,
    OPSCOPE_JSON_OBJ_END,
    OPSCOPE_JSON_ARR_BEGIN,
    OPSCOPE_JSON_ARR_END,
    OPSCOPE_JSON_KEY,          /* an object member name: str/len */
    OPSCOPE_JSON_STRING,       /* str/len, unescaped UTF-8 (may contain NUL from \u0000) */
    OPSCOPE_JSON_NUMBER,       /* see is_int / i / d */
    OPSCOPE_JSON_TRUE,
    OPSCOPE_JSON_FALSE,
    OPSCOPE_JSON_NULL,
} opscope_json_tok;

typedef struct opscope_json_token {
    opscope_json_tok type;
    const char *str;   /* KEY, STRING: decoded, NUL-terminated; NUMBER: raw text (not terminated) */
    size_t len;
    bool is_int;       /* NUMBER: integral literal (no '.', no exponent) that fits int64 */
    int64_t i;         /* NUMBER and is_int */
    double d;          /* NUMBER: value as double (+-HUGE_VAL on overflow, never an error) */
    int dec;           /* NUMBER: for a plain decimal ("12.345", no exponent, at most 19 digits,
                        * mant <= 2^53) the count of its fraction digits, else -1 */
    uint64_t mant;     /* NUMBER with dec >= 0: its digits as an integer, sign apart (12345) */
    uint64_t pos;      /* byte offset of the token's first byte */
    int depth;         /* nesting depth after this token (0 at top level) */
} opscope_json_token;

typedef struct opscope_json opscope_json_t;

/*
 * Reads up to CAP bytes into BUF; returns the count, 0 at end of input, -1 on error
 * (errno set). Called from the parser's thread only.
 */
typedef long (*opscope_json_read_fn)(void *ud, char *buf, size_t cap);

/*
 * New parser over a callback source (READ, UD) or, with READ == NULL, over the memory
 * DATA[0..SIZE) (not copied: must outlive the parser). NAME is copied into error reports.
 * Returns NULL when out of memory.
 */
opscope_json_t *opscope_json_new(opscope_json_read_fn read, void *ud, const void *data,
                                 size_t size, const char *name);
void opscope_json_free(opscope_json_t *j);

/* Next token. After ERROR or EOF every further call returns the same. */
opscope_json_tok opscope_json_next(opscope_json_t *j, opscope_json_token *tok);

/*
 * Object members in one call: in an object (right after OBJ_BEGIN or after a member's value
 * was consumed), reads the next key into KEY and the first token of its value into VAL.
 * Returns OPSCOPE_JSON_KEY (both filled; KEY->str stays valid until the next call, like
 * VAL's), OPSCOPE_JSON_OBJ_END (in KEY; VAL untouched) or OPSCOPE_JSON_ERROR. Elsewhere it
 * behaves like opscope_json_next(J, KEY). Same result as two opscope_json_next calls, with
 * less work per member.
 */
opscope_json_tok opscope_json_next_member(opscope_json_t *j, opscope_json_token *key,
                                          opscope_json_token *val);

/*
 * Fast path for short integer arrays (shapes): call right after ARR_BEGIN was returned. When
 * the rest of the array is already buffered and is nothing but at most MAX integers (up to 16
 * digits, no fraction or exponent) separated by ',' and spaces, stores them in OUT, consumes
 * through the closing ']' (as if ARR_END had been returned) and returns their count.
 * Otherwise returns -1 and consumes nothing: read the elements with opscope_json_next, which
 * also reports any error with its position.
 */
int opscope_json_int_array(opscope_json_t *j, int64_t *out, int max);

/*
 * Fast path for small nested arrays (shapes, type lists): call right after ARR_BEGIN was
 * returned. When the rest of the array is already buffered and holds only arrays, integers
 * (no fraction or exponent) and strings of printable ASCII without escapes, separated by ','
 * and spaces (no newline), consumes through the closing ']' (as if its ARR_END had been
 * returned), sets *TEXT and *LEN to those bytes as written (from after the '[' through the
 * ']'; valid until the next call on J) and returns 0. Otherwise returns -1 and consumes
 * nothing: read the elements with opscope_json_next, which also reports any error.
 */
int opscope_json_raw_array(opscope_json_t *j, const char **text, size_t *len);

/*
 * Skips the value whose first token was just returned (a no-op for scalars; for OBJ_BEGIN
 * or ARR_BEGIN consumes through the matching end). Validates what it skips.
 * Returns 0, or -1 on error.
 */
int opscope_json_skip(opscope_json_t *j, const opscope_json_token *first);

/* The error after an ERROR token: code, static msg, pos, line, col, file. */
const opscope_error *opscope_json_error(const opscope_json_t *j);

/*
 * Lets a format reader report a schema error at the current token with the parser's
 * position bookkeeping (line/column computed from POS). Returns -1 for convenience.
 */
int opscope_json_fail(opscope_json_t *j, opscope_error_code code, const char *msg, uint64_t pos);

/* True when the last error is a syntax error because the input ended (inside a string,
 * before a closing bracket...): a document cut short rather than a malformed one. */
bool opscope_json_ended_early(const opscope_json_t *j);
/* Bytes consumed so far (for progress reporting). */
uint64_t opscope_json_bytes_read(const opscope_json_t *j);

#endif /* OPSCOPE_JSON_H */
