/*
 * test_cupti.c - the CUPTI source's pure parts (src/capture/gpu/cupti_*.c) and the "cuda"
 * rules of the mapping.
 *
 * Records are built as C structs with NVIDIA's documented field order (the compiler lays them
 * out), so the hand-written offsets of cupti_rec.c are checked against an independent layout.
 * Kernel names are real: mangled symbols of a prebuilt libggml-cuda.so (llama.cpp, MIT; see
 * data/ggml_cuda_kernels.LICENSE) with c++filt's demangling beside each. The tracker is driven
 * through the event orders CUPTI produces: eager launches, stream capture then instantiation
 * then replay, an exec updated in place, records out of order, nested runtime/driver calls.
 */
#include "capture/gpu/cupti_abi.h"
#include "capture/gpu/cupti_clock.h"
#include "capture/gpu/cupti_names.h"
#include "capture/gpu/cupti_rec.h"
#include "capture/gpu/cupti_track.h"
#include "capture/gpu/gpu_map.h"
#include "test.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#ifndef OPSCOPE_TEST_DATA_DIR
#define OPSCOPE_TEST_DATA_DIR "."
#endif

/* CUpti_ActivityKernel9/10 up to graphId, in the documented order. */
typedef struct doc_kernel {
    uint32_t kind;
    uint8_t cache_config, shared_memory_config;
    uint16_t registers_per_thread;
    uint32_t pgc_requested, pgc_executed;
    uint64_t start, end, completed;
    uint32_t device_id, context_id, stream_id;
    int32_t grid[3], block[3], static_shared, dynamic_shared;
    uint32_t local_per_thread, local_total, correlation_id;
    int64_t grid_id;
    const char *name;
    void *reserved0;
    uint64_t queued, submitted;
    uint8_t launch_type, carveout_requested_flag, carveout_requested, padding;
    uint32_t shared_memory_executed;
    uint64_t graph_node_id;
    uint32_t shmem_limit_config, graph_id;
    void *access_policy_window;
} doc_kernel;

/* CUpti_ActivityMemcpy5/6 and CUpti_ActivityMemset4, up to graphNodeId */
typedef struct doc_memcpy {
    uint32_t kind;
    uint8_t copy_kind, src_kind, dst_kind, flags;
    uint64_t bytes, start, end;
    uint32_t device_id, context_id, stream_id, correlation_id, runtime_correlation_id, pad;
    void *reserved0;
    uint64_t graph_node_id;
    uint32_t graph_id;
} doc_memcpy;

typedef struct doc_memset {
    uint32_t kind, value;
    uint64_t bytes, start, end;
    uint32_t device_id, context_id, stream_id, correlation_id;
    uint16_t flags, memory_kind;
    uint32_t pad;
    void *reserved0;
    uint64_t graph_node_id;
    uint32_t graph_id;
} doc_memset;

static int test_versions(void) {
    ASSERT_NOT_NULL(opscope_cupti_layout_for(19));  /* CUDA 12.0 */
    ASSERT_NOT_NULL(opscope_cupti_layout_for(28));  /* CUDA 12.9 Update 1 */
    ASSERT_NOT_NULL(opscope_cupti_layout_for(130002));
    ASSERT_NULL(opscope_cupti_layout_for(18));      /* CUDA 11.8: never checked */
    ASSERT_NULL(opscope_cupti_layout_for(29));
    ASSERT_NULL(opscope_cupti_layout_for(130100));  /* CUDA 13.1: not yet checked */
    return 0;
}

/* Names and the timestamp-callback verdict, from NVIDIA's cupti_version.h list and the CUDA
 * 13.1 release notes (the zero-timestamp bug of 12.6 Update 2 to 13.0). */
