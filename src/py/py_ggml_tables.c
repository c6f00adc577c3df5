/* py_ggml_tables.c - the op groups, requests and tests as columns (see py_tables.h). */
#include "py/py_tables.h"

#include "analyze/ggml/run_requests.h"
#include "analyze/ggml/run_tests.h"

#include <stdlib.h>

int opscope_py_ops(opscope_py_table *t, const opscope_stats_t *s) {
    size_t n = s ? opscope_stats_n_ops(s) : 0;
    opscope_py_table_init(t, "ops", n);
    int name = opscope_py_table_str(t, "name"), sub = opscope_py_table_str(t, "sub_op");
    int fused = opscope_py_table_str(t, "fused"), disp = opscope_py_table_str(t, "display");
    int kind = opscope_py_table_str(t, "kind"), bname = opscope_py_table_str(t, "backend");
    int64_t *bid = opscope_py_table_i64(t, "backend_id"), *count = opscope_py_table_i64(t, "count");
    int64_t *tot = opscope_py_table_i64(t, "total_ns"), *mn = opscope_py_table_i64(t, "min_ns");
    int64_t *mx = opscope_py_table_i64(t, "max_ns"), *bytes = opscope_py_table_i64(t, "bytes");
    int64_t *flops = opscope_py_table_i64(t, "flops"), *traffic = opscope_py_table_i64(t, "traffic_bytes");
    int64_t *est = opscope_py_table_i64(t, "est_ns");
    if (opscope_py_table_failed(t)) return -1;
    for (size_t i = 0; i < n; i++) {
        const opscope_op_stats *g = opscope_stats_op(s, i);
        const opscope_backend_stats *b = opscope_stats_backend_by_id(s, g->backend_id);
        opscope_py_table_str_set(t, name, i, g->name);
        opscope_py_table_str_set(t, sub, i, g->sub_op);
        opscope_py_table_str_set(t, fused, i, g->extra);
        opscope_py_table_str_set(t, disp, i, g->display);
        opscope_py_table_str_set(t, kind, i, g->type == OPSCOPE_RECORD_COPY ? "copy" : "op");
        opscope_py_table_str_set(t, bname, i, b ? b->name : NULL);
        bid[i] = g->backend_id;
        count[i] = (int64_t)g->count;
        tot[i] = (int64_t)g->total_ns;
        mn[i] = (int64_t)g->min_ns;
        mx[i] = (int64_t)g->max_ns;
        bytes[i] = (int64_t)g->bytes;
        flops[i] = (int64_t)g->flops;
        traffic[i] = (int64_t)g->traffic_bytes;
        est[i] = (int64_t)g->est_ns;
    }
    return opscope_py_table_seal(t);
}

int opscope_py_requests(opscope_py_table *t, const opscope_stats_t *s, const opscope_graphs_t *g) {
    const opscope_run_info *run = s ? opscope_stats_run(s) : NULL;
    opscope_run_request *r = NULL;
    size_t n = 0;
    if (run && run->n_decodes && opscope_run_requests(run, g, &r, &n, NULL)) return -1;
    opscope_py_table_init(t, "requests", n);
    int64_t *req = opscope_py_table_i64(t, "request"), *ctx = opscope_py_table_i64(t, "context");
    int64_t *seq = opscope_py_table_i64(t, "seq"), *np = opscope_py_table_i64(t, "n_prompt");
    int64_t *ng = opscope_py_table_i64(t, "n_gen"), *no = opscope_py_table_i64(t, "n_outputs");
    int64_t *dec = opscope_py_table_i64(t, "decodes"), *gr = opscope_py_table_i64(t, "graphs");
    int64_t *op = opscope_py_table_i64(t, "op_ns"), *st = opscope_py_table_i64(t, "start_ns");
    int64_t *fo = opscope_py_table_i64(t, "first_output_ns"), *en = opscope_py_table_i64(t, "end_ns");
    double *pts = opscope_py_table_f64(t, "prompt_ts"), *gts = opscope_py_table_f64(t, "gen_ts");
    int64_t *warm = opscope_py_table_i64(t, "warmup");
    for (size_t i = 0; i < n && !opscope_py_table_failed(t); i++) {
        req[i] = r[i].request;
        ctx[i] = r[i].context;
        seq[i] = r[i].seq;
        np[i] = (int64_t)r[i].n_prompt;
        ng[i] = (int64_t)r[i].n_gen;
        no[i] = (int64_t)r[i].n_outputs;
        dec[i] = (int64_t)r[i].decodes;
        gr[i] = (int64_t)r[i].graphs;
        op[i] = (int64_t)r[i].op_ns;
        st[i] = (int64_t)r[i].start_ns;
        fo[i] = (int64_t)r[i].first_output_ns;
        en[i] = (int64_t)r[i].end_ns;
        pts[i] = r[i].prompt_ts;
        gts[i] = r[i].gen_ts;
        warm[i] = r[i].warmup;
    }
    free(r);
    return opscope_py_table_seal(t);
}

int opscope_py_tests(opscope_py_table *t, const opscope_stats_t *s, const opscope_graphs_t *g) {
    opscope_run_test *r = NULL;
    size_t n = 0;
    if (s && opscope_run_tests(opscope_stats_run(s), g, &r, &n)) return -1;
    opscope_py_table_init(t, "tests", n);
    int model = opscope_py_table_str(t, "model");
    int64_t *ctx = opscope_py_table_i64(t, "context"), *np = opscope_py_table_i64(t, "n_prompt");
    int64_t *ng = opscope_py_table_i64(t, "n_gen"), *nb = opscope_py_table_i64(t, "n_batch");
    int64_t *nub = opscope_py_table_i64(t, "n_ubatch"), *nt = opscope_py_table_i64(t, "n_threads");
    int64_t *reps = opscope_py_table_i64(t, "n_reps");
    double *avg = opscope_py_table_f64(t, "avg_ts"), *sd = opscope_py_table_f64(t, "stddev_ts");
    int64_t *avg_ns = opscope_py_table_i64(t, "avg_ns"), *gr = opscope_py_table_i64(t, "graphs");
    int64_t *wg = opscope_py_table_i64(t, "warmup_graphs"), *op = opscope_py_table_i64(t, "op_ns");
    int64_t *wop = opscope_py_table_i64(t, "warmup_op_ns");
    for (size_t i = 0; i < n && !opscope_py_table_failed(t); i++) {
        opscope_py_table_str_set(t, model, i, r[i].model);
        ctx[i] = (int64_t)r[i].context;
        np[i] = r[i].n_prompt;
        ng[i] = r[i].n_gen;
        nb[i] = r[i].n_batch;
        nub[i] = r[i].n_ubatch;
        nt[i] = r[i].n_threads;
        reps[i] = (int64_t)r[i].n_reps;
        avg[i] = r[i].avg_ts;
        sd[i] = r[i].stddev_ts;
        avg_ns[i] = (int64_t)r[i].avg_ns;
        gr[i] = (int64_t)r[i].graphs;
        wg[i] = (int64_t)r[i].warmup_graphs;
        op[i] = (int64_t)r[i].op_ns;
        wop[i] = (int64_t)r[i].warmup_op_ns;
    }
    free(r);
    return opscope_py_table_seal(t);
}
