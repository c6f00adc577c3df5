/*
 * record.c - `opscope record [-o FILE] [--format json|txt|summary] -- CMD ARGS...`
 *
 * Runs CMD with the capture library preloaded (LD_PRELOAD, appended to any existing value)
 * and GGML_PROFILE pointing at the output, like `perf record`. The library is looked up in
 * $OPSCOPE_LIB, next to this executable, in the install's libdir relative to it (../lib or
 * ../lib/<multiarch>, fixed at build time: an installed tree can move), then ../lib and
 * ../lib/opscope (a build tree).
 * The first ggml process of the run writes FILE, every other one FILE.PID (record_session.c);
 * record then says where each process's profile went. CMD runs as a shell would run it
 * (record_exec.c): signals passed on, its death by a signal repeated.
 * Exit status: CMD's own, or CMD's death by the same signal, whatever became of the profiles
 * (a CI job's benchmark must not fail on a full disk); with --strict (or OPSCOPE_STRICT=1) 2
 * when CMD exited 0 but a profile is missing. 2 when FILE cannot be made at all (a missing
 * folder, a read-only place: CMD is then not run); 126 / 127 when CMD cannot be run / is not
 * found; 1 for usage errors.
 */
#include "cli/cli.h"
#include "cli/record/record_end.h"
#include "cli/record/record_exec.h"
#include "cli/record/record_lock.h"
#include "cli/record/record_session.h"
#include "cli/record/record_timer.h"
#include "util/out.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define LIB_NAME "libopscope-ggml.so"

static void usage(FILE *f) {
    fputs("usage: opscope record [-o FILE] [--format json|txt|summary] [--gpu-timing all|sampled]\n"
          "                      [--paused] [--delay S] [--duration S] [--strict] -- CMD [ARGS...]\n"
          "\n"
          "Runs CMD (any ggml program: llama-cli, llama-server, whisper-cli..., or a script that\n"
          "runs several) with opscope's capture library preloaded and writes its per-op profile.\n"
          "\n"
          "  -o, --output FILE   where the profile goes (default: profile.json, or profile.txt\n"
          "                      with --format txt). The first process of the run that uses\n"
          "                      ggml writes FILE; every other one (children, programs run one\n"
          "                      after another by a script) writes FILE.PID. record lists each\n"
          "                      profile with its program and pid on stderr\n"
          "                      FILE may be a FIFO, a pipe or a device (-o >(gzip > p.json.gz),\n"
          "                      -o /dev/stdout > f): written once, at the end, through it\n"
          "  --format F          json (default; opscope report reads it), txt (plain-text\n"
          "                      report) or summary (console summary on stderr, no file)\n"
          "  --gpu-timing M      sampled (default): per graph, its first computes and then one\n"
          "                      in N get per-op device timing, N kept so that timing adds at\n"
          "                      most 5% (OPSCOPE_GPU_BUDGET, percent); the others keep host-timed\n"
          "                      split records and the reports estimate totals from the timed\n"
          "                      ones. all: every compute timed (exact per-op totals, slower).\n"
          "                      Sets OPSCOPE_GPU_TIMING\n"
          "  --paused            start paused: the hooks are in place but nothing is recorded\n"
          "                      until `opscope ctl start` (CMD runs at full speed); ctl stop /\n"
          "                      start again make more windows (docs/capture.md)\n"
          "  --delay S           start paused and open a window S seconds after CMD starts\n"
          "  --duration S        close the window S seconds after the capture starts recording\n"
          "                      (at the start, after --delay, or at a ctl start)\n"
          "  --strict            exit 2 when CMD exits 0 but a profile is missing (could not\n"
          "                      be written, lost, or none written); also OPSCOPE_STRICT=1\n"
          "  -h, --help          this help\n"
          "\n"
          "In a terminal's foreground CMD runs in record's process group (Ctrl-C reaches it\n"
          "directly), elsewhere in its own; SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2,\n"
          "SIGALRM and SIGABRT sent to record are passed on to it (to its group when it has\n"
          "one), also those record was started with ignored (a script's background job: CMD\n"
          "inherits them ignored and stops only if it handles them, as without record);\n"
          "SIGKILL cannot be, so CMD is killed when record dies. While CMD runs, its profile is\n"
          "rewritten every second, so a crash or SIGKILL leaves the last one (record then\n"
          "says how CMD died, and writes it into the profile). Two records of one FILE at once\n"
          "keep both profiles: the later one writes FILE-2.EXT (the first free name) and says so.\n"
          "Exit status: CMD's, whatever became of the profiles (one that cannot be written, on\n"
          "a full disk or in a removed folder, is said in one line on stderr); when CMD is\n"
          "killed by a signal, record dies by the same signal once the profiles are written.\n"
          "With --strict, 2 when CMD exited 0 but a profile is missing. 2 when FILE cannot be\n"
          "made at all (a missing folder, a read-only place: CMD is then not run); 126 when CMD\n"
          "cannot be run, 127 when it is not found; 1 for usage errors.\n"
          "\n"
          "Environment: OPSCOPE_LIB (the library's path), OPSCOPE_MAX_MB (record memory cap,\n"
          "default 512; records past it are dropped, and record says how many and where),\n"
          "OPSCOPE_CHECKPOINT_MS (ms between rewrites while CMD runs, default 1000; 0: none),\n"
          "OPSCOPE_STATS=1 (capture statistics on stderr), OPSCOPE_STRICT=1 (as --strict).\n"
          "See docs/capture.md.\n",
          f);
}

