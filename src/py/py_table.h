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

#define OPSCOPE_PY_MAX_COLS 40

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

/* A column read from a member of the source's rows: its kind says the member's C type. */
typedef enum opscope_py_field_kind {
    OPSCOPE_PY_I64, OPSCOPE_PY_U64, OPSCOPE_PY_I32, OPSCOPE_PY_U32,
    OPSCOPE_PY_ID,    /* uint32_t, UINT32_MAX (none) as -1 */
    OPSCOPE_PY_U16, OPSCOPE_PY_U8, OPSCOPE_PY_BOOL,
    OPSCOPE_PY_F64,   /* double */
    OPSCOPE_PY_CSTR,  /* const char * (NULL: none) */
    OPSCOPE_PY_CHARS, /* a char array member */
    OPSCOPE_PY_NAME,  /* uint32_t id into the rows' string table (UINT32_MAX: none) */
    OPSCOPE_PY_LABEL, /* an int-like member (enum, uint8_t: by size) named by LABEL */
} opscope_py_field_kind;

typedef struct opscope_py_field {
    const char *name;                /* the column (static) */
    opscope_py_field_kind kind;
    size_t off, size;                /* the member's offset and size */
    const char *(*label)(int value); /* LABEL: a static name for the value */
} opscope_py_field;

#define OPSCOPE_PY_FIELD(T, member, kind, col) \
    {col, kind, offsetof(T, member), sizeof(((T *)0)->member), NULL}
#define OPSCOPE_PY_LABELED(T, member, fn, col) \
    {col, OPSCOPE_PY_LABEL, offsetof(T, member), sizeof(((T *)0)->member), fn}

/* The rows a table is made of: N of them, row I at SRC + I * STRIDE, or GET's answer when GET
 * is not NULL (it may fill SCRATCH, a buffer of STRIDE bytes, and return it). NAMES: the
 * string table of NAME fields (may be NULL when there are none). */
typedef struct opscope_py_rows {
    const void *src;
    size_t n, stride;
    const void *(*get)(const void *src, size_t i, void *scratch);
    const opscope_strtab_t *names;
} opscope_py_rows;

/* Starts T as NAME with ROWS' rows and one column per field of F (NF of them), filled; the
 * caller may add columns, then seals. Returns 0, or -1 when out of memory (T failed). */
int opscope_py_table_build(opscope_py_table *t, const char *name, const opscope_py_rows *rows,
                           const opscope_py_field *f, size_t nf);

/* Adds to T one column per field of F (NF of them) filled from ROWS (as many as T's rows). */
int opscope_py_table_add(opscope_py_table *t, const opscope_py_rows *rows, const opscope_py_field *f, size_t nf);

/* Frees every column of T (T itself is the caller's). NULL is a no-op. */
void opscope_py_table_free(opscope_py_table *t);

#endif /* OPSCOPE_PY_TABLE_H */
