/*
 * cuda_program.c - a ggml program with a fake CUDA backend (not part of opscope): the capture
 * library sees a backend named "CUDA0" whose graph compute launches ggml-cuda's kernels through
 * fake_cupti.c, the way ggml-cuda does for this graph (real mangled names from a prebuilt
 * libggml-cuda.so: rms_norm_f32 fusing RMS_NORM+MUL, quantize_q8_1 before each
 * mul_mat_vec_q, the gate fused into the up projection with the SWIGLU, k_bin_bcast for ADD,
 * a memset before the first product).
 *
 *   cuda_program FAKE_CUPTI_SO eager|graphs|shapes N
 *
 * eager: N computes launched one kernel at a time. graphs: ggml-cuda's CUDA-graph path: two
 * computes eagerly, then each compute is captured (its launches create graph nodes and run
 * nothing), the first instantiated, later ones update the exec in place, and launched; from
 * the fifth on the exec is launched without a new capture. shapes: N computes launched eagerly,
 * each of a graph of new shapes (a server's batches and KV lengths): compute i's width is
 * 32 * (8 + i), with a 100 ms pause after every 1,000. Prints one line per compute.
 *
 * The backend is a struct ggml_backend laid out as ggml 0.9's ggml-backend-impl.h (guid, then
 * the interface: get_name second, graph_compute fourteenth), zeroed elsewhere (no device, no
 * synchronize); the program checks that ggml calls both before trusting the layout. A test-only
 * program may rely on ggml's private layout; the capture library never does.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ggml-backend.h>
#include <ggml.h>

enum { SLOT_GET_NAME = 1, SLOT_GRAPH_COMPUTE = 13 };

#define K_RMS "_Z12rms_norm_f32ILi256ELb1ELb0EEvPKfPfilllfS1_lll5uint3S3_S3_S3_S1_lllS3_S3_S3_S3_"
#define K_Q81 "_Z13quantize_q8_1PKfPvlllllj5uint3"
#define K_MMVQ "_Z13mul_mat_vec_qIL9ggml_type2ELi1ELb0ELb0ELb0EEvPKvS2_PKi31ggml_cuda_mm_fusion_args_devicePfj5uint3jjjS7_jjjS7_jjjj"
#define K_MMVQ_FUSED "_Z13mul_mat_vec_qIL9ggml_type2ELi1ELb1ELb0ELb0EEvPKvS2_PKi31ggml_cuda_mm_fusion_args_devicePfj5uint3jjjS7_jjjS7_jjjj"
#define K_ADD "_Z11k_bin_bcastIXadL_ZL6op_addffEEfffJPKfEEvPKT0_PKT1_PT2_jjj5uint3SA_SA_SA_SA_jjjjjjjjjjjDpT3_"

static void (*f_launch)(const char *, uint64_t);
static void (*f_memset)(uint64_t, uint64_t);
static void (*f_begin)(void);
static void *(*f_end)(void);
static void *(*f_inst)(void *);
static void (*f_update)(void *, void *);
static void (*f_glaunch)(void *);
static void (*f_gfree)(void *);
static int g_calls, g_name_calls, g_graphs_mode;
static void *g_exec;

static const char *fake_name(ggml_backend_t b) {
    (void)b;
    g_name_calls++;
    return "CUDA0";
}

/* The kernels of one compute, node by node (node order of build_graph). */
static void launch_all(void) {
    f_launch(K_RMS, 3000);      /* 0 RMS_NORM + 1 MUL */
    f_memset(4096, 1000);       /* with 2 MUL_MAT */
    f_launch(K_Q81, 1000);
    f_launch(K_MMVQ, 4000);     /* 2 MUL_MAT */
    f_launch(K_Q81, 1000);
    f_launch(K_MMVQ_FUSED, 6000); /* 3 MUL_MAT (up), 4 MUL_MAT (gate), 5 GLU */
    f_launch(K_Q81, 1000);
    f_launch(K_MMVQ, 4000);     /* 6 MUL_MAT (down) */
    f_launch(K_ADD, 2000);      /* 7 ADD */
}

static enum ggml_status fake_compute(ggml_backend_t b, struct ggml_cgraph *g) {
    (void)b;
    (void)g;
    int c = g_calls++;
    if (!g_graphs_mode || c < 2) {
        launch_all();
    } else if (c < 4) {
        f_begin();
        launch_all();
        void *graph = f_end();
        if (!g_exec) {
            g_exec = f_inst(graph);
        } else {
            f_update(g_exec, graph);
        }
        f_gfree(graph);
        f_glaunch(g_exec);
    } else {
        f_glaunch(g_exec);
    }
    return GGML_STATUS_SUCCESS;
}

