/*
 * static_check.c - the static-ggml capture (libopscope-ggml-static.a) in a program linked with
 * the -Wl,--wrap flags and WITHOUT libopscope-ggml.so: ggml's calls between its own functions
 * (the scheduler calling the backend's graph compute and tensor copies) are then as invisible
 * as inside a static ggml, and only the program's own calls and ggml's public API are seen.
 *
 *   static_check OUT.json [cpu|blas] [eval]
 *   GGML_PROFILE=OUT.json static_check - direct
 *
 * A scheduler over the CPU backend (2 threads; with "blas", BLAS first so MUL_MATs run there
 * and the graph splits CPU/BLAS/CPU...) computes a 4-layer graph (MUL_MAT, RMS_NORM followed
 * by the MUL that ggml-cpu fuses with it, SILU, RESHAPE, ADD) once without profiling, then
 * R times with it. Checks, each computed here from the graph, not by the library:
 *   - OP records per compute = computed nodes (non-empty op and COMPUTE flag; a fused
 *     RMS_NORM+MUL counts once) of CPU splits + one per split of another backend;
 *   - the records of a compute tile it: their durations sum to within 5% of the wall time
 *     measured here around ggml_backend_sched_graph_compute, none outside it, none overlapping;
 *   - MUL_MAT records carry the tensors' shapes;
 *   - the program's own abort callback still runs once per CPU step;
 *   - the output is byte-identical to the run without profiling;
 *   - get_profiling_records and export_profiling_json work (the JSON is checked by the script).
 * "eval": the program also sets its own scheduler eval callback (wanting every MUL_MAT
 * result), which the capture must chain: it still sees each MUL_MAT once per compute.
 * "direct": no scheduler; the program computes the graph with ggml_backend_graph_compute
 * (recorded with GGML_PROFILE only, the C API being per scheduler): output and abort-callback
 * checks here, the records in the JSON written at exit by the script.
 * Prints one line per failed check; exit status 1 on any.
 */
#define _POSIX_C_SOURCE 200809L
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-profiler.h"
#include "ggml.h"
#ifdef STATIC_CHECK_CPU_LINKED
#include "ggml-cpu.h" /* a static ggml-cpu: the program may set its abort callback directly */
#endif

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int failures;
#define CHECK(c, ...)                                   \
    do {                                                \
        if (!(c)) {                                     \
            failures++;                                 \
            printf("FAIL %s:%d: ", __FILE__, __LINE__); \
            printf(__VA_ARGS__);                        \
            printf("\n");                               \
        }                                               \
    } while (0)

enum { LAYERS = 4, DIM = 256, TOK = 64, REPS = 20 };

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static long g_user_aborts; /* the program's own abort callback */
static long g_user_looks;  /* the program's own eval callback: tensors it looked at */

/* An eval callback like llama-eval-callback's: wants to see every MUL_MAT result. */
static bool user_eval(struct ggml_tensor *t, bool ask, void *data) {
    (void)data;
    bool want = strncmp(t->name, "mm", 2) == 0;
    if (!ask && want) {
        g_user_looks++;
    }
    return ask ? want : true;
}

typedef struct job {
    ggml_backend_sched_t sched;
    struct ggml_cgraph *g;
    enum ggml_status st;
} job;

/* A thread that computes once and exits: its records must outlive its scratch. */
static void *compute_once(void *arg) {
    job *j = arg;
    j->st = ggml_backend_sched_graph_compute(j->sched, j->g);
    return NULL;
}
static bool user_abort(void *data) {
    (void)data;
    g_user_aborts++;
    return false;
}

static bool is_empty(enum ggml_op op) {
    return op == GGML_OP_NONE || op == GGML_OP_RESHAPE || op == GGML_OP_VIEW || op == GGML_OP_PERMUTE ||
           op == GGML_OP_TRANSPOSE;
}

