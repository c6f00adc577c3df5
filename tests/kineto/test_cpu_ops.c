/* Unit tests of the CPU-op records (analyze/kineto/cpu_ops.c) on small inline traces: nesting as
 * torch computes it, torch's duplicate folding and filtered names, async gloo ranges, the
 * legacy profiler's format, steps, threads and phases. Expected figures are worked out by
 * hand from the intervals below (microseconds in the trace, ns in the results). */
#include "analyze/kineto/cpu_ops.h"
#include "analyze/kineto/kineto.h"
#include "read/readers.h"
#include "model/strtab.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int nop_rec(void *ud, const opscope_record *r) {
    (void)ud;
    (void)r;
    return 0;
}

/* Reads JSON with a fresh analysis; *K and *NAMES to free by the caller. */
static int read_trace(const char *json, opscope_kineto_t **k, opscope_strtab_t **names) {
    *names = opscope_strtab_new();
    *k = opscope_kineto_new(*names);
    if (!*names || !*k) return -1;
    opscope_kineto_keep_dims(*k);
    opscope_sink s = {NULL, NULL, NULL, nop_rec, NULL};
    opscope_read_options o = {0};
    o.kineto = opscope_kineto_collector_of(*k);
    opscope_error err;
    if (opscope_read_buffer_opts(json, strlen(json), "t.json", OPSCOPE_FORMAT_AUTO, &s, &o, &err)) return -1;
    return opscope_kineto_finish(*k);
}

static const opscope_cpu_op_group *group(const opscope_kineto_t *k, const char *name) {
    const opscope_cpu_ops_t *c = opscope_kineto_cpu_ops(k);
    const opscope_cpu_ops_results *r = opscope_cpu_ops_results_get(c);
    for (size_t i = 0; i < r->n_by_name; i++)
        if (!strcmp(opscope_cpu_ops_label(c, r->by_name[i].name), name)) return &r->by_name[i];
    return NULL;
}

#define X(cat, name, tid, ts, dur, args)                                                    \
    "{\"ph\":\"X\",\"cat\":\"" cat "\",\"name\":\"" name "\",\"pid\":1,\"tid\":" #tid ",\"ts\":" #ts \
    ",\"dur\":" #dur ",\"args\":{" args "}}"

