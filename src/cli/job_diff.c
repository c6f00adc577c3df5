/*
 * job_diff.c - `opscope diff DIR_A DIR_B`: two distributed jobs (folders of traces, or job
 * summaries), each read as `opscope report DIR` reads it (cli/job.c), side by side
 * (export/job/job_diff.c). See docs/job.md.
 */
#include "cli/job.h"

#include "cli/args.h"
#include "cli/cli.h"
#include "export/job/job_diff.h"
#include "util/out.h"

#include <stdio.h>
#include <string.h>

bool opscope_cli_job_diff_wanted(const char *base, const char *next) {
    return (opscope_cli_job_is_dir(base) || opscope_cli_job_is_summary(base)) &&
           (opscope_cli_job_is_dir(next) || opscope_cli_job_is_summary(next));
}

int opscope_cli_job_diff(const char *base, const char *next, const char *json, bool quiet) {
    opscope_error err;
    memset(&err, 0, sizeof err);
    opscope_out_t *jw = NULL;
    if (json && !(jw = opscope_out_open(json, &err))) {
        opscope_cli_print_error(NULL, &err);
        return OPSCOPE_EXIT_INPUT;
    }
    opscope_cli_job_set *a = NULL, *b = NULL;
    int st = opscope_cli_job_load(&base, 1, 0, &a);
    if (st == OPSCOPE_EXIT_OK) st = opscope_cli_job_load(&next, 1, 0, &b);
    if (st) {
        opscope_out_abort(jw);
        opscope_cli_job_set_free(a);
        return st;
    }
    const opscope_job *ja = opscope_cli_job_of(a, NULL), *jb = opscope_cli_job_of(b, NULL);
    st = OPSCOPE_EXIT_OK;
    if (jw) {
        opscope_job_diff_json(jw, ja, jb);
        if (opscope_out_commit_take(&jw, &err)) {
            opscope_cli_print_error(NULL, &err);
            st = OPSCOPE_EXIT_INPUT;
        } else if (!quiet && strcmp(json, "-")) {
            fprintf(stderr, "opscope diff: wrote %s (JSON)\n", json);
        }
    }
    if (!quiet && (!json || strcmp(json, "-"))) {
        opscope_out_t *con = opscope_out_from_file(stdout, &err);
        if (con) {
            opscope_job_diff_console(con, ja, jb);
            opscope_out_commit(con, &err);
        }
    }
    opscope_cli_job_set_free(a);
    opscope_cli_job_set_free(b);
    return st;
}
