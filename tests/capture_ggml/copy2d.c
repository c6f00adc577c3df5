/*
 * copy2d.c - a program that copies a tensor's rows in and out with ggml's strided copy calls
 * (ggml_backend_tensor_set_2d / get_2d and their async forms on the CPU backend), then once
 * with ggml_backend_tensor_set, and checks the data it reads back. Run under the capture
 * (run-in-root.sh): each call must be one COPY record naming it, with n_copies * size bytes
 * (ggml's own fallback inside a 2d call, one tensor_set per row, is not recorded again).
 * Prints "ok" and exits 0 when every value read back is right.
 */
#include "ggml-backend.h"
#include "ggml.h"

#include <stdio.h>
#include <string.h>

#define COLS 16
#define ROWS 8
#define PART 4 /* floats per row copied by the 2d calls */

int main(void) {
    ggml_backend_load_all();
    ggml_backend_t cpu = ggml_backend_init_by_type(GGML_BACKEND_DEVICE_TYPE_CPU, NULL);
    if (!cpu) {
        printf("no CPU backend\n");
        return 1;
    }
    struct ggml_init_params ip = {ggml_tensor_overhead() * 4, NULL, true};
    struct ggml_context *ctx = ggml_init(ip);
    struct ggml_tensor *t = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, COLS, ROWS);
    ggml_set_name(t, "rows2d");
    ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors(ctx, cpu);
    if (!buf) {
        printf("no buffer\n");
        return 1;
    }
    static float zero[COLS * ROWS], in[PART * ROWS], in2[PART * ROWS], out[PART * ROWS], all[COLS * ROWS];
    for (int i = 0; i < PART * ROWS; i++) {
        in[i] = (float)i;
        in2[i] = (float)(1000 + i);
    }
    int bad = 0;
    ggml_backend_tensor_set(t, zero, 0, sizeof zero);
    /* the first PART floats of every row, from a packed array */
    ggml_backend_tensor_set_2d(t, in, 0, PART * sizeof(float), ROWS, COLS * sizeof(float), PART * sizeof(float));
    ggml_backend_tensor_get_2d(t, out, 0, PART * sizeof(float), ROWS, COLS * sizeof(float), PART * sizeof(float));
    bad += memcmp(in, out, sizeof in) != 0;
    /* the same through the backend's queue, at column PART */
    ggml_backend_tensor_set_2d_async(cpu, t, in2, PART * sizeof(float), PART * sizeof(float), ROWS,
                                     COLS * sizeof(float), PART * sizeof(float));
    memset(out, 0, sizeof out);
    ggml_backend_tensor_get_2d_async(cpu, t, out, PART * sizeof(float), PART * sizeof(float), ROWS,
                                     COLS * sizeof(float), PART * sizeof(float));
    ggml_backend_synchronize(cpu);
    bad += memcmp(in2, out, sizeof in2) != 0;
    ggml_backend_tensor_get(t, all, 0, sizeof all);
    for (int r = 0; r < ROWS; r++) {
        for (int c = 0; c < COLS; c++) {
            float want = c < PART ? (float)(r * PART + c) : c < 2 * PART ? (float)(1000 + r * PART + c - PART) : 0.0f;
            bad += all[r * COLS + c] != want;
        }
    }
    ggml_backend_buffer_free(buf);
    ggml_free(ctx);
    ggml_backend_free(cpu);
    printf(bad ? "FAIL: %d wrong values\n" : "ok\n", bad);
    return bad ? 1 : 0;
}
