/*
 * record.c - `opscope record [-o FILE] [--format json|txt|summary] -- CMD ARGS...`
 *
 * Runs CMD with the capture library preloaded (LD_PRELOAD, appended to any existing value)
 * and GGML_PROFILE pointing at the output, like `perf record`. The library is looked up in
 * $OPSCOPE_LIB, next to this executable, in the install's libdir relative to it (../lib or
 * ../lib/<multiarch>, fixed at build time: an installed tree can move), then ../lib and
 * ../lib/opscope (a build tree).
 * Children of CMD that use ggml write FILE.PID (the capture library's rule, docs/capture.md
 * "Children"); when CMD itself wrote no profile and exactly one child did, that one becomes
 * FILE (a launcher that only starts one ggml worker).
 * Exit status: CMD's own (128 + signal number when it was killed); 1 for usage errors;
 * 127 when CMD cannot be run.
 */
#include "cli/cli.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LIB_NAME "libopscope-ggml.so"

static void usage(FILE *f) {
    fputs("usage: opscope record [-o FILE] [--format json|txt|summary] -- CMD [ARGS...]\n"
          "\n"
          "Runs CMD (any ggml program: llama-cli, llama-server, whisper-cli...) with opscope's\n"
          "capture library preloaded and writes its per-op profile.\n"
          "\n"
          "  -o, --output FILE   where the profile goes (default: profile.json, or profile.txt\n"
          "                      with --format txt); children of CMD that use ggml write\n"
          "                      FILE.PID (a lone one becomes FILE when CMD wrote none)\n"
          "  --format F          json (default; opscope report reads it), txt (plain-text\n"
          "                      report) or summary (console summary on stderr, no file)\n"
          "  -h, --help          this help\n"
          "\n"
          "Environment: OPSCOPE_LIB (the library's path), OPSCOPE_MAX_MB (record memory cap,\n"
          "default 512), OPSCOPE_STATS=1 (capture statistics on stderr). See docs/capture.md.\n",
          f);
}

static bool is_file(const char *p) {
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* Whether P is a regular file written at or after START. START comes from the coarse real-time
 * clock, the one file times are taken from, so a file written after it never looks older. */
static bool written_since(const char *p, const struct timespec *start) {
    struct stat st;
    if (stat(p, &st) != 0 || !S_ISREG(st.st_mode)) {
        return false;
    }
    return st.st_mtim.tv_sec > start->tv_sec ||
           (st.st_mtim.tv_sec == start->tv_sec && st.st_mtim.tv_nsec >= start->tv_nsec);
}

/* Says what the run wrote: OUTPATH and the OUTPATH.PID files of child processes written since
 * START. A lone child profile becomes OUTPATH when the command wrote none itself. */
static void report_outputs(const char *outpath, const struct timespec *start) {
    char dir[PATH_MAX];
    size_t olen = strlen(outpath);
    if (olen >= sizeof dir) {
        return; /* no such file can exist */
    }
    memcpy(dir, outpath, olen + 1);
    char *slash = strrchr(dir, '/');
    const char *base = slash ? slash + 1 : outpath;
    if (slash) {
        *slash = '\0';
    }
    size_t blen = strlen(base);
    enum { SHOWN = 8 };
    char found[SHOWN][PATH_MAX + 264];
    int n = 0;
    DIR *d = opendir(slash ? (dir[0] ? dir : "/") : ".");
    for (struct dirent *e; d && (e = readdir(d));) {
        const char *s = e->d_name;
        if (strncmp(s, base, blen) != 0 || s[blen] != '.' || !s[blen + 1] ||
            strspn(s + blen + 1, "0123456789") != strlen(s + blen + 1)) {
            continue;
        }
        char full[PATH_MAX + 264]; /* dir, slash, d_name (up to 255) */
        snprintf(full, sizeof full, "%s/%s", slash ? dir : ".", s);
        if (written_since(full, start)) {
            if (n < SHOWN) {
                snprintf(found[n], sizeof found[n], "%s", full);
            }
            n++;
        }
    }
    if (d) {
        closedir(d);
    }
    bool own = written_since(outpath, start);
    if (!own && n == 1 && rename(found[0], outpath) == 0) {
        fprintf(stderr, "opscope record: profile written to %s (by child process %s; the command "
                        "itself ran no ggml graph)\n", outpath, strrchr(found[0], '.') + 1);
        return;
    }
    if (own) {
        fprintf(stderr, "opscope record: profile written to %s\n", outpath);
        if (n == 0) {
            return;
        }
    } else if (n == 0) {
        fprintf(stderr, "opscope record: no profile written (the command ran no ggml graph)\n");
        return;
    } else {
        fprintf(stderr, "opscope record: the command itself wrote no profile\n");
    }
    fprintf(stderr, "opscope record: %d child process%s wrote %s own:", n, n == 1 ? "" : "es",
            n == 1 ? "its" : "their");
    for (int k = 0; k < n && k < SHOWN; k++) {
        fprintf(stderr, " %s", found[k]);
    }
    fprintf(stderr, "%s\n", n > SHOWN ? " ..." : "");
}

/* Finds the library; fills OUT (absolute path). */
static bool find_lib(char *out, size_t size) {
    const char *env = getenv("OPSCOPE_LIB");
    if (env && *env) {
        if (!is_file(env)) {
            fprintf(stderr, "opscope record: OPSCOPE_LIB=%s: no such file\n", env);
            return false;
        }
        return realpath(env, out) != NULL || snprintf(out, size, "%s", env) > 0;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) {
        return false;
    }
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash) {
        return false;
    }
    *slash = '\0';
#ifndef OPSCOPE_REL_LIBDIR
#define OPSCOPE_REL_LIBDIR "../lib"
#endif
    static const char *const rel[] = {"", "/" OPSCOPE_REL_LIBDIR, "/../lib", "/../lib/opscope"};
    for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
        char cand[PATH_MAX + 64];
        snprintf(cand, sizeof cand, "%s%s/%s", exe, rel[i], LIB_NAME);
        if (is_file(cand) && realpath(cand, out)) {
            return true;
        }
    }
    (void)size;
    return false;
}

