/*
 * make_fixture OUT.html [N] [--csv FILE] [--max-records M] [--empty] [--merged] - writes a viewer test page from
 * a profile built in memory: two backends (CPU, Vulkan0), two splits, copies, a gap, two
 * overlapping records in one lane, and one op named with an HTML/script injection string.
 * With N > 0, N extra records follow on a third backend: pseudo-random starts (unsorted),
 * durations and names, including runs of 80 mutually overlapping records (more rows than a
 * lane may have). --csv writes every record offered (backend,copy,split,start,dur,name) for
 * tests that decode the page independently. --empty keeps the backends but no record.
 * --merged: the backends carry processes as in an `opscope merge` profile, Vulkan0's with a
 * host name long enough that its lane labels cannot fit the label column whole.
 * Exit 0 ok, 1 usage, 2 on failure.
 */
#include "export/html/html.h"
#include "opscope.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *g_extra; /* extra of the records added while set */

static int add(opscope_profile_t *p, opscope_record_type type, const char *name, int backend,
               int split, uint64_t start, uint64_t dur, uint64_t bytes, int64_t ne0, int64_t ne1,
               const char *tensor, int node) {
    opscope_record r;
    opscope_record_init(&r);
    r.type = type;
    r.name = name;
    r.backend_id = backend;
    r.split_id = split;
    r.start_ns = start;
    r.duration_ns = dur;
    r.bytes = bytes;
    r.n_src = ne0 ? 2 : 0;
    r.ne_src[0][0] = ne0;
    r.ne_src[0][1] = ne1;
    r.ne_src[0][2] = 1;
    r.ne_src[0][3] = 1;
    r.ne_src[1][0] = ne0;
    r.ne_src[1][1] = 7;
    r.ne_src[1][2] = 1;
    r.ne_src[1][3] = 1;
    if (ne0 && type == OPSCOPE_RECORD_OP) { /* f32 sources: the records have a traffic */
        r.type_src[0] = r.type_src[1] = 0;
        r.has |= OPSCOPE_HAS_SRC_TYPES;
    }
    r.tensor_name = tensor;
    r.extra = g_extra;
    if (node >= 0) {
        r.node_index = node;
        r.has |= OPSCOPE_HAS_NODE;
    }
    return opscope_profile_add_record(p, &r);
}

