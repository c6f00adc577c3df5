/*
 * read.c - opscope_read_file / opscope_read_buffer: input sources, format detection, dispatch.
 *
 * Sources: a regular file is read with read(2); gzip (by magic bytes, whatever the name) and
 * every non-regular input (stdin, pipes, FIFOs) go through zlib's gzread, which passes plain
 * data through unchanged, so `zcat x | opscope report -` and `opscope report - < x.gz` both
 * work; zlib inflates on a thread of its own, ahead of the parser (gz_pipe.h). Detection reads a bounded prefix (64 KiB, doubling up to 4 MiB while undecided) that
 * is then replayed to the parser, so no input is ever read twice or held whole.
 */
#include "read/readers.h"
#include "read/gz_pipe.h"
#include "read/kineto_read.h"
#include "read/sniff.h"
#include "util/oplog.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define DETECT_FIRST ((size_t)64 << 10)
#define DETECT_MAX ((size_t)4 << 20)

/* ------------------------------------------------------------------------------------------ */
/* Detection.                                                                                 */

static int is_kineto_cat(const char *s, size_t n) {
    static const char *const cats[] = {
        "kernel", "Kernel", "gpu_memcpy", "Memcpy", "gpu_memset", "Memset", "cpu_op",
        "cuda_runtime", "cuda_driver", "python_function", "user_annotation",
        "gpu_user_annotation", "ac2g", "mtia_ccp_events", "Runtime", "Operator",
        "cpu_instant_event", "fwdbwd",
    };
    for (size_t i = 0; i < sizeof cats / sizeof cats[0]; i++)
        if (strlen(cats[i]) == n && memcmp(cats[i], s, n) == 0) return 1;
    return 0;
}

#define KEY_IS(t, lit) ((t).len == sizeof(lit) - 1 && memcmp((t).str, lit, sizeof(lit) - 1) == 0)

/* Scans "traceEvents": [ {...}, ... ] for a Kineto category. Returns 1 found, 0 not (array
 * ended), -1 prefix exhausted or invalid. */
static int detect_events(opscope_json_t *j, const opscope_json_token *open) {
    if (open->type != OPSCOPE_JSON_ARR_BEGIN) return opscope_json_skip(j, open) ? -1 : 0;
    opscope_json_token t, v;
    for (;;) {
        if (opscope_json_next(j, &t) == OPSCOPE_JSON_ERROR) return -1;
        if (t.type == OPSCOPE_JSON_ARR_END) return 0;
        if (t.type != OPSCOPE_JSON_OBJ_BEGIN) {
            if (opscope_json_skip(j, &t)) return -1;
            continue;
        }
        for (;;) {
            if (opscope_json_next(j, &t) == OPSCOPE_JSON_ERROR) return -1;
            if (t.type == OPSCOPE_JSON_OBJ_END) break;
            int is_cat = KEY_IS(t, "cat");
            if (opscope_json_next(j, &v) == OPSCOPE_JSON_ERROR) return -1;
            if (is_cat && v.type == OPSCOPE_JSON_STRING && is_kineto_cat(v.str, v.len)) return 1;
            if (opscope_json_skip(j, &v)) return -1;
        }
    }
}

/* As opscope_detect_format; *BARE (may be NULL) is set when the whole top-level object was
 * seen without any key of a profile or trace. */
