/*
 * job_load.h - a distributed job read: its inputs (traces, job summaries, folders of them) read
 * in parallel, one rank's analysis per thread at a time (memory bounded per rank; the summaries
 * that stay are small), each rank resolved, then the job analysed (job.h). `opscope report
 * DIR`, `diff`, `view` (src/cli/job.c) and the Python package's job (src/py) load jobs here.
 * See docs/job.md.
 *
 * Ownership: a set owns its inputs' summaries, rows and job (opscope_job_set_free). Messages
 * (warnings, each failed input) go to the options' MSG, as `opscope report` prints them.
 * Thread safety: a load uses threads of its own and returns after joining them; a set belongs
 * to one thread.
 */
#ifndef OPSCOPE_JOB_LOAD_H
#define OPSCOPE_JOB_LOAD_H

#include "analyze/job/job.h"

#include <stdbool.h>
#include <stdio.h>

/* True when PATH names a folder (a job's traces). */
bool opscope_job_is_dir(const char *path);

/* True when PATH is a job summary (`report --json` of a job): it joins a job as its ranks. */
bool opscope_job_is_summary(const char *path);

/* How a trace of the job is read when more than its figures is wanted (`view`: its page block
 * in the same read). READ reads PATH (a trace, never a job summary) into the rank's summary SUM
 * (job_rank.h's opscope_job_rank_finish) and may leave a pointer in *USER; it returns 0, or 1
 * (bad input, ERR filled), 2 (out of memory) or 3 (no trace events). It is called on the
 * load's threads, one trace per call. DROP (may be NULL) frees a USER the caller did not take
 * (opscope_job_set_row_take) when the set is freed or the load fails. */
typedef struct opscope_job_reader {
    int (*read)(void *ud, const char *path, opscope_job_rank_summary *sum, void **user, opscope_error *err);
    void (*drop)(void *user);
    void *ud;
} opscope_job_reader;

typedef struct opscope_job_load_opts {
    int threads;                   /* traces read at once; 0: one per online core */
    const opscope_job_reader *rd;  /* must outlive the set; NULL: each trace for its figures */
    FILE *msg;                     /* warnings and failures, one line each; NULL: none */
    bool progress;                 /* "read N of M" on MSG while reading several */
} opscope_job_load_opts;

typedef struct opscope_job_set opscope_job_set_t;

/* Reads INPUTS[0..N) and analyses the job into *OUT. Returns 0, or -1 (*OUT NULL) with ERR
 * filled: the first input that failed (its read's error, OPSCOPE_ERROR_NOMEM, or "no trace
 * events" naming it), a folder that cannot be opened, no input at all. */
int opscope_job_load(const char *const *inputs, int n, const opscope_job_load_opts *o, opscope_job_set_t **out,
                     opscope_error *err);

void opscope_job_set_free(opscope_job_set_t *s);

/* The job of S (valid while S lives); THREADS and WALL_S (may be NULL) get how it was read. */
const opscope_job *opscope_job_set_job(const opscope_job_set_t *s, int *threads, double *wall_s);

/* What the reader left for the input ROW (a row of S's job) came from (NULL: none, or already
 * taken); *TRACE: true when that input was a trace read by the reader (else a job summary). */
void *opscope_job_set_row_user(const opscope_job_set_t *s, const opscope_job_row *row, bool *trace);

/* The same, taken: S no longer drops it. */
void *opscope_job_set_row_take(opscope_job_set_t *s, const opscope_job_row *row);

#endif /* OPSCOPE_JOB_LOAD_H */
