/*
 * py_result.h - what a load hands the Python package (internal to src/py): the summary's JSON
 * text and the tables, freed together by opscope_py_free (py/opscope_py.h).
 */
#ifndef OPSCOPE_PY_RESULT_H
#define OPSCOPE_PY_RESULT_H

#include "py/opscope_py.h"
#include "py/py_table.h"
#include "read/job_summary.h"

#include <stdio.h>

#define OPSCOPE_PY_MAX_TABLES 24

struct opscope_py {
    char *summary;     /* malloc'd, NUL-terminated */
    size_t summary_len;
    opscope_py_table tables[OPSCOPE_PY_MAX_TABLES];
    size_t n_tables;   /* each initialised (freeable), on failure too */
    opscope_py_t **parts; /* a job's: each rank's own load, in the ranks' order (NULL: none) */
    size_t n_parts;
};

/* Opens a memory stream whose text becomes R's summary (valid after fclose). NULL when out of
 * memory. */
FILE *opscope_py_summary_stream(opscope_py_t *r);

/* opscope_py_load_opts's read of PATH into *OUT; with SUM (not NULL) the rank's job figures
 * (analyze/job/job_rank.h) teed into the same read and written there. Returns 0, or the job
 * reader's status (analyze/job/job_load.h: 1 bad input, 2 out of memory, 3 no trace events)
 * with ERR filled and *OUT NULL. */
int opscope_py_read(const char *path, const opscope_py_options *opts, opscope_job_rank_summary *sum,
                    opscope_py_t **out, opscope_error *err);

#endif /* OPSCOPE_PY_RESULT_H */
