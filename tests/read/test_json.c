/* Unit tests of the JSON pull parser: values, escapes, numbers, exact error positions, depth,
 * skipping, and token streams that do not depend on the read chunk size. */
#include "json_stream.h"
#include "test.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Parses S completely; returns the error (static storage) or NULL when accepted. */
static const opscope_error *parse_err(const char *s) {
    static opscope_error e;
    opscope_json_t *j = opscope_json_new(NULL, NULL, s, strlen(s), "x.json");
    opscope_json_token t;
    opscope_json_tok k;
    while ((k = opscope_json_next(j, &t)) != OPSCOPE_JSON_EOF && k != OPSCOPE_JSON_ERROR) {
    }
    const opscope_error *r = NULL;
    if (k == OPSCOPE_JSON_ERROR) {
        e = *opscope_json_error(j);
        r = &e;
    }
    opscope_json_free(j);
    return r;
}

#define ASSERT_ERR_AT(src, line_, col_, msg_part)                                            \
    do {                                                                                    \
        const opscope_error *e_ = parse_err(src);                                           \
        ASSERT_NOT_NULL(e_);                                                                \
        ASSERT_EQ_INT(e_->code, OPSCOPE_ERROR_SYNTAX);                                      \
        ASSERT_EQ_INT(e_->line, line_);                                                     \
        ASSERT_EQ_INT(e_->col, col_);                                                       \
        ASSERT_CONTAINS(e_->msg, msg_part);                                                 \
        ASSERT_EQ_STR(e_->file, "x.json");                                                  \
    } while (0)

static int test_error_positions(void) {
    /* columns are 1-based bytes; lines count '\n' */
    ASSERT_ERR_AT("{\"a\" 1}", 1, 6, "expected ':' after object key");
    ASSERT_ERR_AT("{\n  \"a\": 1,\n  \"b\": tru\n}", 3, 8, "invalid literal");
    ASSERT_ERR_AT("[1,\n2,\n]", 3, 1, "expected a value");
    ASSERT_ERR_AT("[1 2]", 1, 4, "expected ',' or ']'");
    ASSERT_ERR_AT("{\"a\":1 \"b\":2}", 1, 8, "expected ',' or '}'");
    ASSERT_ERR_AT("\n\n  [\"abc", 3, 8, "unterminated string");
    ASSERT_ERR_AT("[\"a\tb\"]", 1, 4, "control character");
    ASSERT_ERR_AT("[\"\\x\"]", 1, 3, "invalid escape");
    ASSERT_ERR_AT("[\"\\u12G4\"]", 1, 3, "invalid \\u escape");
    ASSERT_ERR_AT("[\"\xC0\xAF\"]", 1, 3, "invalid UTF-8");       /* overlong '/' */
    ASSERT_ERR_AT("[\"\xED\xA0\x80\"]", 1, 3, "invalid UTF-8");   /* surrogate in UTF-8 */
    ASSERT_ERR_AT("[\"\xF4\x90\x80\x80\"]", 1, 3, "invalid UTF-8"); /* > U+10FFFF */
    ASSERT_ERR_AT("[01]", 1, 3, "leading zeros");
    ASSERT_ERR_AT("[-]", 1, 3, "digit after '-'");
    ASSERT_ERR_AT("[1.]", 1, 4, "digit after '.'");
    ASSERT_ERR_AT("[1e+]", 1, 5, "exponent");
    ASSERT_ERR_AT("{} x", 1, 4, "after the top-level value");
    ASSERT_ERR_AT("", 1, 1, "unexpected end of input");
    ASSERT_ERR_AT("[1,2", 1, 5, "unexpected end of input");
    ASSERT_ERR_AT("{\"a\":1,}", 1, 8, "expected '\"'");
    return 0;
}

