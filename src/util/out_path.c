/* out_path.c - output path kinds and stream opening (see out_path.h, out.h). */
#include "util/out_path.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* N when NAME is "/dev/stdout" (1) and the like, "/dev/fd/N" or "/proc/{self,thread-self,
 * our pid}/fd/N", else -1. By name only: nothing is opened or followed. */
static int name_fd(const char *name) {
    static const char *const std[] = {"/dev/stdin", "/dev/stdout", "/dev/stderr"};
    for (int i = 0; i < 3; i++) {
        if (!strcmp(name, std[i])) return i;
    }
    char self[48];
    snprintf(self, sizeof self, "/proc/%ld/fd/", (long)getpid());
    const char *const dirs[] = {"/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/", self};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        size_t n = strlen(dirs[i]);
        if (strncmp(name, dirs[i], n) != 0) continue;
        const char *d = name + n;
        if (*d < '0' || *d > '9' || strlen(d) > 9 || strspn(d, "0123456789") != strlen(d)) return -1;
        return atoi(d);
    }
    return -1;
}

int opscope_out_path_fd(const char *path) {
    char cur[4096];
    snprintf(cur, sizeof cur, "%s", path);
    for (int hops = 0; hops < 40; hops++) {
        int fd = name_fd(cur);
        if (fd >= 0) return fd;
        struct stat ls;
        if (lstat(cur, &ls) != 0 || !S_ISLNK(ls.st_mode)) return -1;
        char to[4096];
        ssize_t k = readlink(cur, to, sizeof to - 1);
        if (k <= 0) return -1;
        to[k] = '\0';
        char *slash = strrchr(cur, '/');
        if (to[0] == '/' || !slash) {
            memcpy(cur, to, (size_t)k + 1);
        } else if ((size_t)(slash - cur) + 1 + (size_t)k < sizeof cur) {
            memcpy(slash + 1, to, (size_t)k + 1);
        } else {
            return -1;
        }
    }
    return -1;
}

opscope_out_kind opscope_out_path_kind(const char *path) {
    if (!path || !strcmp(path, "-") || opscope_out_path_fd(path) >= 0) {
        return OPSCOPE_OUT_KIND_STREAM;
    }
    struct stat st;
    if (stat(path, &st) != 0 || S_ISREG(st.st_mode)) {
        return OPSCOPE_OUT_KIND_FILE; /* a new name (or a dangling link): made as a file */
    }
    return S_ISDIR(st.st_mode) ? OPSCOPE_OUT_KIND_DIR : OPSCOPE_OUT_KIND_STREAM;
}

static uint64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Descriptor N of this process as a stream. A regular file behind it is written through the
 * program's own file description (its offset: after the program's output); a pipe or device
 * through a new description when WAIT_MS asks for non-blocking writes (flags are per
 * description: the program's own must never change); a socket through a duplicate, written
 * with MSG_DONTWAIT. */
static int open_fd(int n, int wait_ms, opscope_out_stream *s, const char **why) {
    struct stat st;
    int fl = fcntl(n, F_GETFL);
    if (fl < 0 || fstat(n, &st) != 0) {
        *why = "the descriptor it names is not open";
        errno = EBADF;
        return -1;
    }
    if ((fl & O_ACCMODE) == O_RDONLY) {
        *why = "the descriptor it names is open for reading only";
        errno = EBADF;
        return -1;
    }
    s->sock = S_ISSOCK(st.st_mode);
    s->pipe = S_ISFIFO(st.st_mode);
    if (wait_ms > 0 && !s->sock && !S_ISREG(st.st_mode)) {
        char p[48];
        snprintf(p, sizeof p, "/proc/self/fd/%d", n);
        s->fd = open(p, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
        if (s->fd >= 0) return 0;
    }
    s->shared = true;
    s->fd = fcntl(n, F_DUPFD_CLOEXEC, 3);
    if (s->fd < 0) {
        *why = "cannot duplicate the descriptor it names";
        return -1;
    }
    return 0;
}

/* A listening Unix socket at PATH, connected to. */
static int open_socket(const char *path, int wait_ms, opscope_out_stream *s, const char **why) {
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof a.sun_path) {
        *why = "the socket's path is too long to connect to";
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(a.sun_path, path, strlen(path) + 1);
    s->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | (wait_ms > 0 ? SOCK_NONBLOCK : 0), 0);
    if (s->fd < 0) {
        *why = "cannot make a socket";
        return -1;
    }
    if (connect(s->fd, (const struct sockaddr *)&a, sizeof a) != 0) {
        int e = errno;
        close(s->fd);
        s->fd = -1;
        *why = "no one accepts a connection on the socket";
        errno = e;
        return -1;
    }
    s->sock = true;
    return 0;
}

int opscope_out_stream_open(const char *path, int wait_ms, opscope_out_stream *s, const char **why) {
    memset(s, 0, sizeof *s);
    s->fd = -1;
    *why = "cannot open output";
    int n = opscope_out_path_fd(path);
    if (n >= 0) {
        return open_fd(n, wait_ms, s, why);
    }
    struct stat st;
    if (stat(path, &st) == 0 && S_ISSOCK(st.st_mode)) {
        return open_socket(path, wait_ms, s, why);
    }
    s->pipe = stat(path, &st) == 0 && S_ISFIFO(st.st_mode);
    int flags = O_WRONLY | O_CLOEXEC | (wait_ms > 0 ? O_NONBLOCK : 0);
    uint64_t until = now_ms() + (uint64_t)(wait_ms > 0 ? wait_ms : 0);
    for (;;) {
        s->fd = open(path, flags);
        if (s->fd >= 0) return 0;
        /* a FIFO opened for writing without blocking: ENXIO until a reader opens it */
        if (errno != ENXIO || !s->pipe || now_ms() >= until) break;
        struct timespec ten = {0, 10 * 1000000};
        nanosleep(&ten, NULL);
    }
    if (errno == ENXIO && s->pipe) {
        *why = "no reader opened the FIFO";
    }
    return -1;
}
