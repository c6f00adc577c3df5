/* Tests of the buffered atomic writer and string table. */
#include "opscope.h"
#include "util/out.h"
#include "model/strtab.h"
#include "test.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static int test_commit_renames(void) {
    const char *path = "out_commit.txt";
    unlink(path);
    opscope_error err;
    opscope_out_t *w = opscope_out_open(path, &err);
    ASSERT_NOT_NULL(w);
    opscope_out_str(w, "a=");
    opscope_out_u64(w, 18446744073709551615ull);
    opscope_out_char(w, ' ');
    opscope_out_i64(w, INT64_MIN);
    opscope_out_char(w, ' ');
    opscope_out_ns_as_us(w, 1234567);
    opscope_out_char(w, ' ');
    opscope_out_ns_as_us(w, 1200);
    opscope_out_char(w, ' ');
    opscope_out_ns_as_us(w, 5);
    opscope_out_char(w, ' ');
    opscope_out_double(w, 0.1);
    opscope_out_char(w, ' ');
    opscope_out_fixed(w, 2.345, 2);
    /* Not visible before commit. */
    ASSERT_TRUE(access(path, F_OK) != 0);
    ASSERT_EQ_INT(opscope_out_commit(w, &err), 0);
    char *s = test_slurp(path, NULL);
    ASSERT_EQ_STR(s, "a=18446744073709551615 -9223372036854775808 1234.567 1.2 0.005 0.1 2.35");
    free(s);
    unlink(path);
    return 0;
}

static int test_abort_leaves_nothing(void) {
    const char *path = "out_abort.txt";
    FILE *f = fopen(path, "w");
    fputs("old", f);
    fclose(f);
    opscope_out_t *w = opscope_out_open(path, NULL);
    ASSERT_NOT_NULL(w);
    for (int i = 0; i < 300000; i++) opscope_out_str(w, "0123456789");
    opscope_out_abort(w);
    char *s = test_slurp(path, NULL);
    ASSERT_EQ_STR(s, "old");
    free(s);
    unlink(path);
    return 0;
}

static int test_json_escape(void) {
    const char *path = "out_json.txt";
    opscope_out_t *w = opscope_out_open(path, NULL);
    ASSERT_NOT_NULL(w);
    opscope_out_json_str(w, "a\"b\\c\n</script>\x01\xff\xc3\xa9");
    opscope_out_char(w, ' ');
    opscope_out_json_str(w, NULL);
    ASSERT_EQ_INT(opscope_out_commit(w, NULL), 0);
    char *s = test_slurp(path, NULL);
    ASSERT_EQ_STR(s, "\"a\\\"b\\\\c\\n\\u003c/script\\u003e\\u0001\\ufffd\xc3\xa9\" null");
    free(s);
    unlink(path);
    return 0;
}

static int test_open_fails_cleanly(void) {
    opscope_error err;
    memset(&err, 0, sizeof err);
    opscope_out_t *w = opscope_out_open("/nonexistent-dir/x.json", &err);
    ASSERT_NULL(w);
    ASSERT_EQ_INT(err.code, OPSCOPE_ERROR_IO);
    char buf[512];
    opscope_error_format(&err, buf, sizeof buf);
    ASSERT_CONTAINS(buf, "/nonexistent-dir/x.json");
    return 0;
}

static int test_strtab(void) {
    opscope_strtab_t *t = opscope_strtab_new();
    ASSERT_NOT_NULL(t);
    uint32_t id = 99;
    const char *a = opscope_strtab_intern(t, "MUL_MAT", 7, &id);
    ASSERT_EQ_INT(id, 0);
    char name[32];
    for (int i = 0; i < 5000; i++) {
        int n = snprintf(name, sizeof name, "op%d", i);
        ASSERT_NOT_NULL(opscope_strtab_intern(t, name, (size_t)n, &id));
        ASSERT_EQ_INT(id, i + 1);
    }
    const char *b = opscope_strtab_intern(t, "MUL_MAT_ID", 7, &id); /* a prefix: same string */
    ASSERT_TRUE(a == b);
    ASSERT_EQ_INT(id, 0);
    ASSERT_EQ_INT(opscope_strtab_count(t), 5001);
    ASSERT_EQ_STR(opscope_strtab_get(t, 4001), "op4000");
    opscope_strtab_free(t);
    return 0;
}