static int test_version_names(void) {
    char b[96];
    opscope_cupti_version_name(22, b, sizeof b);
    ASSERT_EQ_STR(b, "CUDA 12.4 (CUPTI API version 22)");
    opscope_cupti_version_name(28, b, sizeof b);
    ASSERT_EQ_STR(b, "CUDA 12.9 Update 1 (CUPTI API version 28)");
    opscope_cupti_version_name(130001, b, sizeof b);
    ASSERT_EQ_STR(b, "CUDA 13.0 Update 1 (CUPTI API version 130001)");
    opscope_cupti_version_name(130100, b, sizeof b);
    ASSERT_EQ_STR(b, "CUDA 13.1 (CUPTI API version 130100)");
    opscope_cupti_version_name(25, b, sizeof b);
    ASSERT_EQ_STR(b, "CUPTI API version 25");
    opscope_cupti_version_name(130001, b, 9);
    ASSERT_EQ_STR(b, "CUDA 13.");
    ASSERT_TRUE(opscope_cupti_timestamp_callback_ok(19));  /* 12.0 */
    ASSERT_TRUE(opscope_cupti_timestamp_callback_ok(23));  /* 12.5 */
    ASSERT_TRUE(!opscope_cupti_timestamp_callback_ok(24)); /* 12.6: Update 2 shares its version */
    ASSERT_TRUE(!opscope_cupti_timestamp_callback_ok(28));
    ASSERT_TRUE(!opscope_cupti_timestamp_callback_ok(130000));
    ASSERT_TRUE(!opscope_cupti_timestamp_callback_ok(130001));
    ASSERT_TRUE(opscope_cupti_timestamp_callback_ok(130100)); /* fixed in 13.1 */
    return 0;
}

/* The clock: session began at 100 s (CLOCK_MONOTONIC); CUPTI's own clock (CLOCK_REALTIME) is
 * 1.7e9 s ahead, so calibrated = -1.7e18 ns. */
static int test_clock(void) {
    const uint64_t s = 1000000000ull, begin = 100 * s, now = 160 * s;
    const int64_t cal = -1700000000ll * 1000000000ll;
    const uint64_t real = (uint64_t)(150 * (int64_t)s - cal); /* 150 s on CUPTI's own clock */
    opscope_cupti_clock c;
    uint64_t t0, t1;
    /* calibrated: CUPTI's stamps plus the offset */
    opscope_cupti_clock_init(&c, begin, cal, false);
    ASSERT_TRUE(opscope_cupti_clock_map(&c, real, real + 500, now, &t0, &t1));
    ASSERT_EQ_U64(t0, 150 * s);
    ASSERT_EQ_U64(t1, 150 * s + 500);
    /* a re-measured offset (CLOCK_REALTIME stepped by 2 ms) is used at once */
    opscope_cupti_clock_calibrated(&c, cal - 2000000);
    ASSERT_TRUE(opscope_cupti_clock_map(&c, real, real + 500, now, &t0, &t1));
    ASSERT_EQ_U64(t0, 150 * s - 2000000);
    /* zero (the 12.6U2-13.0 bug, or CUPTI could not time it), one zero, reversed: untimed, counted */
    ASSERT_TRUE(!opscope_cupti_clock_map(&c, 0, 0, now, &t0, &t1));
    ASSERT_EQ_U64(t0, 0);
    ASSERT_EQ_U64(t1, 0);
    ASSERT_TRUE(!opscope_cupti_clock_map(&c, 0, real, now, &t0, &t1));
    ASSERT_TRUE(!opscope_cupti_clock_map(&c, real + 10, real, now, &t0, &t1));
    ASSERT_EQ_U64(atomic_load(&c.bad), 3);
    /* out of range with the calibration and no callback to blame: untimed */
    ASSERT_TRUE(!opscope_cupti_clock_map(&c, 150 * s, 150 * s + 5, now, &t0, &t1));
    ASSERT_EQ_U64(atomic_load(&c.bad), 4);
    /* the callback: stamps already on CLOCK_MONOTONIC, offset 0 */
    opscope_cupti_clock_init(&c, begin, cal, true);
    ASSERT_TRUE(opscope_cupti_clock_map(&c, 120 * s, 120 * s + 7, now, &t0, &t1));
    ASSERT_EQ_U64(t0, 120 * s);
    ASSERT_EQ_U64(t1, 120 * s + 7);
    /* within the slack of the session's ends: still in range */
    ASSERT_TRUE(opscope_cupti_clock_map(&c, begin - s / 2, begin, now, &t0, &t1));
    ASSERT_TRUE(opscope_cupti_clock_map(&c, now, now + s / 2, now, &t0, &t1));
    /* a re-measure does not move the callback's offset */
    opscope_cupti_clock_calibrated(&c, cal);
    ASSERT_TRUE(opscope_cupti_clock_map(&c, 120 * s, 120 * s + 7, now, &t0, &t1));
    ASSERT_EQ_U64(t0, 120 * s);
    ASSERT_EQ_U64(atomic_load(&c.fallback), 0);
    /* a record stamped with CUPTI's own clock despite the callback takes the calibration */
    ASSERT_TRUE(opscope_cupti_clock_map(&c, real, real + 500, now, &t0, &t1));
    ASSERT_EQ_U64(t0, 150 * s);
    ASSERT_EQ_U64(t1, 150 * s + 500);
    ASSERT_EQ_U64(atomic_load(&c.fallback), 1);
    /* and the next one stamped through the callback is still read as such */
    ASSERT_TRUE(opscope_cupti_clock_map(&c, 121 * s, 121 * s + 9, now, &t0, &t1));
    ASSERT_EQ_U64(t0, 121 * s);
    ASSERT_EQ_U64(atomic_load(&c.bad), 0);
    /* in range with neither offset (in the future): untimed */
    ASSERT_TRUE(!opscope_cupti_clock_map(&c, 170 * s, 171 * s, now, &t0, &t1));
    ASSERT_EQ_U64(atomic_load(&c.bad), 1);
    ASSERT_EQ_U64(atomic_load(&c.fallback), 1);
    return 0;
}

