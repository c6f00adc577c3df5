/*
 * oplog_win.h - the record log's WINDOWS chunk (docs/formats.md, "The record log"): whether
 * the capture recorded in windows, its windows (start and end on the capture's clock, end 0
 * while open) and its marks (an instant and its text). The capture appends the whole list
 * when it changed (capture/store/cap_log.c); the reader keeps the last chunk
 * (read/oplog_read.c). This file is the one definition of the chunk's bytes, and of the copy
 * every consumer that outlives a read makes of a capture's windows and marks.
 *
 * Ownership: the decoder's marks borrow their text from the payload (it lives as long as
 * the log's bytes); its arrays are the caller's (opscope_oplog_win_free). NULL handling:
 * arrays may be NULL when their count is 0. Thread safety: pure functions.
 */
#ifndef OPSCOPE_MODEL_OPLOG_WIN_H
#define OPSCOPE_MODEL_OPLOG_WIN_H

#include "opscope.h"
#include "util/oplog.h"
#include "util/vec.h"

/* The bounds a capture keeps and a reader accepts: windows and marks per run, and a mark's
 * text in bytes (without its NUL). More is damage to a reader; the capture stops adding. */
#define OPSCOPE_WIN_MAX_WINDOWS 1024u
#define OPSCOPE_WIN_MAX_MARKS 1024u
#define OPSCOPE_WIN_MAX_TEXT 255u

/* A WINDOWS payload decoded. */
typedef struct opscope_oplog_win {
    uint8_t windowed;
    OPSCOPE_VEC(opscope_window) windows;
    OPSCOPE_VEC(opscope_mark) marks;
} opscope_oplog_win;

/* Appends the chunk's fields to B: WINDOWED, N_WINDOWS windows at W, N_MARKS marks at M
 * (texts cut at OPSCOPE_WIN_MAX_TEXT bytes by the caller). Returns 0, or -1 when out of
 * memory (B then holds a prefix). */
int opscope_oplog_put_win(opscope_oplog_buf *b, uint8_t windowed, const opscope_window *w, size_t n_windows,
                          const opscope_mark *m, size_t n_marks);

/* Decodes a WINDOWS payload at C into OUT, replacing what it held. Returns 0, -1 when the
 * bytes are damaged (C->bad set: a count past the bounds, a window that ends before it
 * starts, a text too long or not a string) or -2 when out of memory. */
int opscope_oplog_get_win(opscope_oplog_cur *c, opscope_oplog_win *out);

/* Frees OUT's arrays (OUT itself is the caller's). */
void opscope_oplog_win_free(opscope_oplog_win *out);

/* Copies SRC's windows and marks (texts too) into one heap block, returned (the caller frees
 * it, after DST's last use), and points DST's arrays at it; NULL when SRC has none (DST's
 * arrays then NULL). Out of memory: NULL, DST's counts 0 and *FAILED set. SRC and DST may be
 * the same object. */
void *opscope_capture_win_copy(opscope_capture_info *dst, const opscope_capture_info *src, int *failed);

#endif /* OPSCOPE_MODEL_OPLOG_WIN_H */
