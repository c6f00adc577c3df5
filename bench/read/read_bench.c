/*
 * read_bench.c - reader throughput on one file: MODE "tokens" pulls every JSON token (the
 * parser alone), "ggml" runs opscope_read_file into a sink that only counts. Prints MB/s of
 * the input (by wall time and by CPU time) and the record count. Run it several times and take the median (bench/read/run.sh).
 *   opscope_bench_read tokens|ggml FILE
 */
#include "read/json.h"
#include "opscope.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static long fd_read(void *ud, char *buf, size_t cap) { return (long)read(*(int *)ud, buf, cap); }

static int count_rec(void *ud, const opscope_record *r) {
    uint64_t *n = ud;
    *n += 1 + (r->duration_ns & 0);
    return 0;
}

static double clock_s(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s tokens|ggml FILE\n", argv[0]);
        return 1;
    }
    struct stat st;
    if (stat(argv[2], &st) != 0) {
        perror(argv[2]);
        return 1;
    }
    uint64_t n = 0;
    double t0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    if (!strcmp(argv[1], "tokens")) {
        int fd = open(argv[2], O_RDONLY);
        opscope_json_t *j = opscope_json_new(fd_read, &fd, NULL, 0, argv[2]);
        opscope_json_token t;
        opscope_json_tok k;
        while ((k = opscope_json_next(j, &t)) != OPSCOPE_JSON_EOF && k != OPSCOPE_JSON_ERROR) n++;
        if (k == OPSCOPE_JSON_ERROR) {
            char buf[512];
            opscope_error_format(opscope_json_error(j), buf, sizeof buf);
            fprintf(stderr, "%s\n", buf);
            return 2;
        }
        opscope_json_free(j);
        close(fd);
    } else {
        opscope_sink sink = {&n, NULL, NULL, count_rec, NULL};
        opscope_error err;
        if (opscope_read_file(argv[2], OPSCOPE_FORMAT_AUTO, &sink, &err)) {
            char buf[512];
            opscope_error_format(&err, buf, sizeof buf);
            fprintf(stderr, "%s\n", buf);
            return 2;
        }
    }
    double dt = clock_s(CLOCK_MONOTONIC) - t0, dc = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
    /* CPU-time MB/s is the single-thread figure when other work shares the cores */
    printf("%s %.1f MB in %.3f s wall, %.3f s cpu: %.0f MB/s wall, %.0f MB/s cpu (%llu %s)\n",
           argv[1], (double)st.st_size / 1e6, dt, dc, (double)st.st_size / 1e6 / dt,
           (double)st.st_size / 1e6 / dc, (unsigned long long)n,
           strcmp(argv[1], "tokens") ? "records" : "tokens");
    return 0;
}
