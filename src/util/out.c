/* out.c - buffered, atomic-rename output. See out.h. */
#include "util/out.h"
#include "util/out_path.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define OUT_BUF_SIZE (1u << 20)

struct opscope_out {
    int fd;
    bool owns_fd;
    bool failed;
    int err_no;
    FILE *fp;          /* for opscope_out_from_file: flushed before our own writes */
    char *path;        /* final path, NULL for stdout / FILE * / a stream */
    char *tmp;         /* temporary path */
    char *name;        /* a stream's path, for its errors */
    const char *why;   /* the failed write's reason, static; NULL: "write failed" */
    int wait_ms;       /* opscope_out_opts.stream_wait_ms */
    bool sock, pipe;   /* a socket (send), a pipe or FIFO (SIGPIPE held off when waiting) */
    z_stream *z;       /* a file named *.gz: gzip-compressed as it is written */
    FILE *std;         /* stdout or stderr, locked while its descriptor takes the document */
    size_t len;
    uint64_t total;
    char buf[OUT_BUF_SIZE];
};

static void set_io_error(opscope_error *err, const char *path, const char *msg, int e) {
    if (!err) return;
    memset(err, 0, sizeof *err);
    err->code = OPSCOPE_ERROR_IO;
    err->msg = msg;
    err->errno_value = e;
    if (path) snprintf(err->file, sizeof err->file, "%s", path);
}

/* The path a symlink PATH points to (relative targets from the link's folder, followed
 * through chains, dangling ones too), malloc'ed; NULL when PATH is no symlink. */
static char *resolve_link(const char *path) {
    char *cur = strdup(path);
    for (int hops = 0; cur && hops < 40; hops++) {
        struct stat ls;
        if (lstat(cur, &ls) != 0 || !S_ISLNK(ls.st_mode)) {
            if (hops == 0) {
                free(cur);
                return NULL;
            }
            return cur;
        }
        char to[4096];
        ssize_t k = readlink(cur, to, sizeof to - 1);
        if (k <= 0) break;
        to[k] = 0;
        const char *slash = strrchr(cur, '/');
        size_t dir = to[0] == '/' || !slash ? 0 : (size_t)(slash - cur) + 1;
        char *next = malloc(dir + (size_t)k + 1);
        if (!next) break;
        memcpy(next, cur, dir);
        memcpy(next + dir, to, (size_t)k + 1);
        free(cur);
        cur = next;
    }
    free(cur); /* a loop or an error: the plain path (its write then says what is wrong) */
    return NULL;
}

/* Creates "PATH.tmp.XXXXXX" (O_EXCL, mode 0666 less the umask), its name in TMP. */
static int create_tmp(const char *path, char *tmp, size_t size) {
    static _Atomic unsigned counter;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t x = (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32) ^ ((uint64_t)(uintptr_t)tmp << 7);
    for (int tries = 0; tries < 100; tries++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull + atomic_fetch_add(&counter, 1);
        static const char az[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
        char suf[7];
        for (int i = 0; i < 6; i++) suf[i] = az[(x >> (10 + 6 * i)) % 62];
        suf[6] = 0;
        snprintf(tmp, size, "%s.tmp.%s", path, suf);
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST) return fd;
    }
    errno = EEXIST;
    return -1;
}

/* ---- gzip by name: every reader reads .gz (read/read.c), so `-o p.json.gz` is a profile ---- */

static bool ends_gz(const char *path) {
    size_t n = strlen(path);
    return n > 3 && !strcmp(path + n - 3, ".gz");
}

static int gz_start(opscope_out_t *w) {
    w->z = calloc(1, sizeof *w->z);
    /* 15 + 16: a gzip header; level 1: the capture writes inside a running program */
    if (!w->z || deflateInit2(w->z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        free(w->z);
        w->z = NULL;
        return -1;
    }
    return 0;
}

static void write_all(opscope_out_t *w, const char *p, size_t left);

/* Compresses LEN bytes at P (FLUSH: Z_NO_FLUSH, or Z_FINISH at commit) and writes the result. */
static void gz_write(opscope_out_t *w, const char *p, size_t len, int flush) {
    unsigned char chunk[64 * 1024];
    w->z->next_in = (unsigned char *)(uintptr_t)p;
    w->z->avail_in = (uInt)len;
    int rc;
    do {
        w->z->next_out = chunk;
        w->z->avail_out = sizeof chunk;
        rc = deflate(w->z, flush);
        size_t have = sizeof chunk - w->z->avail_out;
        if (have) write_all(w, (const char *)chunk, have);
    } while (!w->failed && (w->z->avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END)) && rc != Z_STREAM_ERROR);
}

