/*
 * test_cap_env.c - the capture's settings parser (capture/life/cap_env.c): every class of bad
 * value refused (not a number, below, above, negative, overflow, trailing text, a word not in
 * the table), every good one read as strtoull / strtod / the table read it, and the warning
 * line on stderr, caught through a file, written out here by hand from the format the header
 * and docs/capture.md give.
 */
#include "capture/life/cap_env.h"
#include "test.h"

#include <unistd.h>

#define MIB_MAX 1048576u

/* Runs the reader call EXPR with stderr going to an unnamed temporary file; g_err gets what
 * it wrote. */
static char g_err[4096];
#define CAUGHT(expr)                                                                  \
    do {                                                                              \
        fflush(stderr);                                                               \
        FILE *tmp_ = tmpfile();                                                       \
        ASSERT_NOT_NULL(tmp_);                                                        \
        int saved_ = dup(2);                                                          \
        dup2(fileno(tmp_), 2);                                                        \
        expr;                                                                         \
        fflush(stderr);                                                               \
        dup2(saved_, 2);                                                              \
        close(saved_);                                                                \
        rewind(tmp_);                                                                 \
        size_t n_ = fread(g_err, 1, sizeof g_err - 1, tmp_);                          \
        g_err[n_] = '\0';                                                             \
        fclose(tmp_);                                                                 \
    } while (0)

static int test_uint_good(void) {
    static const struct {
        const char *text;
        uint64_t min, max, want;
    } good[] = {
        {"512", 1, MIB_MAX, 512},
        {"1", 1, MIB_MAX, 1},
        {"1048576", 1, MIB_MAX, 1048576},
        /* what strtoull read before: leading blanks, a '+', leading zeros */
        {"  42", 1, MIB_MAX, 42},
        {"+7", 1, MIB_MAX, 7},
        {"0010", 1, MIB_MAX, 10},
        {"0", 0, 86400000, 0},
        {"86400000", 0, 86400000, 86400000},
        {"18446744073709551615", 0, UINT64_MAX, UINT64_MAX},
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        uint64_t v = 12345;
        if (!opscope_cap_env_parse_uint(good[i].text, good[i].min, good[i].max, &v)) {
            TEST_FAIL_("\"%s\" refused", good[i].text);
        }
        ASSERT_EQ_U64(v, good[i].want);
    }
    return 0;
}

static int test_uint_bad(void) {
    static const char *const bad[] = {
        "abc", "0", "-5", "-0", "1e20", "99999999999999999999", "18446744073709551616", "1048577",
        "", " ", "+", "12 ", "5MB", "0x10", "1.5", "--1", "+-1",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint64_t v = 12345;
        if (opscope_cap_env_parse_uint(bad[i], 1, MIB_MAX, &v)) {
            TEST_FAIL_("\"%s\" taken as %llu", bad[i], (unsigned long long)v);
        }
        ASSERT_EQ_U64(v, 12345); /* untouched */
    }
    uint64_t v = 0;
    ASSERT_TRUE(!opscope_cap_env_parse_uint(NULL, 0, 10, &v));
    ASSERT_TRUE(!opscope_cap_env_parse_uint("86400001", 0, 86400000, &v));
    /* past 2^64, where a wrapped value would land in range: 2^64 + 512, 2^64, 2^65 */
    ASSERT_TRUE(!opscope_cap_env_parse_uint("18446744073709552128", 1, MIB_MAX, &v));
    ASSERT_TRUE(!opscope_cap_env_parse_uint("18446744073709551616", 0, UINT64_MAX, &v));
    ASSERT_TRUE(!opscope_cap_env_parse_uint("36893488147419103744", 0, UINT64_MAX, &v));
    return 0;
}

static int test_real(void) {
    double v = 0;
    ASSERT_TRUE(opscope_cap_env_parse_real("5", 0, 100, &v));
    ASSERT_NEAR(v, 5.0, 0);
    ASSERT_TRUE(opscope_cap_env_parse_real("2.5", 0, 100, &v));
    ASSERT_NEAR(v, 2.5, 0);
    ASSERT_TRUE(opscope_cap_env_parse_real("100", 0, 100, &v));
    ASSERT_NEAR(v, 100.0, 0);
    ASSERT_TRUE(opscope_cap_env_parse_real("1e1", 0, 100, &v));
    ASSERT_NEAR(v, 10.0, 0);
    ASSERT_TRUE(opscope_cap_env_parse_real("0.001", 0, 100, &v));
    ASSERT_NEAR(v, 0.001, 0);
    static const char *const bad[] = {"0", "-1", "100.5", "abc", "nan", "inf", "1e400", "5%", "", "5 "};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        double w = -7;
        if (opscope_cap_env_parse_real(bad[i], 0, 100, &w)) {
            TEST_FAIL_("\"%s\" taken as %g", bad[i], w);
        }
        ASSERT_NEAR(w, -7.0, 0);
    }
    ASSERT_TRUE(!opscope_cap_env_parse_real(NULL, 0, 100, &v));
    return 0;
}

