/*
 * peak.c - `opscope peak [--json FILE]`: measures this machine's memory bandwidth and FLOP
 * rate (peak_measure.c), prints them, and caches them for `opscope report --peak cache`
 * (analyze/ggml/roofline.h: where the cache lives). The cache and --json are written through a
 * temporary file and a rename, so a failure leaves no partial file.
 */
#include "export/sections/sections.h"
#include "analyze/ggml/roofline.h"
#include "cli/args.h"
#include "cli/cli.h"
#include "cli/peak_measure.h"
#include "util/out.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void usage(FILE *f) {
    fputs("usage: opscope peak [--json FILE] [options]\n"
          "\n"
          "Measure this machine's CPU peaks for the roofline of `opscope report --peak`:\n"
          "memory bandwidth (a STREAM-like triad over a working set far beyond the last-level\n"
          "cache, and one within each core's L2; all cores and one core) and the f32 FMA rate\n"
          "(all cores and one). Prints the best and median of the repetitions; the peaks are\n"
          "the best. Takes a few seconds. The result is cached per machine in\n"
          "$XDG_CACHE_HOME/opscope/peak-HOST.json (else ~/.cache/opscope/), which\n"
          "`opscope report --peak cache` reads.\n"
          "\n"
          "Options:\n"
          "  --json FILE        also write the peaks to FILE ('-' = stdout, no text then)\n"
          "  --no-cache         do not write the cache\n"
          "  --threads N        threads of the all-core figures (default: online CPUs)\n"
          "  --reps N           timed repetitions per figure, after one warm-up (default 5)\n"
          "  --mem-size BYTES   triad working set for memory (default: 4 x LLC within\n"
          "                     256 MiB..1 GiB, at most 1/8 of RAM; suffixes K, M, G)\n"
          "  -h, --help         this help\n"
          "\n"
          "Only the CPU is measured: it is the peak for CPU backends and for Vulkan on\n"
          "lavapipe/llvmpipe (which runs on the CPU). GPU peaks are not measured.\n"
          "\n"
          "Exit status: 0 ok, 1 usage error, 2 failed measurement or output.\n",
          f);
}

#define usage_error(...) opscope_cli_usage_error("peak", __VA_ARGS__)

static bool parse_size(const char *s, uint64_t *out) {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || s[0] == '-') return false;
    uint64_t mul = 1;
    if (*end == 'K' || *end == 'k') mul = 1ull << 10, end++;
    else if (*end == 'M' || *end == 'm') mul = 1ull << 20, end++;
    else if (*end == 'G' || *end == 'g') mul = 1ull << 30, end++;
    if (*end || v == 0 || v > (1ull << 40) / mul) return false;
    *out = v * mul;
    return true;
}

static bool parse_int(const char *s, int lo, int hi, int *out) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) return false;
    *out = (int)v;
    return true;
}

static void cpu_model(char *buf, size_t size) {
    snprintf(buf, size, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10)) continue;
        char *c = strchr(line, ':');
        if (!c) break;
        c++;
        while (*c == ' ' || *c == '\t') c++;
        c[strcspn(c, "\n")] = '\0';
        snprintf(buf, size, "%s", c);
        break;
    }
    fclose(f);
}

static bool show_progress;
static void progress(const char *what) {
    if (show_progress) fprintf(stderr, "opscope peak: measuring %s...\n", what);
}

/* Creates every missing directory of PATH's parent (mode 0755). */
static void make_parents(const char *path) {
    char d[4096];
    snprintf(d, sizeof d, "%s", path);
    for (char *p = d + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        mkdir(d, 0755);
        *p = '/';
    }
}

static int write_peak(const char *path, const opscope_peak *p) {
    opscope_error err;
    opscope_out_t *w = opscope_out_open(path, &err);
    if (w) {
        opscope_peak_write_json(w, p);
        if (opscope_out_commit(w, &err) == 0) return 0;
    }
    opscope_cli_print_error("peak", &err);
    return -1;
}

static void print_figure(const char *what, const opscope_peak_figure *f, const char *unit) {
    printf("  %-26s %9.1f %s  (median %.1f; %d thread%s", what, f->best, unit, f->median,
           f->threads, f->threads == 1 ? "" : "s");
    if (f->bytes) printf(", %.1f MiB working set", (double)f->bytes / (1 << 20));
    printf(")\n");
}

