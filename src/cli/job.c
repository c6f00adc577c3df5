/*
 * job.c - `opscope report DIR` and `opscope report A B C...`: a distributed job, one trace per
 * rank, loaded by analyze/job/job_load.c (read in parallel, combined by analyze/job/job.c) with
 * its messages on stderr, and written (export/job/job_report.c). See docs/job.md.
 */
#include "cli/job.h"

#include "analyze/job/job_load.h"
#include "cli/args.h"
#include "cli/cli.h"
#include "export/job/job_report.h"
#include "util/out.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool opscope_cli_job_is_dir(const char *path) { return opscope_job_is_dir(path); }

bool opscope_cli_job_is_summary(const char *path) { return opscope_job_is_summary(path); }

/* The set of a job loaded by analyze/job/job_load.c, its messages on stderr. */
struct opscope_cli_job_set {
    opscope_job_set_t *set;
};

void opscope_cli_job_set_free(opscope_cli_job_set *s) {
    if (!s) return;
    opscope_job_set_free(s->set);
    free(s);
}

int opscope_cli_job_load(const char *const *inputs, int n, int threads, opscope_cli_job_set **out) {
    return opscope_cli_job_load_with(inputs, n, threads, NULL, out);
}

int opscope_cli_job_load_with(const char *const *inputs, int n, int threads, const opscope_cli_job_reader *rd,
                              opscope_cli_job_set **out) {
    *out = calloc(1, sizeof **out);
    if (!*out) return OPSCOPE_EXIT_INPUT;
    opscope_job_load_opts o = {.threads = threads, .rd = rd, .msg = stderr, .progress = isatty(STDERR_FILENO)};
    opscope_error err;
    if (opscope_job_load(inputs, n, &o, &(*out)->set, &err)) { /* said on stderr */
        free(*out);
        *out = NULL;
        return OPSCOPE_EXIT_INPUT;
    }
    return OPSCOPE_EXIT_OK;
}

void *opscope_cli_job_row_user(const opscope_cli_job_set *s, const opscope_job_row *row, bool *trace) {
    return opscope_job_set_row_user(s->set, row, trace);
}

void *opscope_cli_job_row_take(opscope_cli_job_set *s, const opscope_job_row *row) {
    return opscope_job_set_row_take(s->set, row);
}

const opscope_job *opscope_cli_job_of(const opscope_cli_job_set *s, opscope_job_read_info *ri) {
    int threads;
    double wall_s;
    const opscope_job *job = opscope_job_set_job(s->set, &threads, &wall_s);
    if (ri) *ri = (opscope_job_read_info){.threads = threads, .wall_s = wall_s};
    return job;
}

/* Writes JOB's JSON into JSON (taken: committed or aborted) and the console report. Returns the
 * exit status. */
static int write_job(const opscope_job *job, const opscope_job_read_info *ri, const opscope_cli_job_opts *o,
                     opscope_out_t *json) {
    int st = OPSCOPE_EXIT_OK;
    opscope_error err;
    memset(&err, 0, sizeof err);
    if (json) {
        opscope_job_report_json(json, job, ri);
        if (opscope_out_commit_take(&json, &err)) {
            opscope_cli_print_error(NULL, &err);
            st = OPSCOPE_EXIT_INPUT;
        } else if (!o->quiet && strcmp(o->json, "-")) {
            fprintf(stderr, "opscope report: wrote %s (JSON)\n", o->json);
        }
    }
    if (!o->quiet && (!o->json || strcmp(o->json, "-"))) {
        opscope_out_t *con = opscope_out_from_file(stdout, &err);
        if (con) {
            opscope_job_report_console(con, job, ri);
            opscope_out_commit(con, &err);
        }
    }
    return st;
}

int opscope_cli_job(const opscope_cli_job_opts *o) {
    opscope_error err;
    memset(&err, 0, sizeof err);
    opscope_out_t *json = NULL;
    if (o->json && !(json = opscope_out_open(o->json, &err))) {
        opscope_cli_print_error(NULL, &err);
        return OPSCOPE_EXIT_INPUT;
    }
    opscope_cli_job_set *s;
    int st = opscope_cli_job_load(o->inputs, o->n_inputs, o->threads, &s);
    if (st) {
        opscope_out_abort(json);
        return st;
    }
    opscope_job_read_info ri;
    const opscope_job *job = opscope_cli_job_of(s, &ri);
    st = write_job(job, &ri, o, json);
    opscope_cli_job_set_free(s);
    return st;
}