static int check_records(uint32_t version) {
    const opscope_cupti_layout *l = opscope_cupti_layout_for(version);
    ASSERT_NOT_NULL(l);
    doc_kernel k = {.kind = OPSCOPE_CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, .start = 1000, .end = 1750, .completed = 1800,
                    .stream_id = 13, .correlation_id = 4242, .grid_id = 7, .name = "_Z13quantize_q8_1PKfPvlllllj5uint3",
                    .graph_node_id = 0x1234567890ull, .graph_id = 3, .registers_per_thread = 32};
    opscope_cupti_rec r;
    ASSERT_TRUE(opscope_cupti_rec_read(l, &k, &r));
    ASSERT_EQ_INT(r.kind, OPSCOPE_CUPTI_REC_KERNEL);
    ASSERT_EQ_U64(r.start, 1000);
    ASSERT_EQ_U64(r.end, 1750);
    ASSERT_EQ_INT(r.stream, 13);
    ASSERT_EQ_INT(r.corr, 4242);
    ASSERT_EQ_U64(r.graph_node, 0x1234567890ull);
    ASSERT_EQ_STR(r.name, k.name);
    ASSERT_LE_U64(l->k_size, sizeof k);
    doc_memcpy c = {.kind = OPSCOPE_CUPTI_ACTIVITY_KIND_MEMCPY, .copy_kind = 1, .bytes = 4096, .start = 5, .end = 9,
                    .stream_id = 14, .correlation_id = 77, .runtime_correlation_id = 78, .graph_node_id = 99};
    ASSERT_TRUE(opscope_cupti_rec_read(l, &c, &r));
    ASSERT_EQ_INT(r.kind, OPSCOPE_CUPTI_REC_MEMCPY);
    ASSERT_EQ_INT(r.copy_kind, 1);
    ASSERT_EQ_U64(r.bytes, 4096);
    ASSERT_EQ_U64(r.start, 5);
    ASSERT_EQ_U64(r.end, 9);
    ASSERT_EQ_INT(r.stream, 14);
    ASSERT_EQ_INT(r.corr, 77);
    ASSERT_EQ_U64(r.graph_node, 99);
    doc_memset s = {.kind = OPSCOPE_CUPTI_ACTIVITY_KIND_MEMSET, .value = 0xff, .bytes = 512, .start = 20, .end = 30,
                    .stream_id = 15, .correlation_id = 88, .graph_node_id = 101};
    ASSERT_TRUE(opscope_cupti_rec_read(l, &s, &r));
    ASSERT_EQ_INT(r.kind, OPSCOPE_CUPTI_REC_MEMSET);
    ASSERT_EQ_U64(r.bytes, 512);
    ASSERT_EQ_U64(r.start, 20);
    ASSERT_EQ_U64(r.end, 30);
    ASSERT_EQ_INT(r.stream, 15);
    ASSERT_EQ_INT(r.corr, 88);
    ASSERT_EQ_U64(r.graph_node, 101);
    uint32_t other[8] = {5 /* RUNTIME */};
    ASSERT_TRUE(!opscope_cupti_rec_read(l, other, &r));
    return 0;
}

static int test_records_cuda12(void) {
    return check_records(26);
}

static int test_records_cuda13(void) {
    return check_records(130001);
}