static void gz_end(opscope_out_t *w) {
    if (w->z) {
        deflateEnd(w->z);
        free(w->z);
        w->z = NULL;
    }
}

/* W onto stream PATH (out_path.c); frees W on failure. */
static opscope_out_t *open_stream(opscope_out_t *w, const char *path, const opscope_out_opts *opts,
                                  opscope_error *err) {
    w->wait_ms = opts && opts->stream_wait_ms > 0 ? opts->stream_wait_ms : 0;
    opscope_out_stream s;
    const char *why = NULL;
    w->name = strdup(path);
    if (!w->name || opscope_out_stream_open(path, w->wait_ms, &s, &why) != 0) {
        set_io_error(err, path, w->name ? why : "out of memory", w->name ? errno : ENOMEM);
        free(w->name);
        free(w);
        return NULL;
    }
    w->fd = s.fd;
    w->sock = s.sock;
    w->pipe = s.pipe;
    w->owns_fd = true;
    /* The program's own buffered output to that descriptor comes first, and none of its
     * threads writes through stdio into the middle of the document (llama.cpp's logger
     * thread prints while the program exits: seen cutting a profile at a 64 KiB pipe write):
     * its FILE stays locked until commit or abort. Tried for at most 100 ms, never waited
     * for: a thread holding it may itself be blocked on a full pipe. */
    int n = opscope_out_path_fd(path);
    FILE *std = n == 1 ? stdout : n == 2 ? stderr : NULL;
    for (int i = 0; std && i < 100; i++) {
        if (ftrylockfile(std) == 0) {
            fflush_unlocked(std);
            w->std = std;
            break;
        }
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
    return w;
}

opscope_out_t *opscope_out_open(const char *path, opscope_error *err) {
    return opscope_out_open_opts(path, NULL, err);
}

int opscope_out_check(const char *path, opscope_error *err) {
    opscope_out_kind kind = opscope_out_path_kind(path);
    if (kind == OPSCOPE_OUT_KIND_DIR) {
        set_io_error(err, path, "it is a directory", EISDIR);
        return -1;
    }
    if (kind == OPSCOPE_OUT_KIND_STREAM) {
        int n = opscope_out_path_fd(path);
        int fl = n >= 0 ? fcntl(n, F_GETFL) : 0;
        if (n >= 0 && (fl < 0 || (fl & O_ACCMODE) == O_RDONLY)) {
            set_io_error(err, path, fl < 0 ? "the descriptor it names is not open"
                                           : "the descriptor it names is open for reading only", EBADF);
            return -1;
        }
        if (n < 0 && access(path, W_OK) != 0) {
            set_io_error(err, path, "cannot write to it", errno);
            return -1;
        }
        return 0;
    }
    opscope_out_t *w = opscope_out_open(path, err);
    if (!w) {
        return -1;
    }
    opscope_out_abort(w);
    return 0;
}

opscope_out_t *opscope_out_open_opts(const char *path, const opscope_out_opts *opts, opscope_error *err) {
    opscope_out_t *w = calloc(1, sizeof *w);
    if (!w) {
        set_io_error(err, path, "out of memory", ENOMEM);
        if (err) err->code = OPSCOPE_ERROR_NOMEM;
        return NULL;
    }
    if (strcmp(path, "-") == 0) {
        fflush(stdout);
        w->fd = STDOUT_FILENO;
        return w;
    }
    struct stat st;
    opscope_out_kind kind = opscope_out_path_kind(path);
    if (kind == OPSCOPE_OUT_KIND_DIR) {
        set_io_error(err, path, "it is a directory", EISDIR);
        free(w);
        return NULL;
    }
    if (kind == OPSCOPE_OUT_KIND_STREAM) {
        /* Written through: renaming a temporary file over it would replace the node itself
         * (or, behind /dev/stdout, the program's own output file). */
        return open_stream(w, path, opts, err);
    }
    /* A symlink stays one: the file it points to is replaced (temporary file beside it). */
    char *target = resolve_link(path);
    const char *dst = target ? target : path;
    size_t n = strlen(dst);
    w->path = malloc(n + 1);
    w->tmp = malloc(n + 16);
    if (!w->path || !w->tmp) {
        free(w->path);
        free(w->tmp);
        free(target);
        free(w);
        set_io_error(err, path, "out of memory", ENOMEM);
        if (err) err->code = OPSCOPE_ERROR_NOMEM;
        return NULL;
    }
    memcpy(w->path, dst, n + 1);
    free(target);
    /* An existing file keeps its permissions (a read-only 0444 output stays so); a new one
     * gets what a plain fopen gives: 0666 less the umask, applied by the kernel (never read
     * with umask(), which would change it for a moment under the host program's threads). */
    bool keep = stat(w->path, &st) == 0 && S_ISREG(st.st_mode);
    w->fd = create_tmp(w->path, w->tmp, n + 16);
    if (w->fd < 0) {
        int e = errno;
        set_io_error(err, path, "cannot create output file", e);
        free(w->path);
        free(w->tmp);
        free(w);
        return NULL;
    }
    if (keep) (void)fchmod(w->fd, st.st_mode & 07777);
    w->owns_fd = true;
    if (ends_gz(path) && gz_start(w) != 0) {
        set_io_error(err, path, "out of memory", ENOMEM);
        opscope_out_abort(w);
        return NULL;
    }
    return w;
}

opscope_out_t *opscope_out_from_file(FILE *fp, opscope_error *err) {
    opscope_out_t *w = calloc(1, sizeof *w);
    if (!w) {
        set_io_error(err, NULL, "out of memory", ENOMEM);
        if (err) err->code = OPSCOPE_ERROR_NOMEM;
        return NULL;
    }
    fflush(fp);
    w->fp = fp;
    w->fd = fileno(fp);
    if (w->fd < 0) { /* a memory stream (fmemopen/open_memstream): go through stdio */
        w->fd = -1;
    }
    return w;
}

static void fail(opscope_out_t *w, int e, const char *why) {
    w->failed = true;
    w->err_no = e;
    w->why = why;
}

/* Writes LEN bytes at P to W's descriptor; a stream writer that waits gives up when its
 * reader takes nothing for wait_ms. */
static void write_all(opscope_out_t *w, const char *p, size_t left) {
    while (left > 0) {
        ssize_t k = w->sock ? send(w->fd, p, left, MSG_NOSIGNAL | (w->wait_ms > 0 ? MSG_DONTWAIT : 0))
                            : write(w->fd, p, left);
        if (k < 0 && errno == EINTR) {
            continue;
        }
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && w->wait_ms > 0) {
            struct pollfd pf = {.fd = w->fd, .events = POLLOUT};
            int r = poll(&pf, 1, w->wait_ms);
            if (r != 0) {
                continue; /* ready, or an error the next write says */
            }
            fail(w, ETIMEDOUT, "its reader took nothing for the whole wait");
            return;
        }
        if (k < 0) {
            fail(w, errno, errno == EPIPE ? "its reader went away" : NULL);
            return;
        }
        p += k;
        left -= (size_t)k;
    }
}

