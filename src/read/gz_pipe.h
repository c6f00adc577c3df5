/*
 * gz_pipe.h - a gzip input inflated ahead of its reader on a thread of its own, so that zlib's
 * inflating and the parsing that consumes it run at once on two cores (inflating alone is
 * about as long as parsing a Kineto trace).
 *
 * Ownership: a pipe owns the gzFile it was given from a successful opscope_gz_pipe_new on, and
 * closes it in opscope_gz_pipe_free. Memory: a fixed ring of blocks (GZ_PIPE_BLOCKS x
 * GZ_PIPE_BLOCK bytes), whatever the input's size. Thread safety: one reader thread; the pipe's
 * own thread touches only the gzFile and the ring.
 */
#ifndef OPSCOPE_GZ_PIPE_H
#define OPSCOPE_GZ_PIPE_H

#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

typedef struct opscope_gz_pipe opscope_gz_pipe_t;

/* Starts inflating GZ on a new thread. NULL when memory or a thread cannot be had: GZ is then
 * still the caller's, to read itself. */
opscope_gz_pipe_t *opscope_gz_pipe_new(gzFile gz);

/* Up to CAP bytes of the inflated stream into BUF: the count, 0 at its end, or -1 on a read or
 * inflate error (errno set: EIO for corrupt data). *AT (may be NULL) gets the compressed bytes
 * consumed when the bytes handed out were inflated (gzoffset; -1 where unknown). */
long opscope_gz_pipe_read(opscope_gz_pipe_t *p, char *buf, size_t cap, int64_t *at);

/* Stops the thread (after the block it is inflating), joins it, closes the gzFile and frees P.
 * NULL is a no-op. */
void opscope_gz_pipe_free(opscope_gz_pipe_t *p);

#endif /* OPSCOPE_GZ_PIPE_H */
