/* runs.c - the captures running, found in /proc (see runs.h). */
#include "cli/record/runs.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The value of NAME= in /proc/PID/environ, copied into OUT; false when absent or unreadable
 * (another user's process, one gone). */
bool opscope_runs_env_of(long pid, const char *name, char *out, size_t size) {
    char p[64], buf[65536];
    snprintf(p, sizeof p, "/proc/%ld/environ", pid);
    int fd = open(p, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return false;
    buf[n] = '\0';
    size_t nl = strlen(name);
    for (char *s = buf; s < buf + n; s += strlen(s) + 1) {
        if (!strncmp(s, name, nl) && s[nl] == '=') {
            snprintf(out, size, "%s", s + nl + 1);
            return true;
        }
    }
    return false;
}

/* PID's capture output: GGML_PROFILE naming a file (made absolute from the process's cwd),
 * when the process runs the capture. False otherwise. */
bool opscope_runs_capture_of(long pid, char *out, size_t size) {
    char prof[PATH_MAX], v[PATH_MAX];
    struct stat sb;
    snprintf(v, sizeof v, "/proc/%ld", pid);
    if (stat(v, &sb) != 0 || sb.st_uid != getuid()) return false; /* this user's runs only, root too */
    if (!opscope_runs_env_of(pid, "GGML_PROFILE", prof, sizeof prof) || !prof[0]) return false;
    if (!strcmp(prof, "stderr") || !strcmp(prof, "stdout") || !strcmp(prof, "-")) return false;
    bool under = opscope_runs_env_of(pid, "OPSCOPE_RECORD_DIR", v, sizeof v) ||
                 (opscope_runs_env_of(pid, "LD_PRELOAD", v, sizeof v) && strstr(v, "libopscope"));
    if (!under) return false;
    if (prof[0] == '/') {
        snprintf(out, size, "%s", prof);
        return true;
    }
    char link[64], cwd[PATH_MAX];
    snprintf(link, sizeof link, "/proc/%ld/cwd", pid);
    ssize_t n = readlink(link, cwd, sizeof cwd - 1);
    if (n <= 0) return false;
    cwd[n] = '\0';
    return snprintf(out, size, "%s/%s", cwd, prof) < (int)size;
}

long opscope_runs_parent_of(long pid) {
    char p[64], buf[4096];
    snprintf(p, sizeof p, "/proc/%ld/status", pid);
    FILE *f = fopen(p, "r");
    long pp = -1;
    if (!f) return -1;
    while (fgets(buf, sizeof buf, f))
        if (sscanf(buf, "PPid: %ld", &pp) == 1) break;
    fclose(f);
    return pp;
}

/* The captures running (of PARENT's children when PARENT > 0), one per output path, into RUNS
 * (room for MAX). Returns how many were found (may exceed MAX: the rest not kept). */
size_t opscope_runs_find(long parent, opscope_found_run *runs, size_t max) {
    DIR *d = opendir("/proc");
    size_t n = 0;
    if (!d) return 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (!isdigit((unsigned char)e->d_name[0])) continue;
        long pid = strtol(e->d_name, NULL, 10);
        char path[PATH_MAX];
        if (pid == (long)getpid() || (parent > 0 && opscope_runs_parent_of(pid) != parent) || !opscope_runs_capture_of(pid, path, sizeof path))
            continue;
        bool seen = false;
        for (size_t i = 0; i < n && i < max; i++) seen |= !strcmp(runs[i].path, path);
        if (seen) continue;
        if (n < max) {
            runs[n].pid = pid;
            snprintf(runs[n].path, sizeof runs[n].path, "%s", path);
            if (!opscope_runs_env_of(pid, "OPSCOPE_RECORD_DIR", runs[n].dir, sizeof runs[n].dir)) runs[n].dir[0] = '\0';
        }
        n++;
    }
    closedir(d);
    return n;
}