int main(int argc, char **argv) {
    const char *out = NULL, *csv = NULL;
    long extra = 0;
    size_t max_records = 0;
    int empty = 0, with_peak = 0, merged = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--empty")) empty = 1;
        else if (!strcmp(argv[i], "--peak")) with_peak = 1;
        else if (!strcmp(argv[i], "--merged")) merged = 1;
        else if (!strcmp(argv[i], "--csv") && i + 1 < argc) csv = argv[++i];
        else if (!strcmp(argv[i], "--max-records") && i + 1 < argc) max_records = (size_t)atol(argv[++i]);
        else if (!out) out = argv[i];
        else extra = atol(argv[i]);
    }
    if (!out) {
        fprintf(stderr, "usage: make_fixture OUT.html [N] [--csv FILE] [--max-records M] [--peak] "
                        "[--merged]\n");
        return 1;
    }
    opscope_profile_t *p = opscope_profile_new();
    if (!p) return 2;
    opscope_backend b0 = {0, "Vulkan0", "llvmpipe", OPSCOPE_DEVICE_GPU, NULL};
    opscope_backend b1 = {1, "CPU", "Test CPU", OPSCOPE_DEVICE_CPU, NULL};
    if (merged) {
        b0.process = "gpu-node-07.rack-b.inference-cluster.example.org/ggml-rpc-server";
        b1.process = "laptop/llama-cli";
    }
    opscope_meta meta = {.profiler = "opscope-test", .version = 3};
    int bad = opscope_profile_set_meta(p, &meta) | opscope_profile_add_backend(p, &b0) |
              opscope_profile_add_backend(p, &b1);
    const uint64_t T = 1000000000000ULL; /* a large time origin, as real clocks have */
    /* Vulkan0 split 0: MUL_MATs of two shapes, a 200 us gap, then more. */
    for (int i = 0; i < 40; i++) {
        uint64_t s = T + (uint64_t)i * 10000 + (i >= 20 ? 200000 : 0);
        bad |= add(p, OPSCOPE_RECORD_OP, "MUL_MAT", 0, 0, s, 8000, 4096 * 7 * 4,
                   i % 2 ? 4096 : 11008, 4096, "blk.0.ffn_up", i);
    }
    /* Vulkan0 split 1: ADDs (a fused kernel), two of which overlap (stacked into a second row). */
    g_extra = "ADD+RMS_NORM";
    for (int i = 0; i < 30; i++)
        bad |= add(p, OPSCOPE_RECORD_OP, "ADD", 0, 1, T + 5000 + (uint64_t)i * 12000, 3000,
                   4096 * 7 * 4, 4096, 7, "inp_add", 100 + i);
    bad |= add(p, OPSCOPE_RECORD_OP, "ADD", 0, 1, T + 5000 + 1000, 1500, 64, 4096, 7, NULL, -1);
    /* Copies between the backends (extra: the ggml call that copied). */
    g_extra = "tensor_get_async";
    for (int i = 0; i < 10; i++)
        bad |= add(p, OPSCOPE_RECORD_COPY, i % 2 ? "copy_H2D" : "copy_D2H", 0, 0,
                   T + (uint64_t)i * 40000, 6000, 1 << 20, 0, 0, NULL, -1);
    g_extra = NULL;
    /* CPU: the injection string as an op name and a tensor name, and a long op. */
    const char *inj = "</script><img src=x onerror=alert(1)>";
    bad |= add(p, OPSCOPE_RECORD_OP, inj, 1, 0, T + 50000, 100000, 1234, 64, 64, inj, 7);
    bad |= add(p, OPSCOPE_RECORD_OP, "SOFT_MAX", 1, 0, T + 160000, 40000, 4096, 32, 32, NULL, 8);
    if (with_peak) { /* a CPU MUL_MAT at a believable speed for the roofline chart */
        bad |= add(p, OPSCOPE_RECORD_OP, "MUL_MAT", 1, 0, T + 250000, 10000000, 4096 * 7 * 4, 4096,
                   4096, NULL, 9);
        /* two C++ kernel names of hundreds of bytes with one short form (a Kineto trace's) */
        static char k1[1400], k2[1400];
        const char *head = "void at::native::vectorized_elementwise_kernel<4, at::native::"
                           "CUDAFunctor_add<float>, at::detail::Array<char*, 3>";
        int n1 = snprintf(k1, sizeof k1, "%s", head), n2 = snprintf(k2, sizeof k2, "%s", head);
        for (int i = 0; i < 12; i++) { /* about 650 bytes in all */
            n1 += snprintf(k1 + n1, sizeof k1 - (size_t)n1, ", TrivialOffsetCalculator<%d, unsigned int>", i);
            n2 += snprintf(k2 + n2, sizeof k2 - (size_t)n2, ", TrivialOffsetCalculator<%d, unsigned long>", i);
        }
        snprintf(k1 + n1, sizeof k1 - (size_t)n1, " >(int, at::native::CUDAFunctor_add<float>)");
        snprintf(k2 + n2, sizeof k2 - (size_t)n2, " >(int, at::native::CUDAFunctor_add<float>)");
        bad |= add(p, OPSCOPE_RECORD_OP, k1, 0, 2, T + 300000, 30000, 0, 0, 0, NULL, -1);
        bad |= add(p, OPSCOPE_RECORD_OP, k2, 0, 2, T + 340000, 20000, 0, 0, 0, NULL, -1);
    }
    uint64_t x = 88172645463325252ULL; /* xorshift: reproducible pseudo-random data */
    for (long i = 0; i < extra; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        static const char *const names[] = {"MUL_MAT", "RMS_NORM", "ROPE", "ADD", "copy_H2D"};
        int k = (int)(x % 5);
        uint64_t start = T + 1000000 + (x >> 20) % 50000000, dur = 1 + (x >> 8) % 20000;
        int split = (int)((x >> 40) % 3);
        if (i % 1000 < 80) { /* a nest of overlapping records, all in one lane */
            k = 0;
            split = 0;
            start = T + 60000000 + (uint64_t)(i / 1000) * 100000 + (uint64_t)(i % 1000);
            dur = 50000 - (uint64_t)(i % 1000) * 10;
        }
        bad |= add(p, k == 4 ? OPSCOPE_RECORD_COPY : OPSCOPE_RECORD_OP, names[k], 2,
                   split, start, dur, 4096, 64, 64, NULL, (int)(i % 1000));
    }
    if (bad) {
        fprintf(stderr, "make_fixture: out of memory\n");
        return 2;
    }
    if (csv) {
        FILE *f = fopen(csv, "w");
        if (!f) return 2;
        for (size_t i = 0; i < opscope_profile_n_records(p); i++) {
            const opscope_record *r = opscope_profile_record(p, i);
            fprintf(f, "%d,%d,%d,%llu,%llu,%s\n", r->backend_id, r->type == OPSCOPE_RECORD_COPY,
                    r->split_id, (unsigned long long)r->start_ns,
                    (unsigned long long)r->duration_ns, r->name);
        }
        if (fclose(f)) return 2;
    }
    opscope_error err;
    opscope_html_sink_t *h = opscope_html_sink_new(out, "fixture <b>profile</b>", max_records, &err);
    if (!h) return 2;
    /* --peak: hand-made peaks (memory 10 GB/s, L2 40 GB/s, FMA 100 GFLOP/s) */
    opscope_peak peak = {.cpu = "Test CPU", .host = "fixture", .isa = "avx2", .n_threads = 2,
                         .mem_gbps_all = 10, .mem_gbps_one = 8, .cache_gbps_all = 40,
                         .cache_gbps_one = 30, .gflops_all = 100, .gflops_one = 50};
    if (with_peak) opscope_html_sink_set_peak(h, &peak);
    opscope_sink sink = opscope_html_sink(h);
    if (empty) opscope_profile_clear(p); /* backends and meta stay */
    if (opscope_profile_replay(p, &sink) != 0) {
        opscope_html_sink_abort(h);
        return 2;
    }
    opscope_profile_free(p);
    if (opscope_html_sink_finish(h, &err) != 0) {
        char buf[512];
        opscope_error_format(&err, buf, sizeof buf);
        fprintf(stderr, "make_fixture: %s\n", buf);
        return 2;
    }
    return 0;
}