static int test_depth_limit(void) {
    char *s = malloc(3000);
    memset(s, '[', 1025);
    s[1025] = 0;
    const opscope_error *e = parse_err(s);
    ASSERT_NOT_NULL(e);
    ASSERT_CONTAINS(e->msg, "nesting deeper than 1024");
    ASSERT_EQ_U64(e->pos, 1024);
    /* 1024 levels are fine */
    memset(s, '[', 1024);
    memset(s + 1024, ']', 1024);
    s[2048] = 0;
    ASSERT_NULL(parse_err(s));
    free(s);
    return 0;
}

static int test_numbers(void) {
    /* expected values: the C library's strtoll/strtod on the same text, an independent parser */
    static const char *nums[] = {"0", "-0", "7", "-7", "12345678", "123456789", "1234567890123456",
                                 "12345678901234567", "9223372036854775807", "-9223372036854775808",
                                 "9223372036854775808", "18446744073709551616", "1.5", "-2.25e3",
                                 "1E2", "1e-400", "1e400", "0.1", "100000000", "99999999"};
    for (size_t k = 0; k < sizeof nums / sizeof nums[0]; k++) {
        char doc[64];
        snprintf(doc, sizeof doc, "[%s]", nums[k]);
        for (size_t chunk = 0; chunk < 4; chunk++) {
            tj_src src = {(const unsigned char *)doc, strlen(doc), 0, chunk};
            opscope_json_t *j = chunk ? opscope_json_new(tj_read, &src, NULL, 0, "n")
                                      : opscope_json_new(NULL, NULL, doc, strlen(doc), "n");
            opscope_json_token t;
            ASSERT_EQ_INT(opscope_json_next(j, &t), OPSCOPE_JSON_ARR_BEGIN);
            ASSERT_EQ_INT(opscope_json_next(j, &t), OPSCOPE_JSON_NUMBER);
            ASSERT_EQ_INT(t.len, strlen(nums[k]));
            ASSERT_TRUE(memcmp(t.str, nums[k], t.len) == 0);
            int integral = !strpbrk(nums[k], ".eE");
            errno = 0;
            long long ll = strtoll(nums[k], NULL, 10);
            int fits = integral && errno == 0;
            ASSERT_EQ_INT(t.is_int, fits);
            if (fits) ASSERT_EQ_INT(t.i, ll);
            double d = strtod(nums[k], NULL);
            ASSERT_TRUE(t.d == d);
            ASSERT_EQ_INT(opscope_json_next(j, &t), OPSCOPE_JSON_ARR_END);
            ASSERT_EQ_INT(opscope_json_next(j, &t), OPSCOPE_JSON_EOF);
            opscope_json_free(j);
        }
    }
    return 0;
}

/* Decimals as Kineto writes them (timestamps with 3 decimals) and the edges of the parser's
 * exact fast path (19 significant digits, mantissa 2^53, exponents +-22 and beyond): every value
 * bit for bit equal to the C library's strtod on the same text, signs of zero included. */
static const uint64_t POW10_T[9] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};