static int test_api_roles(void) {
    static const struct {
        const char *name;
        opscope_cupti_role role;
    } cases[] = {
        {"cudaLaunchKernel_v7000", OPSCOPE_CUPTI_ROLE_KERNEL},
        {"cudaLaunchKernel_ptsz_v7000", OPSCOPE_CUPTI_ROLE_KERNEL},
        {"cudaLaunchKernelExC_v11060", OPSCOPE_CUPTI_ROLE_KERNEL},
        {"cuLaunchKernel", OPSCOPE_CUPTI_ROLE_KERNEL},
        {"cuLaunchKernelEx", OPSCOPE_CUPTI_ROLE_KERNEL},
        {"cudaGraphLaunch_v10000", OPSCOPE_CUPTI_ROLE_GRAPH},
        {"cuGraphLaunch", OPSCOPE_CUPTI_ROLE_GRAPH},
        {"cudaMemcpyAsync_v3020", OPSCOPE_CUPTI_ROLE_COPY},
        {"cuMemcpyHtoDAsync_v2", OPSCOPE_CUPTI_ROLE_COPY},
        {"cudaMemsetAsync_v3020", OPSCOPE_CUPTI_ROLE_FILL},
        {"cuMemsetD32Async", OPSCOPE_CUPTI_ROLE_FILL},
        {"cudaLaunchHostFunc_v10000", OPSCOPE_CUPTI_ROLE_NONE},
        {"cuLaunchHostFunc", OPSCOPE_CUPTI_ROLE_NONE},
        {"cudaStreamSynchronize_v3020", OPSCOPE_CUPTI_ROLE_NONE},
        {"cudaGraphInstantiate_v10000", OPSCOPE_CUPTI_ROLE_NONE},
        {"cudaGraphLaunchAsync", OPSCOPE_CUPTI_ROLE_GRAPH},
        {"cudaStreamBeginCapture_v10000", OPSCOPE_CUPTI_ROLE_CAPTURE_BEGIN},
        {"cudaStreamBeginCaptureToGraph_v12030", OPSCOPE_CUPTI_ROLE_CAPTURE_BEGIN},
        {"cuStreamBeginCapture_v2", OPSCOPE_CUPTI_ROLE_CAPTURE_BEGIN},
        {"cudaStreamEndCapture_v10000", OPSCOPE_CUPTI_ROLE_CAPTURE_END},
        {"cuStreamEndCapture", OPSCOPE_CUPTI_ROLE_CAPTURE_END},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if ((int)opscope_cupti_api_role(cases[i].name) != (int)cases[i].role) {
            TEST_FAIL_("%s: role %d, want %d", cases[i].name, opscope_cupti_api_role(cases[i].name), cases[i].role);
        }
    }
    ASSERT_EQ_INT(opscope_cupti_api_role(NULL), OPSCOPE_CUPTI_ROLE_NONE);
    return 0;
}

/* c++filt's full name to the record's form: no "void ", no parameter list (the '(' after the
 * template's closing '>', or the first one of a plain function). */
static void expected_name(const char *dem, char *out, size_t size, bool identifier_only) {
    if (strncmp(dem, "void ", 5) == 0) dem += 5;
    const char *lt = strchr(dem, '<');
    const char *par = strchr(dem, '(');
    size_t n;
    if (identifier_only || !lt || (par && par < lt)) {
        n = (size_t)((lt && (!par || lt < par) ? lt : par) - dem);
    } else {
        const char *p = lt;
        int depth = 0;
        for (; *p; p++) {
            if (*p == '<') depth++;
            if (*p == '>' && --depth == 0) break;
        }
        n = (size_t)(p - dem + 1);
    }
    snprintf(out, size, "%.*s", (int)n, dem);
}

static int test_kernel_names(void) {
    char path[512];
    snprintf(path, sizeof path, "%s/ggml_cuda_kernels.tsv", OPSCOPE_TEST_DATA_DIR);
    char *buf = test_slurp(path, NULL);
    ASSERT_NOT_NULL(buf);
    void *cxx = dlopen("libstdc++.so.6", RTLD_NOW | RTLD_LOCAL);
    opscope_cupti_demangle_fn dem = cxx ? (opscope_cupti_demangle_fn)dlsym(cxx, "__cxa_demangle") : NULL;
    int n = 0;
    for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
        char *tab = strchr(line, '\t');
        ASSERT_NOT_NULL(tab);
        *tab = '\0';
        char got[512], want[512];
        opscope_cupti_kernel_name(line, NULL, got, sizeof got);
        expected_name(tab + 1, want, sizeof want, true);
        ASSERT_EQ_STR(got, want);
        if (dem) {
            opscope_cupti_kernel_name(line, dem, got, sizeof got);
            expected_name(tab + 1, want, sizeof want, false);
            ASSERT_EQ_STR(got, want);
        }
        n++;
    }
    ASSERT_GE_INT(n, 30);
    char got[64];
    opscope_cupti_kernel_name("plain_kernel", NULL, got, sizeof got);
    ASSERT_EQ_STR(got, "plain_kernel");
    free(buf);
    if (cxx) dlclose(cxx);
    return 0;
}