static int test_nesting(void) {
    /* thread 1: step [0,100) holds forward [10,60) holds linear [10,50) holds addmm [12,40)
     * (its lone child aten::addmm [15,30) has its name: folded) holding mm [15,30);
     * an op [50,70) only overlaps forward: no child of it, child of the step; a filtered
     * aten::is_leaf [41,45) takes nothing from linear. Thread 2: an op [5,25) alone. Async
     * gloo:all_reduce [20,90) on thread 1: no self time, outside the nesting. */
    const char *t =
        "{\"schemaVersion\":1,\"traceEvents\":["
        X("user_annotation", "ProfilerStep#7", 1, 0, 100, "") ","
        X("user_annotation", "forward", 1, 10, 50, "") ","
        X("cpu_op", "aten::linear", 1, 10, 40, "\"Input Dims\":[[8,64],[128,64],[128]],\"Input type\":[\"float\",\"float\",\"float\"]") ","
        X("cpu_op", "aten::addmm", 1, 12, 28, "") ","
        X("cpu_op", "aten::addmm", 1, 15, 15, "") ","
        X("cpu_op", "aten::mm", 1, 15, 15, "") ","
        X("cpu_op", "aten::is_leaf", 1, 41, 4, "") ","
        X("cpu_op", "aten::overlap", 1, 50, 20, "") ","
        X("user_annotation", "gloo:all_reduce", 1, 20, 70, "") ","
        X("cpu_op", "aten::other_thread", 2, 5, 20, "")
        "]}";
    opscope_kineto_t *k;
    opscope_strtab_t *names;
    ASSERT_EQ_INT(read_trace(t, &k, &names), 0);
    const opscope_cpu_ops_results *r = opscope_cpu_ops_results_get(opscope_kineto_cpu_ops(k));
    ASSERT_EQ_U64(r->n_recs, 8);   /* 10 slices - is_leaf - the folded addmm */
    ASSERT_EQ_U64(r->dropped, 2);
    const opscope_cpu_op_group *g = group(k, "aten::addmm");
    ASSERT_NOT_NULL(g);
    ASSERT_EQ_U64(g->count, 1);
    ASSERT_EQ_U64(g->total_ns, 28000);
    ASSERT_EQ_U64(g->self_ns, 13000); /* 28 - mm's 15 (the folded addmm's child) */
    g = group(k, "aten::mm");
    ASSERT_EQ_U64(g->self_ns, 15000);
    g = group(k, "aten::linear");
    ASSERT_EQ_U64(g->self_ns, 12000); /* 40 - addmm's 28; is_leaf is no event */
    ASSERT_EQ_STR(opscope_strtab_get(names, g->dims), "[8,64]x[128,64]x[128]");
    ASSERT_EQ_STR(opscope_strtab_get(names, g->types), "float,float,float");
    g = group(k, "forward");
    ASSERT_EQ_U64(g->self_ns, 10000); /* 50 - linear's 40 */
    g = group(k, "ProfilerStep*");
    ASSERT_NOT_NULL(g);
    ASSERT_EQ_U64(g->self_ns, 30000); /* 100 - forward 50 - overlap 20 */
    g = group(k, "gloo:all_reduce");
    ASSERT_EQ_U64(g->self_ns, 0);
    ASSERT_EQ_U64(g->total_ns, 70000);
    ASSERT_EQ_U64(group(k, "aten::overlap")->self_ns, 20000);
    ASSERT_EQ_U64(r->self_ns, 100000 + 20000); /* thread 1's step covers it all; thread 2's op */
    ASSERT_EQ_U64(r->n_threads, 2);
    ASSERT_EQ_U64(r->threads[0].self_ns + r->threads[1].self_ns, r->self_ns);
    ASSERT_EQ_U64(r->n_steps, 1);
    /* the records of every thread starting in it, itself not: thread 1's 6 and thread 2's op;
     * forward 10 + linear 12 + addmm 13 + mm 15 + overlap 20 + gloo 0 + other thread 20 */
    ASSERT_EQ_U64(r->steps[0].records, 7);
    ASSERT_EQ_U64(r->steps[0].self_ns, 90000);
    ASSERT_TRUE(!r->training); /* no backward op, no optimizer */
    ASSERT_EQ_U64(r->phase[OPSCOPE_CPU_PHASE_FORWARD].records, 4); /* forward and what it holds */
    ASSERT_EQ_U64(r->phase[OPSCOPE_CPU_PHASE_FORWARD].self_ns, 50000);
    ASSERT_TRUE(opscope_kineto_get_results(k)->cpu_bound);
    opscope_kineto_free(k);
    opscope_strtab_free(names);
    return 0;
}

/* Input dims and types written three ways (compact: read from the array's text; with a
 * newline, an escape or a fraction: token by token) are the same shape: one group. */
static int test_dims_any_layout(void) {
    const char *t =
        "{\"schemaVersion\":1,\"traceEvents\":["
        X("cpu_op", "aten::x", 1, 0, 10,
          "\"Input Dims\":[[8,64],[],[[1,2],[3]]],\"Input type\":[\"float\",\"\",\"c10::BFloat16\"]") ","
        X("cpu_op", "aten::x", 1, 20, 10,
          "\"Input Dims\":[[8, 64],\n [], [[1, 2], [3]]],\"Input type\":[\"fl\\u006fat\", \"\", \"c10::BFloat16\"]") ","
        X("cpu_op", "aten::x", 1, 40, 10,
          "\"Input Dims\": [ [8,64] , [ ] , [[1,2],[3]] ],\"Input type\":[\"float\",\"\",\"c10::BFloat16\",[\"n\"]]") ","
        X("cpu_op", "aten::x", 1, 60, 10, "\"Input Dims\":[[8,64],[],[[1,2],[3.5]]]")
        "]}";
    opscope_kineto_t *k;
    opscope_strtab_t *names;
    ASSERT_EQ_INT(read_trace(t, &k, &names), 0);
    const opscope_cpu_ops_results *r = opscope_cpu_ops_results_get(opscope_kineto_cpu_ops(k));
    size_t shapes = 0;
    for (size_t i = 0; i < r->n_by_shape; i++) {
        const opscope_cpu_op_group *g = &r->by_shape[i];
        const char *dims = opscope_strtab_get(names, g->dims);
        if (g->count == 3) {
            ASSERT_EQ_STR(dims, "[8,64]x[[1,2],[3]]");
            ASSERT_EQ_STR(opscope_strtab_get(names, g->types), "float,c10::BFloat16");
        } else {
            ASSERT_EQ_U64(g->count, 1);
            ASSERT_EQ_STR(dims, "[8,64]x[[1,2],[3.5]]");
        }
        shapes++;
    }
    ASSERT_EQ_U64(shapes, 2);
    opscope_kineto_free(k);
    opscope_strtab_free(names);
    return 0;
}

