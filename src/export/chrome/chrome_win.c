/* chrome_win.c - a capture's windows and marks in the Chrome export (export/sections/win_out.h):
 * a process of their own above the others, each window a slice (cat "window") on its
 * "capture windows" track, each mark an instant of global scope (cat "mark", its text the
 * name), so that Perfetto draws it across every track. Times on the records' clock. */
#include "export/chrome/chrome_state.h"
#include "export/fmt/json_fmt.h"

#include <stdio.h>

int opscope_chrome_take_windows(opscope_chrome_t *c, const opscope_capture_info *cap) {
    if (opscope_win_copy_take(&c->win, opscope_win_any(cap) ? cap : NULL)) return c->oom = true, -1;
    return 0;
}

void opscope_chrome_write_windows(opscope_chrome_t *c, long pid, uint64_t last_ns) {
    const opscope_capture_info *k = &c->win.info;
    if (!opscope_win_any(k)) return;
    opscope_chrome_start(c);
    opscope_out_t *w = c->out;
    opscope_chrome_meta_event(c, "process_name", pid, -1);
    opscope_out_str(w, k->windowed ? "\"name\":\"capture windows (graph computes outside them are not in this profile)\"}}"
                                   : "\"name\":\"capture marks\"}}");
    opscope_chrome_meta_event(c, "process_sort_index", pid, -1);
    opscope_out_str(w, "\"sort_index\":-3}}"); /* above the requests: what the profile holds */
    opscope_chrome_meta_event(c, "thread_name", pid, 1);
    opscope_out_str(w, k->windowed ? "\"name\":\"capture windows\"}}" : "\"name\":\"marks\"}}");
    json_fmt f;
    jf_init(&f, w);
    for (size_t i = 0; i < k->n_windows; i++) {
        uint64_t s = k->windows[i].start_ns, e = opscope_win_end(k, i, last_ns);
        char name[48];
        snprintf(name, sizeof name, "window %zu (recorded)", i + 1);
        if (c->n_events++) jf_char(&f, ',');
        jf_lit(&f, "\n{\"ph\":\"X\",\"cat\":\"window\",\"name\":");
        jf_str(&f, name);
        jf_key_u64(&f, "pid", (uint64_t)pid);
        jf_lit(&f, ",\"tid\":1,\"ts\":");
        jf_ns_as_us(&f, s);
        jf_key(&f, "dur");
        jf_ns_as_us(&f, e - s);
        jf_lit(&f, ",\"args\":{\"window\":");
        jf_u64(&f, i + 1);
        if (!k->windows[i].end_ns) jf_lit(&f, ",\"open\":true");
        jf_lit(&f, "}}");
    }
    for (size_t i = 0; i < k->n_marks; i++) {
        if (c->n_events++) jf_char(&f, ',');
        jf_lit(&f, "\n{\"ph\":\"i\",\"s\":\"g\",\"cat\":\"mark\",\"name\":");
        jf_str(&f, k->marks[i].text);
        jf_key_u64(&f, "pid", (uint64_t)pid);
        jf_lit(&f, ",\"tid\":1,\"ts\":");
        jf_ns_as_us(&f, k->marks[i].ts_ns);
        jf_lit(&f, ",\"args\":{\"mark\":");
        jf_u64(&f, i + 1);
        jf_lit(&f, "}}");
    }
    jf_flush(&f);
}