int opscope_cli_peak(int argc, char **argv) {
    const char *json = NULL;
    bool cache = true;
    opscope_peak_opts o = {0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return OPSCOPE_EXIT_OK;
        } else if (!strcmp(a, "--no-cache")) {
            cache = false;
        } else if (!strcmp(a, "--json") || !strcmp(a, "--threads") || !strcmp(a, "--reps") ||
                   !strcmp(a, "--mem-size")) {
            if (++i >= argc) return usage_error("missing value after: %s", a);
            const char *v = argv[i];
            if (!strcmp(a, "--json")) {
                if (!*v) return usage_error("empty value after: %s", a);
                json = v;
            } else if (!strcmp(a, "--threads")) {
                if (!parse_int(v, 1, OPSCOPE_PEAK_MAX_THREADS, &o.threads))
                    return usage_error("--threads: expected 1..1024, got: %s", v);
            } else if (!strcmp(a, "--reps")) {
                if (!parse_int(v, 1, 50, &o.reps))
                    return usage_error("--reps: expected 1..50, got: %s", v);
            } else if (!parse_size(v, &o.mem_bytes)) {
                return usage_error("--mem-size: expected a size such as 512M, got: %s", v);
            }
        } else {
            return usage_error("unknown argument: %s", a);
        }
    }
    show_progress = isatty(2);
    opscope_peak_result r;
    if (opscope_peak_measure(&o, &r, progress)) {
        fprintf(stderr, "opscope peak: the measurement could not start its threads or get "
                        "its memory\n");
        return OPSCOPE_EXIT_INPUT;
    }
    opscope_peak p = {0};
    cpu_model(p.cpu, sizeof p.cpu);
    if (gethostname(p.host, sizeof p.host)) snprintf(p.host, sizeof p.host, "localhost");
    p.host[sizeof p.host - 1] = '\0';
    snprintf(p.isa, sizeof p.isa, "%s", r.isa);
    p.n_threads = r.mem_all.threads;
    p.measured_unix = (uint64_t)time(NULL);
    p.mem_gbps_all = r.mem_all.best;
    p.mem_gbps_one = r.mem_one.best;
    p.cache_gbps_all = r.cache_all.best;
    p.cache_gbps_one = r.cache_one.best;
    p.gflops_all = r.flops_all.best;
    p.gflops_one = r.flops_one.best;
    p.mem_bytes = r.mem_all.bytes;
    p.cache_bytes = r.cache_all.bytes;

    bool json_stdout = json && !strcmp(json, "-");
    if (!json_stdout) {
        printf("CPU peaks of %s (%s, %s FMA loop)\n", p.host, p.cpu, p.isa);
        print_figure("memory bandwidth, all", &r.mem_all, "GB/s");
        print_figure("memory bandwidth, one", &r.mem_one, "GB/s");
        print_figure("L2 bandwidth, all", &r.cache_all, "GB/s");
        print_figure("L2 bandwidth, one", &r.cache_one, "GB/s");
        print_figure("f32 FMA rate, all", &r.flops_all, "GFLOP/s");
        print_figure("f32 FMA rate, one", &r.flops_one, "GFLOP/s");
        printf("  ridge point (all cores): %.2f FLOP/byte\n", p.gflops_all / p.mem_gbps_all);
        fflush(stdout);
    }
    int rc = OPSCOPE_EXIT_OK;
    if (json && write_peak(json, &p)) rc = OPSCOPE_EXIT_INPUT;
    char path[4096];
    if (cache) {
        if (opscope_peak_cache_path(path, sizeof path)) {
            make_parents(path);
            if (write_peak(path, &p)) rc = OPSCOPE_EXIT_INPUT;
            else if (!json_stdout) printf("cached in %s\n", path);
        } else {
            fprintf(stderr, "opscope peak: no cache written (neither XDG_CACHE_HOME nor HOME "
                            "is set)\n");
        }
    }
    return rc;
}

int opscope_cli_load_peak(const char *cmd, const char *arg, opscope_peak *out) {
    char cache[4096];
    const char *path = arg;
    if (!strcmp(arg, "cache")) {
        path = opscope_peak_cache_path(cache, sizeof cache);
        if (!path || access(path, R_OK)) {
            fprintf(stderr, "opscope %s: --peak cache: no peaks measured on this machine yet (%s); "
                            "run 'opscope peak' first\n",
                    cmd, path ? path : "neither XDG_CACHE_HOME nor HOME is set");
            return OPSCOPE_EXIT_INPUT;
        }
    }
    opscope_error err;
    if (opscope_peak_read(path, out, &err)) {
        opscope_cli_print_error(cmd, &err);
        return OPSCOPE_EXIT_INPUT;
    }
    return OPSCOPE_EXIT_OK;
}