static opscope_format detect(const void *prefix, size_t size, int complete, int *saw_events,
                             int *bare) {
    int events = 0;
    if (bare) *bare = 0;
    opscope_format f = OPSCOPE_FORMAT_AUTO;
    opscope_json_t *j = opscope_json_new(NULL, NULL, prefix, size, NULL);
    if (!j) goto out;
    opscope_json_token t, v;
    if (opscope_json_next(j, &t) == OPSCOPE_JSON_ERROR) goto out;
    if (t.type == OPSCOPE_JSON_ARR_BEGIN) {
        f = OPSCOPE_FORMAT_CHROME;
        goto out;
    }
    if (t.type != OPSCOPE_JSON_OBJ_BEGIN) goto out;
    for (;;) {
        if (opscope_json_next(j, &t) == OPSCOPE_JSON_ERROR) goto out;
        if (t.type == OPSCOPE_JSON_OBJ_END) break;
        if (KEY_IS(t, "records") || KEY_IS(t, "backends")) {
            f = OPSCOPE_FORMAT_GGML;
            goto out;
        }
        if (KEY_IS(t, "schemaVersion") || KEY_IS(t, "deviceProperties") ||
            KEY_IS(t, "distributedInfo")) {
            f = OPSCOPE_FORMAT_KINETO;
            goto out;
        }
        int is_prof = KEY_IS(t, "profiler"), is_ev = KEY_IS(t, "traceEvents");
        if (opscope_json_next(j, &v) == OPSCOPE_JSON_ERROR) goto out;
        if (is_prof && v.type == OPSCOPE_JSON_STRING &&
            ((v.len == 4 && !memcmp(v.str, "ggml", 4)) || (v.len == 7 && !memcmp(v.str, "opscope", 7)))) {
            f = OPSCOPE_FORMAT_GGML;
            goto out;
        }
        if (is_ev) {
            events = 1;
            int r = detect_events(j, &v);
            if (r == 1) {
                f = OPSCOPE_FORMAT_KINETO;
                goto out;
            }
            if (r < 0) goto out;
        } else if (opscope_json_skip(j, &v)) {
            goto out;
        }
    }
    /* the whole top-level object was seen without a decisive key */
    if (events) f = OPSCOPE_FORMAT_CHROME;
    else if (bare) *bare = 1;
out:
    /* Nothing more will come: decide on what was seen. Events (maybe truncated) go to the
     * trace reader, anything else to the ggml reader; either says what is wrong. */
    if (complete && f == OPSCOPE_FORMAT_AUTO)
        f = events ? OPSCOPE_FORMAT_CHROME : OPSCOPE_FORMAT_GGML;
    if (saw_events) *saw_events = events;
    opscope_json_free(j);
    return f;
}

opscope_format opscope_detect_format(const void *prefix, size_t size, int complete,
                                     int *saw_events) {
    return detect(prefix, size, complete, saw_events, NULL);
}

/* ------------------------------------------------------------------------------------------ */
/* Dispatch.                                                                                  */

int opscope_read_json_stream(opscope_json_t *j, opscope_format format, const opscope_sink *sink,
                             opscope_kineto_collector *kineto, opscope_read_status *status,
                             opscope_error *err) {
    switch (format) {
    case OPSCOPE_FORMAT_GGML:
        return opscope_ggml_read_json(j, sink, status, err);
    case OPSCOPE_FORMAT_KINETO:
    case OPSCOPE_FORMAT_CHROME:
        return opscope_kineto_read_json_status(j, format, sink, kineto, status, err);
    case OPSCOPE_FORMAT_AUTO:
        break;
    }
    if (err) {
        memset(err, 0, sizeof *err);
        err->code = OPSCOPE_ERROR_USAGE;
        err->msg = "no reader for this format";
    }
    return -1;
}

/* ------------------------------------------------------------------------------------------ */
/* Sources.                                                                                   */

typedef struct rd_src {
    int fd;                   /* plain file, or -1 */
    gzFile gz;                /* gzip or non-regular input, or NULL */
    opscope_gz_pipe_t *pipe;  /* GZ inflated on a thread of its own (NULL: read here) */
    int64_t gz_at;            /* the pipe's compressed bytes consumed, for progress */
    const unsigned char *mem; /* memory buffer (fd < 0 && !gz) */
    size_t mem_size, mem_off;
    unsigned char *pre; /* detection prefix, replayed first */
    size_t pre_len, pre_off;
    uint64_t raw_in;    /* bytes read from fd (plain input), for progress */
    const opscope_read_options *opts; /* never NULL */
    opscope_kineto_filter_t *filter;  /* HTA's step filter (read_steps), or NULL */
    int scan;                         /* its first read: a trace is only scanned */
} rd_src;

