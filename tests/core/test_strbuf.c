/* test_strbuf.c - util/strbuf.h: a growable buffer's growth and out-of-memory flag, a bounded
 * buffer's cut at a UTF-8 boundary with the length wanted counted, the numbers, printf,
 * copies, truncation and the encoder's room. */
#include "../test.h"

#include "util/strbuf.h"

static int test_growth(void) {
    opscope_strbuf b = OPSCOPE_STRBUF_INIT;
    ASSERT_EQ_STR(opscope_strbuf_cstr(&b), "");
    char want[5001];
    for (int i = 0; i < 5000; i++) {
        want[i] = (char)('a' + i % 26);
        ASSERT_EQ_INT(i % 3 ? opscope_strbuf_add_char(&b, want[i]) : opscope_strbuf_add(&b, &want[i], 1), 0);
    }
    want[5000] = '\0';
    ASSERT_EQ_U64(b.len, 5000);
    ASSERT_EQ_U64(opscope_strbuf_wanted(&b), 5000);
    ASSERT_TRUE(b.size > 5000);
    ASSERT_EQ_STR(b.s, want);
    ASSERT_TRUE(!b.failed);
    /* a long append at once, then reset keeps the storage */
    char big[20000];
    memset(big, 'x', sizeof big);
    ASSERT_EQ_INT(opscope_strbuf_add(&b, big, sizeof big), 0);
    ASSERT_EQ_U64(b.len, 25000);
    ASSERT_EQ_INT(b.s[25000], 0);
    size_t size = b.size;
    opscope_strbuf_reset(&b);
    ASSERT_EQ_U64(b.len, 0);
    ASSERT_EQ_U64(b.size, size);
    ASSERT_EQ_STR(b.s, "");
    /* bytes of any value: a byte buffer */
    ASSERT_EQ_INT(opscope_strbuf_add(&b, "a\0b", 3), 0);
    ASSERT_EQ_U64(b.len, 3);
    ASSERT_EQ_INT(memcmp(b.s, "a\0b", 4), 0);
    opscope_strbuf_free(&b);
    ASSERT_NULL(b.s);
    ASSERT_EQ_U64(b.len, 0);
    return 0;
}

static int test_failed_flag(void) {
    opscope_strbuf b = OPSCOPE_STRBUF_INIT;
    ASSERT_EQ_INT(opscope_strbuf_add_str(&b, "ok"), 0);
    /* a length no allocation can hold: dropped, flagged, the text as it was */
    volatile size_t huge = SIZE_MAX - 1; /* not a constant the compiler checks the copy by */
    ASSERT_EQ_INT(opscope_strbuf_add(&b, "x", huge), -1);
    ASSERT_TRUE(b.failed);
    ASSERT_EQ_STR(b.s, "ok");
    ASSERT_EQ_INT(opscope_strbuf_room(&b, huge), -1);
    opscope_strbuf_reset(&b);
    ASSERT_TRUE(b.failed); /* sticks until free */
    opscope_strbuf_free(&b);
    ASSERT_TRUE(!b.failed);
    /* a bounded buffer never fails: it cuts */
    char buf[4];
    opscope_strbuf_fixed(&b, buf, sizeof buf);
    ASSERT_EQ_INT(opscope_strbuf_add_str(&b, "abcdef"), 0);
    ASSERT_TRUE(!b.failed);
    ASSERT_EQ_STR(buf, "abc");
    return 0;
}

