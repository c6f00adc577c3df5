/*
 * tpool_graph.c - a ggml program for the threadpool test (t_tpool.py): computes a graph of
 * MUL_MAT, ADD, MUL, SCALE, SOFT_MAX, MUL_MAT and SUM_ROWS nodes N times (argv[1]) on the CPU
 * backend with T threads (argv[2], through the backend registry's ggml_backend_set_n_threads),
 * and prints the result's checksum, the same with and without the capture. Built against
 * Debian's OpenMP ggml and against the threadpool ggml (scripts/threadpool-ggml.sh).
 */
#include "ggml-backend.h"
#include "ggml.h"

#include <stdio.h>
#include <stdlib.h>

enum { K = 256, M = 192, NCOL = 32 };

typedef void (*set_threads_fn)(ggml_backend_t, int);

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 20, nt = argc > 2 ? atoi(argv[2]) : 2;
    ggml_backend_load_all();
    ggml_backend_t cpu = ggml_backend_init_by_type(GGML_BACKEND_DEVICE_TYPE_CPU, NULL);
    if (!cpu) {
        printf("no CPU backend\n");
        return 1;
    }
    ggml_backend_reg_t reg = ggml_backend_dev_backend_reg(ggml_backend_get_device(cpu));
    set_threads_fn set = (set_threads_fn)ggml_backend_reg_get_proc_address(reg, "ggml_backend_set_n_threads");
    if (!set) {
        printf("no ggml_backend_set_n_threads\n");
        return 1;
    }
    set(cpu, nt);
    struct ggml_init_params ip = {ggml_tensor_overhead() * 32 + ggml_graph_overhead(), NULL, true};
    struct ggml_context *ctx = ggml_init(ip);
    struct ggml_tensor *a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, K, M);
    struct ggml_tensor *x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, K, NCOL);
    struct ggml_tensor *b = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, M, M);
    struct ggml_tensor *y = ggml_mul_mat(ctx, a, x);          /* M x NCOL */
    struct ggml_tensor *z = ggml_add(ctx, y, y);
    struct ggml_tensor *w = ggml_mul(ctx, z, y);
    struct ggml_tensor *s = ggml_soft_max(ctx, ggml_scale(ctx, w, 0.001f));
    struct ggml_tensor *v = ggml_mul_mat(ctx, b, s);          /* M x NCOL */
    struct ggml_tensor *out = ggml_sum_rows(ctx, ggml_add(ctx, v, s));
    struct ggml_cgraph *g = ggml_new_graph(ctx);
    ggml_build_forward_expand(g, out);
    ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors(ctx, cpu);
    float *va = malloc(sizeof(float) * K * M), *vx = malloc(sizeof(float) * K * NCOL), *vb = malloc(sizeof(float) * M * M);
    if (!buf || !va || !vx || !vb) {
        printf("out of memory\n");
        return 1;
    }
    for (int i = 0; i < K * M; i++) va[i] = (float)((i * 7) % 13) / 13.0f - 0.5f;
    for (int i = 0; i < K * NCOL; i++) vx[i] = (float)((i * 3) % 11) / 11.0f;
    for (int i = 0; i < M * M; i++) vb[i] = (float)((i * 5) % 17) / 17.0f - 0.25f;
    ggml_backend_tensor_set(a, va, 0, sizeof(float) * K * M);
    ggml_backend_tensor_set(x, vx, 0, sizeof(float) * K * NCOL);
    ggml_backend_tensor_set(b, vb, 0, sizeof(float) * M * M);
    int bad = 0;
    for (int k = 0; k < n; k++) {
        bad += ggml_backend_graph_compute(cpu, g) != GGML_STATUS_SUCCESS;
    }
    float r[NCOL];
    ggml_backend_tensor_get(out, r, 0, sizeof r);
    double sum = 0;
    for (int i = 0; i < NCOL; i++) sum += r[i];
    printf("%d computes, %d threads, checksum %.6f\n%s\n", n, nt, sum, bad ? "bad" : "ok");
    ggml_backend_buffer_free(buf);
    ggml_free(ctx);
    ggml_backend_free(cpu);
    free(va);
    free(vx);
    free(vb);
    return bad != 0;
}
