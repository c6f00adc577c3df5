/*
 * py_result.h - what a load hands the Python package (internal to src/py): the summary's JSON
 * text and the tables, freed together by opscope_py_free (py/opscope_py.h).
 */
#ifndef OPSCOPE_PY_RESULT_H
#define OPSCOPE_PY_RESULT_H

#include "py/opscope_py.h"
#include "py/py_table.h"

#include <stdio.h>

#define OPSCOPE_PY_MAX_TABLES 24

struct opscope_py {
    char *summary;     /* malloc'd, NUL-terminated */
    size_t summary_len;
    opscope_py_table tables[OPSCOPE_PY_MAX_TABLES];
    size_t n_tables;   /* each initialised (freeable), on failure too */
};

/* Opens a memory stream whose text becomes R's summary (valid after fclose). NULL when out of
 * memory. */
FILE *opscope_py_summary_stream(opscope_py_t *r);

#endif /* OPSCOPE_PY_RESULT_H */