static struct ggml_cgraph *build_graph(struct ggml_context *ctx, int n) {
    const int ff = 2 * n;
    struct ggml_tensor *x = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, n);
    struct ggml_tensor *w = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, n);
    struct ggml_tensor *wq = ggml_new_tensor_2d(ctx, GGML_TYPE_Q4_0, n, n);
    struct ggml_tensor *wu = ggml_new_tensor_2d(ctx, GGML_TYPE_Q4_0, n, ff);
    struct ggml_tensor *wg = ggml_new_tensor_2d(ctx, GGML_TYPE_Q4_0, n, ff);
    struct ggml_tensor *wd = ggml_new_tensor_2d(ctx, GGML_TYPE_Q4_0, ff, n);
    struct ggml_tensor *h = ggml_mul(ctx, ggml_rms_norm(ctx, x, 1e-5f), w);
    struct ggml_tensor *q = ggml_mul_mat(ctx, wq, h);
    struct ggml_tensor *up = ggml_mul_mat(ctx, wu, q);
    struct ggml_tensor *gate = ggml_mul_mat(ctx, wg, q);
    struct ggml_tensor *act = ggml_swiglu_split(ctx, gate, up);
    struct ggml_tensor *out = ggml_add(ctx, ggml_mul_mat(ctx, wd, act), x);
    struct ggml_cgraph *gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, out);
    return gf;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: cuda_program FAKE_CUPTI_SO eager|graphs N\n");
        return 2;
    }
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
    if (!h) {
        fprintf(stderr, "cannot load %s: %s\n", argv[1], dlerror());
        return 1;
    }
    *(void **)&f_launch = dlsym(h, "fake_cuda_launch");
    *(void **)&f_memset = dlsym(h, "fake_cuda_memset");
    *(void **)&f_begin = dlsym(h, "fake_cuda_begin_capture");
    *(void **)&f_end = dlsym(h, "fake_cuda_end_capture");
    *(void **)&f_inst = dlsym(h, "fake_cuda_instantiate");
    *(void **)&f_update = dlsym(h, "fake_cuda_exec_update");
    *(void **)&f_glaunch = dlsym(h, "fake_cuda_graph_launch");
    *(void **)&f_gfree = dlsym(h, "fake_cuda_graph_destroy");
    if (!f_launch || !f_memset || !f_begin || !f_end || !f_inst || !f_update || !f_glaunch || !f_gfree) {
        fprintf(stderr, "%s lacks the fake CUDA calls\n", argv[1]);
        return 1;
    }
    g_graphs_mode = strcmp(argv[2], "graphs") == 0;
    int n = atoi(argv[3]);
    struct ggml_init_params ip = {64 * 1024 * 1024, NULL, true};
    struct ggml_context *ctx = ggml_init(ip);
    struct ggml_cgraph *gf = build_graph(ctx, 256);
    bool shapes = strcmp(argv[2], "shapes") == 0;
    void *slots[64] = {0};
    slots[SLOT_GET_NAME] = (void *)fake_name;
    slots[SLOT_GRAPH_COMPUTE] = (void *)fake_compute;
    ggml_backend_t be = (ggml_backend_t)slots;
    if (strcmp(ggml_backend_name(be), "CUDA0") != 0 || g_name_calls == 0) {
        fprintf(stderr, "ggml's struct ggml_backend is not the layout this test knows\n");
        return 1;
    }
    for (int i = 0; i < n; i++) {
        int before = g_calls;
        struct ggml_context *sc = NULL;
        if (shapes) {
            struct ggml_init_params sp = {ggml_tensor_overhead() * 32 + ggml_graph_overhead(), NULL, true};
            sc = ggml_init(sp);
            gf = build_graph(sc, 32 * (8 + i));
        }
        enum ggml_status st = ggml_backend_graph_compute(be, gf);
        int nodes = ggml_graph_n_nodes(gf);
        if (sc) {
            ggml_free(sc);
        }
        if (st != GGML_STATUS_SUCCESS || g_calls != before + 1) {
            fprintf(stderr, "compute %d did not reach the fake backend\n", i);
            return 1;
        }
        printf("compute %d: %d nodes\n", i, nodes);
        if (shapes && i % 1000 == 999) {
            /* a server's pause between bursts: the capture's checkpoints run in it even on a
             * loaded machine, so what it holds after a burst does not depend on the load */
            struct timespec gap = {0, 100 * 1000 * 1000};
            nanosleep(&gap, NULL);
        }
    }
    ggml_free(ctx);
    return 0;
}
