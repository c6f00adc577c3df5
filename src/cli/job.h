/*
 * job.h - `opscope report` of a distributed job (a folder of traces, or several traces): the
 * command's entry from report.c. See docs/job.md.
 */
#ifndef OPSCOPE_CLI_JOB_H
#define OPSCOPE_CLI_JOB_H

#include <stdbool.h>

typedef struct opscope_cli_job_opts {
    const char *const *inputs;           /* traces and folders of traces, as given */
    int n_inputs;
    const char *json;                    /* --json FILE ("-": stdout), or NULL */
    int threads;                         /* --threads N; 0: one per online core */
    bool quiet;
} opscope_cli_job_opts;

/* True when PATH names a folder (a job's traces). */
bool opscope_cli_job_is_dir(const char *path);

/* True when PATH is a job summary (`report --json` of a job): it joins a job as its ranks. */
bool opscope_cli_job_is_summary(const char *path);

/* Reads the job's traces in parallel, combines and writes them. Returns the exit status. */
int opscope_cli_job(const opscope_cli_job_opts *o);

#endif /* OPSCOPE_CLI_JOB_H */
