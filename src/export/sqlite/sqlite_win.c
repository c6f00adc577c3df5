/* sqlite_win.c - a capture's windows and marks as the tables `windows` and `marks`: the
 * windows with the graph computes each holds (analyze/ggml/win_count.h, the count every
 * output shows), the marks with their text. */
#include "analyze/ggml/win_count.h"
#include "export/sqlite/sqlite_int.h"

#include <stdlib.h>

static void bind_u64(sqlite3_stmt *s, int col, uint64_t v) {
    if (v <= (uint64_t)INT64_MAX) sqlite3_bind_int64(s, col, (sqlite3_int64)v);
    else sqlite3_bind_double(s, col, (double)v);
}

/* windows: window (1, 2, ...), start_ns, end_ns (NULL: open at the last write), graphs, records */
static int write_windows(sqlite3 *db, const opscope_capture_info *c, const opscope_graphs_t *g) {
    opscope_win_count *counts = calloc(c->n_windows, sizeof *counts);
    sqlite3_stmt *s = NULL;
    if (!counts || sqlite3_prepare_v2(db, "INSERT INTO windows VALUES(?,?,?,?,?)", -1, &s, NULL) != SQLITE_OK) {
        free(counts);
        return -1;
    }
    opscope_win_count_graphs(c, g, counts);
    int rc = 0;
    for (size_t i = 0; i < c->n_windows && !rc; i++) {
        sqlite3_bind_int64(s, 1, (sqlite3_int64)i + 1);
        bind_u64(s, 2, c->windows[i].start_ns);
        if (c->windows[i].end_ns) bind_u64(s, 3, c->windows[i].end_ns);
        else sqlite3_bind_null(s, 3);
        bind_u64(s, 4, counts[i].graphs);
        bind_u64(s, 5, counts[i].records);
        rc = sqlite3_step(s) == SQLITE_DONE ? 0 : -1;
        sqlite3_reset(s);
    }
    sqlite3_finalize(s);
    free(counts);
    return rc;
}

/* marks: mark (1, 2, ...), ts_ns, text */
static int write_marks(sqlite3 *db, const opscope_capture_info *c) {
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(db, "INSERT INTO marks VALUES(?,?,?)", -1, &s, NULL) != SQLITE_OK) return -1;
    int rc = 0;
    for (size_t i = 0; i < c->n_marks && !rc; i++) {
        sqlite3_bind_int64(s, 1, (sqlite3_int64)i + 1);
        bind_u64(s, 2, c->marks[i].ts_ns);
        sqlite3_bind_text(s, 3, c->marks[i].text ? c->marks[i].text : "", -1, SQLITE_STATIC);
        rc = sqlite3_step(s) == SQLITE_DONE ? 0 : -1;
        sqlite3_reset(s);
    }
    sqlite3_finalize(s);
    return rc;
}

int opscope_sq_write_windows(sqlite3 *db, const opscope_capture_info *c, const opscope_graphs_t *g) {
    if (c->n_windows && write_windows(db, c, g)) return -1;
    return c->n_marks ? write_marks(db, c) : 0;
}