/* Reports the input consumed so far: bytes as stored, so gzip compares with the file size. */
static void rd_progress(rd_src *s, long got) {
    if (!s->opts->on_progress) return;
    uint64_t at;
    if (s->pipe) {
        if (s->gz_at < 0) return;
        at = (uint64_t)s->gz_at;
    } else if (s->gz) {
        z_off_t off = gzoffset(s->gz); /* -1 where the input cannot seek (a pipe) */
        if (off < 0) return;
        at = (uint64_t)off;
    } else if (s->fd >= 0) {
        at = s->raw_in += (uint64_t)got;
    } else {
        at = s->mem_off;
    }
    s->opts->on_progress(s->opts->progress_ud, at);
}

static long rd_raw_once(rd_src *s, char *buf, size_t cap) {
    if (s->pipe) return opscope_gz_pipe_read(s->pipe, buf, cap, &s->gz_at);
    if (s->gz) {
        unsigned n = cap > (1u << 30) ? (1u << 30) : (unsigned)cap;
        int r = gzread(s->gz, buf, n);
        if (r < 0) {
            int e = 0;
            gzerror(s->gz, &e);
            if (e != Z_ERRNO) errno = EIO;
            return -1;
        }
        return r;
    }
    if (s->fd >= 0) {
        for (;;) {
            ssize_t r = read(s->fd, buf, cap);
            if (r < 0 && errno == EINTR) continue;
            return (long)r;
        }
    }
    size_t n = s->mem_size - s->mem_off;
    if (n > cap) n = cap;
    memcpy(buf, s->mem + s->mem_off, n);
    s->mem_off += n;
    return (long)n;
}

static long rd_raw(rd_src *s, char *buf, size_t cap) {
    long r = rd_raw_once(s, buf, cap);
    if (r > 0) rd_progress(s, r);
    return r;
}

static long rd_read(void *ud, char *buf, size_t cap) {
    rd_src *s = ud;
    if (s->pre_off < s->pre_len) {
        size_t n = s->pre_len - s->pre_off;
        if (n > cap) n = cap;
        memcpy(buf, s->pre + s->pre_off, n);
        s->pre_off += n;
        return (long)n;
    }
    return rd_raw(s, buf, cap);
}

static void set_err(opscope_error *err, opscope_error_code code, const char *name, const char *msg,
                    int e) {
    if (!err) return;
    memset(err, 0, sizeof *err);
    err->code = code;
    err->msg = msg;
    err->errno_value = e;
    snprintf(err->file, sizeof err->file, "%s", name ? name : "");
}

/* Detects (when FORMAT is AUTO) and reads. */
static int rd_run(rd_src *s, const char *name, opscope_format format, const opscope_sink *sink,
                  opscope_error *err) {
    if (format == OPSCOPE_FORMAT_AUTO) {
        size_t want = DETECT_FIRST;
        int eof = 0;
        for (;;) {
            unsigned char *np = realloc(s->pre, want);
            if (!np) {
                set_err(err, OPSCOPE_ERROR_NOMEM, name, "out of memory", 0);
                return -1;
            }
            s->pre = np;
            while (s->pre_len < want) {
                long r = rd_raw(s, (char *)s->pre + s->pre_len, want - s->pre_len);
                if (r < 0) {
                    set_err(err, OPSCOPE_ERROR_IO, name, "read failed", errno);
                    return -1;
                }
                if (r == 0) {
                    eof = 1;
                    break;
                }
                s->pre_len += (size_t)r;
            }
            /* what is plainly something else is said so, with what opscope reads */
            const char *foreign = opscope_sniff_foreign(s->pre, s->pre_len);
            int bare = 0;
            /* at the end of the input, or of what detection may hold, it must decide */
            format = detect(s->pre, s->pre_len, eof || want >= DETECT_MAX, NULL, &bare);
            if (!foreign && bare) foreign = opscope_sniff_no_keys;
            if (foreign) {
                set_err(err, OPSCOPE_ERROR_FORMAT, name, foreign, 0);
                return -1;
            }
            if (format != OPSCOPE_FORMAT_AUTO) break;
            want *= 2;
        }
    }
    opscope_json_t *j = opscope_json_new(rd_read, s, NULL, 0, name);
    if (!j) {
        set_err(err, OPSCOPE_ERROR_NOMEM, name, "out of memory", 0);
        return -1;
    }
    int trace = format == OPSCOPE_FORMAT_KINETO || format == OPSCOPE_FORMAT_CHROME;
    int rc = s->filter && trace
                 ? opscope_kineto_read_json_filtered(j, format, sink, s->opts->kineto, s->filter, s->scan,
                                                     s->opts->status, err)
             : s->scan ? 0 /* a ggml profile: nothing to scan */
                       : opscope_read_json_stream(j, format, sink, s->opts->kineto, s->opts->status, err);
    opscope_json_free(j);
    return rc;
}

