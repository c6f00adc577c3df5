/* progress.c - the progress line of big inputs (see progress.h). */
#include "cli/progress.h"

#include "cli/partial.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void draw(opscope_progress *p, uint64_t done) {
    fprintf(stderr, "\r  reading: %3d%% (%.0f of %.0f MB)", p->pct, (double)done / 1e6,
            (double)p->total / 1e6);
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
    draw(p, 0); /* at once: the user sees that a long read started */
    return true;
}

void opscope_progress_update(void *ud, uint64_t bytes_in) {
    opscope_progress *p = ud;
    if (!p->active) return;
    if (bytes_in > p->total) bytes_in = p->total; /* the file grew while being read */
    int pct = (int)(100 * bytes_in / p->total);
    if (pct == p->pct) return;
    p->pct = pct;
    draw(p, bytes_in);
}

void opscope_progress_end(opscope_progress *p) {
    if (p->active && p->shown) fputs("\r\033[K", stderr);
    p->shown = false;
}

int opscope_progress_read(const char *path, opscope_format format, const opscope_sink *sink,
                          opscope_read_options *ro, opscope_error *err) {
    opscope_read_options none = {0};
    if (!ro) ro = &none;
    opscope_read_status status, *keep = ro->status;
    if (!ro->status) ro->status = &status;
    memset(ro->status, 0, sizeof *ro->status);
    opscope_progress prog;
    if (opscope_progress_begin(&prog, path)) {
        ro->on_progress = opscope_progress_update;
        ro->progress_ud = &prog;
    }
    int rc = opscope_read_file_opts(path, format, sink, ro, err);
    opscope_progress_end(&prog);
    ro->on_progress = NULL;
    ro->progress_ud = NULL;
    if (!rc) opscope_partial_warn(path, ro->status);
    ro->status = keep;
    if (rc && !err->file[0]) snprintf(err->file, sizeof err->file, "%s", path);
    return rc;
}
