/* decodes.c MODEL - a llama.cpp program that calls llama_decode itself (Debian's 0.7.0 tools
 * use llama_process): the batches of t_decode.py, whose expected figures are these constants.
 * 1: sequence 0's prompt of 12 tokens and sequence 1's of 5, an output at each one's end;
 * 2-4: both sequences generate one token each (the argmax of their last output);
 * 5: llama_batch_get_one of 3 tokens (llama's defaults: sequence 0, positions from the
 *    memory, the last token's output): a new prompt after a kept conversation;
 * 6: after llama_memory_clear, llama_batch_get_one of 4 tokens: a new request.
 * Then the extended batch API (llama_batch_ext, llama_process), after another clear:
 * 7: sequence 0's prompt of 5 tokens whose first 3 are sequence 1's too (llama_batch_ext_add_seq),
 *    and sequence 1's own 2 tokens after them, an output at each one's end;
 * 8: (the batch cleared) both generate one token.
 * Prints each llama_decode output's argmax (the same with and without the capture). n_ubatch
 * 8: a call's tokens run in several micro-batches. */
#include <llama.h>
#include <stdio.h>

static int argmax(struct llama_context *c, int32_t i, int32_t n_vocab) {
    const float *l = llama_get_logits_ith(c, i);
    int best = 0;
    for (int k = 1; k < n_vocab; k++)
        if (l[k] > l[best]) best = k;
    return best;
}

static void add(struct llama_batch *b, llama_token t, llama_pos p, llama_seq_id s, int out) {
    int i = b->n_tokens++;
    b->token[i] = t;
    b->pos[i] = p;
    b->n_seq_id[i] = 1;
    b->seq_id[i][0] = s;
    b->logits[i] = (int8_t)out;
}

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    llama_backend_init();
    struct llama_model *m = llama_model_load_from_file(argv[1], llama_model_default_params());
    if (!m) return 1;
    struct llama_context_params cp = llama_context_default_params();
    cp.n_ctx = 256;
    cp.n_batch = 64;
    cp.n_ubatch = 8;
    cp.n_seq_max = 2;
    cp.kv_unified = true; /* a token shared by two sequences (call 7) needs it */
    cp.n_threads = cp.n_threads_batch = 2;
    struct llama_context *c = llama_init_from_model(m, cp);
    if (!c) return 1;
    int32_t nv = llama_vocab_n_tokens(llama_model_get_vocab(m));
    struct llama_batch b = llama_batch_init(64, 0, 2);
    for (int i = 0; i < 12; i++) add(&b, (llama_token)(40 + i), i, 0, i == 11);
    for (int i = 0; i < 5; i++) add(&b, (llama_token)(70 + i), i, 1, i == 4);
    if (llama_decode(c, b)) return 1;
    int t0 = argmax(c, 11, nv), t1 = argmax(c, 16, nv);
    printf("%d %d\n", t0, t1);
    for (int step = 0; step < 3; step++) {
        b.n_tokens = 0;
        add(&b, t0, 12 + step, 0, 1);
        add(&b, t1, 5 + step, 1, 1);
        if (llama_decode(c, b)) return 1;
        t0 = argmax(c, 0, nv);
        t1 = argmax(c, 1, nv);
        printf("%d %d\n", t0, t1);
    }
    llama_token more[4] = {33, 34, 35, 36};
    if (llama_decode(c, llama_batch_get_one(more, 3))) return 1;
    printf("%d\n", argmax(c, -1, nv));
    llama_memory_clear(llama_get_memory(c), true);
    if (llama_decode(c, llama_batch_get_one(more, 4))) return 1;
    printf("%d\n", argmax(c, -1, nv));
    llama_memory_clear(llama_get_memory(c), true);
    struct llama_batch_ext *x = llama_batch_ext_init(c);
    if (!x) return 1;
    for (llama_pos p = 0; p < 5; p++) {
        int32_t i = llama_batch_ext_add_token(x, 0, 50 + p);
        if (i < 0 || !llama_batch_ext_set_pos(x, i, &p)) return 1;
        if (p < 3 && !llama_batch_ext_add_seq(x, i, 1)) return 1;
        if (p == 4 && !llama_batch_ext_set_output_logits(x, i, true)) return 1;
    }
    for (llama_pos p = 3; p < 5; p++) {
        int32_t i = llama_batch_ext_add_token(x, 1, 60 + p);
        if (i < 0 || !llama_batch_ext_set_pos(x, i, &p)) return 1;
        if (p == 4 && !llama_batch_ext_set_output_logits(x, i, true)) return 1;
    }
    if (llama_process(c, LLAMA_PROCESS_TYPE_DECODE, x)) return 1;
    llama_batch_ext_clear(x);
    for (llama_seq_id s = 0; s < 2; s++) {
        llama_pos p = 5;
        int32_t i = llama_batch_ext_add_token(x, s, 70 + s);
        if (i < 0 || !llama_batch_ext_set_pos(x, i, &p) || !llama_batch_ext_set_output_logits(x, i, true)) return 1;
    }
    if (llama_process(c, LLAMA_PROCESS_TYPE_DECODE, x)) return 1;
    llama_batch_ext_free(x);
    llama_batch_free(b);
    llama_free(c);
    llama_model_free(m);
    llama_backend_free();
    return 0;
}
