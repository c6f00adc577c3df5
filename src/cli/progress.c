/* progress.c - the progress line of big inputs (see progress.h). */
#include "progress.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double mono_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t bytes_read_so_far(void) {
    FILE *f = fopen("/proc/self/io", "r");
    if (!f) return 0;
    char line[128];
    unsigned long long v = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "rchar: %llu", &v) == 1) break;
    fclose(f);
    return v;
}

static void draw(opscope_progress *p) {
    uint64_t done = bytes_read_so_far();
    if (done > p->total) done = p->total;
    fprintf(stderr, "\r  reading: %3.0f%% (%.0f of %.0f MB)",
            100.0 * (double)done / (double)p->total, (double)done / 1e6, (double)p->total / 1e6);
    p->shown = true;
}

bool opscope_progress_begin(opscope_progress *p, const char *path) {
    memset(p, 0, sizeof *p);
    struct stat st;
    if (!path || !strcmp(path, "-") || !isatty(STDERR_FILENO) || stat(path, &st) != 0 ||
        !S_ISREG(st.st_mode) || (uint64_t)st.st_size <= OPSCOPE_PROGRESS_MIN_BYTES)
        return false;
    p->total = (uint64_t)st.st_size;
    p->active = true;
    p->last = mono_now();
    draw(p); /* at once: the user sees that a long read started */
    return true;
}

static int on_record(void *ud, const opscope_record *r) {
    (void)r;
    opscope_progress *p = ud;
    if (++p->n & 0xffff) return 0; /* look at the clock every 65536 records */
    double t = mono_now();
    if (t - p->last < 0.25) return 0;
    p->last = t;
    draw(p);
    return 0;
}

opscope_sink opscope_progress_sink(opscope_progress *p) {
    opscope_sink k = {p, NULL, NULL, on_record, NULL};
    return k;
}

void opscope_progress_end(opscope_progress *p) {
    if (p->active && p->shown) fputs("\r\033[K", stderr);
    p->shown = false;
}