/* A llama decode layer as ggml-cuda computes it, with the kernels it launches (names as the
 * source gives them, from the real symbols). */
static const opscope_gpu_node g_layer[] = {
    {"RMS_NORM", "norm-0", NULL, false},     {"MUL", "attn_norm-0", NULL, false},
    {"MUL_MAT", "Qcur-0", NULL, false},      {"MUL_MAT", "Kcur-0", NULL, false},
    {"MUL_MAT", "Vcur-0", NULL, false},      {"ROPE", "Qcur-0", NULL, false},
    {"ROPE", "Kcur-0", NULL, false},         {"VIEW", "k_cache_view-0", NULL, true},
    {"SET_ROWS", "k_cache-0", NULL, false},  {"VIEW", "v_cache_view-0", NULL, true},
    {"SET_ROWS", "v_cache-0", NULL, false},  {"PERMUTE", "q-0", NULL, true},
    {"FLASH_ATTN_EXT", "kqv-0", NULL, false}, {"RESHAPE", "kqv_out-0", NULL, true},
    {"MUL_MAT", "attn_out-0", NULL, false},  {"ADD", "ffn_inp-0", NULL, false},
    {"RMS_NORM", "norm-0", NULL, false},     {"MUL", "ffn_norm-0", NULL, false},
    {"MUL_MAT", "ffn_gate-0", NULL, false},  {"MUL_MAT", "ffn_up-0", NULL, false},
    {"GLU", "ffn_swiglu-0", "SWIGLU", false}, {"MUL_MAT", "ffn_out-0", NULL, false},
    {"ADD", "l_out-0", NULL, false},
};
#define MMVQ "mul_mat_vec_q<(ggml_type)2, 1, false, false, false>"
#define Q81 "quantize_q8_1"
static const char *const g_kernels[] = {
    "rms_norm_f32<256, true, false>", Q81, MMVQ, Q81, MMVQ, Q81, MMVQ,
    "rope_neox<true, false, float, float>", "rope_neox<true, false, float, float>",
    "k_set_rows<float, long, __half>", "k_set_rows<float, long, __half>",
    "flash_attn_ext_vec<128, 1, (ggml_type)1, (ggml_type)1, false>", "flash_attn_combine_results<112>", Q81, MMVQ,
    "k_bin_bcast<&(op_add(float, float)), float, float, float, float const*>", "rms_norm_f32<256, true, false>", Q81,
    "mul_mat_vec_q<(ggml_type)2, 1, true, false, false>", Q81, MMVQ,
    "k_bin_bcast<&(op_add(float, float)), float, float, float, float const*>",
};
/* What each group must be: its first non-empty op, ops fused in it, its kernels. */
static const struct {
    const char *main, *fused;
    int n_items;
} g_want[] = {
    {"RMS_NORM", "RMS_NORM_MUL", 1}, {"MUL_MAT", NULL, 2}, {"MUL_MAT", NULL, 2}, {"MUL_MAT", NULL, 2},
    {"ROPE", NULL, 1}, {"ROPE", NULL, 1}, {"SET_ROWS", NULL, 1}, {"SET_ROWS", NULL, 1},
    {"FLASH_ATTN_EXT", NULL, 2}, {"MUL_MAT", NULL, 2}, {"ADD", NULL, 1}, {"RMS_NORM", "RMS_NORM_MUL", 1},
    {"MUL_MAT", "MUL_MAT_MUL_MAT_GLU", 2}, {"MUL_MAT", NULL, 2}, {"ADD", NULL, 1},
};

