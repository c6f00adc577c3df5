/* cap_window.c - capture windows and marks (see cap_window.h). */
#include "capture/store/cap_window.h"

#include "capture/store/cap_clock.h"
#include "capture/store/cap_meta.h"
#include "model/oplog_win.h"

#include <pthread.h>
#include <string.h>
#include <time.h>

_Atomic bool opscope_cap_window_on = true;
_Atomic int opscope_cap_window_busy; /* recorded computes running */

/* The tables: static, so a window or a mark costs no heap call (the watcher thread adds them
 * at its checkpoints). Pages untouched until used. */
static struct {
    pthread_mutex_t mu;
    bool windowed;
    uint64_t gen;
    size_t n_windows, n_marks;
    opscope_window windows[OPSCOPE_WIN_MAX_WINDOWS];
    opscope_mark marks[OPSCOPE_WIN_MAX_MARKS];
    char text[OPSCOPE_WIN_MAX_MARKS][OPSCOPE_WIN_MAX_TEXT + 1];
} g_win = {.mu = PTHREAD_MUTEX_INITIALIZER};

void opscope_cap_window_init(bool paused) {
    pthread_mutex_lock(&g_win.mu);
    g_win.windowed = paused;
    g_win.n_windows = g_win.n_marks = 0;
    g_win.gen++;
    atomic_store(&opscope_cap_window_on, !paused);
    pthread_mutex_unlock(&g_win.mu);
}

bool opscope_cap_window_windowed(void) {
    pthread_mutex_lock(&g_win.mu);
    bool w = g_win.windowed;
    pthread_mutex_unlock(&g_win.mu);
    return w;
}

int opscope_cap_window_start(uint64_t now_ns) {
    pthread_mutex_lock(&g_win.mu);
    int rc = 0;
    if (atomic_load(&opscope_cap_window_on)) {
        rc = 1;
    } else if (g_win.n_windows >= OPSCOPE_WIN_MAX_WINDOWS) {
        rc = -1;
    } else {
        const opscope_window *prev = g_win.n_windows ? &g_win.windows[g_win.n_windows - 1] : NULL;
        if (prev && now_ns < prev->end_ns) now_ns = prev->end_ns; /* each after the last */
        g_win.windows[g_win.n_windows++] = (opscope_window){.start_ns = now_ns};
        g_win.gen++;
        atomic_store(&opscope_cap_window_on, true);
    }
    pthread_mutex_unlock(&g_win.mu);
    return rc;
}

int opscope_cap_window_stop(unsigned wait_ms) {
    pthread_mutex_lock(&g_win.mu);
    if (!atomic_load(&opscope_cap_window_on)) {
        pthread_mutex_unlock(&g_win.mu);
        return 1;
    }
    atomic_store(&opscope_cap_window_on, false);
    int rc = 0;
    /* the computes that saw the window open (cap_window.h's enter) end whole: 1 ms polls */
    for (unsigned k = 0; atomic_load(&opscope_cap_window_busy) > 0; k++) {
        if (k >= wait_ms) {
            rc = 2;
            break;
        }
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    uint64_t now = opscope_cap_mono_ns();
    if (!g_win.windowed) { /* recorded from the start: the first window is the start to now */
        g_win.windowed = true;
        g_win.windows[0] = (opscope_window){.start_ns = opscope_cap_meta_facts()->start_ns, .end_ns = now};
        g_win.n_windows = 1;
    } else if (g_win.n_windows) {
        opscope_window *w = &g_win.windows[g_win.n_windows - 1];
        w->end_ns = now > w->start_ns ? now : w->start_ns;
    }
    g_win.gen++;
    pthread_mutex_unlock(&g_win.mu);
    return rc;
}

int opscope_cap_window_mark(uint64_t now_ns, const char *text, size_t len) {
    pthread_mutex_lock(&g_win.mu);
    int rc = -1;
    if (g_win.n_marks < OPSCOPE_WIN_MAX_MARKS) {
        if (len > OPSCOPE_WIN_MAX_TEXT) {
            len = OPSCOPE_WIN_MAX_TEXT;
            while (len && ((unsigned char)text[len] & 0xC0) == 0x80) len--; /* not inside a character */
        }
        char *t = g_win.text[g_win.n_marks];
        for (size_t i = 0; i < len; i++) t[i] = (unsigned char)text[i] < 0x20 || text[i] == 0x7f ? ' ' : text[i];
        t[len] = '\0';
        const opscope_mark *prev = g_win.n_marks ? &g_win.marks[g_win.n_marks - 1] : NULL;
        g_win.marks[g_win.n_marks++] = (opscope_mark){.ts_ns = prev && now_ns < prev->ts_ns ? prev->ts_ns : now_ns,
                                                       .text = t};
        g_win.gen++;
        rc = 0;
    }
    pthread_mutex_unlock(&g_win.mu);
    return rc;
}

bool opscope_cap_window_holds(uint64_t t) {
    pthread_mutex_lock(&g_win.mu);
    bool in = !g_win.windowed;
    for (size_t i = g_win.n_windows; !in && i-- > 0;) {
        const opscope_window *w = &g_win.windows[i];
        if (w->start_ns <= t) {
            in = !w->end_ns || t < w->end_ns;
            break;
        }
    }
    pthread_mutex_unlock(&g_win.mu);
    return in;
}

uint64_t opscope_cap_window_gen(void) {
    pthread_mutex_lock(&g_win.mu);
    uint64_t g = g_win.gen;
    pthread_mutex_unlock(&g_win.mu);
    return g;
}

bool opscope_cap_window_get(opscope_window *w, size_t max_w, size_t *n_w, opscope_mark *m, size_t max_m,
                            size_t *n_m) {
    pthread_mutex_lock(&g_win.mu);
    size_t cw = g_win.n_windows < max_w ? g_win.n_windows : max_w;
    size_t cm = g_win.n_marks < max_m ? g_win.n_marks : max_m;
    if (cw) memcpy(w, g_win.windows, cw * sizeof *w);
    if (cm) memcpy(m, g_win.marks, cm * sizeof *m);
    *n_w = g_win.n_windows;
    *n_m = g_win.n_marks;
    bool windowed = g_win.windowed;
    pthread_mutex_unlock(&g_win.mu);
    return windowed;
}

void opscope_cap_window_fill(opscope_capture_info *c) {
    static opscope_window w[OPSCOPE_WIN_MAX_WINDOWS];
    static opscope_mark m[OPSCOPE_WIN_MAX_MARKS];
    c->windowed = opscope_cap_window_get(w, OPSCOPE_WIN_MAX_WINDOWS, &c->n_windows, m, OPSCOPE_WIN_MAX_MARKS,
                                         &c->n_marks);
    c->windows = c->n_windows ? w : NULL;
    c->marks = c->n_marks ? m : NULL;
}
