/* test_windows.c - a capture's windows and marks in the console and the text report, from
 * opscope_capture_info built here (tests/report/win_outputs.py: the same through the JSON
 * reader, and the Chrome trace).
 *
 * The capture starts at 1 s on its clock; windows [4.1 s, 10.5 s) and [21 s, 27 s); record
 * saw the program die at 62.2 s; marks at 5.2 s and 30 s. From the capture's start: windows
 * 3.10-9.50 s and 20.00-26.00 s, 6.4 + 6 = 12.40 s recorded of 61.20 s, not recorded
 * 3.1 s before the first, 10.5 s between, 35.2 s after the last; marks at 4.200 and 29.000 s.
 * Three graphs of two records begin in the first window, two graphs of one record in the
 * second. The times and counts are worked out here by hand, not by the code under test. */
#include "analyze/ggml/graphs.h"
#include "analyze/ggml/stats.h"
#include "export/console/text.h"
#include "export/sections/win_out.h"
#include "opscope.h"
#include "test.h"
#include "util/out.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define S 1000000000ull

static opscope_window g_windows[] = {{4100000000ull, 10500000000ull}, {21 * S, 27 * S}};

/* Writes the console (TEXT false) or the text report of records in C's windows to PATH and
 * returns the file's text (the caller frees). The arrays of C are wiped before the write:
 * the outputs must read the stats' own copy. */
static char *report(opscope_capture_info *c, bool text, const char *path) {
    opscope_stats_t *s = opscope_stats_new(NULL);
    opscope_graphs_t *g = opscope_graphs_new();
    if (!s || !g) return NULL;
    opscope_meta m = {.profiler = "opscope", .version = 3, .capture = c};
    if (opscope_stats_set_meta(s, &m)) return NULL;
    opscope_backend b = {0, "CPU", "cpu", OPSCOPE_DEVICE_CPU, NULL};
    opscope_stats_add_backend(s, &b);
    /* graphs 0-2 at 5, 6, 7 s (two records each), graphs 3-4 at 22, 23 s (one each) */
    const uint64_t at[] = {5 * S, 6 * S, 7 * S, 22 * S, 23 * S};
    for (int k = 0; k < 5; k++) {
        for (int j = 0; j < (k < 3 ? 2 : 1); j++) {
            opscope_record r;
            opscope_record_init(&r);
            r.name = "MUL_MAT";
            r.start_ns = at[k] + (uint64_t)j * 1000;
            r.duration_ns = 500;
            r.graph_id = k;
            r.has = OPSCOPE_HAS_GRAPH;
            if (opscope_stats_add(s, &r) || opscope_graphs_add(g, &r, 0)) return NULL;
        }
    }
    if (opscope_stats_finish(s) || opscope_graphs_finish(g)) return NULL;
    /* the read's arrays are gone after the read */
    opscope_window *w0 = (opscope_window *)c->windows;
    opscope_mark *m0 = (opscope_mark *)c->marks;
    if (w0) memset(w0, 0xff, c->n_windows * sizeof *w0);
    for (size_t i = 0; m0 && i < c->n_marks; i++) m0[i].text = "wiped";
    opscope_error err;
    opscope_out_t *o = opscope_out_open(path, &err);
    opscope_report_opts ro = {.source = "t", .graphs = g};
    if (text) opscope_text_write(o, s, &ro);
    else opscope_console_write(o, s, &ro);
    if (opscope_out_commit(o, &err)) return NULL;
    opscope_stats_free(s);
    opscope_graphs_free(g);
    char *out = test_slurp(path, NULL);
    unlink(path);
    return out;
}

/* A capture as the test's header says; its arrays are the caller's (freed after). */
static opscope_capture_info capture(bool windowed) {
    opscope_window *w = malloc(sizeof g_windows);
    opscope_mark *m = malloc(2 * sizeof *m);
    memcpy(w, g_windows, sizeof g_windows);
    m[0] = (opscope_mark){5200000000ull, "slow request begins"};
    m[1] = (opscope_mark){31 * S, "load \"x\" done"};
    return (opscope_capture_info){.start_ns = 1 * S, .has = OPSCOPE_CAPTURE_HAS_START, .died_ns = 62200000000ull,
                                  .end = "killed", .end_signal = "SIGKILL", .end_ns = 60 * S,
                                  .windowed = windowed, .n_windows = windowed ? 2 : 0,
                                  .windows = windowed ? w : NULL, .n_marks = 2, .marks = m,
                                  .program = "llama-server"};
}

