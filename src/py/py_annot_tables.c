/* py_annot_tables.c - a trace's GPU-side user annotations as columns (see py_tables.h):
 * analyze/kineto/kgann.h's rows, their per-name statistics and each GPU activity's innermost
 * annotation. */
#include "py/py_tables.h"

#include "analyze/kineto/kgann.h"
#include "analyze/kineto/kineto.h"
#include "util/strbuf.h"

#define AN(m, k, c) OPSCOPE_PY_FIELD(opscope_kgann_row, m, k, c)
static const opscope_py_field row_fields[] = {
    AN(name, OPSCOPE_PY_NAME, "name"), AN(device, OPSCOPE_PY_I64, "device"), AN(stream, OPSCOPE_PY_I64, "stream"),
    AN(start_ns, OPSCOPE_PY_I64, "start_ns"), AN(dur_ns, OPSCOPE_PY_I64, "dur_ns"),
};

/* the durations' statistics per name (HTA's: the sample standard deviation, n - 1) */
#define KS(m, k, c) OPSCOPE_PY_FIELD(opscope_kstats_kernel, m, k, c)
static const opscope_py_field stat_fields[] = {
    KS(name, OPSCOPE_PY_NAME, "name"), KS(count, OPSCOPE_PY_U64, "count"), KS(sum_ns, OPSCOPE_PY_U64, "sum_ns"),
    KS(min_ns, OPSCOPE_PY_U64, "min_ns"), KS(max_ns, OPSCOPE_PY_U64, "max_ns"),
    KS(mean_ns, OPSCOPE_PY_F64, "mean_ns"), KS(std_ns, OPSCOPE_PY_F64, "std_ns"),
};

static const opscope_py_field of_fields[] = {{"annotation", OPSCOPE_PY_ID, 0, sizeof(uint32_t), NULL}};

static const char *name_of(const opscope_strtab_t *names, uint32_t id) {
    return names && id < opscope_strtab_count(names) ? opscope_strtab_get(names, id) : NULL;
}

/* Sets row I of column COL to NAME shortened by HTA's rule (B: scratch). */
static void short_set(opscope_py_table *t, int col, size_t i, const char *name, opscope_strbuf *b) {
    if (!name) return;
    if (opscope_kgann_short_name(name, b)) t->failed = true;
    else opscope_py_table_str_set(t, col, i, opscope_strbuf_cstr(b));
}

/* "kernel_annotations": per GPU activity of "kernels", its annotation's row (-1: none), that
 * annotation's name, and both names shortened by HTA's rule. */
static int of_table(opscope_py_table *t, const opscope_kineto_t *k, const opscope_kgann_t *g,
                    const opscope_strtab_t *names) {
    size_t n = 0, n_rows = 0;
    const uint32_t *of = g ? opscope_kgann_of(g, &n) : NULL;
    const opscope_kgann_row *rows = g ? opscope_kgann_rows(g, &n_rows) : NULL;
    opscope_py_rows src = {of, of ? n : 0, sizeof *of, NULL, NULL};
    int rc = opscope_py_table_build(t, "kernel_annotations", &src, of_fields, 1);
    int col = opscope_py_table_str(t, "user_annotation"), s_name = opscope_py_table_str(t, "short_name");
    int s_annot = opscope_py_table_str(t, "short_annotation");
    opscope_strbuf b = OPSCOPE_STRBUF_INIT;
    for (size_t i = 0; of && i < src.n && i < opscope_kineto_n_gpu(k); i++) {
        opscope_kineto_gpu_info gi;
        opscope_kineto_gpu_get(k, i, &gi);
        short_set(t, s_name, i, name_of(names, gi.name_id), &b);
        const char *a = of[i] < n_rows ? name_of(names, rows[of[i]].name) : NULL;
        opscope_py_table_str_set(t, col, i, a);
        short_set(t, s_annot, i, a, &b);
    }
    opscope_strbuf_free(&b);
    return rc | opscope_py_table_seal(t);
}

int opscope_py_annot_tables(opscope_py_table *t, const opscope_kineto_t *k) {
    const opscope_kgann_t *g = k ? opscope_kineto_kgann(k) : NULL;
    const opscope_strtab_t *names = k ? opscope_kineto_names(k) : NULL;
    size_t n_rows = 0, n_names = 0;
    const opscope_kgann_row *rows = g ? opscope_kgann_rows(g, &n_rows) : NULL;
    const opscope_kstats_kernel *st = g ? opscope_kgann_names(g, &n_names) : NULL;
    opscope_py_rows r = {rows, rows ? n_rows : 0, sizeof *rows, NULL, names};
    opscope_py_rows s = {st, st ? n_names : 0, sizeof *st, NULL, names};
    int rc = opscope_py_table_build(&t[0], "gpu_annotations", &r, row_fields, sizeof row_fields / sizeof *row_fields);
    rc |= opscope_py_table_seal(&t[0]);
    rc |= opscope_py_table_build(&t[1], "gpu_annotation_stats", &s, stat_fields, sizeof stat_fields / sizeof *stat_fields);
    rc |= opscope_py_table_seal(&t[1]);
    rc |= of_table(&t[2], k, g, names);
    return rc ? -1 : 0;
}
