/*
 * gen_profile.c - writes a large, realistic ggml profile (JSON version 2 or 3) for the report
 * benchmark: a llama-like model (dense and MoE layers) run as prompt batches and decode
 * steps on a GPU backend, a CPU backend and BLAS, with host<->device copies and MoE expert
 * uploads. Deterministic for a given seed.
 *
 * usage: gen_profile [-o FILE] [--size BYTES|--size NM|NG] [--records N] [--version 2|3] [--seed N]
 */
#include "opscope.h"
#include "util/out.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void) {
    uint64_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return rng_state = x;
}

typedef struct gen {
    opscope_out_t *w;
    int version;
    uint64_t n, t, total_ns;
    uint64_t graph;
} gen;

/* Durations in ns: a base cost plus work-proportional time with 10% noise. */
static uint64_t dur(uint64_t base, double per_unit, double units) {
    double d = (double)base + per_unit * units;
    d *= 0.95 + (double)(rnd() % 1000) / 10000.0;
    return d < 1 ? 1 : (uint64_t)d;
}

static void ne4(opscope_out_t *w, const int64_t *ne) {
    opscope_out_char(w, '[');
    for (int i = 0; i < 4; i++) {
        if (i) opscope_out_char(w, ',');
        opscope_out_i64(w, ne ? ne[i] : 0);
    }
    opscope_out_char(w, ']');
}

/* One record; SRC shapes may be NULL; TYPES for version 3. */
static void emit(gen *g, int type, const char *name, int backend, int split, uint64_t d,
                 uint64_t bytes, const char *extra, const int64_t *s0, const int64_t *s1,
                 const int64_t *s2, int t0, int t1, const char *sub_op, int node) {
    opscope_out_t *w = g->w;
    g->t += 200 + rnd() % 800; /* dispatch gap */
    opscope_out_str(w, g->n++ ? ",\n    {\"type\": " : "\n    {\"type\": ");
    opscope_out_i64(w, type);
    opscope_out_str(w, ", \"name\": \"");
    opscope_out_str(w, name);
    opscope_out_str(w, "\", \"backend_id\": ");
    opscope_out_i64(w, backend);
    opscope_out_str(w, ", \"split_id\": ");
    opscope_out_i64(w, split);
    opscope_out_str(w, ", \"start_ns\": ");
    opscope_out_u64(w, g->t);
    opscope_out_str(w, ", \"duration_ns\": ");
    opscope_out_u64(w, d);
    opscope_out_str(w, ", \"bytes\": ");
    opscope_out_u64(w, bytes);
    opscope_out_str(w, ", \"extra\": ");
    if (extra) {
        opscope_out_char(w, '"');
        opscope_out_str(w, extra);
        opscope_out_char(w, '"');
    } else {
        opscope_out_str(w, "null");
    }
    if (g->version == 2) {
        opscope_out_str(w, ", \"ne_src0\": ");
        ne4(w, s0);
        opscope_out_str(w, ", \"ne_src1\": ");
        ne4(w, s1);
        opscope_out_str(w, ", \"ne_src2\": ");
        ne4(w, s2);
    } else {
        int n_src = s2 ? 3 : s1 ? 2 : s0 ? 1 : 0;
        const int64_t *src[3] = {s0, s1, s2};
        int types[3] = {t0, t1, 26};
        opscope_out_str(w, ", \"n_src\": ");
        opscope_out_i64(w, n_src);
        opscope_out_str(w, ", \"ne_src\": [");
        for (int i = 0; i < n_src; i++) {
            if (i) opscope_out_str(w, ", ");
            ne4(w, src[i]);
        }
        opscope_out_str(w, "], \"type_src\": [");
        for (int i = 0; i < n_src; i++) {
            if (i) opscope_out_str(w, ", ");
            opscope_out_i64(w, types[i]);
        }
        opscope_out_str(w, "], \"graph_id\": ");
        opscope_out_u64(w, g->graph);
        opscope_out_str(w, ", \"tensor_name\": \"");
        opscope_out_str(w, name);
        opscope_out_char(w, '-');
        opscope_out_i64(w, node);
        /* the seed's v3 layout: ggml's enum value (GGML_GLU_OP_SWIGLU 2, GGML_UNARY_OP_SILU
         * 10), -1 for none */
        opscope_out_str(w, "\", \"sub_op\": ");
        opscope_out_i64(w, !sub_op ? -1 : !strcmp(sub_op, "SWIGLU") ? 2 : !strcmp(sub_op, "SILU") ? 10 : -1);
    }
    opscope_out_char(w, '}');
    g->t += d;
    g->total_ns += d;
}