static const opscope_read_options no_options;

/* What a directory given as input is: the one place that decides it (a directory of traces
 * may become readable as one job later). */
static int rd_directory(const char *path, opscope_error *err) {
    set_err(err, OPSCOPE_ERROR_IO, path,
            "is a directory; opscope reads one profile or trace file: give a file inside it", 0);
    return -1;
}

int opscope_read_buffer_opts(const void *data, size_t size, const char *name,
                             opscope_format format, const opscope_sink *sink,
                             const opscope_read_options *opts, opscope_error *err) {
    if ((format == OPSCOPE_FORMAT_AUTO || format == OPSCOPE_FORMAT_GGML) && data &&
        opscope_oplog_is_log(data, size)) {
        return opscope_oplog_read(data, size, name ? name : "<buffer>", sink, opts ? opts->status : NULL, err);
    }
    rd_src s = {.fd = -1, .mem = data, .mem_size = data ? size : 0,
                .opts = opts ? opts : &no_options};
    int rc = rd_run(&s, name ? name : "<buffer>", format, sink, err);
    free(s.pre);
    return rc;
}

int opscope_read_buffer(const void *data, size_t size, const char *name, opscope_format format,
                        const opscope_sink *sink, opscope_error *err) {
    return opscope_read_buffer_opts(data, size, name, format, sink, NULL, err);
}

int opscope_read_file(const char *path, opscope_format format, const opscope_sink *sink,
                      opscope_error *err) {
    return opscope_read_file_opts(path, format, sink, NULL, err);
}

/* A record log (a capture's, streamed while it ran): mapped, and read in place. */
static int read_log(int fd, size_t size, const char *path, const opscope_sink *sink,
                    const opscope_read_options *opts, opscope_error *err) {
    void *m = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED) {
        set_err(err, OPSCOPE_ERROR_IO, path, "cannot map the record log", errno);
        return -1;
    }
#ifdef MADV_SEQUENTIAL
    (void)madvise(m, size, MADV_SEQUENTIAL);
#endif
    int rc = opscope_oplog_read(m, size, path, sink, opts ? opts->status : NULL, err);
    if (opts && opts->on_progress) opts->on_progress(opts->progress_ud, size);
    munmap(m, size);
    return rc;
}

