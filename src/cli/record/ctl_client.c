/* ctl_client.c - sends a command to a record run's capture processes (see ctl_client.h). */
#include "cli/record/ctl_client.h"

#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static long now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* CMD to the socket at PATH, its answer into A. */
static void ask(const char *path, const char *cmd, int timeout_ms, opscope_ctl_answer *a) {
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    size_t len = strlen(path);
    if (len >= sizeof sa.sun_path) {
        snprintf(a->line, sizeof a->line, "its control channel's path is too long for a socket");
        return;
    }
    memcpy(sa.sun_path, path, len + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        snprintf(a->line, sizeof a->line, "cannot reach its control channel: %s",
                 errno == ECONNREFUSED ? "it is gone (a socket left by a process that died)" : strerror(errno));
        if (fd >= 0) close(fd);
        return;
    }
    char msg[1100];
    int n = snprintf(msg, sizeof msg, "%s\n", cmd);
    if (n < 0 || (size_t)n >= sizeof msg || send(fd, msg, (size_t)n, MSG_NOSIGNAL) != n) {
        snprintf(a->line, sizeof a->line, "cannot send the command");
        close(fd);
        return;
    }
    size_t got = 0;
    long until = now_ms() + timeout_ms;
    while (got < sizeof a->line - 1) {
        long left = until - now_ms();
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (left <= 0 || poll(&p, 1, (int)left) <= 0) break;
        ssize_t k = recv(fd, a->line + got, sizeof a->line - 1 - got, 0);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) break;
        got += (size_t)k;
        if (memchr(a->line, '\n', got)) break;
    }
    close(fd);
    a->line[got] = '\0';
    a->line[strcspn(a->line, "\n")] = '\0';
    a->ok = strncmp(a->line, "ok", 2) == 0;
    if (!got) snprintf(a->line, sizeof a->line, "no answer within %d s", timeout_ms / 1000);
    size_t skip = a->ok ? 3 : strncmp(a->line, "err ", 4) == 0 ? 4 : 0, left = strlen(a->line);
    if (got && skip && left >= skip) memmove(a->line, a->line + skip, left - skip + 1); /* the word after ok / err */
}

size_t opscope_ctl_send(const char *dir, const char *cmd, int timeout_ms, opscope_ctl_answer *ans, size_t max) {
    DIR *d = opendir(dir);
    size_t n = 0;
    if (!d) return 0;
    for (struct dirent *e; (e = readdir(d));) {
        char *end;
        if (strncmp(e->d_name, "ctl.", 4) != 0) continue;
        long pid = strtol(e->d_name + 4, &end, 10);
        if (end == e->d_name + 4 || *end) continue;
        if (n < max) {
            opscope_ctl_answer *a = &ans[n];
            memset(a, 0, sizeof *a);
            a->pid = pid;
            char path[4200];
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            ask(path, cmd, timeout_ms, a);
        }
        n++;
    }
    closedir(d);
    return n;
}
