/* html_windows.c - a capture's windows and marks for the viewer (see html_windows.h). */
#include "export/html/html_windows.h"
#include "export/fmt/json_fmt.h"
#include "export/sections/win_out.h"

/* NS after T0, signed (the capture starts before the first record). */
static int64_t rel(uint64_t ns, uint64_t t0) {
    return ns >= t0 ? (int64_t)(ns - t0) : -(int64_t)(t0 - ns);
}

void opscope_html_windows_write(opscope_out_t *w, const opscope_capture_info *c, uint64_t t0, uint64_t last_ns) {
    if (!opscope_win_any(c)) return;
    opscope_jw j = opscope_jw_resume(w);
    opscope_jw_obj(&j, "windows");
    opscope_jw_bool(&j, "windowed", c->windowed != 0);
    /* the capture's start and the run's end: the gaps before the first window and after the last */
    opscope_jw_i64(&j, "from", rel(opscope_win_base(c, t0), t0));
    opscope_jw_i64(&j, "to", rel(opscope_win_run_end(c, last_ns), t0));
    opscope_jw_u64(&j, "recorded_ns", opscope_win_recorded(c, last_ns));
    static const char *const cols[] = {"start", "end", "open"};
    for (size_t k = 0; k < 3; k++) {
        opscope_jw_arr(&j, cols[k]);
        for (size_t i = 0; i < c->n_windows; i++) {
            if (k == 0) opscope_jw_item_i64(&j, rel(c->windows[i].start_ns, t0));
            else if (k == 1) opscope_jw_item_i64(&j, rel(opscope_win_end(c, i, last_ns), t0));
            else opscope_jw_item_u64(&j, c->windows[i].end_ns ? 0 : 1);
        }
        opscope_jw_end_arr(&j);
    }
    opscope_jw_arr(&j, "mark_ts");
    for (size_t i = 0; i < c->n_marks; i++) opscope_jw_item_i64(&j, rel(c->marks[i].ts_ns, t0));
    opscope_jw_end_arr(&j);
    opscope_jw_arr(&j, "mark_text");
    for (size_t i = 0; i < c->n_marks; i++) opscope_jw_item_str(&j, c->marks[i].text);
    opscope_jw_end_arr(&j);
    opscope_jw_end_obj(&j);
}