static int test_order(void) {
    /* the slices of test_nesting in reverse order (children first, as an op ends before its
     * parent), mm shortened to [16,30) (slices with one interval are ordered by kind and name,
     * not by the file); the same records */
    const char *t =
        "{\"schemaVersion\":1,\"traceEvents\":["
        X("cpu_op", "aten::other_thread", 2, 5, 20, "") ","
        X("user_annotation", "gloo:all_reduce", 1, 20, 70, "") ","
        X("cpu_op", "aten::overlap", 1, 50, 20, "") ","
        X("cpu_op", "aten::mm", 1, 16, 14, "") ","
        X("cpu_op", "aten::addmm", 1, 15, 15, "") ","
        X("cpu_op", "aten::addmm", 1, 12, 28, "") ","
        X("cpu_op", "aten::linear", 1, 10, 40, "") ","
        X("user_annotation", "forward", 1, 10, 50, "") ","
        X("user_annotation", "ProfilerStep#7", 1, 0, 100, "")
        "]}";
    opscope_kineto_t *k;
    opscope_strtab_t *names;
    ASSERT_EQ_INT(read_trace(t, &k, &names), 0);
    const opscope_cpu_ops_results *r = opscope_cpu_ops_results_get(opscope_kineto_cpu_ops(k));
    ASSERT_EQ_U64(r->n_recs, 8);
    ASSERT_EQ_U64(group(k, "aten::addmm")->self_ns, 14000); /* 28 - mm's 14 */
    ASSERT_EQ_U64(group(k, "aten::linear")->self_ns, 12000);
    ASSERT_EQ_U64(group(k, "forward")->self_ns, 10000);
    ASSERT_EQ_U64(group(k, "ProfilerStep*")->self_ns, 30000);
    for (size_t i = 1; i < r->n_recs; i++) { /* by thread, then start */
        ASSERT_LE_U64(r->recs[i - 1].thread, r->recs[i].thread);
        if (r->recs[i - 1].thread == r->recs[i].thread)
            ASSERT_LE_INT(r->recs[i - 1].start_ns, r->recs[i].start_ns);
    }
    opscope_kineto_free(k);
    opscope_strtab_free(names);
    return 0;
}

static int test_many_runs(void) {
    /* 5,000 sorted runs that interleave (starts j, j + 5000 for each j): more than the merge
     * takes at once, so the thread goes to a comparison sort; and 3,000 runs in reverse
     * order that do not interleave on a second thread (merged run by run) */
    size_t cap = 1 << 20, n = 0;
    char *t = malloc(cap);
    ASSERT_NOT_NULL(t);
    n += (size_t)snprintf(t + n, cap - n, "{\"schemaVersion\":1,\"traceEvents\":[");
    for (int j = 0; j < 5000; j++)
        n += (size_t)snprintf(t + n, cap - n,
                              "%s{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":0.5},"
                              "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":0.5}",
                              j ? "," : "", j, j + 5000);
    for (int j = 3000; j-- > 0;)
        n += (size_t)snprintf(t + n, cap - n,
                              ",{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"c\",\"pid\":1,\"tid\":2,\"ts\":%d,\"dur\":0.5}", j);
    snprintf(t + n, cap - n, "]}");
    opscope_kineto_t *k;
    opscope_strtab_t *names;
    ASSERT_EQ_INT(read_trace(t, &k, &names), 0);
    free(t);
    const opscope_cpu_ops_results *r = opscope_cpu_ops_results_get(opscope_kineto_cpu_ops(k));
    ASSERT_EQ_U64(r->n_recs, 13000);
    for (size_t i = 1; i < r->n_recs; i++) { /* by thread, then start, no two starts alike */
        ASSERT_LE_U64(r->recs[i - 1].thread, r->recs[i].thread);
        if (r->recs[i - 1].thread == r->recs[i].thread)
            ASSERT_LT_INT(r->recs[i - 1].start_ns, r->recs[i].start_ns);
    }
    ASSERT_EQ_U64(r->self_ns, 13000 * 500); /* nothing nests: every slice is its own time */
    opscope_kineto_free(k);
    opscope_strtab_free(names);
    return 0;
}

