/*
 * partial.h - the one warning for a profile that holds less than the whole run: a file cut
 * short, or the last write of a program that then died (a checkpoint, a crash, SIGKILL).
 * Internal to the CLI (report, diff, view and replay read through opscope_progress_read,
 * which calls this). Thread safety: none (the CLI reads on one thread).
 */
#ifndef OPSCOPE_PARTIAL_H
#define OPSCOPE_PARTIAL_H

#include "read/readers.h"

/* Prints one line on stderr when ST says PATH is partial; nothing otherwise. A path already
 * warned about (a first pass of --batch, then the read) is not warned about again. */
void opscope_partial_warn(const char *path, const opscope_read_status *st);

#endif /* OPSCOPE_PARTIAL_H */
