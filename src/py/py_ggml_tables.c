/* py_ggml_tables.c - the op groups, requests and tests as columns (see py_tables.h). */
#include "py/py_tables.h"

#include "analyze/ggml/run_requests.h"
#include "analyze/ggml/run_tests.h"

#include <stdlib.h>

static const char *record_kind(int type) { return type == OPSCOPE_RECORD_COPY ? "copy" : "op"; }

/* Group I of the stats SRC (the groups are reached one by one). */
static const void *op_row(const void *src, size_t i, void *scratch) {
    (void)scratch;
    return opscope_stats_op(src, i);
}

#define OP(m, k, c) OPSCOPE_PY_FIELD(opscope_op_stats, m, k, c)
static const opscope_py_field op_fields[] = {
    OP(name, OPSCOPE_PY_CSTR, "name"), OP(sub_op, OPSCOPE_PY_CSTR, "sub_op"),
    OP(extra, OPSCOPE_PY_CSTR, "fused"), OP(display, OPSCOPE_PY_CSTR, "display"),
    OPSCOPE_PY_LABELED(opscope_op_stats, type, record_kind, "kind"),
    OP(backend_id, OPSCOPE_PY_I32, "backend_id"), OP(count, OPSCOPE_PY_U64, "count"),
    OP(total_ns, OPSCOPE_PY_U64, "total_ns"), OP(min_ns, OPSCOPE_PY_U64, "min_ns"),
    OP(max_ns, OPSCOPE_PY_U64, "max_ns"), OP(bytes, OPSCOPE_PY_U64, "bytes"),
    OP(flops, OPSCOPE_PY_U64, "flops"), OP(traffic_bytes, OPSCOPE_PY_U64, "traffic_bytes"),
    OP(est_ns, OPSCOPE_PY_U64, "est_ns"),
};

int opscope_py_ops(opscope_py_table *t, const opscope_stats_t *s) {
    opscope_py_rows rows = {.src = s, .n = s ? opscope_stats_n_ops(s) : 0, .get = op_row};
    if (opscope_py_table_build(t, "ops", &rows, op_fields, sizeof op_fields / sizeof *op_fields)) return -1;
    int bname = opscope_py_table_str(t, "backend"); /* the name the profile gave the backend */
    for (size_t i = 0; i < rows.n; i++) {
        const opscope_backend_stats *b = opscope_stats_backend_by_id(s, opscope_stats_op(s, i)->backend_id);
        opscope_py_table_str_set(t, bname, i, b ? b->name : NULL);
    }
    return opscope_py_table_seal(t);
}

#define RQ(m, k, c) OPSCOPE_PY_FIELD(opscope_run_request, m, k, c)
static const opscope_py_field request_fields[] = {
    RQ(request, OPSCOPE_PY_U32, "request"), RQ(context, OPSCOPE_PY_I32, "context"),
    RQ(seq, OPSCOPE_PY_I32, "seq"), RQ(n_prompt, OPSCOPE_PY_U64, "n_prompt"),
    RQ(n_gen, OPSCOPE_PY_U64, "n_gen"), RQ(n_outputs, OPSCOPE_PY_U64, "n_outputs"),
    RQ(decodes, OPSCOPE_PY_U64, "decodes"), RQ(graphs, OPSCOPE_PY_U64, "graphs"),
    RQ(op_ns, OPSCOPE_PY_U64, "op_ns"), RQ(start_ns, OPSCOPE_PY_U64, "start_ns"),
    RQ(first_output_ns, OPSCOPE_PY_U64, "first_output_ns"), RQ(end_ns, OPSCOPE_PY_U64, "end_ns"),
    RQ(prompt_ts, OPSCOPE_PY_F64, "prompt_ts"), RQ(gen_ts, OPSCOPE_PY_F64, "gen_ts"),
    RQ(warmup, OPSCOPE_PY_BOOL, "warmup"),
};

int opscope_py_requests(opscope_py_table *t, const opscope_stats_t *s, const opscope_graphs_t *g) {
    const opscope_run_info *run = s ? opscope_stats_run(s) : NULL;
    opscope_run_request *r = NULL;
    size_t n = 0;
    if (run && run->n_decodes && opscope_run_requests(run, g, &r, &n, NULL)) return -1;
    opscope_py_rows rows = {.src = r, .n = n, .stride = sizeof *r};
    int rc = opscope_py_table_build(t, "requests", &rows, request_fields,
                                    sizeof request_fields / sizeof *request_fields);
    free(r);
    return rc ? -1 : opscope_py_table_seal(t);
}

#define TS(m, k, c) OPSCOPE_PY_FIELD(opscope_run_test, m, k, c)
static const opscope_py_field test_fields[] = {
    TS(model, OPSCOPE_PY_CSTR, "model"), TS(context, OPSCOPE_PY_U64, "context"),
    TS(n_prompt, OPSCOPE_PY_I64, "n_prompt"), TS(n_gen, OPSCOPE_PY_I64, "n_gen"),
    TS(n_batch, OPSCOPE_PY_U32, "n_batch"), TS(n_ubatch, OPSCOPE_PY_U32, "n_ubatch"),
    TS(n_threads, OPSCOPE_PY_U32, "n_threads"), TS(n_reps, OPSCOPE_PY_U64, "n_reps"),
    TS(avg_ts, OPSCOPE_PY_F64, "avg_ts"), TS(stddev_ts, OPSCOPE_PY_F64, "stddev_ts"),
    TS(avg_ns, OPSCOPE_PY_U64, "avg_ns"), TS(graphs, OPSCOPE_PY_U64, "graphs"),
    TS(warmup_graphs, OPSCOPE_PY_U64, "warmup_graphs"), TS(op_ns, OPSCOPE_PY_U64, "op_ns"),
    TS(warmup_op_ns, OPSCOPE_PY_U64, "warmup_op_ns"),
};

int opscope_py_tests(opscope_py_table *t, const opscope_stats_t *s, const opscope_graphs_t *g) {
    opscope_run_test *r = NULL;
    size_t n = 0;
    if (s && opscope_run_tests(opscope_stats_run(s), g, &r, &n)) return -1;
    opscope_py_rows rows = {.src = r, .n = n, .stride = sizeof *r};
    int rc = opscope_py_table_build(t, "tests", &rows, test_fields, sizeof test_fields / sizeof *test_fields);
    free(r);
    return rc ? -1 : opscope_py_table_seal(t);
}
