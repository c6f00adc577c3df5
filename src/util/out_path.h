/*
 * out_path.h - what an output path is and how a stream is opened (internal; util/out.c
 * opens its outputs with it, and out.h hands its kinds on to every writer).
 *
 * A descriptor path (/dev/stdout, /dev/fd/N, /proc/self/fd/N, and links to them) is
 * recognised by its name, before any symlink is followed: following /dev/stdout ->
 * /proc/self/fd/1 -> "/home/x/o.txt" would name the program's own output file, and a rename
 * over it would destroy that output.
 * Thread safety: any thread (no state).
 */
#ifndef OPSCOPE_OUT_PATH_H
#define OPSCOPE_OUT_PATH_H

#include <stdbool.h>

/* What an output path is, which decides how it is written. */
typedef enum opscope_out_kind {
    OPSCOPE_OUT_KIND_FILE,   /* a regular file, a name not yet there, or a symlink to either:
                                temporary file + rename */
    OPSCOPE_OUT_KIND_STREAM, /* a pipe, FIFO, socket, character device, or an open descriptor
                                (/dev/std*, /dev/fd/N, /proc/self/fd/N, links to them): written
                                through, once; never renamed over, never opened to probe it */
    OPSCOPE_OUT_KIND_DIR,    /* a directory: cannot be written */
} opscope_out_kind;

/* PATH's kind, from its name and what is there now (NULL or "-": a stream). Opens nothing. */
opscope_out_kind opscope_out_path_kind(const char *path);

/* The open descriptor of this process that PATH names (through symlinks to such names), or
 * -1 when PATH names none. */
int opscope_out_path_fd(const char *path);

/* A stream open for writing, owned by the caller. */
typedef struct opscope_out_stream {
    int fd;
    bool sock;        /* a socket: written with send(MSG_NOSIGNAL) */
    bool pipe;        /* a pipe or FIFO: a write to it may raise SIGPIPE */
    bool shared;      /* the program's own open file description (a regular file behind
                         /dev/stdout): its flags are never changed */
} opscope_out_stream;

/* Opens stream PATH (opscope_out_path_kind says STREAM). WAIT_MS > 0: non-blocking, a FIFO
 * without a reader retried for at most WAIT_MS; 0: blocking. Returns 0, or -1 with errno set
 * and *WHY a static reason. */
int opscope_out_stream_open(const char *path, int wait_ms, opscope_out_stream *s, const char **why);

#endif /* OPSCOPE_OUT_PATH_H */