static bool is_file(const char *p) {
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* Whether PATH can be written (util/out.h's check: a file by a temporary file made and
 * removed beside it; a FIFO, pipe or device never opened, or its reader would see its end):
 * a run that can never keep its profile (a missing folder, a read-only place) is refused
 * before it starts. A full disk is not refused: space may be freed while CMD runs, and CMD's
 * own work must not depend on it (the capture says at the end if the write failed). */
static bool output_writable(const char *path) {
    opscope_error err = {0};
    if (opscope_out_check(path, &err) != 0 && err.errno_value != ENOSPC && err.errno_value != EDQUOT) {
        bool own = err.errno_value == EISDIR || err.errno_value == EBADF;
        fprintf(stderr, "opscope record: cannot write %s: %s\n", path,
                own || !err.errno_value ? err.msg : strerror(err.errno_value));
        return false;
    }
    return true;
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
    /* parenthesised: the concatenation is meant (clang's -Wstring-concatenation) */
    static const char *const rel[] = {"", ("/" OPSCOPE_REL_LIBDIR), "/../lib", "/../lib/opscope"};
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

/* What the command line asks for. */
typedef struct record_args {
    const char *output, *format, *gpu_timing;
    int cmd; /* argv index of the command */
    bool paused;
    double delay_s, duration_s; /* < 0: not given */
    bool summary;
    bool strict; /* --strict or OPSCOPE_STRICT=1: a missing profile fails a successful run */
} record_args;

/* Returns a cli status (cli/cli.h): 0 when R is ready, OPSCOPE_CLI_DONE after the help, else
 * the exit status after the usage error. */
static int parse_record_args(int argc, char **argv, record_args *r) {
    const char *strict = getenv("OPSCOPE_STRICT");
    *r = (record_args){.format = "json", .strict = strict && *strict && strcmp(strict, "0") != 0,
                       .delay_s = -1, .duration_s = -1};
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) {
            i++;
            break;
        } else if (!strcmp(a, "--strict")) {
            r->strict = true;
        } else if (!strcmp(a, "--paused")) {
            r->paused = true;
        } else if (!strcmp(a, "--delay") || !strcmp(a, "--duration")) {
            double *v = a[3] == 'e' ? &r->delay_s : &r->duration_s;
            char *end = NULL;
            *v = i + 1 < argc ? strtod(argv[++i], &end) : -1;
            if (!end || *end || !(*v >= 0 && *v <= 31536000)) {
                fprintf(stderr, "opscope record: %s takes seconds from 0 to 31536000 (fractions allowed)\n", a);
                return OPSCOPE_EXIT_USAGE;
            }
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return OPSCOPE_CLI_DONE;
        } else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "opscope record: %s needs a file name\n", a);
                return OPSCOPE_EXIT_USAGE;
            }
            r->output = argv[++i];
        } else if (!strcmp(a, "--format")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "opscope record: --format needs json, txt or summary\n");
                return OPSCOPE_EXIT_USAGE;
            }
            r->format = argv[++i];
            if (strcmp(r->format, "json") && strcmp(r->format, "txt") && strcmp(r->format, "summary")) {
                fprintf(stderr, "opscope record: unknown format '%s' (json, txt, summary)\n", r->format);
                return OPSCOPE_EXIT_USAGE;
            }
        } else if (!strcmp(a, "--gpu-timing")) {
            r->gpu_timing = i + 1 < argc ? argv[++i] : "";
            if (strcmp(r->gpu_timing, "all") && strcmp(r->gpu_timing, "sampled")) {
                fprintf(stderr, "opscope record: --gpu-timing needs all or sampled\n");
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
    r->cmd = i;
    r->summary = !strcmp(r->format, "summary");
    if (r->summary && r->output) {
        fprintf(stderr, "opscope record: --format summary writes no file; drop -o\n");
        return OPSCOPE_EXIT_USAGE;
    }
    return OPSCOPE_EXIT_OK;
}

/* No capture library: says why and where one is. Returns the exit status. */
static int no_lib(void) {
#ifdef OPSCOPE_NO_CAPTURE_LIB
    if (!getenv("OPSCOPE_LIB")) {
        fprintf(stderr, "opscope record: this opscope has no capture library (%s): ggml's headers (ggml.h, "
                        "ggml-backend.h: Debian's libggml-dev) were not found when it was configured. Build it "
                        "where ggml is installed, or record in the Debian root that `make demo` made, where it "
                        "is built: scripts/in-root.sh 'opscope record -o p.json -- llama-completion -m "
                        "/host-cwd/MODEL.gguf -p Hello -n 32' (this folder is /host-cwd there); or set "
                        "OPSCOPE_LIB to a library built elsewhere\n", LIB_NAME);
        return OPSCOPE_EXIT_USAGE;
    }
#endif
    fprintf(stderr, "opscope record: cannot find %s (set OPSCOPE_LIB to its path)\n", LIB_NAME);
    return OPSCOPE_EXIT_USAGE;
}

/* R's output (its default by format), absolute into OUT (the command may change directory).
 * Returns 0, or -1 after a message. */
static int output_path(record_args *r, char *out, size_t size) {
    if (!r->output) r->output = !strcmp(r->format, "txt") ? "profile.txt" : "profile.json";
    if (r->output[0] == '/') {
        snprintf(out, size, "%s", r->output);
        return 0;
    }
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd)) {
        fprintf(stderr, "opscope record: cannot read the current directory\n");
        return -1;
    }
    int m = snprintf(out, size, "%s/%s", cwd, r->output);
    if (m < 0 || (size_t)m >= size) {
        fprintf(stderr, "opscope record: output path too long\n");
        return -1;
    }
    return 0;
}

