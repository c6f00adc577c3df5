/* cap_ctl.c - the capture's control channel (see cap_ctl.h). */
#include "capture/life/cap_ctl.h"

#include "capture/store/cap_clock.h"
#include "capture/store/cap_window.h"
#include "model/oplog_win.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

/* How long a peer may take to send its line, and a stop to wait for the window's computes. */
#define CTL_READ_MS 1000
#define CTL_STOP_WAIT_MS 30000
/* A command line: "mark " and a text of at most OPSCOPE_WIN_MAX_TEXT bytes, with room for a
 * longer one to be cut rather than refused. */
#define CTL_LINE 1024

static int g_fd = -1;
static int g_wake[2] = {-1, -1};
static char g_path[sizeof(((struct sockaddr_un *)0)->sun_path)];

int opscope_cap_ctl_open(const char *dir, char *why, size_t why_size) {
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    int n = snprintf(a.sun_path, sizeof a.sun_path, "%s/ctl.%ld", dir, (long)getpid());
    if (n < 0 || (size_t)n >= sizeof a.sun_path) {
        snprintf(why, why_size, "the run's folder %s is too long for a socket's path", dir);
        return -1;
    }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        snprintf(why, why_size, "socket: %s", strerror(errno));
        return -1;
    }
    unlink(a.sun_path); /* a socket an earlier process of this pid left */
    /* the folder is the run's, mode 0700 (mkdtemp): no other user reaches the socket before
     * its own mode is set */
    if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || chmod(a.sun_path, 0600) != 0 || listen(fd, 8) != 0) {
        snprintf(why, why_size, "%s: %s", a.sun_path, strerror(errno));
        close(fd);
        unlink(a.sun_path);
        return -1;
    }
    if (pipe2(g_wake, O_NONBLOCK | O_CLOEXEC) != 0) {
        g_wake[0] = g_wake[1] = -1; /* the watcher then polls in slices (cap_life.c) */
    }
    memcpy(g_path, a.sun_path, sizeof g_path);
    g_fd = fd;
    return 0;
}

int opscope_cap_ctl_fd(void) {
    return g_fd;
}

int opscope_cap_ctl_wake_fd(void) {
    return g_wake[0];
}

void opscope_cap_ctl_wake(void) {
    if (g_wake[1] >= 0) {
        int e = errno;
        ssize_t w = write(g_wake[1], "w", 1);
        (void)w; /* full: a wake is already pending */
        errno = e;
    }
}

void opscope_cap_ctl_drain(void) {
    char buf[64];
    while (g_wake[0] >= 0 && read(g_wake[0], buf, sizeof buf) > 0) {
    }
}

/* The peer's line (up to '\n' or its end) into LINE, within CTL_READ_MS: its length, or -1
 * (nothing in time, an error, no newline in CTL_LINE bytes). */
static int read_line(int c, char *line) {
    size_t n = 0;
    uint64_t until = opscope_cap_mono_ns() + (uint64_t)CTL_READ_MS * 1000000u;
    while (n < CTL_LINE - 1) {
        uint64_t now = opscope_cap_mono_ns();
        if (now >= until) return -1;
        struct pollfd p = {.fd = c, .events = POLLIN};
        int r = poll(&p, 1, (int)((until - now) / 1000000u) + 1);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        ssize_t k = recv(c, line + n, CTL_LINE - 1 - n, 0);
        if (k < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (k <= 0) break; /* the peer closed: what came is the line */
        char *nl = memchr(line + n, '\n', (size_t)k);
        n += (size_t)k;
        if (nl) {
            n = (size_t)(nl - line);
            break;
        }
    }
    if (n >= CTL_LINE - 1) return -1;
    line[n] = '\0';
    return (int)n;
}

/* The answer to command LINE (LEN bytes) into OUT. */
static void act(const char *line, int len, char *out, size_t size) {
    size_t nw, nm;
    opscope_window w;
    opscope_mark m;
    if (strcmp(line, "start") == 0) {
        int rc = opscope_cap_window_start(opscope_cap_mono_ns());
        opscope_cap_window_get(&w, 0, &nw, &m, 0, &nm);
        if (rc < 0) snprintf(out, size, "err the capture holds %u windows, its most: no more open\n", OPSCOPE_WIN_MAX_WINDOWS);
        else snprintf(out, size, rc ? "ok already recording\n" : "ok started %zu\n", nw);
    } else if (strcmp(line, "stop") == 0) {
        int rc = opscope_cap_window_stop(CTL_STOP_WAIT_MS);
        opscope_cap_window_get(&w, 0, &nw, &m, 0, &nm);
        if (rc == 1) snprintf(out, size, "ok already paused\n");
        else if (rc == 2) snprintf(out, size, "ok stopped %zu (a graph compute begun in it was still running after %d s)\n", nw, CTL_STOP_WAIT_MS / 1000);
        else snprintf(out, size, "ok stopped %zu\n", nw);
    } else if (strncmp(line, "mark ", 5) == 0 || strcmp(line, "mark") == 0) {
        const char *t = line[4] ? line + 5 : "";
        if (opscope_cap_window_mark(opscope_cap_mono_ns(), t, (size_t)len - (size_t)(t - line)) != 0) {
            snprintf(out, size, "err the capture holds %u marks, its most: no more\n", OPSCOPE_WIN_MAX_MARKS);
        } else {
            opscope_cap_window_get(&w, 0, &nw, &m, 0, &nm);
            snprintf(out, size, "ok marked %zu\n", nm);
        }
    } else if (strcmp(line, "status") == 0) {
        bool windowed = opscope_cap_window_get(&w, 0, &nw, &m, 0, &nm); /* room for none: the counts */
        bool on = atomic_load(&opscope_cap_window_on);
        snprintf(out, size, "ok %s windowed=%d windows=%zu marks=%zu pid=%ld\n", on ? "recording" : "paused", windowed,
                 nw, nm, (long)getpid());
    } else {
        snprintf(out, size, "err unknown command (start, stop, mark TEXT, status)\n");
    }
}

static void serve_one(int c) {
    char out[256];
    struct ucred cr;
    socklen_t len = sizeof cr;
    if (getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cr, &len) != 0 || cr.uid != getuid()) {
        snprintf(out, sizeof out, "err this capture is another user's\n");
    } else {
        char line[CTL_LINE];
        int n = read_line(c, line);
        if (n < 0) snprintf(out, sizeof out, "err no command line within %d ms\n", CTL_READ_MS);
        else act(line, n, out, sizeof out);
    }
    /* never SIGPIPE the program: a peer gone is just gone */
    ssize_t w = send(c, out, strlen(out), MSG_NOSIGNAL | MSG_DONTWAIT);
    (void)w;
    close(c);
}

void opscope_cap_ctl_serve(void) {
    for (int k = 0; g_fd >= 0 && k < 16; k++) {
        int c = accept4(g_fd, NULL, NULL, SOCK_CLOEXEC);
        if (c < 0 && errno == EINTR) continue;
        if (c < 0) return; /* none waiting (EAGAIN), or a transient error: the next poll retries */
        /* accept4 may hand the listener's O_NONBLOCK down or not: read_line polls either way */
        serve_one(c);
    }
}

void opscope_cap_ctl_unlink(void) {
    if (g_fd >= 0 && g_path[0]) {
        unlink(g_path);
        g_path[0] = '\0';
    }
}
