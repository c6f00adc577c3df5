/*
 * mulmat_cold.c - per-call time of one MUL_MAT shape with its weights cold in the caches, as
 * they are in a model's decode: each weight is read once per token, after the rest of the
 * model has gone through the caches.
 *
 * test-backend-ops perf repeats ONE node thousands of times in a graph, so weights that fit in
 * the per-core L2 stay there and its us/run is the warm-cache time. Here the graph has N
 * MUL_MAT nodes of the same shape, each on its own weight tensor (N weights of FOOTPRINT MiB in
 * all, like a model's), all multiplying the same activation; one compute reads every weight
 * once. Time per call = compute wall time / N (the same accounting as test-backend-ops:
 * barriers included), median over the computes of one second (at least MIN_REPS): on a
 * machine shared with other work, a compute during which another process holds a core is far
 * slower (every barrier waits for a time slice), and the median of many short computes is
 * robust to that where the mean is not.
 *
 * usage: mulmat_cold TYPE M K [N [THREADS [FOOTPRINT_MIB [MIN_REPS]]]]
 *   TYPE f32, f16, q8_0, q4_0; weights M x K (ggml ne = [K, M]), activation K x N.
 *   defaults: N 1, THREADS 2, FOOTPRINT_MIB 400, MIN_REPS 7.
 * Prints one line: type m n k threads nodes footprint_mib reps us_per_call (median) min.
 */
#define _POSIX_C_SOURCE 200809L
#include "ggml-backend.h"
#include "ggml.h"

#include "bench_time.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int parse_type(const char *s, enum ggml_type *t) {
    static const struct { const char *name; enum ggml_type type; } types[] = {
        {"f32", GGML_TYPE_F32}, {"f16", GGML_TYPE_F16}, {"q8_0", GGML_TYPE_Q8_0}, {"q4_0", GGML_TYPE_Q4_0}};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        if (strcmp(s, types[i].name) == 0) {
            *t = types[i].type;
            return 0;
        }
    }
    return -1;
}

/* xorshift: the same weights every run, no libc rand state */
static float next_float(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return (float)((double)(*s >> 11) / 9007199254740992.0 * 2.0 - 1.0);
}

int main(int argc, char **argv) {
    if (argc < 4 || strcmp(argv[1], "--help") == 0) {
        fprintf(stderr, "usage: mulmat_cold TYPE M K [N [THREADS [FOOTPRINT_MIB [REPS]]]]\n");
        return argc < 4 ? 1 : 0;
    }
    enum ggml_type type;
    if (parse_type(argv[1], &type) != 0) {
        fprintf(stderr, "mulmat_cold: unknown type %s (f32, f16, q8_0, q4_0)\n", argv[1]);
        return 1;
    }
    int64_t m = atoll(argv[2]), k = atoll(argv[3]);
    int64_t n = argc > 4 ? atoll(argv[4]) : 1;
    int threads = argc > 5 ? atoi(argv[5]) : 2;
    double footprint = argc > 6 ? atof(argv[6]) : 400.0;
    int reps = argc > 7 ? atoi(argv[7]) : 7;
    if (m <= 0 || k <= 0 || n <= 0 || threads <= 0 || reps <= 0 || k % ggml_blck_size(type) != 0) {
        fprintf(stderr, "mulmat_cold: bad sizes (K must be a multiple of the type's block)\n");
        return 1;
    }
    size_t wbytes = ggml_row_size(type, k) * (size_t)m;
    int nodes = (int)(footprint * 1048576.0 / (double)wbytes);
    nodes = nodes < 1 ? 1 : nodes > 8000 ? 8000 : nodes;

    ggml_backend_load_all();
    ggml_backend_t be = ggml_backend_init_by_type(GGML_BACKEND_DEVICE_TYPE_CPU, NULL);
    if (!be) {
        fprintf(stderr, "mulmat_cold: no CPU backend\n");
        return 1;
    }
    ggml_backend_reg_t reg = ggml_backend_dev_backend_reg(ggml_backend_get_device(be));
    void (*set_threads)(ggml_backend_t, int) =
        (void (*)(ggml_backend_t, int))ggml_backend_reg_get_proc_address(reg, "ggml_backend_set_n_threads");
    if (set_threads) {
        set_threads(be, threads);
    }
    size_t n_tensors = 2 * (size_t)nodes + 1;
    struct ggml_init_params ip = {ggml_tensor_overhead() * n_tensors + ggml_graph_overhead_custom(n_tensors, false),
                                  NULL, true};
    struct ggml_context *ctx = ggml_init(ip);
    struct ggml_tensor *x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, k, n);
    struct ggml_tensor **w = malloc(sizeof *w * (size_t)nodes);
    struct ggml_cgraph *g = ggml_new_graph_custom(ctx, n_tensors, false);
    if (!w) {
        return 1;
    }
    for (int i = 0; i < nodes; i++) {
        w[i] = ggml_new_tensor_2d(ctx, type, k, m);
        ggml_build_forward_expand(g, ggml_mul_mat(ctx, w[i], x));
    }
    ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors(ctx, be);
    if (!buf) {
        fprintf(stderr, "mulmat_cold: cannot allocate %.0f MiB\n", (double)wbytes * nodes / 1048576.0);
        return 1;
    }
    /* random weights; quantized types through ggml's own quantization */
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    float *rowsf = malloc(sizeof(float) * (size_t)(k * m));
    void *q = malloc(wbytes);
    float *xf = malloc(sizeof(float) * (size_t)(k * n));
    if (!rowsf || !q || !xf) {
        return 1;
    }
    for (int64_t i = 0; i < k * n; i++) xf[i] = next_float(&seed);
    ggml_backend_tensor_set(x, xf, 0, sizeof(float) * (size_t)(k * n));
    for (int i = 0; i < nodes; i++) {
        for (int64_t j = 0; j < k * m; j++) rowsf[j] = next_float(&seed);
        if (type == GGML_TYPE_F32) {
            ggml_backend_tensor_set(w[i], rowsf, 0, wbytes);
        } else {
            ggml_quantize_chunk(type, rowsf, q, 0, m, k, NULL);
            ggml_backend_tensor_set(w[i], q, 0, wbytes);
        }
    }
    ggml_backend_graph_compute(be, g); /* warm-up: plan, work buffer, thread start */
    enum { MAX_REPS = 100000 };
    double *per = malloc(sizeof(double) * MAX_REPS);
    if (!per) {
        return 1;
    }
    int done = 0;
    double start = (bench_now_ns() * 1e-3);
    while (done < MAX_REPS && (done < reps || (bench_now_ns() * 1e-3) - start < 1e6)) {
        double t0 = (bench_now_ns() * 1e-3);
        ggml_backend_graph_compute(be, g);
        per[done++] = ((bench_now_ns() * 1e-3) - t0) / nodes;
    }
    qsort(per, (size_t)done, sizeof *per, bench_cmp_double);
    printf("type=%s m=%lld n=%lld k=%lld threads=%d nodes=%d footprint_mib=%.0f reps=%d us_per_call=%.3f min=%.3f\n",
           argv[1], (long long)m, (long long)n, (long long)k, threads, nodes,
           (double)wbytes * nodes / 1048576.0, done, per[done / 2], per[0]);
    free(per);
    free(rowsf);
    free(q);
    free(xf);
    free(w);
    ggml_backend_buffer_free(buf);
    ggml_free(ctx);
    ggml_backend_free(be);
    return 0;
}
