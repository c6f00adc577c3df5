/* win_out.c - a capture's windows and marks as every output shows them (see win_out.h). */
#include "export/sections/win_out.h"
#include "analyze/ggml/win_count.h"
#include "model/oplog_win.h"

#include <stdlib.h>
#include <string.h>

#define HEAD_WINDOWS 4 /* windows the first screen's line lists */

bool opscope_win_any(const opscope_capture_info *c) { return c && (c->windowed || c->n_marks); }

uint64_t opscope_win_base(const opscope_capture_info *c, uint64_t first_ns) {
    if (c && (c->has & OPSCOPE_CAPTURE_HAS_START) && c->start_ns) return c->start_ns;
    if (c && c->n_windows) return c->windows[0].start_ns;
    if (c && c->n_marks) return c->marks[0].ts_ns;
    return first_ns;
}

uint64_t opscope_win_end(const opscope_capture_info *c, size_t i, uint64_t last_ns) {
    const opscope_window *w = &c->windows[i];
    uint64_t e = w->end_ns ? w->end_ns : c->end_ns ? c->end_ns : last_ns;
    return e > w->start_ns ? e : w->start_ns;
}

uint64_t opscope_win_run_end(const opscope_capture_info *c, uint64_t last_ns) {
    if (c && c->died_ns) return c->died_ns;
    if (c && c->end_ns) return c->end_ns;
    uint64_t e = last_ns;
    for (size_t i = 0; c && i < c->n_windows; i++) {
        uint64_t we = opscope_win_end(c, i, last_ns);
        if (we > e) e = we;
    }
    if (c && c->n_marks && c->marks[c->n_marks - 1].ts_ns > e) e = c->marks[c->n_marks - 1].ts_ns;
    return e;
}

uint64_t opscope_win_recorded(const opscope_capture_info *c, uint64_t last_ns) {
    uint64_t sum = 0;
    for (size_t i = 0; c && i < c->n_windows; i++)
        sum += opscope_win_end(c, i, last_ns) - c->windows[i].start_ns;
    return sum;
}

/* Seconds from BASE to NS, signed (a time before the capture's start reads negative). */
static double secs(uint64_t ns, uint64_t base) {
    return ns >= base ? (double)(ns - base) / 1e9 : -(double)(base - ns) / 1e9;
}

void opscope_win_write_head(opscope_out_t *w, const opscope_capture_info *c, uint64_t first_ns,
                            uint64_t last_ns, int indent) {
    if (!opscope_win_any(c)) return;
    uint64_t base = opscope_win_base(c, first_ns), end = opscope_win_run_end(c, last_ns);
    if (c->windowed && !c->n_windows)
        opscope_out_printf(w, " %-*s0: the capture stayed paused (%.2f s): no graph compute is in this profile\n",
                           indent - 1, "Windows:", secs(end, base));
    else if (c->windowed) {
        opscope_out_printf(w, " %-*s%zu (%.2f s recorded of %.2f s: ", indent - 1, "Windows:", c->n_windows,
                           (double)opscope_win_recorded(c, last_ns) / 1e9, secs(end, base));
        for (size_t i = 0; i < c->n_windows && i < HEAD_WINDOWS; i++)
            opscope_out_printf(w, "%s%.2f-%.2f s%s", i ? ", " : "", secs(c->windows[i].start_ns, base),
                               secs(opscope_win_end(c, i, last_ns), base), c->windows[i].end_ns ? "" : " open");
        if (c->n_windows > HEAD_WINDOWS) opscope_out_printf(w, ", %zu more", c->n_windows - HEAD_WINDOWS);
        opscope_out_str(w, "); graph computes outside them are not in this profile\n");
    }
    if (c->n_marks)
        opscope_out_printf(w, " %-*s%zu (named instants: under \"Capture windows and marks\")\n", indent - 1, "Marks:",
                           c->n_marks);
}

static void windows_text(opscope_out_t *w, const opscope_capture_info *c, const opscope_graphs_t *g,
                         uint64_t base, uint64_t last_ns, size_t max_rows) {
    /* the graphs columns when the graphs analysis ran (G); a compute outside every window in a note */
    opscope_win_count *counts = g && c->n_windows ? calloc(c->n_windows, sizeof *counts) : NULL;
    uint64_t outside = counts ? opscope_win_count_graphs(c, g, counts) : 0;
    opscope_out_str(w, " window      start s        end s   duration s   not recorded before s");
    opscope_out_str(w, counts ? "     graphs      records\n" : "\n");
    uint64_t prev = base;
    size_t n = c->n_windows < max_rows ? c->n_windows : max_rows;
    for (size_t i = 0; i < n; i++) {
        uint64_t s = c->windows[i].start_ns, e = opscope_win_end(c, i, last_ns);
        opscope_out_printf(w, " %6zu %12.3f %12.3f %12.3f %23.3f", i + 1, secs(s, base), secs(e, base),
                           (double)(e - s) / 1e9, s > prev ? (double)(s - prev) / 1e9 : 0.0);
        if (counts)
            opscope_out_printf(w, " %10llu %12llu", (unsigned long long)counts[i].graphs,
                               (unsigned long long)counts[i].records);
        opscope_out_str(w, c->windows[i].end_ns ? "\n" : "  (open at the profile's last write)\n");
        prev = e > prev ? e : prev;
    }
    if (n < c->n_windows) opscope_out_printf(w, " ... %zu more windows (every one in --text)\n", c->n_windows - n);
    if (c->n_windows) {
        uint64_t last_end = opscope_win_end(c, c->n_windows - 1, last_ns), end = opscope_win_run_end(c, last_ns);
        if (end > last_end)
            opscope_out_printf(w, " not recorded after the last window: %.3f s (to %.3f s)\n",
                               (double)(end - last_end) / 1e9, secs(end, base));
    }
    if (outside)
        opscope_out_printf(w, " (%llu graph computes began outside every window)\n", (unsigned long long)outside);
    free(counts);
}

void opscope_win_write_text(opscope_out_t *w, const opscope_capture_info *c, const opscope_graphs_t *g,
                            uint64_t first_ns, uint64_t last_ns, size_t max_rows) {
    if (!opscope_win_any(c)) return;
    uint64_t base = opscope_win_base(c, first_ns);
    if (c->windowed) windows_text(w, c, g, base, last_ns, max_rows);
    if (!c->n_marks) return;
    opscope_out_str(w, "   mark       time s  text\n");
    size_t n = c->n_marks < max_rows ? c->n_marks : max_rows;
    for (size_t i = 0; i < n; i++)
        opscope_out_printf(w, " %6zu %12.3f  %s\n", i + 1, secs(c->marks[i].ts_ns, base),
                           c->marks[i].text ? c->marks[i].text : "");
    if (n < c->n_marks) opscope_out_printf(w, " ... %zu more marks (every one in --text)\n", c->n_marks - n);
}

int opscope_win_copy_take(opscope_win_copy *k, const opscope_capture_info *c) {
    opscope_win_copy_free(k);
    if (!c) return 0;
    k->info = (opscope_capture_info){.start_ns = c->start_ns, .has = c->has, .end_ns = c->end_ns,
                                     .died_ns = c->died_ns, .windowed = c->windowed};
    int failed = 0;
    k->block = opscope_capture_win_copy(&k->info, c, &failed);
    return failed ? -1 : 0;
}

void opscope_win_copy_free(opscope_win_copy *k) {
    free(k->block);
    memset(k, 0, sizeof *k);
}
