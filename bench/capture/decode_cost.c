/*
 * decode_cost.c - what following libllama's batches costs the host per call: the capture's
 * note of a llama_decode / llama_process call (store/cap_decodes.c: the scan of the batch,
 * its sequences, the request rules), for a 512-token prompt batch and for a generation step
 * of 4 slots. Prints the median over ROUNDS rounds of the time per call and per token. The
 * calls are released between rounds, as a checkpoint of the record log releases those it
 * wrote (the table then stays warm at one round's size). Run: decode_cost [ROUNDS]
 */
#include "capture/store/cap_decodes.h"

#include "bench_time.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { N = 512, CALLS = 8192 };

static int32_t pos[N], n_seq[N], seq[N];
static int32_t *seq_ptr[N];
static int8_t out[N];

/* The median ns per call of CALLS notes of batch B (positions advanced by STEP per call). */
static double measure(opscope_cap_batch *b, int rounds, int step) {
    double *t = malloc((size_t)rounds * sizeof *t);
    static const int ctx = 1, mem = 2;
    opscope_cap_decodes_reset();
    for (int r = 0; r < rounds; r++) {
        opscope_cap_decodes_release(UINT64_MAX);
        double t0 = bench_now_ns();
        for (int c = 0; c < CALLS; c++) {
            for (int i = 0; i < b->n_tokens && step; i++) pos[i] += step;
            opscope_cap_decode_note(&ctx, &mem, b, 0, 1, c, c + 1, 0);
        }
        t[r] = (bench_now_ns() - t0) / CALLS;
    }
    opscope_cap_decodes_reset();
    qsort(t, (size_t)rounds, sizeof *t, bench_cmp_double);
    double m = t[rounds / 2];
    free(t);
    return m;
}

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 9;
    if (rounds < 1) rounds = 1;
    for (int i = 0; i < N; i++) {
        seq_ptr[i] = &seq[i];
        n_seq[i] = 1;
    }
    /* a prompt: one sequence, 512 tokens, the last one's output (positions restart: a new
     * request every call, the worst case of the rules) */
    for (int i = 0; i < N; i++) {
        pos[i] = i;
        seq[i] = 0;
        out[i] = i == N - 1;
    }
    opscope_cap_batch prompt = {.n_tokens = N, .pos = pos, .n_seq_id = n_seq, .seq_id = seq_ptr, .logits = out};
    double p = measure(&prompt, rounds, 0);
    /* a generation step of 4 slots: one token each, each an output, positions moving on */
    for (int i = 0; i < 4; i++) {
        pos[i] = 1000;
        seq[i] = i;
        out[i] = 1;
    }
    opscope_cap_batch gen = {.n_tokens = 4, .pos = pos, .n_seq_id = n_seq, .seq_id = seq_ptr, .logits = out};
    double g = measure(&gen, rounds, 1);
    printf("prompt of %d tokens: %.0f ns per call (%.2f ns per token)\n", N, p, p / N);
    printf("generation step of 4 slots: %.0f ns per call\n", g);
    return 0;
}
