/* py_table.c - a table of columns for the Python package (see py_table.h). */
#include "py/py_table.h"

#include <stdlib.h>
#include <string.h>

void opscope_py_table_init(opscope_py_table *t, const char *name, size_t n_rows) {
    memset(t, 0, sizeof *t);
    t->name = name;
    t->n_rows = n_rows;
}

/* A new column of ELEM-byte cells; NULL (and the table failed) when out of memory or full. */
static opscope_py_col *add_col(opscope_py_table *t, const char *name, opscope_py_coltype type,
                               size_t elem) {
    if (t->failed || t->n_cols == OPSCOPE_PY_MAX_COLS) {
        t->failed = true;
        return NULL;
    }
    /* one cell even for an empty table: the package reads no row of it, but a column is
     * never a NULL pointer */
    void *data = calloc(t->n_rows ? t->n_rows : 1, elem);
    if (!data) {
        t->failed = true;
        return NULL;
    }
    opscope_py_col *c = &t->cols[t->n_cols++];
    *c = (opscope_py_col){.name = name, .type = type, .data = data};
    return c;
}

int64_t *opscope_py_table_i64(opscope_py_table *t, const char *name) {
    opscope_py_col *c = add_col(t, name, OPSCOPE_PY_COL_I64, sizeof(int64_t));
    return c ? c->data : NULL;
}

double *opscope_py_table_f64(opscope_py_table *t, const char *name) {
    opscope_py_col *c = add_col(t, name, OPSCOPE_PY_COL_F64, sizeof(double));
    return c ? c->data : NULL;
}

int opscope_py_table_str(opscope_py_table *t, const char *name) {
    opscope_py_col *c = add_col(t, name, OPSCOPE_PY_COL_STR, sizeof(int32_t));
    if (!c) return -1;
    c->dict = opscope_strtab_new();
    if (!c->dict) {
        t->failed = true;
        return -1;
    }
    memset(c->data, 0xff, (t->n_rows ? t->n_rows : 1) * sizeof(int32_t)); /* every code -1 */
    return (int)(c - t->cols);
}

void opscope_py_table_str_set(opscope_py_table *t, int col, size_t row, const char *s) {
    if (t->failed || col < 0 || !s) return;
    opscope_py_col *c = &t->cols[col];
    uint32_t id;
    if (!opscope_strtab_intern(c->dict, s, strlen(s), &id) || id > INT32_MAX) {
        t->failed = true;
        return;
    }
    ((int32_t *)c->data)[row] = (int32_t)id;
}

/* The dictionary of C as one block of NUL-terminated strings in id order. */
static int seal_col(opscope_py_col *c) {
    uint32_t n = opscope_strtab_count(c->dict);
    size_t len = 0;
    for (uint32_t i = 0; i < n; i++) len += strlen(opscope_strtab_get(c->dict, i)) + 1;
    c->blob = malloc(len ? len : 1);
    if (!c->blob) return -1;
    size_t at = 0;
    for (uint32_t i = 0; i < n; i++) {
        const char *s = opscope_strtab_get(c->dict, i);
        size_t l = strlen(s) + 1;
        memcpy(c->blob + at, s, l);
        at += l;
    }
    c->blob_len = len;
    return 0;
}

int opscope_py_table_seal(opscope_py_table *t) {
    for (size_t i = 0; i < t->n_cols && !t->failed; i++)
        if (t->cols[i].type == OPSCOPE_PY_COL_STR && !t->cols[i].blob && seal_col(&t->cols[i]))
            t->failed = true;
    return t->failed ? -1 : 0;
}

bool opscope_py_table_failed(const opscope_py_table *t) { return t->failed; }

void opscope_py_table_free(opscope_py_table *t) {
    if (!t) return;
    for (size_t i = 0; i < t->n_cols; i++) {
        free(t->cols[i].data);
        free(t->cols[i].blob);
        opscope_strtab_free(t->cols[i].dict);
    }
    t->n_cols = 0;
}

/* The integer of SIZE bytes at P, signed or not. */
static int64_t int_at(const char *p, size_t size, bool sign) {
    switch (size) {
    case 1: return sign ? (int64_t) * (const int8_t *)p : (int64_t) * (const uint8_t *)p;
    case 2: return sign ? (int64_t) * (const int16_t *)p : (int64_t) * (const uint16_t *)p;
    case 4: return sign ? (int64_t) * (const int32_t *)p : (int64_t) * (const uint32_t *)p;
    default: return *(const int64_t *)p;
    }
}

/* Row ROW's cell of field F (at P) into column C (index CI) of T. */
static void fill_cell(opscope_py_table *t, int ci, const opscope_py_field *f, const char *p, size_t row,
                      const opscope_strtab_t *names) {
    opscope_py_col *c = &t->cols[ci];
    uint32_t id;
    switch (f->kind) {
    case OPSCOPE_PY_F64: ((double *)c->data)[row] = *(const double *)p; break;
    case OPSCOPE_PY_CSTR: opscope_py_table_str_set(t, ci, row, *(const char *const *)p); break;
    case OPSCOPE_PY_CHARS: opscope_py_table_str_set(t, ci, row, p); break;
    case OPSCOPE_PY_NAME:
        memcpy(&id, p, sizeof id);
        opscope_py_table_str_set(t, ci, row, id == UINT32_MAX || !names ? NULL : opscope_strtab_get(names, id));
        break;
    case OPSCOPE_PY_LABEL: opscope_py_table_str_set(t, ci, row, f->label((int)int_at(p, f->size, true))); break;
    case OPSCOPE_PY_ID:
        memcpy(&id, p, sizeof id);
        ((int64_t *)c->data)[row] = id == UINT32_MAX ? -1 : (int64_t)id;
        break;
    default:
        ((int64_t *)c->data)[row] = int_at(p, f->size, f->kind == OPSCOPE_PY_I64 || f->kind == OPSCOPE_PY_I32);
    }
}

int opscope_py_table_add(opscope_py_table *t, const opscope_py_rows *rows, const opscope_py_field *f, size_t nf) {
    int first = (int)t->n_cols;
    for (size_t j = 0; j < nf; j++) {
        bool str = f[j].kind >= OPSCOPE_PY_CSTR, dbl = f[j].kind == OPSCOPE_PY_F64;
        if (str) opscope_py_table_str(t, f[j].name);
        else if (dbl) opscope_py_table_f64(t, f[j].name);
        else opscope_py_table_i64(t, f[j].name);
    }
    if (t->failed) return -1;
    char scratch[256];
    if ((rows->get && rows->stride > sizeof scratch) || rows->n != t->n_rows) return t->failed = true, -1;
    for (size_t i = 0; i < rows->n && !t->failed; i++) {
        const char *row = rows->get ? rows->get(rows->src, i, scratch)
                                    : (const char *)rows->src + i * rows->stride;
        for (size_t j = 0; j < nf; j++) fill_cell(t, first + (int)j, &f[j], row + f[j].off, i, rows->names);
    }
    return t->failed ? -1 : 0;
}

int opscope_py_table_build(opscope_py_table *t, const char *name, const opscope_py_rows *rows,
                           const opscope_py_field *f, size_t nf) {
    opscope_py_table_init(t, name, rows->n);
    return opscope_py_table_add(t, rows, f, nf);
}