/* Expected OP records of one compute, from the graph and the scheduler's assignment. */
static int expected_records(ggml_backend_sched_t sched, struct ggml_cgraph *g, ggml_backend_t cpu,
                            int *cpu_steps) {
    int n = ggml_graph_n_nodes(g), expect = 0, steps = 0;
    ggml_backend_t prev = NULL;
    for (int i = 0; i < n; i++) {
        struct ggml_tensor *t = ggml_graph_node(g, i);
        if (is_empty(t->op) || !(t->flags & GGML_TENSOR_FLAG_COMPUTE)) {
            continue;
        }
        ggml_backend_t b = sched ? ggml_backend_sched_get_tensor_backend(sched, t) : cpu;
        if (b != cpu) {
            expect += b != prev; /* one record per run of another backend */
            prev = b;
            continue;
        }
        prev = b;
        /* ggml-cpu fuses RMS_NORM with the MUL right after it that uses it (built so here) */
        if (t->op == GGML_OP_MUL && i > 0 && ggml_graph_node(g, i - 1)->op == GGML_OP_RMS_NORM &&
            (t->src[0] == ggml_graph_node(g, i - 1) || t->src[1] == ggml_graph_node(g, i - 1)) &&
            (!sched || ggml_backend_sched_get_tensor_backend(sched, ggml_graph_node(g, i - 1)) == cpu)) {
            continue;
        }
        steps++;
    }
    *cpu_steps = steps;
    return expect + steps;
}

static float frand(unsigned *s) {
    *s = *s * 1103515245u + 12345u;
    return (float)((*s >> 9) & 0xffff) / 65536.0f - 0.5f;
}

/* The inputs, uploaded before every compute (ggml-alloc may reuse an input's memory once
 * nothing reads it any more). */
static void upload(struct ggml_tensor *x, struct ggml_tensor **w, struct ggml_tensor **gw) {
    unsigned seed = 1;
    static float xd[DIM * TOK], wd[DIM * DIM], gd[DIM];
    for (int i = 0; i < DIM * TOK; i++) xd[i] = frand(&seed);
    ggml_backend_tensor_set(x, xd, 0, sizeof xd);
    for (int l = 0; l < LAYERS; l++) {
        for (int i = 0; i < DIM * DIM; i++) wd[i] = frand(&seed) * 0.1f;
        for (int i = 0; i < DIM; i++) gd[i] = 1.0f + frand(&seed);
        ggml_backend_tensor_set(w[l], wd, 0, sizeof wd);
        ggml_backend_tensor_set(gw[l], gd, 0, sizeof gd);
    }
}

/* The graph computed by the program on the CPU backend without a scheduler. */
static int run_direct(ggml_backend_t cpu, struct ggml_cgraph *g, struct ggml_tensor *x, struct ggml_tensor **w,
                      struct ggml_tensor **gw, struct ggml_tensor *out) {
    ggml_gallocr_t ga = ggml_gallocr_new(ggml_backend_get_default_buffer_type(cpu));
    CHECK(ga && ggml_gallocr_alloc_graph(ga, g), "gallocr_alloc_graph failed");
    int steps = 0;
    int expect = expected_records(NULL, g, cpu, &steps);
    static float ref[DIM * TOK], got[DIM * TOK];
    long aborts0 = g_user_aborts;
    for (int r = 0; r <= REPS; r++) {
        upload(x, w, gw);
        CHECK(ggml_backend_graph_compute(cpu, g) == GGML_STATUS_SUCCESS, "direct compute %d failed", r);
        ggml_backend_tensor_get(out, r ? got : ref, 0, sizeof got);
        CHECK(r == 0 || memcmp(got, ref, sizeof ref) == 0, "direct compute %d: output differs from the first", r);
    }
    CHECK(g_user_aborts - aborts0 == (long)(REPS + 1) * steps, "program's abort callback ran %ld times, expected %d",
          g_user_aborts - aborts0, (REPS + 1) * steps);
    printf("direct computes: %d, records expected per compute: %d\n", REPS + 1, expect);
    ggml_gallocr_free(ga);
    printf("%s: %d failed checks\n", failures ? "FAIL" : "ok", failures);
    return failures ? 1 : 0;
}

