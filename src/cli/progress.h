/*
 * progress.h - the "reading: N%" line on stderr while a big input file is read (internal to
 * the CLI: `opscope report` and `opscope view` share it).
 *
 * Shown only when stderr is a terminal and the input is a regular file over
 * OPSCOPE_PROGRESS_MIN_BYTES; otherwise every call is a no-op, so pipes and logs stay quiet.
 * Bytes come from the kernel's count of what this process read (/proc/self/io), so no reader
 * needs to report its position. Thread safety: none (one per read).
 */
#ifndef OPSCOPE_PROGRESS_H
#define OPSCOPE_PROGRESS_H

#include "opscope.h"

#include <stdbool.h>
#include <stdint.h>

#define OPSCOPE_PROGRESS_MIN_BYTES (100u * 1000u * 1000u)

typedef struct opscope_progress {
    uint64_t total, n;
    double last;
    bool active, shown;
} opscope_progress;

/* Arms P for reading PATH ("-" never shows progress) and prints the first line. Returns
 * whether progress is shown; P is set either way, so the other calls are always safe. */
bool opscope_progress_begin(opscope_progress *p, const char *path);

/* A sink counting records and redrawing the line at most every 0.25 s; add it beside the
 * real consumers (opscope_tee) only when begin returned true. */
opscope_sink opscope_progress_sink(opscope_progress *p);

/* Erases the line, if one was drawn. */
void opscope_progress_end(opscope_progress *p);

#endif /* OPSCOPE_PROGRESS_H */