static int read_file(const char *path, opscope_format format, const opscope_sink *sink,
                     const opscope_read_options *opts, opscope_kineto_filter_t *filter, int scan,
                     opscope_error *err) {
    if (!path) {
        set_err(err, OPSCOPE_ERROR_USAGE, "", "no input path", 0);
        return -1;
    }
    int is_stdin = strcmp(path, "-") == 0;
    int fd = is_stdin ? dup(0) : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        set_err(err, OPSCOPE_ERROR_IO, path, "cannot open", errno);
        return -1;
    }
    rd_src s = {.fd = -1, .opts = opts ? opts : &no_options, .filter = filter, .scan = scan};
    struct stat st;
    int regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        close(fd);
        return rd_directory(path, err);
    }
    unsigned char magic[OPSCOPE_OPLOG_HEAD] = {0};
    int gz = !regular;
    if (regular) {
        ssize_t m = pread(fd, magic, sizeof magic, 0);
        gz = m >= 2 && magic[0] == 0x1f && magic[1] == 0x8b;
        if ((format == OPSCOPE_FORMAT_AUTO || format == OPSCOPE_FORMAT_GGML) && m == (ssize_t)sizeof magic &&
            opscope_oplog_is_log(magic, sizeof magic)) {
            int rc = scan ? 0 : read_log(fd, (size_t)st.st_size, path, sink, opts, err);
            close(fd);
            return rc;
        }
    }
    if (gz) {
        /* gzdopen takes the descriptor; zlib reads plain (non-gzip) input transparently */
        s.gz = gzdopen(fd, "rb");
        if (!s.gz) {
            close(fd);
            set_err(err, OPSCOPE_ERROR_NOMEM, path, "cannot open the zlib stream", errno);
            return -1;
        }
        gzbuffer(s.gz, 1u << 20);
        s.pipe = opscope_gz_pipe_new(s.gz); /* NULL: inflated here, as it reads */
    } else {
        s.fd = fd;
#ifdef POSIX_FADV_SEQUENTIAL
        (void)posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
    }
    int rc = rd_run(&s, path, format, sink, err);
    if (s.pipe) opscope_gz_pipe_free(s.pipe); /* closes s.gz */
    else if (s.gz) gzclose(s.gz);
    else close(fd);
    free(s.pre);
    return rc;
}

/* HTA's step filter (kineto_filter.h): a scan of the trace, then the read through the filter. */
static int read_steps(const char *path, opscope_format format, const opscope_sink *sink,
                      const opscope_read_options *opts, opscope_error *err) {
    if (path && !strcmp(path, "-")) {
        set_err(err, OPSCOPE_ERROR_USAGE, path, "HTA's step filter reads the trace twice: give a file, not stdin", 0);
        return -1;
    }
    opscope_kineto_filter_t *f = opscope_kineto_filter_new((opscope_kineto_steps)opts->hta_steps);
    if (!f) {
        set_err(err, OPSCOPE_ERROR_NOMEM, path ? path : "", "out of memory", 0);
        return -1;
    }
    int rc;
    if (opts->hta_steps_once && opts->status && opts->hta_steps == OPSCOPE_KINETO_STEPS_KEEP_LAST) {
        opscope_kineto_filter_check(f);
        rc = read_file(path, format, sink, opts, f, 2, err);
        if (!rc) {
            opscope_kineto_filter_ready(f);
            opts->status->hta_reread = opscope_kineto_filter_drops(f);
        }
        opscope_kineto_filter_free(f);
        return rc;
    }
    opscope_sink none;
    memset(&none, 0, sizeof none);
    rc = read_file(path, format, &none, &no_options, f, 1, err);
    if (!rc) {
        opscope_kineto_filter_ready(f);
        rc = read_file(path, format, sink, opts, f, 0, err);
    }
    opscope_kineto_filter_free(f);
    return rc;
}

int opscope_read_file_opts(const char *path, opscope_format format, const opscope_sink *sink,
                           const opscope_read_options *opts, opscope_error *err) {
    if (opts && opts->hta_steps != OPSCOPE_KINETO_STEPS_ALL) return read_steps(path, format, sink, opts, err);
    return read_file(path, format, sink, opts, NULL, 0, err);
}

opscope_format opscope_detect_file_format(const char *path) {
    enum { PREFIX = 65536 };
    if (!path || !strcmp(path, "-")) return OPSCOPE_FORMAT_AUTO;
    gzFile f = gzopen(path, "rb");
    char *buf = f ? malloc(PREFIX) : NULL;
    int n = buf ? gzread(f, buf, PREFIX) : -1;
    if (f) gzclose(f);
    opscope_format fmt = n > 0 ? opscope_detect_format(buf, (size_t)n, n < PREFIX, NULL) : OPSCOPE_FORMAT_AUTO;
    free(buf);
    return fmt;
}