static void capture_free(opscope_capture_info *c) {
    free((void *)c->windows);
    free((void *)c->marks);
}

/* The report (TEXT: the text report) of the capture of the header, windowed or not, with its
 * first N_WINDOWS windows and N_MARKS marks; OPEN: the second window still open at the last
 * write. The caller frees the text. */
static char *report_of(bool windowed, size_t n_windows, size_t n_marks, bool open, bool text) {
    opscope_capture_info c = capture(windowed);
    c.n_windows = windowed ? n_windows : 0;
    c.n_marks = n_marks;
    if (open) ((opscope_window *)c.windows)[1].end_ns = 0;
    char *s = report(&c, text, text ? "t_win_report.txt" : "t_win_console.txt");
    capture_free(&c);
    return s;
}

static int test_console(void) {
    char *s = report_of(true, 2, 2, false, false);
    ASSERT_NOT_NULL(s);
    ASSERT_CONTAINS(s, " Windows:       2 (12.40 s recorded of 61.20 s: 3.10-9.50 s, 20.00-26.00 s); graph "
                       "computes outside them are not in this profile\n");
    ASSERT_CONTAINS(s, " Marks:         2 (named instants: under \"Capture windows and marks\")\n");
    ASSERT_CONTAINS(s, "\n --- Capture windows and marks (times from the capture's start) ---\n");
    /* window 1: 3.1 s not recorded before it, 3 graphs, 6 records; window 2: 10.5 s, 2, 2 */
    ASSERT_CONTAINS(s, "      1        3.100        9.500        6.400                   3.100          3            6\n");
    ASSERT_CONTAINS(s, "      2       20.000       26.000        6.000                  10.500          2            2\n");
    ASSERT_CONTAINS(s, " not recorded after the last window: 35.200 s (to 61.200 s)\n");
    ASSERT_CONTAINS(s, "      1        4.200  slow request begins\n");
    ASSERT_CONTAINS(s, "      2       30.000  load \"x\" done\n");
    ASSERT_TRUE(strstr(s, "wiped") == NULL);
    ASSERT_TRUE(strstr(s, "outside every window") == NULL);
    /* the section comes before the records' tables */
    ASSERT_TRUE(strstr(s, "Capture windows and marks (times") < strstr(s, "MUL_MAT"));
    free(s);
    return 0;
}

static int test_text_open_window(void) {
    /* the second window still open at the last write (60 s): it ends there, 20.00-59.00 s */
    char *s = report_of(true, 2, 2, true, true);
    ASSERT_NOT_NULL(s);
    ASSERT_CONTAINS(s, " Windows:        2 (45.40 s recorded of 61.20 s: 3.10-9.50 s, 20.00-59.00 s open); graph");
    ASSERT_CONTAINS(s, " Capture windows and marks (times from the capture's start)\n");
    ASSERT_CONTAINS(s, "      2       20.000       59.000       39.000                  10.500          2            2"
                       "  (open at the profile's last write)\n");
    ASSERT_CONTAINS(s, " not recorded after the last window: 2.200 s (to 61.200 s)\n");
    free(s);
    return 0;
}

/* Recorded whole with marks: the marks alone; without marks: nothing at all; windowed but
 * never started: the one line. */
static int test_marks_none_paused(void) {
    char *s = report_of(false, 0, 2, false, false);
    ASSERT_NOT_NULL(s);
    ASSERT_TRUE(strstr(s, "Windows:") == NULL);
    ASSERT_TRUE(strstr(s, " window ") == NULL);
    ASSERT_CONTAINS(s, " Marks:         2 (");
    ASSERT_CONTAINS(s, "      1        4.200  slow request begins\n");
    free(s);
    s = report_of(false, 0, 0, false, false);
    ASSERT_NOT_NULL(s);
    ASSERT_TRUE(strstr(s, "Marks:") == NULL);
    ASSERT_TRUE(strstr(s, "Capture windows") == NULL);
    free(s);
    s = report_of(true, 0, 0, false, false);
    ASSERT_NOT_NULL(s);
    ASSERT_CONTAINS(s, " Windows:       0: the capture stayed paused (61.20 s): no graph compute is in this profile\n");
    free(s);
    return 0;
}

TEST_MAIN(TEST(test_console), TEST(test_text_open_window), TEST(test_marks_none_paused))
