/*
 * Capture windows and marks read back: the record log's WINDOWS chunk (built here byte by
 * byte, as docs/formats.md lays it out: varints and strings, no encoder of the code under
 * test) and the JSON profile's capture.windowed / windows / marks. The last WINDOWS chunk
 * counts; damage (windows out of order, a text over 255 bytes, a count past the payload, a
 * windowed value not 0 or 1) stops the reader with the file's name and the chunk's offset.
 */
#include "opscope.h"
#include "test.h"
#include "util/oplog.h"

#include <stdlib.h>
#include <string.h>

/* What on_meta saw (the texts copied: the reader's bytes are gone after the read). */
static struct {
    int called;
    uint8_t windowed;
    size_t n_windows, n_marks;
    opscope_window w[4];
    uint64_t mark_ts[4];
    char mark_text[4][300];
} g_seen;
static opscope_error g_err;

static int on_meta(void *ud, const opscope_meta *m) {
    (void)ud;
    g_seen.called = 1;
    if (!m->capture) return 0;
    g_seen.windowed = m->capture->windowed;
    g_seen.n_windows = m->capture->n_windows;
    g_seen.n_marks = m->capture->n_marks;
    for (size_t i = 0; i < m->capture->n_windows && i < 4; i++) g_seen.w[i] = m->capture->windows[i];
    for (size_t i = 0; i < m->capture->n_marks && i < 4; i++) {
        g_seen.mark_ts[i] = m->capture->marks[i].ts_ns;
        snprintf(g_seen.mark_text[i], sizeof g_seen.mark_text[i], "%s", m->capture->marks[i].text);
    }
    return 0;
}

static int read_bytes(const void *p, size_t n, const char *name) {
    opscope_sink s = {NULL, on_meta, NULL, NULL, NULL};
    memset(&g_seen, 0, sizeof g_seen);
    memset(&g_err, 0, sizeof g_err);
    return opscope_read_buffer(p, n, name, OPSCOPE_FORMAT_AUTO, &s, &g_err);
}

/* A log under construction: bytes, appended by hand. */
typedef struct blog {
    unsigned char b[4096];
    size_t n;
} blog;

static void add(blog *l, const void *p, size_t n) {
    memcpy(l->b + l->n, p, n);
    l->n += n;
}

/* The file header: magic, version 2 (u32 LE), 4 zero bytes. */
static void begin(blog *l) {
    l->n = 0;
    add(l, "\x89OPSLOG\n", 8);
    add(l, "\x02\0\0\0\0\0\0\0", 8);
}

/* A chunk of TYPE with PAYLOAD; returns the chunk's offset. The header comes from the
 * framing (util/oplog.h) because its checksum is the framing's own. */
static size_t chunk(blog *l, uint32_t type, const unsigned char *payload, size_t n) {
    size_t at = l->n;
    unsigned char head[OPSCOPE_OPLOG_CHUNK_HEAD];
    opscope_oplog_chunk_head(head, type, payload, (uint32_t)n);
    add(l, head, sizeof head);
    add(l, payload, n);
    return at;
}

/* META: host "h", program "p", clock "C", boot id NULL, pid 7, time_ns 0, offset 0,
 * start_ns 50, has 0. Strings: varint(len + 1), bytes, NUL. */
static void meta(blog *l) {
    static const unsigned char m[] = {2, 'h', 0, 2, 'p', 0, 2, 'C', 0, 0, 14, 0, 0, 50, 0};
    chunk(l, OPSCOPE_OPLOG_META, m, sizeof m);
}

/* windowed 1; windows (100, 200) and (300, open); marks (150, "warm") and (350, ""); 200 is
 * 0xC8 0x01 and 300 is 0xAC 0x02 and 350 is 0xDE 0x02 in LEB128. */
static const unsigned char k_win[] = {1, 2, 100, 0xC8, 0x01, 0xAC, 0x02, 0, 2, 0x96, 0x01, 5, 'w', 'a', 'r', 'm', 0,
                                      0xDE, 0x02, 1, 0};

static int test_log_windows(void) {
    blog l;
    begin(&l);
    meta(&l);
    chunk(&l, OPSCOPE_OPLOG_WINDOWS, k_win, sizeof k_win);
    ASSERT_EQ_INT(read_bytes(l.b, l.n, "run.oplog"), 0);
    ASSERT_EQ_INT(g_seen.windowed, 1);
    ASSERT_EQ_U64(g_seen.n_windows, 2);
    static const uint64_t want[2][2] = {{100, 200}, {300, 0}}; /* the bytes above, decoded by hand */
    for (int i = 0; i < 2; i++) {
        ASSERT_EQ_U64(g_seen.w[i].start_ns, want[i][0]);
        ASSERT_EQ_U64(g_seen.w[i].end_ns, want[i][1]);
    }
    ASSERT_EQ_U64(g_seen.n_marks, 2);
    ASSERT_EQ_U64(g_seen.mark_ts[0], 150);
    ASSERT_EQ_STR(g_seen.mark_text[0], "warm");
    ASSERT_EQ_U64(g_seen.mark_ts[1], 350);
    ASSERT_EQ_STR(g_seen.mark_text[1], "");
    return 0;
}