static int test_decimals_exact(void) {
    static const char *edges[] = {
        "9007199254740992.0", "9007199254740993.0", "9007199254740993", "0.9007199254740993",
        "1e22", "1e23", "1.5e-22", "1.5e-23", "123456789012345678.9", "1234567890123456789.0",
        "0.0000000000000000000000001", "0.000", "-0.0", "-0.0e5", "4.9e-324", "2.2250738585072011e-308",
        "1.7976931348623157e308", "00000000000000000000000000001.5", "0.1e1", "1700000000123.456",
        "-1700000000123.4565", "3.14159265358979323846", "1E+22", "1e-22", "12.5E-3"};
    size_t nedge = sizeof edges / sizeof edges[0];
    uint64_t x = 88172645463325252ull; /* xorshift: reproducible */
    for (size_t k = 0; k < nedge + 20000; k++) {
        char num[48];
        if (k < nedge) {
            snprintf(num, sizeof num, "%s", edges[k]);
            if (num[0] == '0' && num[1] == '0') continue; /* not JSON: leading zeros */
        } else {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            unsigned ip = (unsigned)(x % 10000000ull), fd = (unsigned)(x >> 40) % 8;
            int e = (int)((x >> 50) % 61) - 30;
            uint64_t fr = (x >> 8) % 100000000ull;
            int n = snprintf(num, sizeof num, "%s%u", (x >> 63) ? "-" : "", (x >> 20) % 3 ? ip : ip * 1000003u);
            if (fd) n += snprintf(num + n, sizeof num - (size_t)n, ".%0*llu", (int)fd,
                                  (unsigned long long)(fr % POW10_T[fd]));
            if ((x >> 33) % 4 == 0) snprintf(num + n, sizeof num - (size_t)n, "e%d", e);
            if (!strpbrk(num, ".e")) continue;
        }
        char doc[64];
        snprintf(doc, sizeof doc, "[%s]", num);
        opscope_json_t *j = opscope_json_new(NULL, NULL, doc, strlen(doc), "d");
        opscope_json_token t;
        ASSERT_EQ_INT(opscope_json_next(j, &t), OPSCOPE_JSON_ARR_BEGIN);
        ASSERT_EQ_INT(opscope_json_next(j, &t), OPSCOPE_JSON_NUMBER);
        double want = strtod(num, NULL);
        if (memcmp(&t.d, &want, sizeof want) != 0) {
            fprintf(stderr, "  %s: parser %.17g, strtod %.17g\n", num, t.d, want);
            ASSERT_TRUE(0);
        }
        if (t.dec >= 0) { /* kept digits: the text's, without sign and point */
            ASSERT_TRUE(!strpbrk(num, "eE"));
            char digits[48];
            size_t nd = 0;
            for (const char *c = num; *c; c++)
                if (*c >= '0' && *c <= '9') digits[nd++] = *c;
            digits[nd] = 0;
            ASSERT_EQ_U64(t.mant, strtoull(digits, NULL, 10));
            ASSERT_EQ_INT(t.dec, (int)strlen(strchr(num, '.') + 1));
        }
        opscope_json_free(j);
    }
    return 0;
}

static int test_strings(void) {
    const char *doc = "{\"k\\n\":\"a\\\"b\\\\c\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00\\u0000z\", \"lone\":\"\\udc00x\"}";
    opscope_json_t *j = opscope_json_new(NULL, NULL, doc, strlen(doc), "s");
    opscope_json_token t;
    ASSERT_EQ_INT(opscope_json_next(j, &t), OPSCOPE_JSON_OBJ_BEGIN);
    ASSERT_EQ_INT(opscope_json_next(j, &t), OPSCOPE_JSON_KEY);
    ASSERT_EQ_STR(t.str, "k\n");
    ASSERT_EQ_INT(opscope_json_next(j, &t), OPSCOPE_JSON_STRING);
    static const char want[] = "a\"b\\c/\b\f\n\r\t\xC3\xA9\xF0\x9F\x98\x80\0z";
    ASSERT_EQ_INT(t.len, sizeof want - 1);
    ASSERT_TRUE(memcmp(t.str, want, t.len) == 0);
    ASSERT_EQ_INT(t.str[t.len], 0);
    ASSERT_EQ_INT(opscope_json_next(j, &t), OPSCOPE_JSON_KEY);
    ASSERT_EQ_INT(opscope_json_next(j, &t), OPSCOPE_JSON_STRING);
    ASSERT_EQ_STR(t.str, "\xEF\xBF\xBDx"); /* a lone surrogate becomes U+FFFD */
    opscope_json_free(j);
    return 0;
}

