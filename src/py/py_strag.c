/* py_strag.c - HTA's straggler rule for the Python package: each rank's inputs as columns
 * (analyze/kineto/kstrag.h; see py_tables.h) and the rule over the ranks
 * (analyze/job/job_hta.h; opscope_py.h). */
#include "py/opscope_py.h"
#include "py/py_tables.h"

#include "analyze/job/job_hta.h"
#include "analyze/kineto/kstrag.h"

#define SP(m, k, c) OPSCOPE_PY_FIELD(opscope_kstrag_span, m, k, c)
static const opscope_py_field span_fields[] = {
    SP(step, OPSCOPE_PY_I64, "step"), SP(start_ns, OPSCOPE_PY_I64, "start_ns"), SP(end_ns, OPSCOPE_PY_I64, "end_ns"),
};

#define CM(m, k, c) OPSCOPE_PY_FIELD(opscope_kstrag_comm, m, k, c)
static const opscope_py_field comm_fields[] = {
    CM(step, OPSCOPE_PY_I64, "step"), CM(stream, OPSCOPE_PY_I64, "stream"), CM(name, OPSCOPE_PY_NAME, "name"),
    CM(start_ns, OPSCOPE_PY_I64, "start_ns"), CM(dur_ns, OPSCOPE_PY_I64, "dur_ns"),
};

int opscope_py_strag_tables(opscope_py_table *t, const opscope_kineto_t *k) {
    const opscope_kstrag_t *s = k ? opscope_kineto_kstrag(k) : NULL;
    size_t ns = 0, nc = 0;
    const opscope_kstrag_span *sp = s ? opscope_kstrag_spans(s, &ns) : NULL;
    const opscope_kstrag_comm *cm = s ? opscope_kstrag_comms(s, &nc) : NULL;
    opscope_py_rows a = {sp, sp ? ns : 0, sizeof *sp, NULL, NULL};
    opscope_py_rows b = {cm, cm ? nc : 0, sizeof *cm, NULL, k ? opscope_kineto_names(k) : NULL};
    int rc = opscope_py_table_build(&t[0], "step_spans", &a, span_fields, sizeof span_fields / sizeof *span_fields);
    rc |= opscope_py_table_seal(&t[0]);
    rc |= opscope_py_table_build(&t[1], "comm_kernels", &b, comm_fields, sizeof comm_fields / sizeof *comm_fields);
    rc |= opscope_py_table_seal(&t[1]);
    return rc ? -1 : 0;
}

_Static_assert(sizeof(opscope_hta_span) == 4 * sizeof(int64_t) && sizeof(opscope_hta_comm) == 6 * sizeof(int64_t),
               "the rows are the caller's int64 arrays");

int opscope_py_hta_stragglers(const int64_t *spans, size_t n_spans, const int64_t *comms, size_t n_comms, int num,
                              int64_t *out, size_t *n_out) {
    return opscope_job_hta_stragglers((const opscope_hta_span *)(const void *)spans, n_spans,
                                      (const opscope_hta_comm *)(const void *)comms, n_comms, num, out, n_out);
}