static void flush_buf(opscope_out_t *w) {
    if (w->failed || w->len == 0) {
        w->len = 0;
        return;
    }
    if (w->fd < 0) {
        if (fwrite(w->buf, 1, w->len, w->fp) != w->len) {
            w->failed = true;
            w->err_no = errno ? errno : EIO;
        }
        w->len = 0;
        return;
    }
    /* A pipe's reader gone raises SIGPIPE in the writing thread: held off (and taken back
     * when it was ours) where the writer waits for its reader, a capture in a host program. */
    bool hold = w->pipe && w->wait_ms > 0;
    sigset_t only_pipe, old, pending;
    bool was_pending = false;
    if (hold) {
        sigemptyset(&only_pipe);
        sigaddset(&only_pipe, SIGPIPE);
        pthread_sigmask(SIG_BLOCK, &only_pipe, &old);
        was_pending = sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE);
    }
    if (w->z) {
        gz_write(w, w->buf, w->len, Z_NO_FLUSH);
    } else {
        write_all(w, w->buf, w->len);
    }
    if (hold) {
        if (!was_pending && w->err_no == EPIPE) {
            struct timespec zero = {0, 0};
            while (sigtimedwait(&only_pipe, NULL, &zero) < 0 && errno == EINTR) {
            }
        }
        pthread_sigmask(SIG_SETMASK, &old, NULL);
    }
    w->len = 0;
}