static int test_word(void) {
    static const char *const k[] = {"json", "txt", "summary", NULL};
    ASSERT_EQ_INT(opscope_cap_env_parse_word("json", k), 0);
    ASSERT_EQ_INT(opscope_cap_env_parse_word("txt", k), 1);
    ASSERT_EQ_INT(opscope_cap_env_parse_word("summary", k), 2);
    ASSERT_EQ_INT(opscope_cap_env_parse_word("JSON", k), -1);
    ASSERT_EQ_INT(opscope_cap_env_parse_word("jso", k), -1);
    ASSERT_EQ_INT(opscope_cap_env_parse_word("json ", k), -1);
    ASSERT_EQ_INT(opscope_cap_env_parse_word("", k), -1);
    ASSERT_EQ_INT(opscope_cap_env_parse_word(NULL, k), -1);
    return 0;
}

/* The example of the header: a bad value, the default back, one line; once per variable. */
static int test_uint_reader_warns_once(void) {
    uint64_t v = 0;
    setenv("OPSCOPE_MAX_MB", "abc", 1);
    CAUGHT(v = opscope_cap_env_uint("OPSCOPE_MAX_MB", 1, MIB_MAX, 512, "MiB"));
    ASSERT_EQ_U64(v, 512);
    ASSERT_EQ_STR(g_err, "opscope: OPSCOPE_MAX_MB=abc is not a whole number of MiB from 1 to 1048576; using 512\n");
    setenv("OPSCOPE_MAX_MB", "1e20", 1);
    CAUGHT(v = opscope_cap_env_uint("OPSCOPE_MAX_MB", 1, MIB_MAX, 4096, "MiB"));
    ASSERT_EQ_U64(v, 4096);
    ASSERT_EQ_STR(g_err, ""); /* said once for the process */
    setenv("OPSCOPE_MAX_MB", "2048", 1);
    CAUGHT(v = opscope_cap_env_uint("OPSCOPE_MAX_MB", 1, MIB_MAX, 512, "MiB"));
    ASSERT_EQ_U64(v, 2048);
    setenv("OPSCOPE_MAX_MB", "", 1);
    CAUGHT(v = opscope_cap_env_uint("OPSCOPE_MAX_MB", 1, MIB_MAX, 512, "MiB"));
    ASSERT_EQ_U64(v, 512);
    unsetenv("OPSCOPE_MAX_MB");
    CAUGHT(v = opscope_cap_env_uint("OPSCOPE_MAX_MB", 1, MIB_MAX, 512, "MiB"));
    ASSERT_EQ_U64(v, 512);
    ASSERT_EQ_STR(g_err, "");
    return 0;
}

/* Each class of bad number, each under its own variable (a warning is said once per name). */
static int test_uint_reader_classes(void) {
    static const char *const bad[] = {"0", "-5", "1e20", "99999999999999999999", "-1", "1048577"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char name[32], want[200];
        snprintf(name, sizeof name, "CAP_ENV_TEST_N%zu", i);
        setenv(name, bad[i], 1);
        uint64_t v = 0;
        CAUGHT(v = opscope_cap_env_uint(name, 1, MIB_MAX, 512, "MiB"));
        ASSERT_EQ_U64(v, 512);
        snprintf(want, sizeof want, "opscope: %s=%s is not a whole number of MiB from 1 to 1048576; using 512\n", name,
                 bad[i]);
        ASSERT_EQ_STR(g_err, want);
    }
    setenv("OPSCOPE_CHECKPOINT_MS", "-1", 1);
    uint64_t v = 0;
    CAUGHT(v = opscope_cap_env_uint("OPSCOPE_CHECKPOINT_MS", 0, 86400000, 1000, "ms"));
    ASSERT_EQ_U64(v, 1000);
    ASSERT_EQ_STR(g_err, "opscope: OPSCOPE_CHECKPOINT_MS=-1 is not a whole number of ms from 0 to 86400000; using 1000\n");
    setenv("CAP_ENV_TEST_CK0", "0", 1);
    CAUGHT(v = opscope_cap_env_uint("CAP_ENV_TEST_CK0", 0, 86400000, 1000, "ms"));
    ASSERT_EQ_U64(v, 0); /* 0 is "never", in range */
    ASSERT_EQ_STR(g_err, "");
    return 0;
}

