/*
 * gen_viewer OUT.html [N] [--json PROFILE.json] - the viewer benchmark's input: N records
 * (default 1,000,000) shaped like a llama.cpp decode run split across Vulkan0 (three splits)
 * and the CPU, with H2D/D2H copies between them, streamed into the HTML sink (never all held
 * as opscope_record). With --json, the same records are also written as a ggml profiler JSON
 * file (version 3 subset) for `opscope view`.
 * Durations are pseudo-random around per-op means (fixed seed), so sizes are reproducible.
 */
#include "export/html/html.h"
#include "opscope.h"
#include "util/out.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static uint64_t rnd(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

typedef struct op_def {
    const char *name, *sub_op;
    int backend, split;
    uint64_t mean_ns;
    int64_t ne0[4], ne1[4];
} op_def;

/* One transformer layer's nodes (decode, batch 1). */
static const op_def layer[] = {
    {"RMS_NORM", NULL, 0, 0, 4000, {4096, 1, 1, 1}, {0}},
    {"MUL", NULL, 0, 0, 3000, {4096, 1, 1, 1}, {4096, 1, 1, 1}},
    {"MUL_MAT", NULL, 0, 0, 45000, {4096, 4096, 1, 1}, {4096, 1, 1, 1}},
    {"MUL_MAT", NULL, 0, 0, 12000, {4096, 1024, 1, 1}, {4096, 1, 1, 1}},
    {"MUL_MAT", NULL, 0, 0, 12000, {4096, 1024, 1, 1}, {4096, 1, 1, 1}},
    {"ROPE", NULL, 0, 0, 5000, {128, 32, 1, 1}, {1, 1, 1, 1}},
    {"ROPE", NULL, 0, 0, 4000, {128, 8, 1, 1}, {1, 1, 1, 1}},
    {"CPY", NULL, 0, 1, 3000, {1024, 1, 1, 1}, {1024, 4096, 1, 1}},
    {"CPY", NULL, 0, 1, 3000, {1024, 1, 1, 1}, {1024, 4096, 1, 1}},
    {"FLASH_ATTN_EXT", NULL, 0, 1, 60000, {128, 1, 32, 1}, {128, 4096, 8, 1}},
    {"MUL_MAT", NULL, 0, 0, 45000, {4096, 4096, 1, 1}, {4096, 1, 1, 1}},
    {"ADD", NULL, 0, 0, 3000, {4096, 1, 1, 1}, {4096, 1, 1, 1}},
    {"RMS_NORM", NULL, 0, 0, 4000, {4096, 1, 1, 1}, {0}},
    {"MUL", NULL, 0, 0, 3000, {4096, 1, 1, 1}, {4096, 1, 1, 1}},
    {"MUL_MAT", NULL, 0, 2, 110000, {4096, 11008, 1, 1}, {4096, 1, 1, 1}},
    {"MUL_MAT", NULL, 0, 2, 110000, {4096, 11008, 1, 1}, {4096, 1, 1, 1}},
    {"GLU", "SWIGLU", 0, 2, 6000, {11008, 1, 1, 1}, {11008, 1, 1, 1}},
    {"MUL_MAT", NULL, 0, 2, 110000, {11008, 4096, 1, 1}, {11008, 1, 1, 1}},
    {"ADD", NULL, 0, 2, 3000, {4096, 1, 1, 1}, {4096, 1, 1, 1}},
    {"UNARY", "SILU", 1, 0, 9000, {4096, 1, 1, 1}, {0}},
    {"GET_ROWS", NULL, 1, 0, 7000, {4096, 32000, 1, 1}, {1, 1, 1, 1}},
    {"SOFT_MAX", NULL, 1, 0, 15000, {32000, 1, 1, 1}, {0}},
};
#define N_LAYER_OPS (sizeof layer / sizeof layer[0])

