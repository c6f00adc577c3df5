/*
 * py_table.h - a table of columns for the Python package (internal to src/py).
 *
 * A table has a fixed number of rows, known when it is made, and columns filled in place:
 * int64 and double arrays, and string columns held as int32 codes into the column's own
 * dictionary of distinct strings (-1: none), which the package turns into pandas columns
 * with numpy and no loop over the rows. The dictionary is handed out as one block of
 * NUL-terminated strings in code order.
 *
 * Ownership: the table owns its arrays (opscope_py_table_free). Allocation failures are
 * sticky: every call after one is a no-op and opscope_py_table_failed says so, so a builder
 * fills a whole table and checks once. Thread safety: none (one owner).
 */
#ifndef OPSCOPE_PY_TABLE_H
#define OPSCOPE_PY_TABLE_H

#include "model/strtab.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define OPSCOPE_PY_MAX_COLS 24

typedef enum opscope_py_coltype {
    OPSCOPE_PY_COL_I64 = 0,
    OPSCOPE_PY_COL_F64 = 1,
    OPSCOPE_PY_COL_STR = 2, /* int32 codes into the column's dictionary */
} opscope_py_coltype;

typedef struct opscope_py_col {
    const char *name;          /* static */
    opscope_py_coltype type;
    void *data;                /* n_rows int64_t, double or int32_t */
    opscope_strtab_t *dict;    /* STR: its distinct strings */
    char *blob;                /* STR: the dictionary as NUL-terminated strings (after seal) */
    size_t blob_len;
} opscope_py_col;

typedef struct opscope_py_table {
    const char *name;          /* static: "ops", "kernels"... */
    size_t n_rows, n_cols;
    opscope_py_col cols[OPSCOPE_PY_MAX_COLS];
    bool failed;
} opscope_py_table;

/* Starts T as NAME (static) with N_ROWS rows and no columns. */
void opscope_py_table_init(opscope_py_table *t, const char *name, size_t n_rows);

/* Adds a column NAME (static) and returns its array of n_rows elements, zeroed (codes -1
 * for a string column), or NULL when out of memory or full (the table is failed then). */
int64_t *opscope_py_table_i64(opscope_py_table *t, const char *name);
double *opscope_py_table_f64(opscope_py_table *t, const char *name);
/* A string column: returns its index for opscope_py_table_str_set, or -1 (failed). */
int opscope_py_table_str(opscope_py_table *t, const char *name);

/* Row ROW of string column COL set to S (NULL: none). A no-op on a failed table. */
void opscope_py_table_str_set(opscope_py_table *t, int col, size_t row, const char *s);

/* Makes each string column's dictionary block; call once, after the last set. Returns 0, or
 * -1 (the table is failed). */
int opscope_py_table_seal(opscope_py_table *t);

bool opscope_py_table_failed(const opscope_py_table *t);

/* Frees every column of T (T itself is the caller's). NULL is a no-op. */
void opscope_py_table_free(opscope_py_table *t);

#endif /* OPSCOPE_PY_TABLE_H */
