/*
 * out.h - buffered output that never leaves a partial file (internal).
 *
 * opscope_out_open writes to "PATH.tmp.XXXXXX" beside PATH and opscope_out_commit renames it
 * over PATH only when every write succeeded; opscope_out_abort (or a failed commit) removes
 * the temporary file. PATH "-" writes to stdout (no rename). A stream (opscope_out_path_kind:
 * a pipe, FIFO, socket, character device, or an open descriptor named /dev/stdout, /dev/fd/N,
 * /proc/self/fd/N) is written through, never renamed over: a descriptor is written through
 * itself (so `-o /dev/stdout > f` appends to f after the program's own output, at its
 * offset, with stdout's (stderr's) FILE locked from open to commit so that no other thread
 * of the program prints into the middle of it), a FIFO or device through a descriptor of
 * its own. A file named *.gz is written
 * gzip-compressed (zlib, level 1; every reader reads gzip). Formatting helpers append to a
 * large buffer and flush with write(2), so exporters can emit hundreds of MB/s.
 *
 * Ownership: the caller owns the opscope_out_t and must end it with commit or abort exactly
 * once, on the thread that opened it. Thread safety: one writer per thread.
 */
#ifndef OPSCOPE_OUT_H
#define OPSCOPE_OUT_H

#include "opscope.h"
#include "util/out_path.h"

#include <stdbool.h>

typedef struct opscope_out opscope_out_t;

/* How opscope_out_open_opts treats a stream. */
typedef struct opscope_out_opts {
    /* > 0: never block for longer than this without progress: a FIFO with no reader, a pipe
     * or socket whose reader stops reading; the write then fails ("no reader ...") and
     * SIGPIPE is never raised (a capture inside a host program). 0: block as write(2) does
     * (the commands: `report -o FIFO` waits for its reader, `| head` ends them as usual). */
    int stream_wait_ms;
} opscope_out_opts;

/* Opens PATH for writing (see above). Returns NULL and fills ERR on failure. */
opscope_out_t *opscope_out_open(const char *path, opscope_error *err);

/* opscope_out_open with OPTS (NULL: all zero). */
opscope_out_t *opscope_out_open_opts(const char *path, const opscope_out_opts *opts, opscope_error *err);

/* Whether PATH can be written, without a trace and without opening a stream (a FIFO's
 * reader would see its end): a file by making and removing a temporary file beside it, a
 * descriptor by its open mode, a FIFO, socket or device by its permissions. Returns 0, or -1
 * with ERR filled (msg "it is a directory", "not open for writing", ...). */
int opscope_out_check(const char *path, opscope_error *err);

/* A writer onto an already open FILE * (not closed, not renamed; commit flushes). */
opscope_out_t *opscope_out_from_file(FILE *fp, opscope_error *err);

/* Flushes, fsyncs nothing, closes and renames into place. Frees W. Returns 0 or -1. */
int opscope_out_commit(opscope_out_t *w, opscope_error *err);

/* opscope_out_commit of *W, with *W set to NULL first: an output's commit step, after
 * which its release may call opscope_out_abort(*W) unconditionally (a no-op then). */
int opscope_out_commit_take(opscope_out_t **w, opscope_error *err);

/* Discards everything written and removes the temporary file. Frees W. NULL is a no-op. */
void opscope_out_abort(opscope_out_t *w);

/* True once any write failed (later writes are ignored; commit will fail). */
bool opscope_out_failed(const opscope_out_t *w);

void opscope_out_write(opscope_out_t *w, const void *data, size_t len);
void opscope_out_str(opscope_out_t *w, const char *s);
void opscope_out_char(opscope_out_t *w, char c);
void opscope_out_u64(opscope_out_t *w, uint64_t v);
void opscope_out_i64(opscope_out_t *w, int64_t v);
/* Fixed-point with DECIMALS digits after the point (0..9), correctly rounded. */
void opscope_out_fixed(opscope_out_t *w, double v, int decimals);
/* Shortest round-trip text of V ("%.17g"-exact), "null" for NaN/inf (JSON has neither). */
void opscope_out_double(opscope_out_t *w, double v);
/* V nanoseconds as microseconds with 3 decimals, exact (no floating point): "12.345". */
void opscope_out_ns_as_us(opscope_out_t *w, uint64_t ns);
/* A JSON string literal with quotes; invalid UTF-8 bytes become U+FFFD. NULL writes null. */
void opscope_out_json_str(opscope_out_t *w, const char *s);
void opscope_out_json_strn(opscope_out_t *w, const char *s, size_t len);
/* printf-style, for cold paths only. */
void opscope_out_printf(opscope_out_t *w, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Bytes written so far. */
uint64_t opscope_out_bytes(const opscope_out_t *w);

#endif /* OPSCOPE_OUT_H */
