/*
 * capture_cost.c - what the capture costs per record, measured on the real ggml CPU backend.
 *
 * Builds one graph of N_NODES cheap element-wise nodes (ADD on 16 floats, so ggml's own
 * work per node is tiny and the capture's cost stands out), computes it REPS times on one
 * thread and prints the mean time per graph and per node. Run it twice, without and with
 * the capture library (bench/capture/run-cost.sh does): the difference per node is the
 * capture's cost per record (abort callback + record building), on the compute path.
 * With a third argument "sched" the graph is computed through a scheduler, as llama.cpp does:
 * from the second compute on, the capture uses its cached plan of the graph (one timestamp per
 * step inside the compute, 16 bytes per record after it).
 */
#include "ggml-backend.h"
#include "ggml.h"

#include "bench_time.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv) {
    int n_nodes = argc > 1 ? atoi(argv[1]) : 2000;
    int reps = argc > 2 ? atoi(argv[2]) : 300;
    int use_sched = argc > 3 && argv[3][0] == 's';
    ggml_backend_load_all();
    ggml_backend_t be = ggml_backend_init_by_type(GGML_BACKEND_DEVICE_TYPE_CPU, NULL);
    if (!be) {
        fprintf(stderr, "capture_cost: no CPU backend\n");
        return 1;
    }
    size_t meta = ggml_tensor_overhead() * (size_t)(n_nodes + 16) + ggml_graph_overhead_custom((size_t)n_nodes + 16, false);
    struct ggml_init_params ip = {meta, NULL, true};
    struct ggml_context *ctx = ggml_init(ip);
    struct ggml_tensor *a = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 16);
    struct ggml_tensor *b = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 16);
    struct ggml_tensor *cur = a;
    for (int i = 0; i < n_nodes; i++) {
        cur = ggml_add(ctx, cur, b);
    }
    struct ggml_cgraph *g = ggml_new_graph_custom(ctx, (size_t)n_nodes + 16, false);
    ggml_build_forward_expand(g, cur);
    ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors(ctx, be);
    float ones[16];
    for (int i = 0; i < 16; i++) ones[i] = 1.0f;
    ggml_backend_tensor_set(a, ones, 0, sizeof ones);
    ggml_backend_tensor_set(b, ones, 0, sizeof ones);
    /* backends are loadable modules here: reach set_n_threads through the registry */
    ggml_backend_reg_t reg = ggml_backend_dev_backend_reg(ggml_backend_get_device(be));
    void (*set_threads)(ggml_backend_t, int) =
        (void (*)(ggml_backend_t, int))ggml_backend_reg_get_proc_address(reg, "ggml_backend_set_n_threads");
    if (set_threads) set_threads(be, 1);
    ggml_backend_sched_t sched =
        use_sched ? ggml_backend_sched_new(&be, NULL, 1, (size_t)n_nodes + 16, false, true) : NULL;
    if (use_sched && !sched) {
        fprintf(stderr, "capture_cost: no scheduler\n");
        return 1;
    }
#define COMPUTE() (sched ? ggml_backend_sched_graph_compute(sched, g) : ggml_backend_graph_compute(be, g))
    for (int i = 0; i < 10; i++) COMPUTE(); /* warm up */
    double best = 1e30, sum = 0;
    double *times = malloc(sizeof(double) * (size_t)reps);
    if (!times) return 1;
    for (int r = 0; r < reps; r++) {
        double t0 = (bench_now_ns() * 1e-9);
        COMPUTE();
        double dt = (bench_now_ns() * 1e-9) - t0;
        times[r] = dt;
        sum += dt;
        if (dt < best) best = dt;
    }
    qsort(times, (size_t)reps, sizeof *times, bench_cmp_double);
    double median = times[reps / 2];
    free(times);
    float out[16];
    ggml_backend_tensor_get(cur, out, 0, sizeof out);
    printf("%snodes=%d reps=%d mean_graph_us=%.2f median_ns_per_node=%.1f best_ns_per_node=%.1f check=%.0f\n",
           sched ? "sched " : "", ggml_graph_n_nodes(g), reps, sum / reps * 1e6, median / n_nodes * 1e9,
           best / n_nodes * 1e9, (double)out[0]);
    if (sched) ggml_backend_sched_free(sched);
    ggml_backend_buffer_free(buf);
    ggml_free(ctx);
    ggml_backend_free(be);
    return 0;
}