int main(int argc, char **argv) {
    const char *out = NULL, *json = NULL;
    uint64_t n = 1000000;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json") && i + 1 < argc) json = argv[++i];
        else if (!out) out = argv[i];
        else n = strtoull(argv[i], NULL, 10);
    }
    if (!out) {
        fprintf(stderr, "usage: gen_viewer OUT.html [N] [--json PROFILE.json]\n");
        return 1;
    }
    opscope_error err;
    opscope_html_sink_t *h = opscope_html_sink_new(out, "bench: synthetic decode run", 0, &err);
    if (!h) return 2;
    opscope_sink sink = opscope_html_sink(h);
    opscope_out_t *jw = NULL;
    if (json) {
        jw = opscope_out_open(json, &err);
        if (!jw) return 2;
        opscope_out_str(jw, "{\"profiler\":\"ggml\",\"version\":3,\"backends\":["
                            "{\"id\":0,\"name\":\"Vulkan0\",\"device\":\"llvmpipe\",\"device_type\":1},"
                            "{\"id\":1,\"name\":\"CPU\",\"device\":\"bench CPU\",\"device_type\":0}],"
                            "\"records\":[\n");
    }
    opscope_backend b0 = {0, "Vulkan0", "llvmpipe", OPSCOPE_DEVICE_GPU, NULL};
    opscope_backend b1 = {1, "CPU", "bench CPU", OPSCOPE_DEVICE_CPU, NULL};
    sink.on_backend(sink.ud, &b0);
    sink.on_backend(sink.ud, &b1);

    uint64_t t_gpu = 5000000000000ULL, t_cpu = t_gpu, made = 0;
    int node = 0;
    char tensor[64];
    opscope_record r;
    while (made < n) {
        /* A token: 32 layers, an input copy before and an output copy after. */
        for (int layer_i = -1; layer_i <= 32 && made < n; layer_i++) {
            size_t n_ops = (layer_i < 0 || layer_i == 32) ? 1 : N_LAYER_OPS;
            for (size_t k = 0; k < n_ops && made < n; k++) {
                opscope_record_init(&r);
                if (layer_i < 0 || layer_i == 32) {
                    r.type = OPSCOPE_RECORD_COPY;
                    r.name = layer_i < 0 ? "copy_H2D" : "copy_D2H";
                    r.backend_id = 0;
                    r.split_id = 0;
                    r.bytes = layer_i < 0 ? 16384 : 128000;
                    r.duration_ns = 8000 + rnd() % 4000;
                    r.start_ns = layer_i < 0 ? t_gpu : t_gpu;
                    t_gpu += r.duration_ns + 500;
                    node = 0;
                } else {
                    const op_def *d = &layer[k];
                    r.type = OPSCOPE_RECORD_OP;
                    r.name = d->name;
                    r.sub_op = d->sub_op;
                    r.backend_id = d->backend;
                    r.split_id = d->split;
                    r.n_src = d->ne1[0] ? 2 : 1;
                    memcpy(r.ne_src[0], d->ne0, sizeof d->ne0);
                    memcpy(r.ne_src[1], d->ne1, sizeof d->ne1);
                    r.has |= OPSCOPE_HAS_NODE;
                    r.node_index = node++;
                    snprintf(tensor, sizeof tensor, "blk.%d.%s-%zu", layer_i, d->name, k);
                    r.tensor_name = tensor;
                    /* output size: MUL_MAT [ne0[1] x ne1[1]], GET_ROWS [ne0[0] x ne1[0]] */
                    if (!strcmp(d->name, "MUL_MAT"))
                        r.bytes = (uint64_t)(d->ne0[1] * d->ne1[1]) * 4;
                    else if (!strcmp(d->name, "GET_ROWS"))
                        r.bytes = (uint64_t)(d->ne0[0] * d->ne1[0]) * 4;
                    else
                        r.bytes = (uint64_t)(d->ne0[0] * d->ne0[1] * d->ne0[2]) * 4;
                    r.duration_ns = d->mean_ns / 2 + rnd() % d->mean_ns;
                    uint64_t *t = d->backend ? &t_cpu : &t_gpu;
                    if (*t < t_gpu - 200000 && d->backend) *t = t_gpu - 200000;
                    r.start_ns = *t + 300 + rnd() % 700;
                    *t = r.start_ns + r.duration_ns;
                }
                if (sink.on_record(sink.ud, &r)) return 2;
                if (jw) {
                    opscope_out_str(jw, made ? ",{\"type\":" : "{\"type\":");
                    opscope_out_u64(jw, r.type);
                    opscope_out_str(jw, ",\"name\":");
                    opscope_out_json_str(jw, r.name);
                    opscope_out_str(jw, ",\"sub_op\":");
                    opscope_out_json_str(jw, r.sub_op);
                    opscope_out_str(jw, ",\"backend_id\":");
                    opscope_out_i64(jw, r.backend_id);
                    opscope_out_str(jw, ",\"split_id\":");
                    opscope_out_i64(jw, r.split_id);
                    opscope_out_str(jw, ",\"start_ns\":");
                    opscope_out_u64(jw, r.start_ns);
                    opscope_out_str(jw, ",\"duration_ns\":");
                    opscope_out_u64(jw, r.duration_ns);
                    opscope_out_str(jw, ",\"bytes\":");
                    opscope_out_u64(jw, r.bytes);
                    opscope_out_str(jw, ",\"extra\":null,\"tensor_name\":");
                    opscope_out_json_str(jw, r.type == OPSCOPE_RECORD_OP ? r.tensor_name : NULL);
                    opscope_out_str(jw, ",\"node_index\":");
                    opscope_out_i64(jw, r.node_index);
                    opscope_out_str(jw, ",\"n_src\":");
                    opscope_out_i64(jw, r.n_src);
                    opscope_out_str(jw, ",\"ne_src\":[");
                    for (int s = 0; s < r.n_src; s++) {
                        opscope_out_str(jw, s ? ",[" : "[");
                        for (int dd = 0; dd < 4; dd++) {
                            if (dd) opscope_out_char(jw, ',');
                            opscope_out_i64(jw, r.ne_src[s][dd]);
                        }
                        opscope_out_char(jw, ']');
                    }
                    opscope_out_str(jw, "]}\n");
                }
                made++;
            }
        }
        t_cpu = t_cpu > t_gpu ? t_cpu : t_gpu;
        t_gpu = t_cpu + 20000; /* sampling between tokens */
        t_cpu = t_gpu;
    }
    if (jw) {
        opscope_out_str(jw, "],\"total_records\":");
        opscope_out_u64(jw, made);
        opscope_out_str(jw, "}\n");
        if (opscope_out_commit(jw, &err)) return 2;
    }
    if (opscope_html_sink_finish(h, &err)) {
        char buf[512];
        opscope_error_format(&err, buf, sizeof buf);
        fprintf(stderr, "gen_viewer: %s\n", buf);
        return 2;
    }
    return 0;
}
