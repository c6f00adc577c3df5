/* test_asserts.c - tests/test.h's ordering assertions: each passes on its relation and at its
 * boundary, fails one step past it, returns 1 from the test function then, and prints both
 * values with the relation that holds. The failures run inside functions of their own with
 * stderr sent to a file, so their messages are read back here instead of filling the log. */
#include "../test.h"

#include <unistd.h>

static int g_line; /* the line of the assertion that failed_gt_u64 runs */

/* The message a failed ASSERT_GT_U64 prints: a count 3 held to be over UINT64_MAX, which an INT
 * comparison could not have held (UINT64_MAX as a long long is -1). */
static int failed_gt_u64(void) {
    uint64_t small = 3, big = UINT64_MAX;
    g_line = __LINE__ + 1;
    ASSERT_GT_U64(small, big);
    return 0;
}

/* Runs FN with stderr in a file; its return value, and what it printed in BUF. */
static int run_quiet(test_fn fn, char *buf, size_t size) {
    FILE *tmp = tmpfile();
    if (!tmp) return -1;
    fflush(stderr);
    int saved = dup(2);
    dup2(fileno(tmp), 2);
    int rc = fn();
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(tmp);
    size_t n = fread(buf, 1, size - 1, tmp);
    buf[n] = 0;
    fclose(tmp);
    return rc;
}

static int test_gt_u64_message(void) {
    char msg[512], want[512];
    ASSERT_EQ_INT(run_quiet(failed_gt_u64, msg, sizeof msg), 1);
    snprintf(want, sizeof want, "%s:%d: ASSERT_GT_U64(small, big) failed: 3 <= 18446744073709551615\n",
             __FILE__, g_line);
    ASSERT_EQ_STR(msg, want);
    return 0;
}

/* One function per case: the assertion on A and B of type T. */
#define CASE(fn, assert_, T, x, y)                                                          \
    static int fn(void) {                                                                   \
        T a = x, b = y;                                                                     \
        assert_(a, b);                                                                      \
        return 0;                                                                           \
    }

CASE(pass_gt_int, ASSERT_GT_INT, int, 2, 1)
CASE(pass_ge_int, ASSERT_GE_INT, int, 1, 1)
CASE(pass_lt_int, ASSERT_LT_INT, int, -1, 0)
CASE(pass_le_int, ASSERT_LE_INT, long long, -2, -2)
CASE(pass_gt_u64, ASSERT_GT_U64, uint64_t, UINT64_MAX, 1)
CASE(pass_ge_u64, ASSERT_GE_U64, size_t, 5, 5)
CASE(pass_lt_u64, ASSERT_LT_U64, uint64_t, 0, UINT64_MAX)
CASE(pass_le_u64, ASSERT_LE_U64, uint64_t, 7, 7)
CASE(pass_gt_dbl, ASSERT_GT_DBL, double, 0.5, 0.25)
CASE(pass_ge_dbl, ASSERT_GE_DBL, double, 0.5, 0.5)
CASE(pass_lt_dbl, ASSERT_LT_DBL, double, -0.5, 0.0)
CASE(pass_le_dbl, ASSERT_LE_DBL, double, 1.5, 1.5)

CASE(fail_gt_int, ASSERT_GT_INT, int, 1, 1)
CASE(fail_ge_int, ASSERT_GE_INT, int, -3, -2)
CASE(fail_lt_int, ASSERT_LT_INT, int, 0, -1)
CASE(fail_le_int, ASSERT_LE_INT, long long, 5, 4)
CASE(fail_gt_u64, ASSERT_GT_U64, uint64_t, 4, 4)
CASE(fail_ge_u64, ASSERT_GE_U64, size_t, 1, 2)
CASE(fail_lt_u64, ASSERT_LT_U64, uint64_t, UINT64_MAX, UINT64_MAX)
CASE(fail_le_u64, ASSERT_LE_U64, uint64_t, UINT64_MAX, 0)
CASE(fail_gt_dbl, ASSERT_GT_DBL, double, 0.25, 0.5)
CASE(fail_ge_dbl, ASSERT_GE_DBL, double, 0.25, 0.5)
CASE(fail_lt_dbl, ASSERT_LT_DBL, double, 0.5, 0.5)
CASE(fail_le_dbl, ASSERT_LE_DBL, double, NAN, 1.0)

static int test_cases(void) {
    static const struct {
        test_fn fn;
        const char *msg; /* what the failure prints after "file:line: "; NULL: it passes */
    } cases[] = {
        {pass_gt_int, NULL}, {pass_ge_int, NULL}, {pass_lt_int, NULL}, {pass_le_int, NULL},
        {pass_gt_u64, NULL}, {pass_ge_u64, NULL}, {pass_lt_u64, NULL}, {pass_le_u64, NULL},
        {pass_gt_dbl, NULL}, {pass_ge_dbl, NULL}, {pass_lt_dbl, NULL}, {pass_le_dbl, NULL},
        {fail_gt_int, "ASSERT_GT_INT(a, b) failed: 1 <= 1\n"},
        {fail_ge_int, "ASSERT_GE_INT(a, b) failed: -3 < -2\n"},
        {fail_lt_int, "ASSERT_LT_INT(a, b) failed: 0 >= -1\n"},
        {fail_le_int, "ASSERT_LE_INT(a, b) failed: 5 > 4\n"},
        {fail_gt_u64, "ASSERT_GT_U64(a, b) failed: 4 <= 4\n"},
        {fail_ge_u64, "ASSERT_GE_U64(a, b) failed: 1 < 2\n"},
        {fail_lt_u64, "ASSERT_LT_U64(a, b) failed: 18446744073709551615 >= 18446744073709551615\n"},
        {fail_le_u64, "ASSERT_LE_U64(a, b) failed: 18446744073709551615 > 0\n"},
        {fail_gt_dbl, "ASSERT_GT_DBL(a, b) failed: 0.25 <= 0.5\n"},
        {fail_ge_dbl, "ASSERT_GE_DBL(a, b) failed: 0.25 < 0.5\n"},
        {fail_lt_dbl, "ASSERT_LT_DBL(a, b) failed: 0.5 >= 0.5\n"},
        {fail_le_dbl, "ASSERT_LE_DBL(a, b) failed: nan > 1\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char msg[512];
        int rc = run_quiet(cases[i].fn, msg, sizeof msg);
        if (!cases[i].msg) {
            ASSERT_EQ_INT(rc, 0);
            ASSERT_EQ_STR(msg, "");
            continue;
        }
        ASSERT_EQ_INT(rc, 1);
        /* "file:line: " first, this file's */
        ASSERT_EQ_INT(strncmp(msg, __FILE__ ":", strlen(__FILE__) + 1), 0);
        const char *text = strstr(msg, ": ASSERT_");
        ASSERT_NOT_NULL(text);
        ASSERT_EQ_STR(text + 2, cases[i].msg);
    }
    return 0;
}

TEST_MAIN(TEST(test_gt_u64_message), TEST(test_cases))