static int check_layer(const opscope_gpu_item *items, int ni) {
    const opscope_gpu_rules *rules = opscope_gpu_rules_for("cuda");
    ASSERT_NOT_NULL(rules);
    int nn = (int)(sizeof g_layer / sizeof g_layer[0]);
    opscope_gpu_group groups[64];
    int ng = opscope_gpu_map(rules, g_layer, nn, items, ni, groups, 64);
    ASSERT_EQ_INT(ng, (int)(sizeof g_want / sizeof g_want[0]));
    int hits[64] = {0};
    for (int k = 0; k < ng; k++) {
        const opscope_gpu_group *g = &groups[k];
        ASSERT_EQ_STR(g_layer[g->main].op, g_want[k].main);
        ASSERT_EQ_INT(g->n_items, g_want[k].n_items);
        for (int i = g->first; i <= g->last; i++) hits[i]++;
        char name[128] = "";
        int nonempty = 0;
        for (int i = g->first; i <= g->last; i++) nonempty += !g_layer[i].empty;
        if (nonempty > 1) {
            opscope_gpu_node ne[16];
            int m = 0;
            for (int i = g->first; i <= g->last && m < 16; i++) {
                if (!g_layer[i].empty) ne[m++] = g_layer[i];
            }
            opscope_gpu_group one = {0, m - 1, 0, 0, 0, 0};
            opscope_gpu_group_name(rules, ne, &one, name, sizeof name);
            ASSERT_NOT_NULL(g_want[k].fused);
            ASSERT_EQ_STR(name, g_want[k].fused);
        } else {
            ASSERT_NULL(g_want[k].fused);
        }
    }
    for (int i = 0; i < nn; i++) {
        if (!g_layer[i].empty && hits[i] != 1) TEST_FAIL_("node %d (%s) in %d groups", i, g_layer[i].op, hits[i]);
    }
    return 0;
}

static int test_cuda_rules_layer(void) {
    int ni = (int)(sizeof g_kernels / sizeof g_kernels[0]);
    opscope_gpu_item items[64] = {{0}};
    for (int i = 0; i < ni; i++) {
        items[i].seq = (uint32_t)i;
        items[i].name = g_kernels[i];
        items[i].t0 = 1000u + 10u * (uint64_t)i;
        items[i].t1 = items[i].t0 + 8;
    }
    return check_layer(items, ni);
}

/* Eager launches: each takes the next place; records come back in any order. */
static int test_track_eager(void) {
    opscope_cupti_track_t *t = opscope_cupti_track_new();
    ASSERT_NOT_NULL(t);
    ASSERT_TRUE(opscope_cupti_track_launch(t, 5, 100, OPSCOPE_CUPTI_ROLE_KERNEL, NULL));
    ASSERT_TRUE(opscope_cupti_track_launch(t, 5, 101, OPSCOPE_CUPTI_ROLE_FILL, NULL));
    ASSERT_TRUE(opscope_cupti_track_launch(t, 5, 102, OPSCOPE_CUPTI_ROLE_KERNEL, NULL));
    opscope_cupti_track_alias(t, 102, 103); /* cudaLaunchKernel running cuLaunchKernel */
    ASSERT_TRUE(opscope_cupti_track_launch(t, 0, 104, OPSCOPE_CUPTI_ROLE_KERNEL, NULL)); /* outside */
    ASSERT_EQ_U64(opscope_cupti_track_end_scope(t, 5), 3);
    uint64_t scope;
    uint32_t seq;
    ASSERT_TRUE(opscope_cupti_track_place(t, 103, 0, &scope, &seq));
    ASSERT_EQ_U64(scope, 5);
    ASSERT_EQ_INT(seq, 2);
    ASSERT_TRUE(opscope_cupti_track_place(t, 100, 0, &scope, &seq));
    ASSERT_EQ_INT(seq, 0);
    ASSERT_TRUE(opscope_cupti_track_place(t, 101, 0, &scope, &seq));
    ASSERT_EQ_INT(seq, 1);
    ASSERT_TRUE(!opscope_cupti_track_place(t, 104, 0, &scope, &seq));
    ASSERT_EQ_U64(scope, 0);
    ASSERT_TRUE(!opscope_cupti_track_place(t, 100, 0, &scope, &seq)); /* one record per launch */
    ASSERT_EQ_U64(opscope_cupti_track_end_scope(t, 6), 0); /* nothing launched */
    /* an untimed compute: its records are known, to be dropped, and take no places */
    ASSERT_TRUE(opscope_cupti_track_launch(t, OPSCOPE_CUPTI_SCOPE_UNTIMED, 110, OPSCOPE_CUPTI_ROLE_KERNEL, NULL));
    ASSERT_TRUE(opscope_cupti_track_launch(t, 12, 111, OPSCOPE_CUPTI_ROLE_KERNEL, NULL));
    ASSERT_TRUE(opscope_cupti_track_place(t, 110, 0, &scope, &seq));
    ASSERT_EQ_U64(scope, OPSCOPE_CUPTI_SCOPE_UNTIMED);
    ASSERT_TRUE(opscope_cupti_track_place(t, 111, 0, &scope, &seq));
    ASSERT_EQ_U64(scope, 12);
    ASSERT_EQ_INT(seq, 0);
    opscope_cupti_track_free(t);
    return 0;
}