bool opscope_out_failed(const opscope_out_t *w) { return w->failed; }
uint64_t opscope_out_bytes(const opscope_out_t *w) { return w->total; }

void opscope_out_write(opscope_out_t *w, const void *data, size_t len) {
    w->total += len;
    if (w->len + len > OUT_BUF_SIZE) {
        flush_buf(w);
        if (len > OUT_BUF_SIZE / 2) {
            /* Large block: write straight through. */
            size_t saved_len = len;
            const char *p = data;
            while (len > 0) {
                size_t k = len < OUT_BUF_SIZE ? len : OUT_BUF_SIZE;
                memcpy(w->buf, p, k);
                w->len = k;
                flush_buf(w);
                p += k;
                len -= k;
            }
            (void)saved_len;
            return;
        }
    }
    memcpy(w->buf + w->len, data, len);
    w->len += len;
}

void opscope_out_str(opscope_out_t *w, const char *s) { opscope_out_write(w, s, strlen(s)); }

void opscope_out_char(opscope_out_t *w, char c) {
    if (w->len + 1 > OUT_BUF_SIZE) flush_buf(w);
    w->buf[w->len++] = c;
    w->total++;
}

void opscope_out_u64(opscope_out_t *w, uint64_t v) {
    char tmp[24];
    int i = 24;
    do {
        tmp[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    opscope_out_write(w, tmp + i, (size_t)(24 - i));
}

void opscope_out_i64(opscope_out_t *w, int64_t v) {
    if (v < 0) {
        opscope_out_char(w, '-');
        opscope_out_u64(w, (uint64_t)0 - (uint64_t)v);
    } else {
        opscope_out_u64(w, (uint64_t)v);
    }
}

void opscope_out_fixed(opscope_out_t *w, double v, int decimals) {
    char tmp[64];
    if (!isfinite(v)) {
        opscope_out_str(w, isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf"));
        return;
    }
    if (decimals < 0) decimals = 0;
    if (decimals > 9) decimals = 9;
    int n = snprintf(tmp, sizeof tmp, "%.*f", decimals, v);
    if (n > 0) opscope_out_write(w, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

void opscope_out_double(opscope_out_t *w, double v) {
    if (!isfinite(v)) {
        opscope_out_str(w, "null");
        return;
    }
    if (v == (double)(int64_t)v && fabs(v) < 9.0e15) {
        opscope_out_i64(w, (int64_t)v);
        return;
    }
    char tmp[40];
    /* Shortest of %.15g..%.17g that round-trips. */
    for (int prec = 15; prec <= 17; prec++) {
        int n = snprintf(tmp, sizeof tmp, "%.*g", prec, v);
        if (prec == 17 || strtod(tmp, NULL) == v) {
            opscope_out_write(w, tmp, (size_t)n);
            return;
        }
    }
}

void opscope_out_ns_as_us(opscope_out_t *w, uint64_t ns) {
    opscope_out_u64(w, ns / 1000);
    uint64_t frac = ns % 1000;
    if (frac == 0) return;
    char tmp[4] = {'.', (char)('0' + frac / 100), (char)('0' + frac / 10 % 10),
                   (char)('0' + frac % 10)};
    size_t n = 4;
    while (tmp[n - 1] == '0') n--;
    opscope_out_write(w, tmp, n);
}

/* Length of the valid UTF-8 sequence at S (max LEFT bytes), 0 if invalid. */
static size_t utf8_len(const unsigned char *s, size_t left) {
    unsigned c = s[0];
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) return left >= 2 && (s[1] & 0xC0) == 0x80 ? 2 : 0;
    if (c >= 0xE0 && c <= 0xEF) {
        if (left < 3 || (s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80) return 0;
        if (c == 0xE0 && s[1] < 0xA0) return 0;
        if (c == 0xED && s[1] > 0x9F) return 0;
        return 3;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        if (left < 4 || (s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80 || (s[3] & 0xC0) != 0x80)
            return 0;
        if (c == 0xF0 && s[1] < 0x90) return 0;
        if (c == 0xF4 && s[1] > 0x8F) return 0;
        return 4;
    }
    return 0;
}

void opscope_out_json_strn(opscope_out_t *w, const char *s, size_t len) {
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)s;
    const unsigned char *end = p + len;
    opscope_out_char(w, '"');
    const unsigned char *run = p;
    while (p < end) {
        unsigned c = *p;
        if (c >= 0x20 && c < 0x7F && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&') {
            p++;
            continue;
        }
        size_t ulen = c >= 0x80 ? utf8_len(p, (size_t)(end - p)) : 1;
        if (c >= 0x80 && ulen > 0) {
            p += ulen;
            continue;
        }
        opscope_out_write(w, run, (size_t)(p - run));
        if (c >= 0x80) {
            opscope_out_str(w, "\\ufffd");
        } else if (c == '"') {
            opscope_out_str(w, "\\\"");
        } else if (c == '\\') {
            opscope_out_str(w, "\\\\");
        } else if (c == '\n') {
            opscope_out_str(w, "\\n");
        } else if (c == '\t') {
            opscope_out_str(w, "\\t");
        } else if (c == '\r') {
            opscope_out_str(w, "\\r");
        } else {
            /* control characters and, so JSON can sit inside <script>, < > & */
            char esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            opscope_out_write(w, esc, 6);
        }
        p++;
        run = p;
    }
    opscope_out_write(w, run, (size_t)(p - run));
    opscope_out_char(w, '"');
}

void opscope_out_json_str(opscope_out_t *w, const char *s) {
    if (!s) {
        opscope_out_str(w, "null");
        return;
    }
    opscope_out_json_strn(w, s, strlen(s));
}

void opscope_out_printf(opscope_out_t *w, const char *fmt, ...) {
    char tmp[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n < sizeof tmp) {
        opscope_out_write(w, tmp, (size_t)n);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (!big) {
        w->failed = true;
        w->err_no = ENOMEM;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    opscope_out_write(w, big, (size_t)n);
    free(big);
}

static void out_free(opscope_out_t *w) {
    gz_end(w);
    if (w->std) {
        funlockfile(w->std);
    }
    free(w->name);
    free(w->path);
    free(w->tmp);
    free(w);
}

int opscope_out_commit(opscope_out_t *w, opscope_error *err) {
    flush_buf(w);
    if (w->z && !w->failed) {
        gz_write(w, "", 0, Z_FINISH);
    }
    if (w->fp && !w->failed && fflush(w->fp) != 0) {
        w->failed = true;
        w->err_no = errno;
    }
    if (w->owns_fd) {
        if (close(w->fd) != 0 && !w->failed) {
            w->failed = true;
            w->err_no = errno;
        }
        w->owns_fd = false;
    }
    if (w->failed) {
        set_io_error(err, w->path ? w->path : w->name ? w->name : "-", w->why ? w->why : "write failed",
                     w->err_no);
        if (w->tmp) unlink(w->tmp);
        out_free(w);
        return -1;
    }
    if (w->path && rename(w->tmp, w->path) != 0) {
        int e = errno;
        set_io_error(err, w->path, "cannot rename temporary file into place", e);
        unlink(w->tmp);
        out_free(w);
        return -1;
    }
    out_free(w);
    return 0;
}

int opscope_out_commit_take(opscope_out_t **w, opscope_error *err) {
    opscope_out_t *x = *w;
    *w = NULL;
    return opscope_out_commit(x, err);
}

void opscope_out_abort(opscope_out_t *w) {
    if (!w) return;
    if (w->owns_fd) {
        close(w->fd);
        if (w->tmp) unlink(w->tmp);
    } else {
        flush_buf(w); /* stdout / FILE *: what was written is already visible */
    }
    out_free(w);
}