static int test_bounded_utf8_cut(void) {
    char buf[8];
    opscope_strbuf b;
    /* "ab" + "é€" (2 + 3 bytes) fits 7 bytes; "ü" (2) then does not: cut before it whole */
    opscope_strbuf_fixed(&b, buf, sizeof buf);
    opscope_strbuf_add_str(&b, "ab");
    opscope_strbuf_add_str(&b, "\xc3\xa9\xe2\x82\xac");
    ASSERT_EQ_U64(b.len, 7);
    opscope_strbuf_add_str(&b, "\xc3\xbc");
    ASSERT_EQ_STR(buf, "ab\xc3\xa9\xe2\x82\xac");
    ASSERT_EQ_U64(opscope_strbuf_wanted(&b), 9);
    /* a cut inside a character backs off to its start; nothing after the cut is stored,
     * even what would fit in the bytes the back-off freed */
    opscope_strbuf_fixed(&b, buf, sizeof buf);
    opscope_strbuf_add_str(&b, "abcde");
    opscope_strbuf_add_str(&b, "\xe2\x82\xac"); /* 2 bytes of room for 3 */
    ASSERT_EQ_STR(buf, "abcde");
    opscope_strbuf_add_char(&b, 'z');
    opscope_strbuf_add_str(&b, "y");
    ASSERT_EQ_STR(buf, "abcde");
    ASSERT_EQ_U64(b.len, 5);
    ASSERT_EQ_U64(opscope_strbuf_wanted(&b), 10);
    /* ASCII is cut at the byte */
    opscope_strbuf_fixed(&b, buf, sizeof buf);
    opscope_strbuf_add_str(&b, "0123456789");
    ASSERT_EQ_STR(buf, "0123456");
    ASSERT_EQ_U64(opscope_strbuf_wanted(&b), 10);
    /* exactly full is not cut: the next append is */
    opscope_strbuf_fixed(&b, buf, sizeof buf);
    opscope_strbuf_add_str(&b, "0123456");
    ASSERT_EQ_U64(b.over, 0);
    opscope_strbuf_add_str(&b, "7");
    ASSERT_EQ_STR(buf, "0123456");
    ASSERT_EQ_U64(opscope_strbuf_wanted(&b), 8);
    /* reset reopens the whole room */
    opscope_strbuf_reset(&b);
    opscope_strbuf_add_str(&b, "abcdefg");
    ASSERT_EQ_STR(buf, "abcdefg");
    /* size 0 writes nothing and counts; size 1 holds the empty string */
    opscope_strbuf_fixed(&b, NULL, 0);
    opscope_strbuf_add_str(&b, "abc");
    opscope_strbuf_add_u64(&b, 12);
    ASSERT_EQ_U64(opscope_strbuf_wanted(&b), 5);
    ASSERT_EQ_STR(opscope_strbuf_cstr(&b), "");
    char one[1] = {'x'};
    opscope_strbuf_fixed(&b, one, 1);
    opscope_strbuf_add_str(&b, "abc");
    ASSERT_EQ_INT(one[0], 0);
    ASSERT_EQ_U64(opscope_strbuf_wanted(&b), 3);
    return 0;
}

static int test_numbers(void) {
    opscope_strbuf b = OPSCOPE_STRBUF_INIT;
    opscope_strbuf_add_u64(&b, 0);
    opscope_strbuf_add_char(&b, ' ');
    opscope_strbuf_add_u64(&b, UINT64_MAX);
    opscope_strbuf_add_char(&b, ' ');
    opscope_strbuf_add_i64(&b, INT64_MIN);
    opscope_strbuf_add_char(&b, ' ');
    opscope_strbuf_add_i64(&b, -7);
    opscope_strbuf_add_char(&b, ' ');
    opscope_strbuf_add_i64(&b, INT64_MAX);
    ASSERT_EQ_STR(b.s, "0 18446744073709551615 -9223372036854775808 -7 9223372036854775807");
    opscope_strbuf_free(&b);
    char buf[6];
    opscope_strbuf_fixed(&b, buf, sizeof buf);
    opscope_strbuf_add_i64(&b, -1234567);
    ASSERT_EQ_STR(buf, "-1234");
    ASSERT_EQ_U64(opscope_strbuf_wanted(&b), 8);
    return 0;
}