int opscope_cli_record(int argc, char **argv) {
    const char *output = NULL;
    const char *format = "json";
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) {
            i++;
            break;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return OPSCOPE_EXIT_OK;
        } else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "opscope record: %s needs a file name\n", a);
                return OPSCOPE_EXIT_USAGE;
            }
            output = argv[++i];
        } else if (!strcmp(a, "--format")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "opscope record: --format needs json, txt or summary\n");
                return OPSCOPE_EXIT_USAGE;
            }
            format = argv[++i];
            if (strcmp(format, "json") && strcmp(format, "txt") && strcmp(format, "summary")) {
                fprintf(stderr, "opscope record: unknown format '%s' (json, txt, summary)\n", format);
                return OPSCOPE_EXIT_USAGE;
            }
        } else if (a[0] == '-') {
            fprintf(stderr, "opscope record: unknown option '%s' (put the command after --)\n", a);
            return OPSCOPE_EXIT_USAGE;
        } else {
            break; /* the command, without -- */
        }
    }
    if (i >= argc) {
        fprintf(stderr, "opscope record: no command given\n");
        usage(stderr);
        return OPSCOPE_EXIT_USAGE;
    }
    bool summary = !strcmp(format, "summary");
    if (summary && output) {
        fprintf(stderr, "opscope record: --format summary writes no file; drop -o\n");
        return OPSCOPE_EXIT_USAGE;
    }
    char lib[PATH_MAX];
    if (!find_lib(lib, sizeof lib)) {
        fprintf(stderr, "opscope record: cannot find %s (set OPSCOPE_LIB to its path)\n", LIB_NAME);
        return OPSCOPE_EXIT_USAGE;
    }

    /* The output path, absolute (the command may change directory). */
    char outpath[PATH_MAX + 8];
    if (!summary) {
        if (!output) {
            output = !strcmp(format, "txt") ? "profile.txt" : "profile.json";
        }
        if (output[0] == '/') {
            snprintf(outpath, sizeof outpath, "%s", output);
        } else {
            char cwd[PATH_MAX];
            if (!getcwd(cwd, sizeof cwd)) {
                fprintf(stderr, "opscope record: cannot read the current directory\n");
                return OPSCOPE_EXIT_USAGE;
            }
            int m = snprintf(outpath, sizeof outpath, "%s/%s", cwd, output);
            if (m < 0 || (size_t)m >= sizeof outpath) {
                fprintf(stderr, "opscope record: output path too long\n");
                return OPSCOPE_EXIT_USAGE;
            }
        }
    }

    const char *old = getenv("LD_PRELOAD");
    size_t len = strlen(lib) + (old ? strlen(old) : 0) + 2;
    char *preload = malloc(len);
    if (!preload) {
        fprintf(stderr, "opscope record: out of memory\n");
        return OPSCOPE_EXIT_USAGE;
    }
    /* ours first: its definitions must win over ggml's */
    snprintf(preload, len, "%s%s%s", lib, old && *old ? ":" : "", old && *old ? old : "");
    setenv("LD_PRELOAD", preload, 1);
    free(preload);
    setenv("GGML_PROFILE", summary ? "stderr" : outpath, 1);
    setenv("OPSCOPE_FORMAT", format, 1);
    unsetenv("OPSCOPE_OWNER_PID"); /* the command owns the output, not an outer recording */

    struct timespec start;
    clock_gettime(CLOCK_REALTIME_COARSE, &start);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "opscope record: fork: %s\n", strerror(errno));
        return 127;
    }
    if (pid == 0) {
        execvp(argv[i], argv + i);
        fprintf(stderr, "opscope record: cannot run '%s': %s\n", argv[i], strerror(errno));
        _exit(127);
    }
    /* Like perf: Ctrl-C goes to the command (same process group); we wait for it. */
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            fprintf(stderr, "opscope record: waitpid: %s\n", strerror(errno));
            return 127;
        }
    }
    int rc = WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 127;
    if (rc == 127 && WIFEXITED(status)) {
        return rc;
    }
    if (!summary) {
        report_outputs(outpath, &start);
    }
    return rc;
}
