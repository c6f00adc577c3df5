/*
 * test.h - typed assertions that print both values (libuv style), for opscope's C tests.
 *
 * A failed assertion prints "file:line: ASSERT_EQ_INT(a, b) failed: 3 != 4" to stderr and
 * returns 1 from the current test function. Test functions have the signature
 * `static int test_x(void)` and are run by TEST_MAIN(...), which counts failures and prints
 * "N passed, M failed".
 */
#ifndef OPSCOPE_TEST_H
#define OPSCOPE_TEST_H

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TEST_FAIL_(fmt, ...)                                                                \
    do {                                                                                    \
        fprintf(stderr, "%s:%d: " fmt "\n", __FILE__, __LINE__, __VA_ARGS__);              \
        return 1;                                                                           \
    } while (0)

#define ASSERT_TRUE(c)                                                                      \
    do {                                                                                    \
        if (!(c)) TEST_FAIL_("ASSERT_TRUE(%s) failed", #c);                                 \
    } while (0)

#define ASSERT_EQ_INT(a, b)                                                                 \
    do {                                                                                    \
        long long a_ = (long long)(a), b_ = (long long)(b);                                 \
        if (a_ != b_) TEST_FAIL_("ASSERT_EQ_INT(%s, %s) failed: %lld != %lld", #a, #b, a_, b_); \
    } while (0)

#define ASSERT_EQ_U64(a, b)                                                                 \
    do {                                                                                    \
        uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b);                                    \
        if (a_ != b_)                                                                       \
            TEST_FAIL_("ASSERT_EQ_U64(%s, %s) failed: %" PRIu64 " != %" PRIu64, #a, #b, a_, b_); \
    } while (0)

/* Ordering assertions: ASSERT_<OP>_<TYPE>(a, b) checks `a OP b` with both operands converted
 * to TYPE first (INT: long long, U64: uint64_t, DBL: double), so pick the type of the operands:
 * a value that can be negative (a descriptor, an index found or -1) is an INT, a size or count
 * a U64 (as INT a count over INT64_MAX would turn negative, as U64 a -1 would pass as huge).
 * A failure prints the relation that holds instead: "ASSERT_GT_U64(n, 30) failed: 12 <= 30". */
#define TEST_ORDER_(T, fmt, name, op, nop, sa, sb, a, b)                                    \
    do {                                                                                    \
        T a_ = (T)(a), b_ = (T)(b);                                                         \
        if (!(a_ op b_))                                                                    \
            TEST_FAIL_(name "(%s, %s) failed: " fmt " " nop " " fmt, sa, sb, a_, b_);       \
    } while (0)

#define ASSERT_GT_INT(a, b) TEST_ORDER_(long long, "%lld", "ASSERT_GT_INT", >, "<=", #a, #b, a, b)
#define ASSERT_GE_INT(a, b) TEST_ORDER_(long long, "%lld", "ASSERT_GE_INT", >=, "<", #a, #b, a, b)
#define ASSERT_LT_INT(a, b) TEST_ORDER_(long long, "%lld", "ASSERT_LT_INT", <, ">=", #a, #b, a, b)
#define ASSERT_LE_INT(a, b) TEST_ORDER_(long long, "%lld", "ASSERT_LE_INT", <=, ">", #a, #b, a, b)

#define ASSERT_GT_U64(a, b) TEST_ORDER_(uint64_t, "%" PRIu64, "ASSERT_GT_U64", >, "<=", #a, #b, a, b)
#define ASSERT_GE_U64(a, b) TEST_ORDER_(uint64_t, "%" PRIu64, "ASSERT_GE_U64", >=, "<", #a, #b, a, b)
#define ASSERT_LT_U64(a, b) TEST_ORDER_(uint64_t, "%" PRIu64, "ASSERT_LT_U64", <, ">=", #a, #b, a, b)
#define ASSERT_LE_U64(a, b) TEST_ORDER_(uint64_t, "%" PRIu64, "ASSERT_LE_U64", <=, ">", #a, #b, a, b)

/* %.17g as ASSERT_NEAR: two doubles that differ print differently. A NaN fails every one. */
#define ASSERT_GT_DBL(a, b) TEST_ORDER_(double, "%.17g", "ASSERT_GT_DBL", >, "<=", #a, #b, a, b)
#define ASSERT_GE_DBL(a, b) TEST_ORDER_(double, "%.17g", "ASSERT_GE_DBL", >=, "<", #a, #b, a, b)
#define ASSERT_LT_DBL(a, b) TEST_ORDER_(double, "%.17g", "ASSERT_LT_DBL", <, ">=", #a, #b, a, b)
#define ASSERT_LE_DBL(a, b) TEST_ORDER_(double, "%.17g", "ASSERT_LE_DBL", <=, ">", #a, #b, a, b)

#define ASSERT_NE_INT(a, b)                                                                 \
    do {                                                                                    \
        long long a_ = (long long)(a), b_ = (long long)(b);                                 \
        if (a_ == b_) TEST_FAIL_("ASSERT_NE_INT(%s, %s) failed: both %lld", #a, #b, a_);    \
    } while (0)

#define ASSERT_EQ_STR(a, b)                                                                 \
    do {                                                                                    \
        const char *a_ = (a), *b_ = (b);                                                    \
        if ((a_ == NULL) != (b_ == NULL) || (a_ && strcmp(a_, b_) != 0))                    \
            TEST_FAIL_("ASSERT_EQ_STR(%s, %s) failed: \"%s\" != \"%s\"", #a, #b,           \
                       a_ ? a_ : "(null)", b_ ? b_ : "(null)");                             \
    } while (0)

#define ASSERT_CONTAINS(hay, needle)                                                        \
    do {                                                                                    \
        const char *h_ = (hay), *n_ = (needle);                                             \
        if (!h_ || !strstr(h_, n_))                                                         \
            TEST_FAIL_("ASSERT_CONTAINS(%s, %s) failed: \"%s\" not in \"%.300s\"", #hay,   \
                       #needle, n_, h_ ? h_ : "(null)");                                    \
    } while (0)

#define ASSERT_NEAR(a, b, tol)                                                              \
    do {                                                                                    \
        double a_ = (double)(a), b_ = (double)(b), t_ = (double)(tol);                      \
        if (!(fabs(a_ - b_) <= t_))                                                         \
            TEST_FAIL_("ASSERT_NEAR(%s, %s) failed: %.17g vs %.17g (tol %g)", #a, #b, a_, b_, t_); \
    } while (0)

#define ASSERT_NULL(p)                                                                      \
    do {                                                                                    \
        const void *p_ = (const void *)(p);                                                 \
        if (p_) TEST_FAIL_("ASSERT_NULL(%s) failed: %p", #p, p_);                           \
    } while (0)

#define ASSERT_NOT_NULL(p)                                                                  \
    do {                                                                                    \
        if (!(p)) TEST_FAIL_("ASSERT_NOT_NULL(%s) failed", #p);                             \
    } while (0)

/* Reads a whole file into a NUL-terminated malloc'd buffer (caller frees); *LEN (may be NULL)
 * receives its size. NULL when the file cannot be opened or read whole. */
static inline char *test_slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    if (buf) buf[n] = 0;
    if (buf && len) *len = (size_t)n;
    fclose(f);
    return buf;
}

typedef int (*test_fn)(void);
typedef struct test_case {
    const char *name;
    test_fn fn;
} test_case;

#define TEST(fn) {#fn, fn}

static inline int test_run_all(const test_case *cases, int n) {
    int failed = 0;
    for (int i = 0; i < n; i++) {
        int r = cases[i].fn();
        fprintf(stderr, "%s %s\n", r ? "FAIL" : "ok  ", cases[i].name);
        failed += r != 0;
    }
    printf("%d passed, %d failed\n", n - failed, failed);
    return failed ? 1 : 0;
}

#define TEST_MAIN(...)                                                                      \
    int main(void) {                                                                        \
        static const test_case cases_[] = {__VA_ARGS__};                                    \
        return test_run_all(cases_, (int)(sizeof cases_ / sizeof cases_[0]));               \
    }

#endif /* OPSCOPE_TEST_H */
