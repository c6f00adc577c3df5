/*
 * bench_kineto - ingest benchmark of the Kineto reader, through the file reader `opscope
 * report` uses (opscope_read_file_opts; the format is given, so nothing is detected).
 *   bench_kineto ingest TRACE   records to a counting sink, no analysis (the reader alone)
 *   bench_kineto full TRACE     records + collector + opscope_kineto_finish + report section
 * Prints bytes, seconds (CPU time of this process and wall) and MB/s on one line.
 */
#include "analyze/kineto/kineto.h"
#include "read/readers.h"
#include "export/kineto/kineto_report.h"
#include "util/out.h"
#include "model/strtab.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static int count(void *ud, const opscope_record *r) {
    uint64_t *n = ud;
    *n += 1 + (r->duration_ns & 0); /* touch the record */
    return 0;
}

static double clock_s(clockid_t c) {
    struct timespec ts;
    clock_gettime(c, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    if (argc != 3 || (strcmp(argv[1], "ingest") && strcmp(argv[1], "full"))) {
        fprintf(stderr, "usage: bench_kineto ingest|full TRACE\n");
        return 1;
    }
    int full = !strcmp(argv[1], "full");
    struct stat st;
    if (stat(argv[2], &st)) {
        perror(argv[2]);
        return 1;
    }
    uint64_t n = 0;
    opscope_sink sink = {&n, NULL, NULL, count, NULL};
    opscope_strtab_t *names = full ? opscope_strtab_new() : NULL;
    opscope_kineto_t *an = full ? opscope_kineto_new(names) : NULL;
    opscope_error err;
    double c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID), w0 = clock_s(CLOCK_MONOTONIC);
    opscope_read_options opts = {0};
    opts.kineto = opscope_kineto_collector_of(an);
    int rc = opscope_read_file_opts(argv[2], OPSCOPE_FORMAT_KINETO, &sink, &opts, &err);
    if (!rc && full) {
        rc = opscope_kineto_finish(an);
        opscope_out_t *w = opscope_out_open("/dev/null", &err);
        if (w) {
            opscope_kineto_report_write(w, an);
            opscope_out_commit(w, &err);
        }
    }
    double c1 = clock_s(CLOCK_PROCESS_CPUTIME_ID), w1 = clock_s(CLOCK_MONOTONIC);
    if (rc) {
        char b[512];
        opscope_error_format(&err, b, sizeof b);
        fprintf(stderr, "%s\n", b);
        return 2;
    }
    double mb = (double)st.st_size / 1e6;
    printf("%s bytes=%lld records=%" PRIu64 " cpu_s=%.3f wall_s=%.3f cpu_MBps=%.0f wall_MBps=%.0f\n",
           argv[1], (long long)st.st_size, n, c1 - c0, w1 - w0, mb / (c1 - c0), mb / (w1 - w0));
    opscope_kineto_free(an);
    opscope_strtab_free(names);
    return 0;
}
