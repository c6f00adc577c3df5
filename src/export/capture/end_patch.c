/*
 * end_patch.c - rewrites a checkpoint profile's capture "end" (see end_patch.h).
 */
#include "export/capture/end_patch.h"
#include "util/oplog.h"
#include "util/out.h"

#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static const char NEEDLE[] = "\"end\":{\"how\":\"checkpoint\"";
#define NEEDLE_LEN (sizeof NEEDLE - 1)
#define CHUNK (1u << 20)

/* The offset of the last NEEDLE in FD, or -1. */
static long long find_last(int fd, char *buf) {
    long long last = -1, base = 0;
    size_t keep = 0;
    for (;;) {
        ssize_t n = read(fd, buf + keep, CHUNK);
        if (n <= 0) {
            return n < 0 ? -1 : last;
        }
        size_t len = keep + (size_t)n;
        for (const char *p = buf; (p = memmem(p, len - (size_t)(p - buf), NEEDLE, NEEDLE_LEN)); p++) {
            last = base + (p - buf);
        }
        keep = len < NEEDLE_LEN - 1 ? len : NEEDLE_LEN - 1;
        memmove(buf, buf + len - keep, keep);
        base += (long long)(len - keep);
    }
}

/* Copies FD's bytes [from, to) (to < 0: to its end) into W. */
static bool copy_range(int fd, opscope_out_t *w, char *buf, long long from, long long to) {
    while (to < 0 || from < to) {
        size_t want = to < 0 || to - from > CHUNK ? CHUNK : (size_t)(to - from);
        ssize_t n = pread(fd, buf, want, from);
        if (n < 0) {
            return false;
        }
        if (n == 0) {
            return to < 0;
        }
        opscope_out_write(w, buf, (size_t)n);
        from += n;
    }
    return true;
}

/* A record log (util/oplog.h): its last END chunk must say "checkpoint"; a chunk that
 * says HOW is appended after the last whole chunk (a write the death cut is cut off first).
 * The log stays a log: every chunk before is untouched. */
static int patch_log(int fd, const char *how, const char *sig, unsigned long long died_ns) {
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_size < (off_t)OPSCOPE_OPLOG_HEAD) {
        return -1;
    }
    size_t size = (size_t)st.st_size;
    unsigned char *d = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (d == MAP_FAILED) {
        return -1;
    }
    size_t off = OPSCOPE_OPLOG_HEAD, next;
    uint64_t at_ns = 0;
    bool ckpt = false;
    uint32_t type, len;
    const unsigned char *p;
    while ((next = opscope_oplog_chunk_at(d, size, off, &type, &p, &len)) != 0) {
        if (type == OPSCOPE_OPLOG_END) {
            opscope_oplog_cur c = {p, p + len, false};
            size_t n;
            const char *h = opscope_oplog_get_str(&c, &n);
            (void)opscope_oplog_get_str(&c, &n);
            at_ns = opscope_oplog_get_u(&c);
            ckpt = !c.bad && h && strcmp(h, "checkpoint") == 0;
        }
        off = next;
    }
    munmap(d, size);
    opscope_oplog_buf b = {0};
    int e = opscope_oplog_put_str(&b, how) | opscope_oplog_put_str(&b, sig) | opscope_oplog_put_u(&b, at_ns) |
            opscope_oplog_put_u(&b, died_ns);
    unsigned char head[OPSCOPE_OPLOG_CHUNK_HEAD];
    int rc = -1;
    if (ckpt && !e && ftruncate(fd, (off_t)off) == 0) {
        opscope_oplog_chunk_head(head, OPSCOPE_OPLOG_END, b.v, (uint32_t)b.n);
        rc = pwrite(fd, head, sizeof head, (off_t)off) == (ssize_t)sizeof head &&
                     pwrite(fd, b.v, b.n, (off_t)(off + sizeof head)) == (ssize_t)b.n
                 ? 0 : -1;
        if (rc) {
            (void)ftruncate(fd, (off_t)off); /* no half chunk left behind */
        }
    }
    free(b.v);
    return rc;
}

int opscope_end_patch(const char *path, const char *how, const char *sig, unsigned long long died_ns) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return -1;
    }
    unsigned char magic[OPSCOPE_OPLOG_HEAD];
    if (pread(fd, magic, sizeof magic, 0) == (ssize_t)sizeof magic && opscope_oplog_is_log(magic, sizeof magic)) {
        close(fd);
        fd = open(path, O_RDWR | O_CLOEXEC);
        if (fd < 0) {
            return -1;
        }
        int rc = patch_log(fd, how, sig, died_ns);
        close(fd);
        return rc;
    }
    char *buf = malloc(CHUNK + NEEDLE_LEN);
    long long at = buf ? find_last(fd, buf) : -1;
    long long close_at = -1;
    if (at >= 0) { /* the object's closing brace: it holds no nested object */
        char tail[256];
        ssize_t n = pread(fd, tail, sizeof tail, at);
        const char *c = n > 0 ? memchr(tail, '}', (size_t)n) : NULL;
        close_at = c ? at + (c - tail) : -1;
    }
    int rc = -1;
    opscope_error err = {0};
    opscope_out_t *w = close_at > 0 ? opscope_out_open(path, &err) : NULL;
    if (w) {
        bool ok = copy_range(fd, w, buf, 0, at);
        opscope_out_printf(w, "\"end\":{\"how\":\"%s\"", how);
        if (sig) {
            opscope_out_printf(w, ",\"signal\":\"%s\"", sig);
        }
        ok = ok && copy_range(fd, w, buf, at + (long long)NEEDLE_LEN, close_at);
        opscope_out_printf(w, ",\"died_ns\":%llu", died_ns);
        ok = ok && copy_range(fd, w, buf, close_at, -1);
        if (ok) {
            rc = opscope_out_commit(w, &err);
        } else {
            opscope_out_abort(w);
        }
    }
    free(buf);
    close(fd);
    return rc;
}