/* ggml-cuda's graph path: a compute captured (its launches create nodes, run nothing), the
 * graph instantiated (nodes cloned) and launched; a later compute re-captured and the exec
 * updated in place, then launched again: both replays place every record at its node. */
static int test_track_graph(void) {
    opscope_cupti_track_t *t = opscope_cupti_track_new();
    int g1, g2, e1;
    const void *graph1 = &g1, *graph2 = &g2, *exec = &e1;
    /* scope 7 captures: node ids 500.. in creation order, one host node in between */
    for (uint32_t i = 0; i < 4; i++) {
        ASSERT_TRUE(opscope_cupti_track_launch(t, 7, 200 + i, OPSCOPE_CUPTI_ROLE_KERNEL, NULL));
        opscope_cupti_track_node_created(t, graph1, 500 + i, i == 2 ? OPSCOPE_CU_GRAPH_NODE_TYPE_MEMSET
                                                                   : OPSCOPE_CU_GRAPH_NODE_TYPE_KERNEL);
        opscope_cupti_track_unlaunch(t, 200 + i);
    }
    opscope_cupti_track_node_created(t, graph1, 504, 7 /* CU_GRAPH_NODE_TYPE_HOST */);
    /* instantiation clones (CUPTI reports them in no promised order) */
    static const uint64_t orig[] = {502, 500, 503, 501};
    int ex;
    for (int i = 0; i < 4; i++) {
        opscope_cupti_track_node_cloned(t, &ex, orig[i] + 1000, orig[i], i == 0 ? OPSCOPE_CU_GRAPH_NODE_TYPE_MEMSET
                                                                             : OPSCOPE_CU_GRAPH_NODE_TYPE_KERNEL);
    }
    opscope_cupti_track_exec_created(t, exec, graph1);
    ASSERT_TRUE(opscope_cupti_track_launch(t, 7, 205, OPSCOPE_CUPTI_ROLE_GRAPH, exec));
    ASSERT_EQ_U64(opscope_cupti_track_end_scope(t, 7), 4);
    /* records of the replay, out of order, carry the exec's (cloned) node ids */
    static const uint64_t arrive[] = {1503, 1500, 1502, 1501};
    static const uint32_t want[] = {3, 0, 2, 1};
    for (int i = 0; i < 4; i++) {
        uint64_t scope;
        uint32_t seq;
        ASSERT_TRUE(opscope_cupti_track_place(t, 205, arrive[i], &scope, &seq));
        ASSERT_EQ_U64(scope, 7);
        ASSERT_EQ_INT(seq, want[i]);
    }
    /* scope 8: recaptured into a new graph, the exec updated (no new exec, no clones) */
    for (uint32_t i = 0; i < 4; i++) {
        opscope_cupti_track_launch(t, 8, 300 + i, OPSCOPE_CUPTI_ROLE_KERNEL, NULL);
        opscope_cupti_track_node_created(t, graph2, 600 + i, OPSCOPE_CU_GRAPH_NODE_TYPE_KERNEL);
        opscope_cupti_track_unlaunch(t, 300 + i);
    }
    ASSERT_TRUE(opscope_cupti_track_launch(t, 8, 310, OPSCOPE_CUPTI_ROLE_KERNEL, NULL)); /* eager, before */
    ASSERT_TRUE(opscope_cupti_track_launch(t, 8, 311, OPSCOPE_CUPTI_ROLE_GRAPH, exec));
    ASSERT_EQ_U64(opscope_cupti_track_end_scope(t, 8), 5);
    uint64_t scope;
    uint32_t seq;
    ASSERT_TRUE(opscope_cupti_track_place(t, 311, 1501, &scope, &seq));
    ASSERT_EQ_INT(seq, 2);
    ASSERT_TRUE(opscope_cupti_track_place(t, 310, 0, &scope, &seq));
    ASSERT_EQ_INT(seq, 0);
    ASSERT_TRUE(opscope_cupti_track_place(t, 311, 1500, &scope, &seq));
    ASSERT_EQ_INT(seq, 1);
    /* a node id never seen: the next place in arrival order */
    ASSERT_TRUE(opscope_cupti_track_place(t, 311, 9999, &scope, &seq));
    ASSERT_EQ_U64(scope, 8);
    /* CUPTI naming the exec's own graph at GRAPHEXEC_CREATED: the clones made for it count */
    int e3, g3;
    for (uint32_t i = 0; i < 3; i++) {
        opscope_cupti_track_node_cloned(t, &g3, 800 + i, 500 + i, OPSCOPE_CU_GRAPH_NODE_TYPE_KERNEL);
    }
    opscope_cupti_track_exec_created(t, &e3, &g3);
    ASSERT_TRUE(opscope_cupti_track_launch(t, 10, 320, OPSCOPE_CUPTI_ROLE_GRAPH, &e3));
    ASSERT_EQ_U64(opscope_cupti_track_end_scope(t, 10), 3);
    /* an exec instantiated before the source started: the scope's count is unknown */
    int e2;
    ASSERT_TRUE(!opscope_cupti_track_launch(t, 9, 400, OPSCOPE_CUPTI_ROLE_GRAPH, &e2));
    ASSERT_EQ_U64(opscope_cupti_track_end_scope(t, 9), 0);
    opscope_cupti_track_free(t);
    return 0;
}

