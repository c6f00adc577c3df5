/*
 * fuzz_job.c - libFuzzer target for a distributed job: every input is read as a Kineto trace
 * into one rank's analysis (analyze/job/job_rank.h) and as a job summary (read/job_summary.h); the
 * ranks made are put into a job and its console report and JSON written to /dev/null.
 */
#include "analyze/job/job.h"
#include "analyze/job/job_rank.h"
#include "export/job/job_report.h"
#include "read/kineto_read.h"
#include "util/out.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void write_job(opscope_job_row *rows, size_t n) {
    static FILE *devnull;
    if (!devnull) devnull = fopen("/dev/null", "wb");
    opscope_job job;
    opscope_error err;
    opscope_job_read_info ri = {.threads = 1};
    if (!devnull || opscope_job_analyze(&job, rows, n)) return;
    opscope_out_t *w = opscope_out_from_file(devnull, &err);
    if (w) {
        opscope_job_report_console(w, &job, &ri);
        opscope_job_report_json(w, &job, &ri);
        opscope_out_commit(w, &err);
    }
    opscope_job_free(&job);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    opscope_job_summary_rank *ranks = NULL;
    size_t n = 0;
    opscope_error err;
    opscope_job_rank_summary sum;
    opscope_job_rank_t *r = opscope_job_rank_new(NULL);
    opscope_json_t *j = opscope_json_new(NULL, NULL, data, size, "fuzz");
    opscope_sink sink;
    memset(&sink, 0, sizeof sink);
    if (r && j && !opscope_kineto_read_json(j, OPSCOPE_FORMAT_KINETO, &sink, opscope_job_rank_collector(r), &err) &&
        !opscope_job_rank_finish(r, &sum)) {
        opscope_job_row row = {.path = "fuzz", .s = &sum};
        write_job(&row, 1);
        opscope_job_rank_summary_free(&sum);
    }
    opscope_json_free(j);
    opscope_job_rank_free(r);
    if (!opscope_job_summary_read_buffer(data, size, "fuzz", &ranks, &n, &err)) {
        opscope_job_row *rows = calloc(n ? n : 1, sizeof *rows);
        for (size_t i = 0; rows && i < n; i++) rows[i] = (opscope_job_row){.path = "fuzz", .s = &ranks[i].sum};
        if (rows) write_job(rows, n);
        free(rows);
    }
    for (size_t i = 0; i < n; i++) {
        opscope_job_rank_summary_free(&ranks[i].sum);
        free(ranks[i].trace);
    }
    free(ranks);
    return 0;
}