#define V4(a, b, c, d) ((const int64_t[4]){(a), (b), (c), (d)})

/* One graph compute: N_TOK tokens with N_KV cached positions. */
static void graph(gen *g, int n_tok, int n_kv) {
    const int n_embd = 2048, n_ff = 5632, n_head = 16, n_head_kv = 4, hd = 128, n_layer = 16;
    const int n_expert = 64, n_used = 8, n_ff_exp = 768;
    int node = 0;
    int gpu = 0, cpu = 1, blas = 2;
    double tok = n_tok;
    /* input upload */
    emit(g, 1, "copy_H2D", gpu, 0, dur(2000, 0.1, tok * n_embd * 4), (uint64_t)n_tok * n_embd * 4,
         NULL, V4(n_embd, n_tok, 1, 1), NULL, NULL, 0, 0, NULL, node++);
    emit(g, 0, "GET_ROWS", gpu, 0, dur(3000, 0.02, tok * n_embd), (uint64_t)n_tok * n_embd * 4, NULL,
         V4(n_embd, 32000, 1, 1), V4(n_tok, 1, 1, 1), NULL, 8, 26, NULL, node++);
    for (int l = 0; l < n_layer; l++) {
        bool moe = l % 2 == 1;
        int split = l < 12 ? 0 : 1;
        int be = l < 12 ? gpu : cpu;
        double speed = be == gpu ? 1.0 : 6.0;
        uint64_t act = (uint64_t)n_tok * n_embd * 4;
        emit(g, 0, "RMS_NORM", be, split, dur(2500, 0.01 * speed, tok * n_embd), act,
             l % 4 == 0 ? "RMS_NORM+MUL" : NULL, V4(n_embd, n_tok, 1, 1), NULL, NULL, 0, 0, NULL, node++);
        if (l % 4 != 0)
            emit(g, 0, "MUL", be, split, dur(2000, 0.01 * speed, tok * n_embd), act, NULL,
                 V4(n_embd, n_tok, 1, 1), V4(n_embd, 1, 1, 1), NULL, 0, 0, NULL, node++);
        static const char *qkv[3] = {"MUL_MAT", "MUL_MAT", "MUL_MAT"};
        int outs[3] = {n_embd, hd * n_head_kv, hd * n_head_kv};
        for (int k = 0; k < 3; k++)
            emit(g, 0, qkv[k], be, split, dur(4000, 0.0004 * speed, tok * n_embd * outs[k]),
                 (uint64_t)n_tok * outs[k] * 4, NULL, V4(n_embd, outs[k], 1, 1),
                 V4(n_embd, n_tok, 1, 1), NULL, 8, 0, NULL, node++);
        emit(g, 0, "ROPE", be, split, dur(3000, 0.02 * speed, tok * n_embd), act, NULL,
             V4(hd, n_head, n_tok, 1), V4(n_tok, 1, 1, 1), NULL, 0, 26, NULL, node++);
        emit(g, 0, "ROPE", be, split, dur(3000, 0.02 * speed, tok * hd * n_head_kv),
             (uint64_t)n_tok * hd * n_head_kv * 4, NULL, V4(hd, n_head_kv, n_tok, 1),
             V4(n_tok, 1, 1, 1), NULL, 0, 26, NULL, node++);
        emit(g, 0, "SET_ROWS", be, split, dur(2000, 0.01 * speed, tok * hd * n_head_kv),
             (uint64_t)n_kv * hd * n_head_kv * 2, NULL, V4(hd * n_head_kv, n_tok, 1, 1),
             V4(n_tok, 1, 1, 1), NULL, 0, 27, NULL, node++);
        emit(g, 0, "FLASH_ATTN_EXT", be, split,
             dur(8000, 0.0006 * speed, tok * (double)n_kv * hd * n_head), act, NULL,
             V4(hd, n_tok, n_head, 1), V4(hd, n_kv, n_head_kv, 1), V4(hd, n_kv, n_head_kv, 1), 0, 1,
             NULL, node++);
        emit(g, 0, "MUL_MAT", be, split, dur(4000, 0.0004 * speed, tok * n_embd * n_embd), act,
             NULL, V4(n_embd, n_embd, 1, 1), V4(n_embd, n_tok, 1, 1), NULL, 8, 0, NULL, node++);
        emit(g, 0, "ADD", be, split, dur(2000, 0.01 * speed, tok * n_embd), act, NULL,
             V4(n_embd, n_tok, 1, 1), V4(n_embd, n_tok, 1, 1), NULL, 0, 0, NULL, node++);
        emit(g, 0, "RMS_NORM", be, split, dur(2500, 0.01 * speed, tok * n_embd), act, NULL,
             V4(n_embd, n_tok, 1, 1), NULL, NULL, 0, 0, NULL, node++);
        emit(g, 0, "MUL", be, split, dur(2000, 0.01 * speed, tok * n_embd), act, NULL,
             V4(n_embd, n_tok, 1, 1), V4(n_embd, 1, 1, 1), NULL, 0, 0, NULL, node++);
        if (!moe) {
            for (int k = 0; k < 2; k++)
                emit(g, 0, "MUL_MAT", k == 1 && be == cpu ? blas : be, split,
                     dur(4000, 0.0004 * speed, tok * n_embd * n_ff), (uint64_t)n_tok * n_ff * 4,
                     NULL, V4(n_embd, n_ff, 1, 1), V4(n_embd, n_tok, 1, 1), NULL, 12, 0, NULL, node++);
            emit(g, 0, "GLU", be, split, dur(2500, 0.01 * speed, tok * n_ff),
                 (uint64_t)n_tok * n_ff * 4, NULL, V4(n_ff, n_tok, 1, 1), V4(n_ff, n_tok, 1, 1), NULL,
                 0, 0, "SWIGLU", node++);
            emit(g, 0, "MUL_MAT", be, split, dur(4000, 0.0004 * speed, tok * n_embd * n_ff), act,
                 NULL, V4(n_ff, n_embd, 1, 1), V4(n_ff, n_tok, 1, 1), NULL, 14, 0, NULL, node++);
        } else {
            emit(g, 0, "MUL_MAT", be, split, dur(3000, 0.0004 * speed, tok * n_embd * n_expert),
                 (uint64_t)n_tok * n_expert * 4, NULL, V4(n_embd, n_expert, 1, 1),
                 V4(n_embd, n_tok, 1, 1), NULL, 0, 0, NULL, node++);
            emit(g, 0, "SOFT_MAX", be, split, dur(2000, 0.02 * speed, tok * n_expert),
                 (uint64_t)n_tok * n_expert * 4, NULL, V4(n_expert, n_tok, 1, 1), NULL, NULL, 0, 0,
                 NULL, node++);
            emit(g, 0, "ARGSORT", be, split, dur(3000, 0.05 * speed, tok * n_expert),
                 (uint64_t)n_tok * n_expert * 4, NULL, V4(n_expert, n_tok, 1, 1), NULL, NULL, 0, 0,
                 NULL, node++);
            /* expert weights uploaded for the CPU-resident experts */
            if (be == gpu && rnd() % 3 == 0)
                emit(g, 1, "copy_H2D", gpu, split, dur(20000, 0.05, (double)n_used * n_ff_exp * n_embd),
                     (uint64_t)n_used * n_ff_exp * n_embd / 2, NULL,
                     V4(n_embd, n_ff_exp, n_used, 1), NULL, NULL, 2, 0, NULL, node++);
            for (int k = 0; k < 3; k++)
                emit(g, 0, "MUL_MAT_ID", be, split,
                     dur(6000, 0.0004 * speed, tok * n_used * n_embd * n_ff_exp),
                     (uint64_t)n_tok * n_used * n_ff_exp * 4, NULL,
                     k == 2 ? V4(n_ff_exp, n_embd, n_expert, 1) : V4(n_embd, n_ff_exp, n_expert, 1),
                     V4(k == 2 ? n_ff_exp : n_embd, n_used, n_tok, 1), V4(n_used, n_tok, 1, 1),
                     2, 0, NULL, node++);
            emit(g, 0, "UNARY", be, split, dur(2500, 0.01 * speed, tok * n_used * n_ff_exp),
                 (uint64_t)n_tok * n_used * n_ff_exp * 4, NULL, V4(n_ff_exp, n_used, n_tok, 1), NULL,
                 NULL, 0, 0, "SILU", node++);
        }
        emit(g, 0, "ADD", be, split, dur(2000, 0.01 * speed, tok * n_embd), act, NULL,
             V4(n_embd, n_tok, 1, 1), V4(n_embd, n_tok, 1, 1), NULL, 0, 0, NULL, node++);
        if (l == 11) /* the split boundary: activations to the CPU */
            emit(g, 1, "copy_D2H", cpu, 1, dur(3000, 0.1, (double)act), act, NULL,
                 V4(n_embd, n_tok, 1, 1), NULL, NULL, 0, 0, NULL, node++);
    }
    emit(g, 0, "RMS_NORM", cpu, 1, dur(2500, 0.06, tok * n_embd), (uint64_t)n_tok * n_embd * 4, NULL,
         V4(n_embd, n_tok, 1, 1), NULL, NULL, 0, 0, NULL, node++);
    emit(g, 0, "MUL_MAT", blas, 1, dur(4000, 0.0024, (double)n_embd * 32000), 32000 * 4, NULL,
         V4(n_embd, 32000, 1, 1), V4(n_embd, 1, 1, 1), NULL, 1, 0, NULL, node++);
    g->graph++;
}

