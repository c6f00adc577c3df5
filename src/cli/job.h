/*
 * job.h - `opscope report` of a distributed job (a folder of traces, or several traces): the
 * command's entry from report.c. See docs/job.md.
 */
#ifndef OPSCOPE_CLI_JOB_H
#define OPSCOPE_CLI_JOB_H

#include "analyze/job/job_load.h"
#include "export/job/job_report.h"

#include <stdbool.h>
#include <stddef.h>

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

/* A job read and analysed (analyze/job/job.h), for report and diff. */
typedef struct opscope_cli_job_set opscope_cli_job_set;

/* Reads INPUTS[0..N) (traces, job summaries, folders of them) on THREADS threads (0: one per
 * core) and analyses the job into *OUT. Returns a cli status (cli/cli.h): 0 with *OUT set, else
 * the exit status (the reason on stderr, *OUT NULL). */
int opscope_cli_job_load(const char *const *inputs, int n, int threads, opscope_cli_job_set **out);

/* How a trace of the job is read when more than its figures is wanted (analyze/job/job_load.h). */
typedef opscope_job_reader opscope_cli_job_reader;

/* opscope_cli_job_load, each trace read by RD (must outlive the set; NULL: as load does). */
int opscope_cli_job_load_with(const char *const *inputs, int n, int threads, const opscope_cli_job_reader *rd,
                              opscope_cli_job_set **out);

/* What RD's read left for the input ROW (a row of S's job) came from (NULL: none, or already
 * taken); *TRACE: true when that input was a trace read by RD (else a job summary). */
void *opscope_cli_job_row_user(const opscope_cli_job_set *s, const opscope_job_row *row, bool *trace);

/* The same, taken: S no longer drops it. */
void *opscope_cli_job_row_take(opscope_cli_job_set *s, const opscope_job_row *row);

/* The job of S (valid while S lives); RI (may be NULL) gets how it was read. */
const opscope_job *opscope_cli_job_of(const opscope_cli_job_set *s, opscope_job_read_info *ri);

void opscope_cli_job_set_free(opscope_cli_job_set *s);

/* `opscope view DIR | TRACE...`: the job's page (cli/job_view.c). */
typedef struct opscope_cli_job_view_opts {
    const char *const *inputs;           /* traces and folders of traces, as given */
    int n_inputs;
    const char *output;                  /* the page ("-": stdout) */
    size_t max_records;                  /* per rank; 0: every record */
    int threads;                         /* traces read at once; 0: one per core */
    bool quiet;
} opscope_cli_job_view_opts;

/* Reads the job as report does, in parallel, each trace once: the per-rank table and the
 * rank's block of the page from the same read (one rank in memory per thread); a job summary's
 * ranks then get their traces read for their blocks. Returns the exit status. */
int opscope_cli_job_view(const opscope_cli_job_view_opts *o);

/* `diff BASE NEW` of two jobs: true when each is a folder or a job summary (cli/job_diff.c). */
bool opscope_cli_job_diff_wanted(const char *base, const char *next);

/* Reads both jobs and writes them side by side (console unless QUIET; JSON to JSON, may be
 * NULL). Returns the exit status. */
int opscope_cli_job_diff(const char *base, const char *next, const char *json, bool quiet);

#endif /* OPSCOPE_CLI_JOB_H */