static int test_printf(void) {
    opscope_strbuf b = OPSCOPE_STRBUF_INIT;
    ASSERT_EQ_INT(opscope_strbuf_printf(&b, "%s=%d", "n", 42), 0);
    ASSERT_EQ_STR(b.s, "n=42");
    /* longer than the room: formatted again after growing */
    char big[3000];
    memset(big, 'q', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    ASSERT_EQ_INT(opscope_strbuf_printf(&b, "[%s]", big), 0);
    ASSERT_EQ_U64(b.len, 4 + 2 + 2999);
    ASSERT_EQ_INT(b.s[4], '[');
    ASSERT_EQ_INT(b.s[b.len - 1], ']');
    ASSERT_EQ_INT(b.s[b.len], 0);
    opscope_strbuf_free(&b);
    /* bounded: snprintf's count, the cut at a UTF-8 boundary */
    char buf[8];
    opscope_strbuf_fixed(&b, buf, sizeof buf);
    opscope_strbuf_printf(&b, "%s", "abcde");
    opscope_strbuf_printf(&b, "%s|", "\xc3\xa9\xc3\xa9"); /* 2 bytes of room, 5 wanted */
    ASSERT_EQ_STR(buf, "abcde\xc3\xa9");
    ASSERT_EQ_U64(opscope_strbuf_wanted(&b), 10);
    opscope_strbuf_fixed(&b, buf, sizeof buf);
    opscope_strbuf_printf(&b, "%s", "abcdef");
    opscope_strbuf_printf(&b, "%s", "\xc3\xa9"); /* 1 byte of room: cut before it */
    ASSERT_EQ_STR(buf, "abcdef");
    opscope_strbuf_printf(&b, "%s", "");
    ASSERT_EQ_STR(buf, "abcdef");
    /* a long text into a short bounded buffer: the scratch copy */
    opscope_strbuf_fixed(&b, buf, sizeof buf);
    opscope_strbuf_printf(&b, "%s", big);
    ASSERT_EQ_STR(buf, "qqqqqqq");
    ASSERT_EQ_U64(opscope_strbuf_wanted(&b), 2999);
    return 0;
}

static int test_set_truncate_room(void) {
    opscope_strbuf b = OPSCOPE_STRBUF_INIT;
    ASSERT_EQ_INT(opscope_strbuf_set(&b, "hello world", 5), 0);
    ASSERT_EQ_STR(b.s, "hello");
    ASSERT_EQ_INT(opscope_strbuf_set(&b, "hi", 2), 0);
    ASSERT_EQ_STR(b.s, "hi");
    opscope_strbuf_add_str(&b, ", there");
    opscope_strbuf_truncate(&b, 2);
    ASSERT_EQ_STR(b.s, "hi");
    opscope_strbuf_truncate(&b, 10); /* longer: nothing */
    ASSERT_EQ_U64(b.len, 2);
    opscope_strbuf_add_str(&b, NULL); /* nothing */
    ASSERT_EQ_U64(b.len, 2);
    /* an encoder writes into the room, then commits what it wrote */
    ASSERT_EQ_INT(opscope_strbuf_room(&b, 10), 0);
    memcpy(b.s + b.len, "12345", 5);
    opscope_strbuf_commit(&b, 5);
    ASSERT_EQ_STR(b.s, "hi12345");
    opscope_strbuf_free(&b);
    char buf[4];
    opscope_strbuf_fixed(&b, buf, sizeof buf);
    ASSERT_EQ_INT(opscope_strbuf_room(&b, 4), -1); /* 4 bytes and the NUL: no */
    ASSERT_EQ_INT(opscope_strbuf_room(&b, 3), 0);
    ASSERT_EQ_U64(opscope_strbuf_wanted(&b), 0);
    ASSERT_TRUE(!b.failed);
    return 0;
}

TEST_MAIN(TEST(test_growth), TEST(test_failed_flag), TEST(test_bounded_utf8_cut), TEST(test_numbers),
          TEST(test_printf), TEST(test_set_truncate_room))