/* The layer's kernels through the tracker as a replayed graph whose records arrive out of
 * order and split in two deliveries: sorted by place, they map as launched eagerly. */
static int test_track_then_map(void) {
    opscope_cupti_track_t *t = opscope_cupti_track_new();
    int graph, exec;
    int ni = (int)(sizeof g_kernels / sizeof g_kernels[0]);
    for (int i = 0; i < ni; i++) {
        opscope_cupti_track_launch(t, 11, 1000u + (uint32_t)i, OPSCOPE_CUPTI_ROLE_KERNEL, NULL);
        opscope_cupti_track_node_created(t, &graph, 7000u + (uint64_t)i, OPSCOPE_CU_GRAPH_NODE_TYPE_KERNEL);
        opscope_cupti_track_unlaunch(t, 1000u + (uint32_t)i);
        opscope_cupti_track_node_cloned(t, &exec, 9000u + (uint64_t)i, 7000u + (uint64_t)i, OPSCOPE_CU_GRAPH_NODE_TYPE_KERNEL);
    }
    opscope_cupti_track_exec_created(t, &exec, &graph);
    opscope_cupti_track_launch(t, 11, 2000, OPSCOPE_CUPTI_ROLE_GRAPH, &exec);
    ASSERT_EQ_U64(opscope_cupti_track_end_scope(t, 11), (uint64_t)ni);
    opscope_gpu_item items[64] = {{0}};
    for (int k = 0; k < ni; k++) {
        int i = (k * 7 + 3) % ni; /* a permutation: ni is not a multiple of 7 */
        uint64_t scope;
        uint32_t seq;
        ASSERT_TRUE(opscope_cupti_track_place(t, 2000, 9000u + (uint64_t)i, &scope, &seq));
        items[k].seq = seq;
        items[k].name = g_kernels[i];
    }
    /* cap_gpu.c sorts a scope's items by place before mapping */
    for (int a = 0; a < ni; a++) {
        for (int b = a + 1; b < ni; b++) {
            if (items[b].seq < items[a].seq) {
                opscope_gpu_item x = items[a];
                items[a] = items[b];
                items[b] = x;
            }
        }
    }
    for (int i = 0; i < ni; i++) ASSERT_EQ_INT(items[i].seq, i);
    opscope_cupti_track_free(t);
    return check_layer(items, ni);
}

TEST_MAIN(TEST(test_versions), TEST(test_version_names), TEST(test_clock), TEST(test_records_cuda12), TEST(test_records_cuda13), TEST(test_api_roles),
          TEST(test_kernel_names), TEST(test_cuda_rules_layer), TEST(test_track_eager), TEST(test_track_graph),
          TEST(test_track_then_map))
