/* py_mem.c - PyTorch's memory timeline for the Python package: the file read by
 * read/mem_timeline.c with every point kept, the summary `report TIMELINE --json` writes and
 * the table "mem_timeline" (see opscope_py.h). */
#include "py/py_mem.h"

#include "export/kineto/mem_timeline_out.h"
#include "py/py_result.h"
#include "util/vec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The points as they close: their times and bytes per category, OPSCOPE_MEM_CATEGORIES a point. */
typedef struct points {
    OPSCOPE_VEC(int64_t) t;
    OPSCOPE_VEC(int64_t) bytes;
} points;

static int keep_point(void *ud, int64_t t, const int64_t *bytes) {
    points *p = ud;
    if (OPSCOPE_VEC_PUSH(p->t, t)) return -1;
    for (int c = 0; c < OPSCOPE_MEM_CATEGORIES; c++)
        if (OPSCOPE_VEC_PUSH(p->bytes, bytes[c])) return -1;
    return 0;
}

/* "mem_timeline": per point ts_ns (the pre-existing point at the first positive time, as
 * HTA), each category's bytes (columns by torch's names) and total_bytes. */
static int mem_table(opscope_py_table *t, const points *p, const opscope_mem_timeline *m) {
    size_t n = p->t.n;
    opscope_py_table_init(t, "mem_timeline", n);
    int64_t *ts = opscope_py_table_i64(t, "ts_ns"), *cat[OPSCOPE_MEM_CATEGORIES];
    for (int c = 0; c < OPSCOPE_MEM_CATEGORIES; c++) cat[c] = opscope_py_table_i64(t, opscope_mem_category_name(c));
    int64_t *total = opscope_py_table_i64(t, "total_bytes");
    for (size_t i = 0; total && i < n; i++) {
        ts[i] = p->t.v[i] < 0 ? m->first_ns : p->t.v[i];
        total[i] = 0;
        for (int c = 0; c < OPSCOPE_MEM_CATEGORIES; c++) total[i] += cat[c][i] = p->bytes.v[i * OPSCOPE_MEM_CATEGORIES + c];
    }
    return opscope_py_table_seal(t);
}

opscope_py_t *opscope_py_mem_load(const char *path, opscope_error *err) {
    opscope_py_t *r = calloc(1, sizeof *r);
    points p = {0};
    opscope_mem_timeline m;
    FILE *fp = NULL;
    int rc = r ? opscope_mem_timeline_read_points(path, &m, keep_point, &p, err) : -1;
    /* the summary's stream is opened here, not by py_load.c's helper: py_load.c calls this file */
    if (!rc && !(fp = open_memstream(&r->summary, &r->summary_len))) rc = -1;
    opscope_out_t *w = !rc ? opscope_out_from_file(fp, err) : NULL;
    if (w) {
        opscope_mem_timeline_write_json(w, &m, path);
        rc = opscope_out_commit(w, err);
    } else if (!rc) {
        rc = -1;
    }
    if (fp && fclose(fp)) rc = -1;
    if (!rc) {
        rc = mem_table(&r->tables[0], &p, &m);
        r->n_tables = 1; /* initialised, on failure too */
    }
    free(p.t.v);
    free(p.bytes.v);
    if (rc || !r->summary) {
        if (!err->code) *err = (opscope_error){.code = OPSCOPE_ERROR_NOMEM, .msg = "out of memory"};
        if (r) opscope_py_table_free(&r->tables[0]); /* initialised or zeroed */
        if (r) free(r->summary);
        free(r);
        return NULL;
    }
    return r;
}
