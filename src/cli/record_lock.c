/*
 * record_lock.c - one `opscope record` per output at a time (see record.h).
 *
 * Two records of one FILE at once would both own FILE (each run's capture claims it in its
 * own run directory) and the later write would replace the earlier profile. The lock is an
 * flock on ".FILE.opscope-lock" beside FILE, holding the owner's pid: the kernel drops it
 * when record ends however it ends, so a stale file never blocks anyone.
 */
#include "cli/record.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static char g_lock_path[PATH_MAX + 32];
static int g_lock_fd = -1;

/* The pid written in the lock file FD, or -1. */
static long holder(int fd) {
    char buf[32];
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    long pid = -1;
    if (n > 0) {
        buf[n] = '\0';
        if (sscanf(buf, "%ld", &pid) != 1) pid = -1;
    }
    return pid;
}

int opscope_rec_lock(const char *outpath) {
    const char *slash = strrchr(outpath, '/');
    int dir = slash ? (int)(slash - outpath) + 1 : 0;
    int m = snprintf(g_lock_path, sizeof g_lock_path, "%.*s.%s.opscope-lock", dir, outpath, outpath + dir);
    if (m < 0 || (size_t)m >= sizeof g_lock_path) {
        return 0; /* no room for the name: go on unlocked, as before */
    }
    for (int tries = 0; tries < 5; tries++) {
        int fd = open(g_lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
        if (fd < 0) {
            return 0; /* a folder that takes the profile but not this file: unlocked */
        }
        if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
            long pid = errno == EWOULDBLOCK ? holder(fd) : -1;
            close(fd);
            if (pid < 0 && errno != EWOULDBLOCK) {
                return 0;
            }
            fprintf(stderr, "opscope record: %s is being recorded by another opscope record", outpath);
            if (pid > 0) fprintf(stderr, " (pid %ld)", pid);
            fprintf(stderr, "; nothing run: give this one another -o, or wait for that one to end\n");
            return -1;
        }
        /* The file may have been removed by its last holder between our open and our lock. */
        struct stat a, b;
        if (fstat(fd, &a) == 0 && stat(g_lock_path, &b) == 0 && a.st_ino == b.st_ino && a.st_dev == b.st_dev) {
            char me[32];
            int n = snprintf(me, sizeof me, "%ld\n", (long)getpid());
            if (ftruncate(fd, 0) == 0 && pwrite(fd, me, (size_t)n, 0) != n) {
                /* the pid is only for the message of a second record */
            }
            g_lock_fd = fd;
            return 0;
        }
        close(fd);
    }
    return 0;
}

void opscope_rec_unlock(void) {
    if (g_lock_fd < 0) {
        return;
    }
    unlink(g_lock_path); /* while still held: a waiting record then makes a fresh file */
    close(g_lock_fd);
    g_lock_fd = -1;
}
