/*
 * The capture's window table (capture/store/cap_window.h): a paused capture keeps nothing
 * until a start; start and stop alternate (a second start or stop changes nothing and says
 * so); a call is held by the window its start falls in; a stop of a capture recorded from
 * its start makes its first window the start to now; the 1024-window and 1024-mark bounds;
 * a mark's text cut at 255 bytes on a UTF-8 character boundary, control bytes as spaces; the
 * generation changes with each change. Expected values are the header's contract, worked
 * out by hand.
 */
#include "capture/store/cap_window.h"
#include "test.h"

#include <string.h>

static int test_start_stop(void) {
    opscope_cap_window_init(true);
    ASSERT_TRUE(!atomic_load(&opscope_cap_window_on));
    ASSERT_TRUE(opscope_cap_window_windowed());
    ASSERT_TRUE(!opscope_cap_window_holds(50));
    ASSERT_TRUE(!opscope_cap_window_enter());
    uint64_t g0 = opscope_cap_window_gen();
    ASSERT_EQ_INT(opscope_cap_window_stop(0), 1); /* paused already */
    ASSERT_EQ_INT(opscope_cap_window_start(100), 0);
    ASSERT_TRUE(opscope_cap_window_gen() != g0);
    ASSERT_EQ_INT(opscope_cap_window_start(110), 1); /* already open */
    ASSERT_TRUE(opscope_cap_window_enter());
    opscope_cap_window_leave();
    ASSERT_TRUE(opscope_cap_window_holds(100));
    ASSERT_TRUE(!opscope_cap_window_holds(99));
    uint64_t g1 = opscope_cap_window_gen();
    ASSERT_EQ_INT(opscope_cap_window_stop(0), 0);
    ASSERT_TRUE(opscope_cap_window_gen() != g1);
    opscope_window w[4];
    opscope_mark m[1];
    size_t nw, nm;
    ASSERT_TRUE(opscope_cap_window_get(w, 4, &nw, m, 1, &nm));
    ASSERT_EQ_U64(nw, 1);
    ASSERT_EQ_U64(w[0].start_ns, 100);
    ASSERT_TRUE(w[0].end_ns >= w[0].start_ns);
    ASSERT_TRUE(!opscope_cap_window_holds(w[0].end_ns));
    ASSERT_TRUE(opscope_cap_window_holds(w[0].end_ns - 1));
    /* a start earlier than the last end opens at that end: windows never overlap */
    ASSERT_EQ_INT(opscope_cap_window_start(5), 0);
    opscope_cap_window_get(w, 4, &nw, m, 1, &nm);
    ASSERT_EQ_U64(nw, 2);
    ASSERT_EQ_U64(w[1].start_ns, w[0].end_ns);
    ASSERT_EQ_U64(w[1].end_ns, 0);
    /* room for none: the counts alone */
    opscope_cap_window_get(w, 0, &nw, m, 0, &nm);
    ASSERT_EQ_U64(nw, 2);
    return 0;
}

static int test_not_paused(void) {
    opscope_cap_window_init(false);
    ASSERT_TRUE(atomic_load(&opscope_cap_window_on));
    ASSERT_TRUE(!opscope_cap_window_windowed());
    ASSERT_TRUE(opscope_cap_window_holds(1));
    ASSERT_EQ_INT(opscope_cap_window_start(7), 1);
    ASSERT_EQ_INT(opscope_cap_window_stop(0), 0);
    ASSERT_TRUE(opscope_cap_window_windowed()); /* a stop makes it windowed: start to now */
    opscope_window w[2];
    opscope_mark m[1];
    size_t nw, nm;
    opscope_cap_window_get(w, 2, &nw, m, 1, &nm);
    ASSERT_EQ_U64(nw, 1);
    ASSERT_TRUE(w[0].end_ns > 0 && w[0].end_ns >= w[0].start_ns);
    return 0;
}

static int test_bounds(void) {
    opscope_cap_window_init(true);
    for (uint64_t i = 0; i < 1024; i++) {
        ASSERT_EQ_INT(opscope_cap_window_start(1000 * i + 1), 0);
        ASSERT_EQ_INT(opscope_cap_window_stop(0), 0);
    }
    ASSERT_EQ_INT(opscope_cap_window_start(1u << 30), -1); /* the 1025th */
    ASSERT_TRUE(!atomic_load(&opscope_cap_window_on));
    for (int i = 0; i < 1024; i++) ASSERT_EQ_INT(opscope_cap_window_mark((uint64_t)i, "m", 1), 0);
    ASSERT_EQ_INT(opscope_cap_window_mark(5000, "m", 1), -1);
    return 0;
}

static int test_mark_text(void) {
    opscope_cap_window_init(true);
    char text[300];
    memset(text, 'a', sizeof text);
    /* byte 254 starts a 2-byte character (U+00E9): keeping it would cut it at 255 */
    text[254] = '\xc3';
    text[255] = '\xa9';
    ASSERT_EQ_INT(opscope_cap_window_mark(10, text, sizeof text), 0);
    ASSERT_EQ_INT(opscope_cap_window_mark(5, "tab\there\nnl", 11), 0);
    opscope_window w[1];
    opscope_mark m[2];
    size_t nw, nm;
    opscope_cap_window_get(w, 1, &nw, m, 2, &nm);
    ASSERT_EQ_U64(nm, 2);
    ASSERT_EQ_U64(strlen(m[0].text), 254);
    ASSERT_EQ_STR(m[1].text, "tab here nl");
    ASSERT_EQ_U64(m[1].ts_ns, 10); /* earlier than the last mark: at it, in time order */
    return 0;
}

TEST_MAIN(TEST(test_start_stop), TEST(test_not_paused), TEST(test_bounds), TEST(test_mark_text))