static int test_profile(void) {
    opscope_profile_t *p = opscope_profile_new();
    ASSERT_NOT_NULL(p);
    opscope_backend b = {1, "CPU", "Test CPU", OPSCOPE_DEVICE_CPU, NULL};
    ASSERT_EQ_INT(opscope_profile_add_backend(p, &b), 0);
    char name[16] = "ADD";
    opscope_record r;
    opscope_record_init(&r);
    ASSERT_EQ_INT(r.out_type, -1);
    ASSERT_EQ_INT(r.n_fused, 1);
    r.name = name;
    r.duration_ns = 42;
    for (int i = 0; i < 3000; i++) ASSERT_EQ_INT(opscope_profile_add_record(p, &r), 0);
    strcpy(name, "XXX"); /* the profile keeps its own copy */
    ASSERT_EQ_INT(opscope_profile_n_records(p), 3000);
    ASSERT_EQ_STR(opscope_profile_record(p, 2999)->name, "ADD");
    ASSERT_EQ_U64(opscope_profile_record(p, 0)->duration_ns, 42);
    ASSERT_EQ_STR(opscope_profile_backend(p, 0)->device, "Test CPU");
    ASSERT_NULL(opscope_profile_record(p, 3000));
    opscope_profile_free(p);
    return 0;
}

/* Writes TEXT to PATH through the atomic writer. */
static int write_through(const char *path, const char *text) {
    opscope_error err;
    opscope_out_t *w = opscope_out_open(path, &err);
    if (!w) return -1;
    opscope_out_str(w, text);
    return opscope_out_commit(w, &err);
}

/* An output that is a symlink stays one (its target is replaced); an existing file keeps
 * its mode (0444 stays 0444); a new file gets 0666 less the umask, as fopen gives it. */
static int test_links_and_modes(void) {
    unlink("out_target.txt");
    unlink("out_link.txt");
    unlink("out_link2.txt");
    unlink("out_ro.txt");
    unlink("out_new.txt");
    ASSERT_EQ_INT(symlink("out_target.txt", "out_link.txt"), 0); /* dangling at first */
    ASSERT_EQ_INT(symlink("out_link.txt", "out_link2.txt"), 0);  /* a chain */
    ASSERT_EQ_INT(write_through("out_link2.txt", "one"), 0);
    struct stat ls;
    ASSERT_EQ_INT(lstat("out_link.txt", &ls), 0);
    ASSERT_TRUE(S_ISLNK(ls.st_mode));
    ASSERT_EQ_INT(lstat("out_link2.txt", &ls), 0);
    ASSERT_TRUE(S_ISLNK(ls.st_mode));
    char *s = test_slurp("out_target.txt", NULL);
    ASSERT_EQ_STR(s, "one");
    free(s);
    ASSERT_EQ_INT(write_through("out_link.txt", "two"), 0);
    s = test_slurp("out_target.txt", NULL);
    ASSERT_EQ_STR(s, "two");
    free(s);

    ASSERT_EQ_INT(write_through("out_ro.txt", "x"), 0);
    ASSERT_EQ_INT(chmod("out_ro.txt", 0444), 0);
    ASSERT_EQ_INT(write_through("out_ro.txt", "y"), 0);
    struct stat st;
    ASSERT_EQ_INT(stat("out_ro.txt", &st), 0);
    ASSERT_EQ_INT(st.st_mode & 07777, 0444);

    mode_t old = umask(027);
    int rc = write_through("out_new.txt", "z");
    umask(old);
    ASSERT_EQ_INT(rc, 0);
    ASSERT_EQ_INT(stat("out_new.txt", &st), 0);
    ASSERT_EQ_INT(st.st_mode & 07777, 0640);
    unlink("out_target.txt");
    unlink("out_link.txt");
    unlink("out_link2.txt");
    unlink("out_ro.txt");
    unlink("out_new.txt");
    return 0;
}

TEST_MAIN(TEST(test_commit_renames), TEST(test_links_and_modes), TEST(test_abort_leaves_nothing), TEST(test_json_escape),
          TEST(test_open_fails_cleanly), TEST(test_strtab), TEST(test_profile))
