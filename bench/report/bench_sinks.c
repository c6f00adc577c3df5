/*
 * bench_sinks.c - cost per record of the report's consumers alone (no parsing): the stats
 * aggregator, the Chrome trace, JSON and tee, fed from an in-memory profile. Output goes to
 * /dev/null. usage: bench_sinks [N_RECORDS]
 */
#include "export/chrome/chrome.h"
#include "export/json/json_export.h"
#include "opscope.h"
#include "util/out.h"
#include "analyze/ggml/stats.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void bench(const char *label, const opscope_profile_t *p, opscope_sink sink) {
    double t0 = now();
    opscope_profile_replay(p, &sink);
    double t = now() - t0;
    size_t n = opscope_profile_n_records(p);
    printf("%-22s %8.1f ns/record  (%zu records, %.3f s)\n", label, t * 1e9 / (double)n, n, t);
}

int main(int argc, char **argv) {
    size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 2000000;
    static const char *names[] = {"MUL_MAT", "ADD", "MUL", "RMS_NORM", "ROPE", "FLASH_ATTN_EXT",
                                  "MUL_MAT_ID", "GLU", "UNARY", "SOFT_MAX", "GET_ROWS", "SET_ROWS"};
    opscope_profile_t *p = opscope_profile_new();
    opscope_backend b = {0, "CUDA0", "GPU", OPSCOPE_DEVICE_GPU, NULL};
    opscope_profile_add_backend(p, &b);
    uint64_t t = 1000000000000ull, x = 1;
    for (size_t i = 0; i < n; i++) {
        opscope_record r;
        opscope_record_init(&r);
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        int k = (int)(i % 12);
        r.type = i % 40 == 0 ? OPSCOPE_RECORD_COPY : OPSCOPE_RECORD_OP;
        r.name = r.type ? "copy_H2D" : names[k];
        r.backend_id = (int32_t)(i / 50 % 3);
        r.split_id = (int32_t)(i / 200 % 2);
        r.start_ns = t;
        r.duration_ns = 1000 + x % 100000;
        t += r.duration_ns + 300;
        r.bytes = 4096 * (1 + x % 7);
        r.extra = k == 3 && i % 3 == 0 ? "RMS_NORM+MUL" : NULL;
        r.n_src = 3;
        int64_t s0[4] = {2048, 2048 + 64 * (int64_t)(x % 4), 1, 1}, s1[4] = {2048, 1 + (int64_t)(x % 3) * 255, 1, 1};
        for (int d = 0; d < 4; d++) r.ne_src[0][d] = s0[d], r.ne_src[1][d] = s1[d];
        opscope_profile_add_record(p, &r);
    }
    opscope_stats_opts so = {.top_kernels = 5};
    opscope_stats_t *st = opscope_stats_new(&so);
    bench("stats", p, opscope_stats_sink(st));
    opscope_stats_free(st);
    so.by_shape = true;
    st = opscope_stats_new(&so);
    bench("stats --by-shape", p, opscope_stats_sink(st));
    opscope_stats_free(st);

    FILE *devnull = fopen("/dev/null", "w");
    opscope_error err;
    opscope_out_t *w = opscope_out_from_file(devnull, &err);
    opscope_chrome_t *c = opscope_chrome_new(w);
    double t0 = now();
    opscope_sink cs = opscope_chrome_sink(c);
    opscope_profile_replay(p, &cs);
    opscope_chrome_finish(c);
    double tc = now() - t0;
    printf("%-22s %8.1f ns/record  %.1f MB written, %.0f MB/s of output\n", "chrome trace",
           tc * 1e9 / (double)n, (double)opscope_out_bytes(w) / 1e6,
           (double)opscope_out_bytes(w) / 1e6 / tc);
    opscope_chrome_free(c);
    opscope_out_commit(w, &err);

    w = opscope_out_from_file(devnull, &err);
    opscope_json_export_t *j = opscope_json_export_new(w);
    t0 = now();
    opscope_sink js = opscope_json_export_sink(j);
    opscope_profile_replay(p, &js);
    opscope_json_export_finish(j, NULL);
    double tj = now() - t0;
    printf("%-22s %8.1f ns/record  %.1f MB written, %.0f MB/s of output\n", "json export",
           tj * 1e9 / (double)n, (double)opscope_out_bytes(w) / 1e6,
           (double)opscope_out_bytes(w) / 1e6 / tj);
    opscope_json_export_free(j);
    opscope_out_commit(w, &err);
    fclose(devnull);
    opscope_profile_free(p);
    return 0;
}