static int test_training_phases(void) {
    /* step [0,100): data [0,10), forward op [10,30), backward [30,70) with an op inside,
     * Optimizer.step [70,90) with an op inside; the step's own 10 us has no phase */
    const char *t =
        "{\"schemaVersion\":1,\"traceEvents\":["
        X("user_annotation", "ProfilerStep#1", 1, 0, 100, "") ","
        X("user_annotation", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 1, 0, 10, "") ","
        X("cpu_op", "aten::addmm", 1, 10, 20, "") ","
        X("cpu_op", "autograd::engine::evaluate_function: AddmmBackward0", 1, 30, 40, "") ","
        X("cpu_op", "aten::mm", 1, 35, 20, "") ","
        X("user_annotation", "Optimizer.step#SGD.step", 1, 70, 20, "") ","
        X("cpu_op", "aten::add_", 1, 75, 10, "")
        "]}";
    opscope_kineto_t *k;
    opscope_strtab_t *names;
    ASSERT_EQ_INT(read_trace(t, &k, &names), 0);
    const opscope_cpu_ops_results *r = opscope_cpu_ops_results_get(opscope_kineto_cpu_ops(k));
    ASSERT_TRUE(r->training);
    ASSERT_EQ_U64(r->phase[OPSCOPE_CPU_PHASE_DATA].self_ns, 10000);
    ASSERT_EQ_U64(r->phase[OPSCOPE_CPU_PHASE_FORWARD].self_ns, 20000);
    ASSERT_EQ_U64(r->phase[OPSCOPE_CPU_PHASE_BACKWARD].self_ns, 40000);
    ASSERT_EQ_U64(r->phase[OPSCOPE_CPU_PHASE_OPTIMIZER].self_ns, 20000);
    ASSERT_EQ_U64(r->phase[OPSCOPE_CPU_PHASE_NONE].self_ns, 10000);
    ASSERT_EQ_U64(r->steps[0].top_group != UINT32_MAX, 1);
    ASSERT_EQ_STR(opscope_cpu_ops_label(opscope_kineto_cpu_ops(k), r->by_name[r->steps[0].top_group].name),
                  "autograd::engine::evaluate_function: AddmmBackward0");
    opscope_kineto_free(k);
    opscope_strtab_free(names);
    return 0;
}

static int test_legacy(void) {
    /* torch's legacy export: a bare array, no categories, pid "CPU functions", float ts */
    const char *t =
        "[{\"name\": \"aten::linear\", \"ph\": \"X\", \"ts\": 10.5, \"dur\": 40.25, \"tid\": 1, "
        "\"pid\": \"CPU functions\", \"args\": {}}, "
        "{\"name\": \"aten::addmm\", \"ph\": \"X\", \"ts\": 12.5, \"dur\": 30.000000000000004, \"tid\": 1, "
        "\"pid\": \"CPU functions\", \"args\": {}}]";
    opscope_kineto_t *k;
    opscope_strtab_t *names;
    ASSERT_EQ_INT(read_trace(t, &k, &names), 0);
    ASSERT_TRUE(opscope_kineto_get_info(k)->is_kineto);
    ASSERT_EQ_U64(opscope_kineto_get_info(k)->n_cpu_ops, 2);
    ASSERT_EQ_U64(group(k, "aten::linear")->self_ns, 10250);
    ASSERT_EQ_U64(group(k, "aten::linear")->total_ns, 40250);
    ASSERT_EQ_U64(group(k, "aten::addmm")->self_ns, 30000);
    opscope_kineto_free(k);
    opscope_strtab_free(names);
    return 0;
}

TEST_MAIN(TEST(test_nesting), TEST(test_dims_any_layout), TEST(test_order), TEST(test_many_runs), TEST(test_training_phases), TEST(test_legacy))
