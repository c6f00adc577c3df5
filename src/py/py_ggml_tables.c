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
    OP(name, OPSCOPE_PY_CSTR, "name"), OP(sub_op, OPSCOPE_PY_CSTR, "sub_op"), OP(extra, OPSCOPE_PY_CSTR, "fused"),
    OP(display, OPSCOPE_PY_CSTR, "display"), OPSCOPE_PY_LABELED(opscope_op_stats, type, record_kind, "kind"),
    OP(backend_id, OPSCOPE_PY_I32, "backend_id"), OP(count, OPSCOPE_PY_U64, "count"), OP(total_ns, OPSCOPE_PY_U64, "total_ns"),
    OP(min_ns, OPSCOPE_PY_U64, "min_ns"), OP(max_ns, OPSCOPE_PY_U64, "max_ns"), OP(bytes, OPSCOPE_PY_U64, "bytes"),
    OP(flops, OPSCOPE_PY_U64, "flops"), OP(traffic_bytes, OPSCOPE_PY_U64, "traffic_bytes"), OP(est_ns, OPSCOPE_PY_U64, "est_ns"),
};

#define RQ(m, k, c) OPSCOPE_PY_FIELD(opscope_run_request, m, k, c)
static const opscope_py_field request_fields[] = {
    RQ(request, OPSCOPE_PY_U32, "request"), RQ(context, OPSCOPE_PY_I32, "context"), RQ(seq, OPSCOPE_PY_I32, "seq"),
    RQ(n_prompt, OPSCOPE_PY_U64, "n_prompt"), RQ(n_gen, OPSCOPE_PY_U64, "n_gen"), RQ(n_outputs, OPSCOPE_PY_U64, "n_outputs"),
    RQ(decodes, OPSCOPE_PY_U64, "decodes"), RQ(graphs, OPSCOPE_PY_U64, "graphs"), RQ(op_ns, OPSCOPE_PY_U64, "op_ns"),
    RQ(start_ns, OPSCOPE_PY_U64, "start_ns"), RQ(first_output_ns, OPSCOPE_PY_U64, "first_output_ns"),
    RQ(end_ns, OPSCOPE_PY_U64, "end_ns"), RQ(prompt_ts, OPSCOPE_PY_F64, "prompt_ts"), RQ(gen_ts, OPSCOPE_PY_F64, "gen_ts"),
    RQ(warmup, OPSCOPE_PY_BOOL, "warmup"),
};

#define TS(m, k, c) OPSCOPE_PY_FIELD(opscope_run_test, m, k, c)
static const opscope_py_field test_fields[] = {
    TS(model, OPSCOPE_PY_CSTR, "model"), TS(context, OPSCOPE_PY_U64, "context"), TS(n_prompt, OPSCOPE_PY_I64, "n_prompt"),
    TS(n_gen, OPSCOPE_PY_I64, "n_gen"), TS(n_batch, OPSCOPE_PY_U32, "n_batch"), TS(n_ubatch, OPSCOPE_PY_U32, "n_ubatch"),
    TS(n_threads, OPSCOPE_PY_U32, "n_threads"), TS(n_reps, OPSCOPE_PY_U64, "n_reps"), TS(avg_ts, OPSCOPE_PY_F64, "avg_ts"),
    TS(stddev_ts, OPSCOPE_PY_F64, "stddev_ts"), TS(avg_ns, OPSCOPE_PY_U64, "avg_ns"), TS(graphs, OPSCOPE_PY_U64, "graphs"),
    TS(warmup_graphs, OPSCOPE_PY_U64, "warmup_graphs"), TS(op_ns, OPSCOPE_PY_U64, "op_ns"),
    TS(warmup_op_ns, OPSCOPE_PY_U64, "warmup_op_ns"),
};

#define NF(a) (sizeof a / sizeof *a)

/* The op groups, with the name the profile gave each group's backend. */
static int ops_table(opscope_py_table *t, const opscope_stats_t *s) {
    opscope_py_rows rows = {.src = s, .n = s ? opscope_stats_n_ops(s) : 0, .get = op_row};
    if (opscope_py_table_build(t, "ops", &rows, op_fields, NF(op_fields))) return -1;
    int bname = opscope_py_table_str(t, "backend");
    for (size_t i = 0; i < rows.n; i++) {
        const opscope_backend_stats *b = opscope_stats_backend_by_id(s, opscope_stats_op(s, i)->backend_id);
        opscope_py_table_str_set(t, bname, i, b ? b->name : NULL);
    }
    return opscope_py_table_seal(t);
}

int opscope_py_ggml_tables(opscope_py_table *t, const opscope_stats_t *s, const opscope_graphs_t *g) {
    const opscope_run_info *run = s ? opscope_stats_run(s) : NULL;
    opscope_run_request *req = NULL;
    opscope_run_test *tests = NULL;
    size_t n_req = 0, n_tests = 0;
    int rc = 0;
    if (run && run->n_decodes && opscope_run_requests(run, g, &req, &n_req, NULL)) rc = -1, n_req = 0;
    if (run && opscope_run_tests(run, g, &tests, &n_tests)) rc = -1, n_tests = 0;
    rc |= ops_table(&t[0], s);
    opscope_py_rows rr = {.src = req, .n = n_req, .stride = sizeof *req};
    rc |= opscope_py_table_build(&t[1], "requests", &rr, request_fields, NF(request_fields));
    opscope_py_rows tr = {.src = tests, .n = n_tests, .stride = sizeof *tests};
    rc |= opscope_py_table_build(&t[2], "tests", &tr, test_fields, NF(test_fields));
    free(req);
    free(tests);
    for (int i = 1; i < OPSCOPE_PY_GGML_TABLES; i++) rc |= opscope_py_table_seal(&t[i]);
    return rc ? -1 : 0;
}