static int test_flag_reader(void) {
    static const char *const good[] = {"0", "1"};
    for (int i = 0; i < 2; i++) {
        setenv("CAP_ENV_TEST_FLAG", good[i], 1);
        bool on = !i;
        CAUGHT(on = opscope_cap_env_flag("CAP_ENV_TEST_FLAG", !i));
        ASSERT_EQ_INT(on, i);
        ASSERT_EQ_STR(g_err, "");
    }
    setenv("CAP_ENV_TEST_FLAG_BAD", "yes", 1);
    bool on = true;
    CAUGHT(on = opscope_cap_env_flag("CAP_ENV_TEST_FLAG_BAD", false));
    ASSERT_EQ_INT(on, 0);
    ASSERT_EQ_STR(g_err, "opscope: CAP_ENV_TEST_FLAG_BAD=yes is not 0 or 1; using 0\n");
    setenv("CAP_ENV_TEST_FLAG_BAD2", "10", 1);
    CAUGHT(on = opscope_cap_env_flag("CAP_ENV_TEST_FLAG_BAD2", true));
    ASSERT_EQ_INT(on, 1);
    ASSERT_EQ_STR(g_err, "opscope: CAP_ENV_TEST_FLAG_BAD2=10 is not 0 or 1; using 1\n");
    unsetenv("CAP_ENV_TEST_FLAG_UNSET");
    CAUGHT(on = opscope_cap_env_flag("CAP_ENV_TEST_FLAG_UNSET", true));
    ASSERT_EQ_INT(on, 1);
    ASSERT_EQ_STR(g_err, "");
    return 0;
}

static int test_word_reader(void) {
    static const char *const modes[] = {"sampled", "all", NULL};
    static const char *const fmts[] = {"json", "txt", "summary", NULL};
    int i = -2;
    setenv("CAP_ENV_TEST_MODE", "all", 1);
    CAUGHT(i = opscope_cap_env_word("CAP_ENV_TEST_MODE", modes, 0, NULL));
    ASSERT_EQ_INT(i, 1);
    ASSERT_EQ_STR(g_err, "");
    setenv("CAP_ENV_TEST_MODE_BAD", "bogus", 1);
    CAUGHT(i = opscope_cap_env_word("CAP_ENV_TEST_MODE_BAD", modes, 0, NULL));
    ASSERT_EQ_INT(i, 0);
    ASSERT_EQ_STR(g_err, "opscope: CAP_ENV_TEST_MODE_BAD=bogus is not sampled or all; using sampled\n");
    setenv("CAP_ENV_TEST_FMT_BAD", "xml", 1);
    CAUGHT(i = opscope_cap_env_word("CAP_ENV_TEST_FMT_BAD", fmts, -1, "the file name's format"));
    ASSERT_EQ_INT(i, -1);
    ASSERT_EQ_STR(g_err, "opscope: CAP_ENV_TEST_FMT_BAD=xml is not json, txt or summary; using the file name's format\n");
    return 0;
}

static int test_real_reader(void) {
    double v = 0;
    setenv("CAP_ENV_TEST_PCT", "2.5", 1);
    CAUGHT(v = opscope_cap_env_real("CAP_ENV_TEST_PCT", 0, 100, 5, "percent"));
    ASSERT_NEAR(v, 2.5, 0);
    ASSERT_EQ_STR(g_err, "");
    setenv("CAP_ENV_TEST_PCT_BAD", "150", 1);
    CAUGHT(v = opscope_cap_env_real("CAP_ENV_TEST_PCT_BAD", 0, 100, 5, "percent"));
    ASSERT_NEAR(v, 5.0, 0);
    ASSERT_EQ_STR(g_err, "opscope: CAP_ENV_TEST_PCT_BAD=150 is not a number of percent above 0 and at most 100; using 5\n");
    return 0;
}

/* A value's control bytes never reach the terminal; a long one is cut, the line stays one. */
static int test_warning_shown_safely(void) {
    setenv("CAP_ENV_TEST_CTL", "a\nb\033c", 1);
    CAUGHT(opscope_cap_env_flag("CAP_ENV_TEST_CTL", false));
    ASSERT_EQ_STR(g_err, "opscope: CAP_ENV_TEST_CTL=a?b?c is not 0 or 1; using 0\n");
    char big[400];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    setenv("CAP_ENV_TEST_LONG", big, 1);
    CAUGHT(opscope_cap_env_flag("CAP_ENV_TEST_LONG", false));
    char want[400];
    snprintf(want, sizeof want, "opscope: CAP_ENV_TEST_LONG=%.256s... is not 0 or 1; using 0\n", big);
    ASSERT_EQ_STR(g_err, want);
    ASSERT_EQ_INT((int)strlen(g_err), (int)strlen("opscope: CAP_ENV_TEST_LONG=") + 256 + 3 +
                                          (int)strlen(" is not 0 or 1; using 0\n"));
    return 0;
}

TEST_MAIN(TEST(test_uint_good), TEST(test_uint_bad), TEST(test_real), TEST(test_word),
          TEST(test_uint_reader_warns_once), TEST(test_uint_reader_classes), TEST(test_flag_reader),
          TEST(test_word_reader), TEST(test_real_reader), TEST(test_warning_shown_safely))