int main(int argc, char **argv) {
    const char *json = argc > 1 ? argv[1] : "static.json";
    bool blas = argc > 2 && strcmp(argv[2], "blas") == 0;
    bool direct = argc > 2 && strcmp(argv[2], "direct") == 0;
    bool eval = argc > 3 && strcmp(argv[3], "eval") == 0;
    ggml_backend_load_all();
    ggml_backend_t cpu = ggml_backend_init_by_type(GGML_BACKEND_DEVICE_TYPE_CPU, NULL);
    ggml_backend_t bl = blas ? ggml_backend_init_by_name("BLAS", NULL) : NULL;
    if (!cpu || (blas && !bl)) {
        printf("SKIP: no %s backend\n", cpu ? "BLAS" : "CPU");
        return 77;
    }
    ggml_backend_reg_t reg = ggml_backend_dev_backend_reg(ggml_backend_get_device(cpu));
    ggml_backend_set_n_threads_t set_threads =
        (ggml_backend_set_n_threads_t)ggml_backend_reg_get_proc_address(reg, "ggml_backend_set_n_threads");
    typedef void (*set_abort_t)(ggml_backend_t, ggml_abort_callback, void *);
    set_abort_t set_abort = (set_abort_t)ggml_backend_reg_get_proc_address(reg, "ggml_backend_set_abort_callback");
    CHECK(set_threads && set_abort, "CPU registry lacks set_n_threads / set_abort_callback");
    if (set_threads) set_threads(cpu, 2);
#ifdef STATIC_CHECK_CPU_LINKED
    ggml_backend_cpu_set_abort_callback(cpu, user_abort, NULL);
#else
    if (set_abort) set_abort(cpu, user_abort, NULL);
#endif

    ggml_backend_t backends[2] = {bl ? bl : cpu, cpu};
    int nb = bl ? 2 : 1;
    ggml_backend_sched_t sched = direct ? NULL : ggml_backend_sched_new(backends, NULL, nb, 1024, false, true);
    if (eval) ggml_backend_sched_set_eval_callback(sched, user_eval, NULL);

    struct ggml_init_params ip = {ggml_tensor_overhead() * 256 + ggml_graph_overhead(), NULL, true};
    struct ggml_context *ctx = ggml_init(ip);
    struct ggml_tensor *x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, DIM, TOK);
    ggml_set_name(x, "x");
    ggml_set_input(x);
    struct ggml_tensor *w[LAYERS], *gw[LAYERS], *mm[LAYERS];
    struct ggml_tensor *cur = x;
    for (int l = 0; l < LAYERS; l++) {
        w[l] = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, DIM, DIM);
        gw[l] = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, DIM);
        ggml_format_name(w[l], "w%d", l);
        ggml_format_name(gw[l], "g%d", l);
        ggml_set_input(w[l]);
        ggml_set_input(gw[l]);
        mm[l] = ggml_mul_mat(ctx, w[l], cur); /* [DIM, TOK] */
        ggml_format_name(mm[l], "mm%d", l);
        struct ggml_tensor *nrm = ggml_rms_norm(ctx, mm[l], 1e-5f);
        struct ggml_tensor *sc = ggml_mul(ctx, nrm, gw[l]);
        struct ggml_tensor *act = ggml_silu(ctx, sc);
        struct ggml_tensor *flat = ggml_reshape_1d(ctx, act, DIM * TOK);
        struct ggml_tensor *back = ggml_reshape_2d(ctx, flat, DIM, TOK);
        cur = ggml_add(ctx, back, cur);
    }
    ggml_set_name(cur, "out");
    ggml_set_output(cur);
    struct ggml_cgraph *g = ggml_new_graph(ctx);
    ggml_build_forward_expand(g, cur);
    if (direct) {
        int rc = run_direct(cpu, g, x, w, gw, cur);
        ggml_free(ctx);
        ggml_backend_free(cpu);
        return rc;
    }
    CHECK(ggml_backend_sched_alloc_graph(sched, g), "alloc_graph failed");

    /* the reference: profiling off */
    static float ref[DIM * TOK], got[DIM * TOK];
    CHECK(!ggml_backend_sched_get_profiling(sched), "profiling must start off without GGML_PROFILE");
    upload(x, w, gw);
    CHECK(ggml_backend_sched_graph_compute(sched, g) == GGML_STATUS_SUCCESS, "reference compute failed");
    ggml_backend_tensor_get(cur, ref, 0, sizeof ref);
    const ggml_profile_record *recs = NULL;
    CHECK(ggml_backend_sched_get_profiling_records(sched, &recs) == 0, "records while profiling is off");

    int cpu_steps = 0;
    int expect = expected_records(sched, g, cpu, &cpu_steps);
    int n_splits = ggml_backend_sched_get_n_splits(sched);
    printf("graph: %d nodes, %d splits, %d CPU steps, %d records expected per compute\n",
           ggml_graph_n_nodes(g), n_splits, cpu_steps, expect);
    CHECK(!blas || n_splits > 2, "BLAS run did not split the graph (%d splits)", n_splits);

    if (!getenv("STATIC_CHECK_OFF")) ggml_backend_sched_set_profiling(sched, true);
    CHECK(ggml_backend_sched_get_profiling(sched), "profiling did not turn on");
    uint64_t wall0[REPS], wall1[REPS];
    long aborts0 = g_user_aborts, looks0 = g_user_looks;
    for (int r = 0; r < REPS; r++) {
        upload(x, w, gw);
        wall0[r] = now_ns();
        enum ggml_status st = ggml_backend_sched_graph_compute(sched, g);
        wall1[r] = now_ns();
        CHECK(st == GGML_STATUS_SUCCESS, "compute %d failed", r);
        ggml_backend_tensor_get(cur, got, 0, sizeof got);
        CHECK(memcmp(got, ref, sizeof ref) == 0, "compute %d: output differs from the run without profiling", r);
    }
    CHECK(g_user_aborts - aborts0 == (long)REPS * cpu_steps,
          "program's abort callback ran %ld times, expected %d", g_user_aborts - aborts0, REPS * cpu_steps);
    CHECK(g_user_looks - looks0 == (eval ? REPS * LAYERS : 0), "program's eval callback saw %ld tensors, expected %d",
          g_user_looks - looks0, eval ? REPS * LAYERS : 0);

    int n = ggml_backend_sched_get_profiling_records(sched, &recs);
    /* group OP records by compute: graph ids grow with each compute */
    int64_t gids[REPS];
    int n_gid = 0, n_op = 0, n_mm = 0, n_fused = 0;
    for (int i = 0; i < n; i++) {
        const ggml_profile_record *r = &recs[i];
        if (r->type != GGML_PROFILE_EVENT_OP) {
            continue;
        }
        n_op++;
        bool seen = false;
        for (int k = 0; k < n_gid; k++) seen |= gids[k] == r->graph_id;
        if (!seen && n_gid < REPS) gids[n_gid++] = r->graph_id;
        if (r->extra && strcmp(r->extra, "RMS_NORM+MUL") == 0) n_fused++;
        if (!blas && strcmp(r->name, "MUL_MAT") == 0) { /* with BLAS they are split records */
            n_mm++;
            int l = r->tensor_name && r->tensor_name[0] == 'm' ? atoi(r->tensor_name + 2) : -1;
            CHECK(l >= 0 && l < LAYERS, "MUL_MAT record names tensor %s", r->tensor_name ? r->tensor_name : "(null)");
            if (l >= 0 && l < LAYERS) {
                for (int d = 0; d < 4; d++) {
                    CHECK(r->ne[d] == mm[l]->ne[d] && r->ne_src0[d] == w[l]->ne[d] &&
                              r->ne_src1[d] == mm[l]->src[1]->ne[d],
                          "MUL_MAT %s shape differs in dim %d", r->tensor_name, d);
                }
                CHECK(r->flops == 2ull * DIM * DIM * TOK, "MUL_MAT flops %llu", (unsigned long long)r->flops);
            }
        }
    }
    CHECK(n_gid == REPS, "records from %d computes, expected %d", n_gid, REPS);
    CHECK(n_op == REPS * expect, "OP records %d, expected %d x %d", n_op, REPS, expect);
    CHECK(n_fused == REPS * LAYERS, "fused RMS_NORM+MUL records %d, expected %d", n_fused, REPS * LAYERS);
    CHECK(blas || n_mm == REPS * LAYERS, "MUL_MAT records %d, expected %d", n_mm, REPS * LAYERS);
    /* sort the computes' ids; compute r has the r-th smallest */
    for (int a = 0; a < n_gid; a++) {
        for (int b = a + 1; b < n_gid; b++) {
            if (gids[b] < gids[a]) {
                int64_t t = gids[a];
                gids[a] = gids[b];
                gids[b] = t;
            }
        }
    }
    /* Tiling: within a compute, records follow each other without overlap and (but for the
     * scheduler's split hand-overs) without gaps; their sum is the wall time measured here
     * less the capture's own work before and after the compute. On this shared 2-core machine
     * a compute can lose the CPU during that work, so the 5% bound is asserted on the median
     * compute; no compute's sum may exceed its wall time. */
    double dev[REPS];
    uint64_t wall_sum = 0;
    for (int r = 0; r < n_gid; r++) {
        uint64_t sum = 0, lo = UINT64_MAX, hi = 0, prev_end = 0, gaps = 0;
        int cnt = 0, overlaps = 0;
        for (int i = 0; i < n; i++) { /* records come sorted by start */
            const ggml_profile_record *x2 = &recs[i];
            if (x2->type != GGML_PROFILE_EVENT_OP || x2->graph_id != gids[r]) continue;
            if (cnt > 0) {
                overlaps += x2->start_ns < prev_end;
                gaps += x2->start_ns > prev_end ? x2->start_ns - prev_end : 0;
            }
            cnt++;
            sum += x2->duration_ns;
            if (x2->start_ns < lo) lo = x2->start_ns;
            if (x2->start_ns + x2->duration_ns > hi) hi = x2->start_ns + x2->duration_ns;
            prev_end = x2->start_ns + x2->duration_ns;
        }
        uint64_t wall = wall1[r] - wall0[r];
        wall_sum += wall;
        dev[r] = ((double)sum - (double)wall) / (double)wall;
        CHECK(cnt == expect, "compute %d: %d records, expected %d", r, cnt, expect);
        CHECK(sum <= wall, "compute %d: op sum %.3f ms exceeds the wall time %.3f ms", r, sum / 1e6, wall / 1e6);
        /* 1 us slack: the two clocks are converted from different ticks */
        CHECK(lo + 1000 >= wall0[r] && hi <= wall1[r] + 1000, "compute %d: records outside the wall interval", r);
        CHECK(overlaps == 0, "compute %d: %d overlapping records", r, overlaps);
        /* one CPU split: no gap at all; with BLAS, each hand-over asks ggml's eval question
         * for every node of the next split (well under a microsecond per split) */
        CHECK(blas ? gaps < (uint64_t)n_splits * 50000 : gaps == 0, "compute %d: %llu ns of gaps between records",
              r, (unsigned long long)gaps);
    }
    for (int a = 0; a < n_gid; a++) { /* sort |dev| */
        if (dev[a] < 0) dev[a] = -dev[a];
        for (int b = 0; b < a; b++) {
            if (dev[a] < dev[b]) {
                double t = dev[a];
                dev[a] = dev[b];
                dev[b] = t;
            }
        }
    }
    if (n_gid > 0) {
        double median = dev[n_gid / 2], worst = dev[n_gid - 1];
        CHECK(median < 0.05, "median compute: op sum differs from the wall time by %.1f%%", median * 100);
        printf("%d computes (mean wall %.3f ms): op sums within %.2f%% of the wall time (median), %.2f%% (worst)\n",
               n_gid, wall_sum / 1e6 / n_gid, median * 100, worst * 100);
    }

    CHECK(ggml_backend_sched_export_profiling_json(sched, json), "export_profiling_json failed");

    /* one more compute on a thread that then exits (its scratch is freed, its records stay) */
    job j = {sched, g, GGML_STATUS_FAILED};
    pthread_t th;
    upload(x, w, gw);
    CHECK(pthread_create(&th, NULL, compute_once, &j) == 0, "pthread_create");
    pthread_join(th, NULL);
    CHECK(j.st == GGML_STATUS_SUCCESS, "compute on the exiting thread failed");
    int n_thr = 0;
    n = ggml_backend_sched_get_profiling_records(sched, &recs);
    for (int i = 0; i < n; i++) n_thr += recs[i].type == GGML_PROFILE_EVENT_OP;
    CHECK(n_thr == n_op + expect, "after a compute on another thread: %d OP records, expected %d", n_thr, n_op + expect);
    ggml_backend_sched_free(sched);
    ggml_free(ctx);
    if (bl) ggml_backend_free(bl);
    ggml_backend_free(cpu);
    printf("op records: %d\n", n_op);
    printf("%s: %d failed checks\n", failures ? "FAIL" : "ok", failures);
    return failures ? 1 : 0;
}
