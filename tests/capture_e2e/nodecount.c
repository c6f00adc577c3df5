/*
 * nodecount.c - an independent ground truth for the capture tests (not part of opscope).
 * A minimal LD_PRELOAD shim around ggml_backend_graph_compute_async: for every call it logs
 *   seq sched_seq backend n_nodes n_computed n_tokens t0_ns t1_ns
 * (sched_seq: the enclosing ggml_backend_sched_graph_compute_async call, -1 outside one;
 * n_computed: nodes a backend computes, non-empty op with the COMPUTE flag; n_tokens: ne[1] of
 * the split's first RMS_NORM, 0 if none; t0/t1: the call's wall time) to the file named by
 * OPSCOPE_TEST_NODECOUNT. Chained before the capture library
 * (LD_PRELOAD=nodecount.so:libopscope-ggml.so) its wall time includes the capture's own work.
 * With OPSCOPE_TEST_NODELIST set it also writes, per call, "seq backend i,j,..." to that file:
 * the indices of the nodes a GPU backend computes (also not zero-sized, as ggml-vulkan skips).
 * With OPSCOPE_TEST_NODEPHASE set it writes, per call, "seq sched_seq backend rows queries":
 * the widest MUL_MAT's src1 ne[1] (MUL_MAT_ID's ne[2]) and the largest FLASH_ATTN_EXT's src0
 * ne[1] among the computed nodes, 0 when none (a graph's tokens and queries per sequence).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <ggml-backend.h>
#include <ggml.h>

typedef enum ggml_status (*compute_fn)(ggml_backend_t, struct ggml_cgraph *);
typedef enum ggml_status (*sched_compute_fn)(ggml_backend_sched_t, struct ggml_cgraph *);

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *g_out, *g_list, *g_phase;
static long g_seq, g_sched_seq;
static _Thread_local long t_sched = -1;

static unsigned long long now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

static int op_is_empty(enum ggml_op op) {
    return op == GGML_OP_NONE || op == GGML_OP_VIEW || op == GGML_OP_RESHAPE ||
           op == GGML_OP_PERMUTE || op == GGML_OP_TRANSPOSE;
}

enum ggml_status ggml_backend_graph_compute_async(ggml_backend_t backend, struct ggml_cgraph *cgraph) {
    static compute_fn real;
    if (!real) real = (compute_fn)dlsym(RTLD_NEXT, "ggml_backend_graph_compute_async");
    int n = ggml_graph_n_nodes(cgraph), computed = 0;
    long long tokens = 0, rows = 0, queries = 0;
    char *list = malloc((size_t)n * 8 + 2);
    size_t lo = 0;
    for (int i = 0; i < n; i++) {
        struct ggml_tensor *t = ggml_graph_node(cgraph, i);
        if (!op_is_empty(t->op) && (t->flags & GGML_TENSOR_FLAG_COMPUTE)) {
            computed++;
            if (list && !ggml_is_empty(t)) lo += (size_t)sprintf(list + lo, "%s%d", lo ? "," : "", i);
        }
        if (t->op == GGML_OP_RMS_NORM && tokens == 0) tokens = (long long)t->ne[1];
        if (!op_is_empty(t->op) && (t->flags & GGML_TENSOR_FLAG_COMPUTE)) {
            long long r = t->op == GGML_OP_MUL_MAT && t->src[1]      ? (long long)t->src[1]->ne[1]
                          : t->op == GGML_OP_MUL_MAT_ID && t->src[1] ? (long long)t->src[1]->ne[2]
                                                                     : 0;
            long long q = t->op == GGML_OP_FLASH_ATTN_EXT && t->src[0] ? (long long)t->src[0]->ne[1] : 0;
            if (r > rows) rows = r;
            if (q > queries) queries = q;
        }
    }
    unsigned long long t0 = now_ns();
    enum ggml_status st = real(backend, cgraph);
    ggml_backend_synchronize(backend);
    unsigned long long t1 = now_ns();
    pthread_mutex_lock(&g_lock);
    if (!g_out) {
        const char *p = getenv("OPSCOPE_TEST_NODECOUNT");
        g_out = fopen(p ? p : "/dev/null", "w");
    }
    if (g_out) {
        fprintf(g_out, "%ld %ld %s %d %d %lld %llu %llu\n", g_seq, t_sched, ggml_backend_name(backend), n, computed,
                tokens, t0, t1);
        fflush(g_out);
    }
    const char *lp = getenv("OPSCOPE_TEST_NODELIST");
    if (!g_list && lp) g_list = fopen(lp, "w");
    if (g_list && list) {
        list[lo] = '\0';
        fprintf(g_list, "%ld %s %s\n", g_seq, ggml_backend_name(backend), lo ? list : "-");
        fflush(g_list);
    }
    const char *pp = getenv("OPSCOPE_TEST_NODEPHASE");
    if (!g_phase && pp) g_phase = fopen(pp, "w");
    if (g_phase) {
        fprintf(g_phase, "%ld %ld %s %lld %lld\n", g_seq, t_sched, ggml_backend_name(backend), rows, queries);
        fflush(g_phase);
    }
    g_seq++;
    pthread_mutex_unlock(&g_lock);
    free(list);
    return st;
}

enum ggml_status ggml_backend_sched_graph_compute_async(ggml_backend_sched_t sched, struct ggml_cgraph *graph) {
    static sched_compute_fn real;
    if (!real) real = (sched_compute_fn)dlsym(RTLD_NEXT, "ggml_backend_sched_graph_compute_async");
    pthread_mutex_lock(&g_lock);
    long me = g_sched_seq++;
    pthread_mutex_unlock(&g_lock);
    long outer = t_sched;
    t_sched = me;
    enum ggml_status st = real(sched, graph);
    t_sched = outer;
    return st;
}