static uint64_t parse_size(const char *s) {
    char *end;
    double v = strtod(s, &end);
    if (*end == 'k' || *end == 'K') v *= 1e3;
    if (*end == 'm' || *end == 'M') v *= 1e6;
    if (*end == 'g' || *end == 'G') v *= 1e9;
    return v > 0 ? (uint64_t)v : 0;
}

int main(int argc, char **argv) {
    const char *out = "-";
    uint64_t size = 100000000, records = 0;
    gen g = {0};
    g.version = 2;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-o") && i + 1 < argc) out = argv[++i];
        else if (!strcmp(argv[i], "--size") && i + 1 < argc) size = parse_size(argv[++i]);
        else if (!strcmp(argv[i], "--records") && i + 1 < argc) records = parse_size(argv[++i]);
        else if (!strcmp(argv[i], "--version") && i + 1 < argc) g.version = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc) rng_state ^= strtoull(argv[++i], NULL, 10) * 0x2545F4914F6CDD1Dull;
        else {
            fprintf(stderr, "usage: gen_profile [-o FILE] [--size BYTES[k|M|G]] [--records N] "
                            "[--version 2|3] [--seed N]\n");
            return 1;
        }
    }
    if (g.version != 2 && g.version != 3) {
        fprintf(stderr, "gen_profile: --version must be 2 or 3\n");
        return 1;
    }
    if (!rng_state) rng_state = 1;
    opscope_error err;
    g.w = opscope_out_open(out, &err);
    if (!g.w) {
        fprintf(stderr, "gen_profile: cannot write %s\n", out);
        return 1;
    }
    g.t = 1000000000000ull + rnd() % 1000000000ull; /* a CLOCK_MONOTONIC-like origin */
    opscope_out_printf(g.w,
        "{\n  \"profiler\": \"ggml\",\n  \"version\": %d,\n  \"backends\": [\n"
        "    {\"id\": 0, \"name\": \"CUDA0\", \"device\": \"NVIDIA GeForce RTX 4090\", \"device_type\": 1},\n"
        "    {\"id\": 1, \"name\": \"CPU\", \"device\": \"AMD Ryzen 9 7950X\", \"device_type\": 0},\n"
        "    {\"id\": 2, \"name\": \"BLAS\", \"device\": \"OpenBLAS\", \"device_type\": 2}\n"
        "  ],\n  \"records\": [", g.version);
    int kv = 0;
    while (records ? g.n < records : opscope_out_bytes(g.w) < size) {
        if (kv == 0 || kv > 4000) { /* a new prompt */
            kv = 0;
            graph(&g, 512, 512);
            kv = 512;
        } else {
            graph(&g, 1, ++kv);
        }
    }
    opscope_out_printf(g.w, "\n  ],\n  \"total_records\": %llu,\n  \"total_ns\": %llu\n}\n",
                       (unsigned long long)g.n, (unsigned long long)g.total_ns);
    if (opscope_out_commit(g.w, &err)) {
        fprintf(stderr, "gen_profile: write failed\n");
        return 1;
    }
    fprintf(stderr, "gen_profile: %llu records, %llu graphs\n", (unsigned long long)g.n,
            (unsigned long long)g.graph);
    return 0;
}
