/*
 * vkshapes.c - a ggml program that computes, on the first Vulkan device, for SECONDS
 * (argv[1]), one small graph after another, each of a shape never seen before (n = 1, 2, 3, ...
 * elements): a chain of element-wise ops over two inputs, in a buffer allocated for it and
 * freed after it. Checks every result and prints "computes N" and "ok" (or "bad"); exit 1 on a
 * wrong result, 77 without a Vulkan device. What a long-running server does to the capture in
 * a few seconds: every compute needs new descriptions (tests/capture_e2e/t_vulkan_longrun.py).
 */
#define _POSIX_C_SOURCE 199309L
#include "ggml-backend.h"
#include "ggml.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define N_OPS 6 /* rounds of the chain: 3 nodes each */

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One compute of n elements: y = ((a + b) * b) * 0.5, repeated N_OPS times on y. Returns
 * whether every element came back as computed here. */
static int compute_once(ggml_backend_t be, int n, float *va, float *vb, float *out) {
    struct ggml_init_params ip = {ggml_tensor_overhead() * (4 * N_OPS + 8) + ggml_graph_overhead(), NULL, true};
    struct ggml_context *ctx = ggml_init(ip);
    if (!ctx) return 0;
    struct ggml_tensor *a = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, n);
    struct ggml_tensor *b = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, n);
    struct ggml_tensor *y = a;
    for (int k = 0; k < N_OPS; k++) {
        y = ggml_scale(ctx, ggml_mul(ctx, ggml_add(ctx, y, b), b), 0.5f);
    }
    struct ggml_cgraph *g = ggml_new_graph(ctx);
    ggml_build_forward_expand(g, y);
    ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors(ctx, be);
    int ok = buf != NULL;
    if (ok) {
        for (int i = 0; i < n; i++) {
            va[i] = (float)(i % 7);
            vb[i] = 1.0f + (float)(i % 3);
        }
        ggml_backend_tensor_set(a, va, 0, (size_t)n * sizeof *va);
        ggml_backend_tensor_set(b, vb, 0, (size_t)n * sizeof *vb);
        ok = ggml_backend_graph_compute(be, g) == GGML_STATUS_SUCCESS;
        ggml_backend_tensor_get(y, out, 0, (size_t)n * sizeof *out);
        for (int i = 0; ok && i < n; i++) {
            float v = va[i];
            for (int k = 0; k < N_OPS; k++) v = (v + vb[i]) * vb[i] * 0.5f;
            ok = out[i] == v;
        }
        ggml_backend_buffer_free(buf);
    }
    ggml_free(ctx);
    return ok;
}

int main(int argc, char **argv) {
    double seconds = argc > 1 ? atof(argv[1]) : 10;
    ggml_backend_load_all();
    ggml_backend_dev_t dev = NULL;
    for (size_t i = 0; i < ggml_backend_dev_count() && !dev; i++) {
        ggml_backend_dev_t d = ggml_backend_dev_get(i);
        if (strncmp(ggml_backend_dev_name(d), "Vulkan", 6) == 0) dev = d;
    }
    ggml_backend_t be = dev ? ggml_backend_dev_init(dev, NULL) : NULL;
    if (!be) {
        printf("no Vulkan device\n");
        return 77;
    }
    int max_n = 1 << 20;
    float *va = malloc(sizeof(float) * (size_t)max_n), *vb = malloc(sizeof(float) * (size_t)max_n),
          *out = malloc(sizeof(float) * (size_t)max_n);
    if (!va || !vb || !out) return 1;
    int bad = 0, n = 0;
    double end = now_s() + seconds;
    while (now_s() < end && n < max_n) {
        n++;
        bad += !compute_once(be, n, va, vb, out);
    }
    printf("computes %d\n%s\n", n, bad ? "bad" : "ok");
    free(va);
    free(vb);
    free(out);
    ggml_backend_free(be);
    return bad != 0;
}
