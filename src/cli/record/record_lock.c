/*
 * record_lock.c - one `opscope record` per output at a time (see record.h).
 *
 * Two records of one FILE at once would both own FILE (each run's capture claims it in its
 * own run directory) and the later write would replace the earlier profile. The lock is an
 * flock on ".FILE.opscope-lock" beside FILE, holding the owner's pid: the kernel drops it
 * when record ends however it ends, so a stale file never blocks anyone. A record that finds
 * FILE held takes the first free FILE-2.EXT, FILE-3.EXT...: free means unlocked and not on
 * disk (an earlier run's profile of that name is kept), checked under its own lock.
 */
#include "cli/record/record_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_ALTERNATIVES 100

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

enum lock_result { LOCK_TAKEN, LOCK_HELD, LOCK_NONE };

/* Tries to take the lock of PATH without waiting. LOCK_HELD sets *PID to the holder's pid
 * (or -1); LOCK_NONE: no lock file can be made there (the caller goes on unlocked). */
static enum lock_result try_lock(const char *path, long *pid) {
    const char *slash = strrchr(path, '/');
    int dir = slash ? (int)(slash - path) + 1 : 0;
    int m = snprintf(g_lock_path, sizeof g_lock_path, "%.*s.%s.opscope-lock", dir, path, path + dir);
    if (m < 0 || (size_t)m >= sizeof g_lock_path) {
        return LOCK_NONE;
    }
    for (int tries = 0; tries < 5; tries++) {
        int fd = open(g_lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
        if (fd < 0) {
            return LOCK_NONE;
        }
        if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
            int e = errno;
            *pid = e == EWOULDBLOCK ? holder(fd) : -1;
            close(fd);
            return e == EWOULDBLOCK ? LOCK_HELD : LOCK_NONE;
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
            return LOCK_TAKEN;
        }
        close(fd);
    }
    return LOCK_NONE;
}

/* BASE with "-K" before its extension (the last '.' of its file name, not a leading one). */
static int alternative(const char *base, int k, char *out, size_t size) {
    const char *slash = strrchr(base, '/');
    const char *name = slash ? slash + 1 : base;
    const char *dot = strrchr(name, '.');
    size_t stem = dot && dot > name ? (size_t)(dot - base) : strlen(base);
    int m = snprintf(out, size, "%.*s-%d%s", (int)stem, base, k, base + stem);
    return m < 0 || (size_t)m >= size ? -1 : 0;
}

int opscope_rec_lock(char *outpath, size_t size) {
    long pid = -1;
    enum lock_result r = try_lock(outpath, &pid);
    if (r != LOCK_HELD) {
        return 0; /* taken, or no lock file can be made there: unlocked, as before */
    }
    long first = pid;
    char cand[PATH_MAX + 32];
    for (int k = 2; k <= MAX_ALTERNATIVES; k++) {
        if (alternative(outpath, k, cand, sizeof cand) != 0 || strlen(cand) >= size) {
            break;
        }
        r = try_lock(cand, &pid);
        if (r == LOCK_NONE) {
            break;
        }
        if (r == LOCK_HELD) {
            continue;
        }
        if (access(cand, F_OK) == 0) { /* an earlier run's profile: kept */
            opscope_rec_unlock();
            continue;
        }
        fprintf(stderr, "opscope record: %s is being recorded by another opscope record", outpath);
        if (first > 0) fprintf(stderr, " (pid %ld)", first);
        fprintf(stderr, "; this one writes %s\n", cand);
        memcpy(outpath, cand, strlen(cand) + 1);
        return 0;
    }
    fprintf(stderr, "opscope record: %s is being recorded by another opscope record", outpath);
    if (first > 0) fprintf(stderr, " (pid %ld)", first);
    fprintf(stderr, " and no other name beside it is free; nothing run: give this one another -o\n");
    return -1;
}

void opscope_rec_unlock(void) {
    if (g_lock_fd < 0) {
        return;
    }
    unlink(g_lock_path); /* while still held: a waiting record then makes a fresh file */
    close(g_lock_fd);
    g_lock_fd = -1;
}
