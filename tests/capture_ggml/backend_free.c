/*
 * backend_free.c - a program that makes a CPU backend, computes a small graph on it N times
 * (argv[1]) and frees it, three rounds over (the allocator may give the next backend the
 * freed one's address, as llama-bench's contexts do). Prints each round's sum and "ok" when
 * every result is right. Run under the capture with count_device.so after it (run-in-root.sh):
 * while the capture sees the program's ggml_backend_free, its lookup of a computing backend
 * asks ggml for the device once per new backend, not once per compute.
 */
#include "ggml-backend.h"
#include "ggml.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 10;
    ggml_backend_load_all();
    int bad = 0;
    for (int round = 0; round < 3; round++) {
        ggml_backend_t cpu = ggml_backend_init_by_type(GGML_BACKEND_DEVICE_TYPE_CPU, NULL);
        if (!cpu) {
            printf("no CPU backend\n");
            return 1;
        }
        struct ggml_init_params ip = {ggml_tensor_overhead() * 8 + ggml_graph_overhead(), NULL, true};
        struct ggml_context *ctx = ggml_init(ip);
        struct ggml_tensor *a = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 64);
        struct ggml_tensor *b = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 64);
        struct ggml_tensor *c = ggml_add(ctx, a, b);
        struct ggml_cgraph *g = ggml_new_graph(ctx);
        ggml_build_forward_expand(g, c);
        ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors(ctx, cpu);
        float va[64], vb[64], vc[64];
        for (int i = 0; i < 64; i++) {
            va[i] = (float)i;
            vb[i] = (float)(round * 100);
        }
        ggml_backend_tensor_set(a, va, 0, sizeof va);
        ggml_backend_tensor_set(b, vb, 0, sizeof vb);
        for (int k = 0; k < n; k++) {
            bad += ggml_backend_graph_compute(cpu, g) != GGML_STATUS_SUCCESS;
        }
        ggml_backend_tensor_get(c, vc, 0, sizeof vc);
        double sum = 0;
        for (int i = 0; i < 64; i++) {
            sum += vc[i];
        }
        bad += sum != 2016.0 + 6400.0 * round;
        printf("round %d: sum %.0f\n", round, sum);
        ggml_backend_buffer_free(buf);
        ggml_free(ctx);
        ggml_backend_free(cpu);
    }
    printf(bad ? "bad\n" : "ok\n");
    return bad != 0;
}