static int test_skip_and_depth(void) {
    const char *doc = "{\"a\":[1,{\"b\":[2,3]},\"x\"],\"c\":{\"d\":null},\"e\":true}";
    opscope_json_t *j = opscope_json_new(NULL, NULL, doc, strlen(doc), "s");
    opscope_json_token t;
    ASSERT_EQ_INT(opscope_json_next(j, &t), OPSCOPE_JSON_OBJ_BEGIN);
    ASSERT_EQ_INT(t.depth, 1);
    ASSERT_EQ_INT(opscope_json_next(j, &t), OPSCOPE_JSON_KEY);
    ASSERT_EQ_INT(opscope_json_next(j, &t), OPSCOPE_JSON_ARR_BEGIN);
    ASSERT_EQ_INT(t.depth, 2);
    ASSERT_EQ_INT(opscope_json_skip(j, &t), 0);
    ASSERT_EQ_INT(opscope_json_next(j, &t), OPSCOPE_JSON_KEY);
    ASSERT_EQ_STR(t.str, "c");
    ASSERT_EQ_U64(t.pos, 25);
    ASSERT_EQ_INT(opscope_json_next(j, &t), OPSCOPE_JSON_OBJ_BEGIN);
    ASSERT_EQ_INT(opscope_json_skip(j, &t), 0);
    ASSERT_EQ_INT(opscope_json_next(j, &t), OPSCOPE_JSON_KEY);
    ASSERT_EQ_STR(t.str, "e");
    ASSERT_EQ_INT(opscope_json_next(j, &t), OPSCOPE_JSON_TRUE);
    ASSERT_EQ_INT(opscope_json_skip(j, &t), 0); /* scalar: no-op */
    ASSERT_EQ_INT(opscope_json_next(j, &t), OPSCOPE_JSON_OBJ_END);
    ASSERT_EQ_INT(t.depth, 0);
    ASSERT_EQ_INT(opscope_json_next(j, &t), OPSCOPE_JSON_EOF);
    ASSERT_EQ_INT(opscope_json_next(j, &t), OPSCOPE_JSON_EOF);
    opscope_json_free(j);
    /* skip validates what it skips */
    const char *bad = "[[1,2 3]]";
    j = opscope_json_new(NULL, NULL, bad, strlen(bad), "s");
    ASSERT_EQ_INT(opscope_json_next(j, &t), OPSCOPE_JSON_ARR_BEGIN);
    ASSERT_EQ_INT(opscope_json_next(j, &t), OPSCOPE_JSON_ARR_BEGIN);
    ASSERT_EQ_INT(opscope_json_skip(j, &t), -1);
    ASSERT_CONTAINS(opscope_json_error(j)->msg, "expected ',' or ']'");
    ASSERT_EQ_INT(opscope_json_next(j, &t), OPSCOPE_JSON_ERROR);
    opscope_json_free(j);
    return 0;
}

/* A long string and a long number crossing many 1 MiB refills: the buffer grows to hold them. */
static int test_big_tokens(void) {
    size_t n = (3u << 20) + 17;
    char *doc = malloc(n + 64);
    size_t k = 0;
    doc[k++] = '[';
    doc[k++] = '"';
    for (size_t i = 0; i < n / 2; i++) doc[k++] = (char)('a' + i % 26);
    doc[k++] = '"';
    doc[k++] = ',';
    size_t ndig = n - k - 2;
    doc[k++] = '1';
    for (size_t i = 1; i < ndig; i++) doc[k++] = '0';
    doc[k++] = ']';
    tj_src src = {(const unsigned char *)doc, k, 0, 65536};
    opscope_json_t *j = opscope_json_new(tj_read, &src, NULL, 0, "big");
    opscope_json_token t;
    ASSERT_EQ_INT(opscope_json_next(j, &t), OPSCOPE_JSON_ARR_BEGIN);
    ASSERT_EQ_INT(opscope_json_next(j, &t), OPSCOPE_JSON_STRING);
    ASSERT_EQ_U64(t.len, n / 2);
    ASSERT_EQ_INT(t.str[12345], 'a' + 12345 % 26);
    ASSERT_EQ_INT(opscope_json_next(j, &t), OPSCOPE_JSON_NUMBER);
    ASSERT_EQ_U64(t.len, ndig);
    ASSERT_EQ_INT(t.is_int, 0);
    ASSERT_TRUE(t.d == HUGE_VAL);
    ASSERT_EQ_INT(opscope_json_next(j, &t), OPSCOPE_JSON_ARR_END);
    ASSERT_EQ_INT(opscope_json_next(j, &t), OPSCOPE_JSON_EOF);
    opscope_json_free(j);
    free(doc);
    return 0;
}

