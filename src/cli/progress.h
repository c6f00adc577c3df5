/*
 * progress.h - the "reading: N%" line on stderr while a big input file is read (internal to
 * the CLI: `opscope report` and `opscope view` share it).
 *
 * Shown only when stderr is a terminal and the input is a regular file over
 * OPSCOPE_PROGRESS_MIN_BYTES; otherwise every call is a no-op, so pipes and logs stay quiet.
 * The generic reader reports the bytes it consumed (opscope_read_options.on_progress in
 * read/readers.h), whatever the format and however few records the input yields, so this is
 * the only progress line of a read. Thread safety: none (one per read).
 */
#ifndef OPSCOPE_PROGRESS_H
#define OPSCOPE_PROGRESS_H

#include "opscope.h"
#include "read/readers.h"

#include <stdbool.h>
#include <stdint.h>

#define OPSCOPE_PROGRESS_MIN_BYTES (100u * 1000u * 1000u)

typedef struct opscope_progress {
    uint64_t total;
    int pct; /* last percentage drawn */
    bool active, shown;
} opscope_progress;

/* Arms P for reading PATH ("-" never shows progress) and prints the first line. Returns
 * whether progress is shown; P is set either way, so the other calls are always safe. */
bool opscope_progress_begin(opscope_progress *p, const char *path);

/* For opscope_read_options.on_progress (UD = P): redraws the line when the whole percentage
 * of BYTES_IN changed, so at most 101 times per read. */
void opscope_progress_update(void *ud, uint64_t bytes_in);

/* Erases the line, if one was drawn. */
void opscope_progress_end(opscope_progress *p);

/* opscope_read_file_opts of PATH in FORMAT into SINK, with the progress line (on a terminal,
 * for a big file): RO's progress fields are set here (RO may be NULL for no other option).
 * Returns its result; on failure ERR names PATH when the reader named no file. */
int opscope_progress_read(const char *path, opscope_format format, const opscope_sink *sink,
                          opscope_read_options *ro, opscope_error *err);

#endif /* OPSCOPE_PROGRESS_H */
