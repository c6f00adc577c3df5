/* py_cupti_tables.c - the kernels CUPTI's profiler measured, as columns (see py_tables.h):
 * analyze/kineto/cupti.h's rows and their counters, long (one row per kernel and counter),
 * since the counters' names are the trace's own. */
#include "py/py_tables.h"

#include "analyze/kineto/cupti.h"
#include "util/strbuf.h"

static const char *name_of(const opscope_strtab_t *names, uint32_t id) {
    return names && id < opscope_strtab_count(names) ? opscope_strtab_get(names, id) : NULL;
}

/* "cupti_kernels": name, start_ns, dur_ns, top_op, bottom_op, op_stack (outer first, joined by
 * "|"; none when unattributed). */
static int kernel_table(opscope_py_table *t, const opscope_cupti_results *r, const opscope_strtab_t *names) {
    size_t n = r ? r->n_rows : 0;
    opscope_py_table_init(t, "cupti_kernels", n);
    int name = opscope_py_table_str(t, "name");
    int64_t *start = opscope_py_table_i64(t, "start_ns"), *dur = opscope_py_table_i64(t, "dur_ns");
    int top = opscope_py_table_str(t, "top_op"), bottom = opscope_py_table_str(t, "bottom_op");
    int stack = opscope_py_table_str(t, "op_stack");
    opscope_strbuf b = OPSCOPE_STRBUF_INIT;
    for (size_t i = 0; dur && i < n; i++) {
        const opscope_cupti_row *w = &r->rows[i];
        start[i] = w->start_ns, dur[i] = w->dur_ns;
        opscope_py_table_str_set(t, name, i, name_of(names, w->kernel));
        opscope_py_table_str_set(t, top, i, name_of(names, w->top_op));
        opscope_py_table_str_set(t, bottom, i, name_of(names, w->bottom_op));
        opscope_strbuf_reset(&b);
        for (uint32_t j = 0; j < w->n_stack && w->stack + j < r->n_stack; j++) {
            if (j) opscope_strbuf_add_char(&b, '|');
            const char *op = name_of(names, r->stack[w->stack + j]);
            opscope_strbuf_add_str(&b, op ? op : "");
        }
        if (b.failed) t->failed = true;
        if (w->n_stack) opscope_py_table_str_set(t, stack, i, opscope_strbuf_cstr(&b));
    }
    opscope_strbuf_free(&b);
    return opscope_py_table_seal(t);
}

/* "cupti_values": row (of cupti_kernels), counter (its name), value; a row's counters in name
 * order, 0 where the kernel lacks one. */
static int value_table(opscope_py_table *t, const opscope_cupti_results *r, const opscope_strtab_t *names) {
    size_t nc = r ? r->n_counters : 0, n = r ? r->n_rows * nc : 0;
    opscope_py_table_init(t, "cupti_values", n);
    int64_t *row = opscope_py_table_i64(t, "row");
    int counter = opscope_py_table_str(t, "counter");
    double *value = opscope_py_table_f64(t, "value");
    for (size_t i = 0; value && i < n; i++) {
        row[i] = (int64_t)(i / nc);
        opscope_py_table_str_set(t, counter, i, name_of(names, r->counters[i % nc]));
        value[i] = r->values[i];
    }
    return opscope_py_table_seal(t);
}

int opscope_py_cupti_tables(opscope_py_table *t, const opscope_kineto_t *k) {
    const opscope_cupti_t *c = k ? opscope_kineto_cupti(k) : NULL;
    const opscope_cupti_results *r = c ? opscope_cupti_results_get(c) : NULL;
    const opscope_strtab_t *names = k ? opscope_kineto_names(k) : NULL;
    int rc = kernel_table(&t[0], r, names);
    rc |= value_table(&t[1], r, names);
    return rc ? -1 : 0;
}