/* A later chunk replaces the earlier: one window (100, 120), no marks. */
static int test_log_last_counts(void) {
    static const unsigned char later[] = {1, 1, 100, 120, 0};
    blog l;
    begin(&l);
    meta(&l);
    chunk(&l, OPSCOPE_OPLOG_WINDOWS, k_win, sizeof k_win);
    chunk(&l, OPSCOPE_OPLOG_WINDOWS, later, sizeof later);
    ASSERT_EQ_INT(read_bytes(l.b, l.n, "run.oplog"), 0);
    ASSERT_EQ_U64(g_seen.n_windows, 1);
    ASSERT_EQ_U64(g_seen.w[0].end_ns, 120);
    ASSERT_EQ_U64(g_seen.n_marks, 0);
    /* no WINDOWS chunk: not windowed */
    begin(&l);
    meta(&l);
    ASSERT_EQ_INT(read_bytes(l.b, l.n, "run.oplog"), 0);
    ASSERT_EQ_INT(g_seen.windowed, 0);
    ASSERT_EQ_U64(g_seen.n_windows, 0);
    return 0;
}

/* Each damaged payload: refused at its chunk, naming the file. */
static int test_log_damage(void) {
    static const unsigned char overlap[] = {1, 2, 100, 0xC8, 0x01, 150, 0, 0}; /* 2nd opens before the 1st ends */
    static const unsigned char open_first[] = {1, 2, 100, 0, 120, 0, 0};       /* 1st never closed */
    static const unsigned char backwards[] = {1, 1, 100, 90, 0};               /* ends before it starts */
    static const unsigned char short_count[] = {1, 5, 100, 120};               /* 5 windows in 2 bytes */
    static const unsigned char windowed2[] = {2, 0, 0};
    static const unsigned char marks_back[] = {0, 0, 2, 20, 1, 0, 10, 1, 0};   /* marks out of order */
    unsigned char long_text[8 + 260];
    size_t n = 0;
    long_text[n++] = 0;
    long_text[n++] = 0;
    long_text[n++] = 1;
    long_text[n++] = 5;
    long_text[n++] = 0x81; /* varint 257: a text of 256 bytes */
    long_text[n++] = 0x02;
    memset(long_text + n, 'x', 256);
    n += 256;
    long_text[n++] = 0;
    const struct {
        const unsigned char *p;
        size_t n;
    } cases[] = {{overlap, sizeof overlap}, {open_first, sizeof open_first}, {backwards, sizeof backwards},
                 {short_count, sizeof short_count}, {windowed2, sizeof windowed2}, {marks_back, sizeof marks_back},
                 {long_text, n}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        blog l;
        begin(&l);
        meta(&l);
        size_t at = chunk(&l, OPSCOPE_OPLOG_WINDOWS, cases[i].p, cases[i].n);
        ASSERT_EQ_INT(read_bytes(l.b, l.n, "run.oplog"), -1);
        ASSERT_EQ_INT(g_err.code, OPSCOPE_ERROR_SCHEMA);
        ASSERT_EQ_STR(g_err.msg, "damaged chunk in the record log");
        ASSERT_EQ_STR(g_err.file, "run.oplog");
        ASSERT_EQ_U64(g_err.pos, at);
    }
    /* a text of 255 bytes is the longest kept */
    long_text[4] = 0x80; /* varint 256: 255 bytes, the NUL one byte earlier */
    long_text[n - 2] = 0;
    blog l;
    begin(&l);
    meta(&l);
    chunk(&l, OPSCOPE_OPLOG_WINDOWS, long_text, n - 1);
    ASSERT_EQ_INT(read_bytes(l.b, l.n, "run.oplog"), 0);
    ASSERT_EQ_U64(strlen(g_seen.mark_text[0]), 255);
    return 0;
}

static const char k_json[] =
    "{\"profiler\":\"opscope\",\"version\":3,\"capture\":{\"host\":\"h\",\"start_ns\":50,\"windowed\":true,"
    "\"windows\":[{\"start_ns\":100,\"end_ns\":200},{\"start_ns\":300,\"end_ns\":0}],"
    "\"marks\":[{\"ts_ns\":150,\"text\":\"warm \\u00e9\"},{\"ts_ns\":350,\"text\":\"\"}]},\"records\":[]}";

static int test_json_windows(void) {
    ASSERT_EQ_INT(read_bytes(k_json, sizeof k_json - 1, "p.json"), 0);
    ASSERT_EQ_INT(g_seen.windowed, 1);
    ASSERT_EQ_U64(g_seen.n_windows, 2);
    ASSERT_EQ_U64(g_seen.w[0].end_ns, 200);
    ASSERT_EQ_U64(g_seen.w[1].start_ns, 300);
    ASSERT_EQ_U64(g_seen.n_marks, 2);
    ASSERT_EQ_STR(g_seen.mark_text[0], "warm \xc3\xa9");
    ASSERT_EQ_U64(g_seen.mark_ts[1], 350);
    ASSERT_EQ_STR(g_seen.mark_text[1], "");
    /* windows out of order: refused at the second window's object */
    static const char bad[] = "{\"capture\":{\"windowed\":true,\"windows\":[{\"start_ns\":100,\"end_ns\":200},"
                              "{\"start_ns\":150,\"end_ns\":300}]},\"records\":[]}";
    ASSERT_EQ_INT(read_bytes(bad, sizeof bad - 1, "p.json"), -1);
    ASSERT_EQ_INT(g_err.code, OPSCOPE_ERROR_SCHEMA);
    ASSERT_EQ_U64(g_err.pos, (uint64_t)(strstr(bad, "{\"start_ns\":150") - bad));
    static const char bad_text[] = "{\"capture\":{\"marks\":[{\"ts_ns\":1,\"text\":5}]},\"records\":[]}";
    ASSERT_EQ_INT(read_bytes(bad_text, sizeof bad_text - 1, "p.json"), -1);
    ASSERT_EQ_U64(g_err.pos, (uint64_t)(strstr(bad_text, "5}") - bad_text));
    return 0;
}

TEST_MAIN(TEST(test_log_windows), TEST(test_log_last_counts), TEST(test_log_damage), TEST(test_json_windows))