/* The shape fast path: used when everything is plain, declined (nothing consumed) otherwise. */
static int test_int_array(void) {
    static const struct {
        const char *doc;
        int want; /* count, or -1 = declined */
        int64_t v[4];
    } cases[] = {
        {"[[1, -2,3 ,0],7]", 4, {1, -2, 3, 0}},
        {"[[],7]", 0, {0}},
        {"[[ 9 ],7]", 1, {9}},
        {"[[-0, 1234567890123456],7]", 2, {0, 1234567890123456}},
        {"[[1.5],7]", -1, {0}},
        {"[[1,\n2],7]", -1, {0}},
        {"[[1,2,3,4,5],7]", -1, {0}},
        {"[[1,],7]", -1, {0}},
        {"[[01],7]", -1, {0}},
        {"[[12345678901234567],7]", -1, {0}},
        {"[[1 2],7]", -1, {0}},
        {"[[\"a\"],7]", -1, {0}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const char *doc = cases[c].doc;
        opscope_json_t *j = opscope_json_new(NULL, NULL, doc, strlen(doc), "a");
        opscope_json_token t;
        int64_t v[4] = {0};
        ASSERT_EQ_INT(opscope_json_int_array(j, v, 4), -1); /* not after ARR_BEGIN */
        ASSERT_EQ_INT(opscope_json_next(j, &t), OPSCOPE_JSON_ARR_BEGIN);
        ASSERT_EQ_INT(opscope_json_next(j, &t), OPSCOPE_JSON_ARR_BEGIN);
        int n = opscope_json_int_array(j, v, 4);
        ASSERT_EQ_INT(n, cases[c].want);
        for (int k = 0; k < n; k++) ASSERT_EQ_INT(v[k], cases[c].v[k]);
        if (n >= 0) {
            ASSERT_EQ_INT(opscope_json_next(j, &t), OPSCOPE_JSON_NUMBER);
            ASSERT_EQ_INT(t.i, 7);
            ASSERT_EQ_INT(t.depth, 1);
        } else {
            /* declined: the general path sees the same tokens (and errors) as without it */
            tj_text a = {0}, b = {0};
            opscope_json_tok k;
            while ((k = opscope_json_next(j, &t)) != OPSCOPE_JSON_EOF && k != OPSCOPE_JSON_ERROR) {
                char line[64];
                snprintf(line, sizeof line, "%d@%llu ", (int)k, (unsigned long long)t.pos);
                tj_put(&a, line, strlen(line));
            }
            tj_put(&a, k == OPSCOPE_JSON_EOF ? "eof" : "err", 3);
            opscope_json_t *j2 = opscope_json_new(NULL, NULL, doc, strlen(doc), "a");
            opscope_json_next(j2, &t);
            opscope_json_next(j2, &t);
            while ((k = opscope_json_next(j2, &t)) != OPSCOPE_JSON_EOF && k != OPSCOPE_JSON_ERROR) {
                char line[64];
                snprintf(line, sizeof line, "%d@%llu ", (int)k, (unsigned long long)t.pos);
                tj_put(&b, line, strlen(line));
            }
            tj_put(&b, k == OPSCOPE_JSON_EOF ? "eof" : "err", 3);
            ASSERT_EQ_STR(a.s, b.s);
            free(a.s);
            free(b.s);
            opscope_json_free(j2);
            opscope_json_free(j);
            continue;
        }
        ASSERT_EQ_INT(opscope_json_next(j, &t), OPSCOPE_JSON_ARR_END);
        ASSERT_EQ_INT(opscope_json_next(j, &t), OPSCOPE_JSON_EOF);
        opscope_json_free(j);
    }
    return 0;
}

/* The tokens of DOC after its first two ARR_BEGINs, as "type@pos" text: with RAW, after
 * opscope_json_raw_array took (or declined) the inner array. *TAKEN: whether it took it. */
static void raw_tokens(const char *doc, int raw, size_t chunk, tj_text *out, int *taken) {
    tj_src src = {(const unsigned char *)doc, strlen(doc), 0, chunk};
    opscope_json_t *j = chunk ? opscope_json_new(tj_read, &src, NULL, 0, "r")
                              : opscope_json_new(NULL, NULL, doc, strlen(doc), "r");
    opscope_json_token t;
    opscope_json_next(j, &t);
    opscope_json_next(j, &t);
    *taken = 0;
    if (raw) {
        const char *text;
        size_t len;
        if (!opscope_json_raw_array(j, &text, &len)) {
            *taken = 1;
            tj_put(out, "raw ", 4);
        }
    }
    opscope_json_tok k;
    while ((k = opscope_json_next(j, &t)) != OPSCOPE_JSON_EOF && k != OPSCOPE_JSON_ERROR) {
        char line[64];
        snprintf(line, sizeof line, "%d@%llu/%d ", (int)k, (unsigned long long)t.pos, t.depth);
        if (!*taken || k != OPSCOPE_JSON_ARR_END || t.depth != 1) tj_put(out, line, strlen(line));
    }
    tj_put(out, k == OPSCOPE_JSON_EOF ? "eof" : "err", 3);
    opscope_json_free(j);
}

/* The nested-array fast path: its text as written when everything is plain, declined
 * (nothing consumed) otherwise; what follows reads the same either way. */
static int test_raw_array(void) {
    static const struct {
        const char *doc;
        const char *want; /* the text, or NULL = declined */
    } cases[] = {
        {"[[[8, 512], [512,512], []],7]", "[8, 512], [512,512], []]"},
        {"[[],7]", "]"},
        {"[[ \"float\", \"\", \"c10::BFloat16\" ],7]", " \"float\", \"\", \"c10::BFloat16\" ]"},
        {"[[[[1,2],[3]], -4, 0],7]", "[[1,2],[3]], -4, 0]"},
        {"[[[]],7]", "[]]"},
        {"[[1.5],7]", NULL},
        {"[[1e3],7]", NULL},
        {"[[01],7]", NULL},
        {"[[1,],7]", NULL},
        {"[[[1,]],7]", NULL},
        {"[[,1],7]", NULL},
        {"[[1 2],7]", NULL},
        {"[[[1],\n[2]],7]", NULL},
        {"[[\"a\\\"b\"],7]", NULL},
        {"[[\"a\\\\\"],7]", NULL},
        {"[[\"\xC3\xA9\"],7]", NULL},
        {"[[true],7]", NULL},
        {"[[{\"a\":1}],7]", NULL},
        {"[[[1,2]", NULL},
        {"[[[1,2]]", "[1,2]]"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const char *doc = cases[c].doc;
        opscope_json_t *j = opscope_json_new(NULL, NULL, doc, strlen(doc), "a");
        opscope_json_token t;
        const char *text = NULL;
        size_t len = 0;
        ASSERT_EQ_INT(opscope_json_raw_array(j, &text, &len), -1); /* not after ARR_BEGIN */
        opscope_json_next(j, &t);
        opscope_json_next(j, &t);
        int rc = opscope_json_raw_array(j, &text, &len);
        ASSERT_EQ_INT(rc, cases[c].want ? 0 : -1);
        if (cases[c].want) {
            ASSERT_EQ_INT(len, strlen(cases[c].want));
            ASSERT_TRUE(!memcmp(text, cases[c].want, len));
        }
        opscope_json_free(j);
        /* the same tokens after it as after the tokenizer's ARR_END (or instead of it) */
        for (size_t chunk = 0; chunk < 2; chunk++) {
            tj_text a = {0}, b = {0};
            int taken_a, taken_b;
            raw_tokens(doc, 1, chunk, &a, &taken_a);
            raw_tokens(doc, 0, chunk, &b, &taken_b);
            ASSERT_EQ_INT(taken_a, chunk ? 0 : cases[c].want != NULL); /* one byte a read: never buffered */
            const char *as = taken_a ? a.s + 4 : a.s;
            /* B with the inner array's tokens left out, when A took it */
            if (taken_a) {
                const char *end = strstr(b.s, "5@"); /* its closing ARR_END at depth 1 */
                while (end && !strstr(end, "/1 ")) end = strstr(end + 1, "5@");
                ASSERT_TRUE(end != NULL);
                const char *rest = strchr(strstr(end, "/1 "), ' ') + 1;
                ASSERT_EQ_STR(as, rest);
            } else {
                ASSERT_EQ_STR(as, b.s);
            }
            free(a.s);
            free(b.s);
        }
    }
    /* deeper than the tokenizer allows: declined, and the tokenizer says why */
    size_t deep = 1100;
    char *doc = malloc(2 * deep + 8);
    ASSERT_TRUE(doc != NULL);
    size_t n = 0;
    for (size_t i = 0; i < deep; i++) doc[n++] = '[';
    for (size_t i = 0; i < deep; i++) doc[n++] = ']';
    doc[n] = 0;
    opscope_json_t *j = opscope_json_new(NULL, NULL, doc, n, "d");
    opscope_json_token t;
    opscope_json_next(j, &t);
    const char *text;
    size_t len;
    ASSERT_EQ_INT(opscope_json_raw_array(j, &text, &len), -1);
    opscope_json_free(j);
    free(doc);
    return 0;
}

/* Members in one call give the same keys and values as two opscope_json_next calls, also
 * when every read returns one byte (the key must survive the refills of its value). */
static int test_next_member(void) {
    const char *doc = "{ \"alpha\" : 1, \"b\\u00e9ta\":\"x\\ny\", \"g\":[1,2], \"d\":{\"e\":null},\"long_key_name\":-5e3 }";
    static const char *keys[] = {"alpha", "b\xC3\xA9ta", "g", "d", "long_key_name"};
    static const opscope_json_tok vals[] = {OPSCOPE_JSON_NUMBER, OPSCOPE_JSON_STRING, OPSCOPE_JSON_ARR_BEGIN,
                                            OPSCOPE_JSON_OBJ_BEGIN, OPSCOPE_JSON_NUMBER};
    for (size_t chunk = 0; chunk < 3; chunk++) {
        tj_src src = {(const unsigned char *)doc, strlen(doc), 0, chunk};
        opscope_json_t *j = chunk ? opscope_json_new(tj_read, &src, NULL, 0, "m")
                                  : opscope_json_new(NULL, NULL, doc, strlen(doc), "m");
        opscope_json_token k, v;
        ASSERT_EQ_INT(opscope_json_next_member(j, &k, &v), OPSCOPE_JSON_OBJ_BEGIN); /* not in an object yet */
        for (int m = 0; m < 5; m++) {
            ASSERT_EQ_INT(opscope_json_next_member(j, &k, &v), OPSCOPE_JSON_KEY);
            ASSERT_EQ_STR(k.str, keys[m]);
            ASSERT_EQ_INT(v.type, vals[m]);
            if (m == 1) ASSERT_EQ_STR(v.str, "x\ny");
            if (m == 4) ASSERT_TRUE(v.d == -5000.0);
            if (v.type == OPSCOPE_JSON_ARR_BEGIN || v.type == OPSCOPE_JSON_OBJ_BEGIN)
                ASSERT_EQ_INT(opscope_json_skip(j, &v), 0);
        }
        ASSERT_EQ_INT(opscope_json_next_member(j, &k, &v), OPSCOPE_JSON_OBJ_END);
        ASSERT_EQ_INT(opscope_json_next(j, &k), OPSCOPE_JSON_EOF);
        opscope_json_free(j);
    }
    /* errors keep their positions */
    const char *bad = "{\"a\":1 \"b\":2}";
    opscope_json_t *j = opscope_json_new(NULL, NULL, bad, strlen(bad), "m");
    opscope_json_token k, v;
    ASSERT_EQ_INT(opscope_json_next(j, &k), OPSCOPE_JSON_OBJ_BEGIN);
    ASSERT_EQ_INT(opscope_json_next_member(j, &k, &v), OPSCOPE_JSON_KEY);
    ASSERT_EQ_INT(opscope_json_next_member(j, &k, &v), OPSCOPE_JSON_ERROR);
    ASSERT_EQ_INT(opscope_json_error(j)->col, 8);
    opscope_json_free(j);
    const char *bad2 = "{\"a\" 1}";
    j = opscope_json_new(NULL, NULL, bad2, strlen(bad2), "m");
    ASSERT_EQ_INT(opscope_json_next(j, &k), OPSCOPE_JSON_OBJ_BEGIN);
    ASSERT_EQ_INT(opscope_json_next_member(j, &k, &v), OPSCOPE_JSON_ERROR);
    ASSERT_CONTAINS(opscope_json_error(j)->msg, "expected ':'");
    ASSERT_EQ_INT(opscope_json_error(j)->col, 6);
    opscope_json_free(j);
    return 0;
}

static int test_read_error(void) {
    opscope_json_t *j = opscope_json_new(NULL, NULL, NULL, 0, "e");
    opscope_json_token t;
    ASSERT_EQ_INT(opscope_json_next(j, &t), OPSCOPE_JSON_ERROR);
    ASSERT_CONTAINS(opscope_json_error(j)->msg, "unexpected end of input");
    opscope_json_free(j);
    return 0;
}

/* Runs of whitespace of every length and mix (the skip may take several bytes a step) before
 * a bad byte: the error's line and column as counted here, byte by byte, in memory and through
 * reads of 1, 7 and 4096 bytes (runs cut by refills). */
static int test_whitespace_lines(void) {
    static const char WS[4] = {' ', '\t', '\r', '\n'};
    uint64_t seed = 0x9E3779B97F4A7C15u;
    char *doc = malloc(1 << 16);
    ASSERT_NOT_NULL(doc);
    for (int round = 0; round < 200; round++) {
        size_t n = 0;
        doc[n++] = '[';
        int values = 1 + round % 40;
        for (int v = 0; v < values; v++) {
            seed = seed * 6364136223846793005u + 1442695040888963407u;
            size_t run = (size_t)(seed >> 58); /* 0..63 */
            for (size_t k = 0; k < run; k++) {
                seed = seed * 6364136223846793005u + 1442695040888963407u;
                doc[n++] = WS[(seed >> 40) & 3];
            }
            doc[n++] = v + 1 < values ? '7' : 'x'; /* the last value is bad */
            if (v + 1 < values) doc[n++] = ',';
        }
        doc[n] = 0;
        size_t bad = n - 1, line = 1, col = 1;
        for (size_t k = 0; k < bad; k++) {
            col++;
            if (doc[k] == '\n') line++, col = 1;
        }
        static const size_t chunks[] = {0, 1, 7, 4096};
        for (size_t c = 0; c < 4; c++) {
            tj_src src = {(const unsigned char *)doc, n, 0, chunks[c]};
            opscope_json_t *j = chunks[c] ? opscope_json_new(tj_read, &src, NULL, 0, "w.json")
                                          : opscope_json_new(NULL, NULL, doc, n, "w.json");
            opscope_json_token t;
            opscope_json_tok k;
            int values_seen = 0;
            while ((k = opscope_json_next(j, &t)) != OPSCOPE_JSON_EOF && k != OPSCOPE_JSON_ERROR)
                values_seen += k == OPSCOPE_JSON_NUMBER;
            ASSERT_EQ_INT(k, OPSCOPE_JSON_ERROR);
            ASSERT_EQ_INT(values_seen, values - 1);
            const opscope_error *e = opscope_json_error(j);
            ASSERT_EQ_U64(e->line, line);
            ASSERT_EQ_U64(e->col, col);
            ASSERT_EQ_U64(e->pos, bad);
            opscope_json_free(j);
        }
    }
    free(doc);
    return 0;
}

TEST_MAIN(TEST(test_error_positions), TEST(test_whitespace_lines), TEST(test_depth_limit), TEST(test_numbers), TEST(test_decimals_exact),
          TEST(test_strings), TEST(test_skip_and_depth), TEST(test_big_tokens),
          TEST(test_read_error), TEST(test_int_array), TEST(test_raw_array),
          TEST(test_next_member))