/* The command's environment: the library preloaded (first: its definitions must win over
 * ggml's), where and how the capture writes, the run directory. Returns 0, or -1 (no memory). */
static int capture_env(const char *lib, const record_args *r, const char *outpath, const char *run_dir) {
    const char *old = getenv("LD_PRELOAD");
    size_t len = strlen(lib) + (old ? strlen(old) : 0) + 2;
    char *preload = malloc(len);
    if (!preload) {
        fprintf(stderr, "opscope record: out of memory\n");
        return -1;
    }
    snprintf(preload, len, "%s%s%s", lib, old && *old ? ":" : "", old && *old ? old : "");
    setenv("LD_PRELOAD", preload, 1);
    free(preload);
    setenv("GGML_PROFILE", r->summary ? "stderr" : outpath, 1);
    setenv("OPSCOPE_FORMAT", r->format, 1);
    if (r->gpu_timing) {
        setenv("OPSCOPE_GPU_TIMING", r->gpu_timing, 1);
    }
    setenv("OPSCOPE_RECORD_DIR", run_dir, 1);
    if (r->paused || r->delay_s >= 0) {
        setenv("OPSCOPE_PAUSED", "1", 1);
    } else {
        unsetenv("OPSCOPE_PAUSED"); /* an outer run's setting is not this one's */
    }
    unsetenv("OPSCOPE_OWNER_PID"); /* the command owns the output, not an outer recording */
    return 0;
}

int opscope_cli_record(int argc, char **argv) {
    record_args r;
    int st = parse_record_args(argc, argv, &r);
    if (st) {
        return opscope_cli_exit_status(st);
    }
    char lib[PATH_MAX];
    if (!find_lib(lib, sizeof lib)) {
        return no_lib();
    }
    char outpath[PATH_MAX + 8];
    if (!r.summary && output_path(&r, outpath, sizeof outpath) != 0) {
        return OPSCOPE_EXIT_USAGE;
    }
    /* a stream (a FIFO, a pipe, /dev/stdout) has no name beside it to lock or take instead */
    bool stream = !r.summary && opscope_out_path_kind(outpath) == OPSCOPE_OUT_KIND_STREAM;
    if (!r.summary && (!output_writable(outpath) || (!stream && opscope_rec_lock(outpath, sizeof outpath) != 0))) {
        return OPSCOPE_EXIT_INPUT;
    }
    opscope_rec_session_t *session = opscope_rec_session_new(r.summary ? NULL : outpath);
    if (!session) {
        opscope_rec_unlock();
        return OPSCOPE_EXIT_INPUT;
    }
    if (capture_env(lib, &r, outpath, opscope_rec_session_dir(session)) != 0) {
        opscope_rec_session_free(session);
        opscope_rec_unlock();
        return OPSCOPE_EXIT_USAGE;
    }
    opscope_rec_child child;
    if (opscope_rec_exec_start(argv + r.cmd, &child) != 0) {
        opscope_rec_session_free(session);
        opscope_rec_unlock();
        return opscope_rec_exec_failed_status(&child);
    }
    opscope_rec_timer_start(opscope_rec_session_dir(session), r.delay_s, r.duration_s);
    opscope_rec_exec_wait(&child);
    int missing = opscope_rec_session_report(session, &child);
    opscope_rec_session_free(session);
    opscope_rec_unlock();
    /* CMD's status is the answer: its signal repeated, its exit status given back; a missing
     * profile (said above, one line each) changes a success only when asked to */
    opscope_rec_exec_die_like(child.status);
    int rc = WIFEXITED(child.status) ? WEXITSTATUS(child.status) : 127;
    return rc == 0 && missing && r.strict ? OPSCOPE_EXIT_INPUT : rc;
}
