/* Tests of the capture's table of libllama batches (store/cap_decodes.c): the request rules of
 * docs/capture.md ("Requests") on batches written here, llama's defaults for NULL arrays,
 * failed calls, sequence ids out of range, two contexts, and the bounded table. Expected
 * values are worked out by hand from the rules. */
#include "capture/store/cap_decodes.h"
#include "test.h"

#include <stdint.h>

/* A batch of N tokens: token i of sequence SEQ[i] at position POS[i], an output where OUT[i]. */
typedef struct tbatch {
    int32_t pos[16], n_seq[16], seq[16];
    int32_t *seq_ptr[16];
    int8_t out[16];
    opscope_cap_batch b;
} tbatch;

static const opscope_cap_batch *make(tbatch *t, int n, const int *seq, const int *pos, const int *out) {
    for (int i = 0; i < n; i++) {
        t->seq[i] = seq[i];
        t->seq_ptr[i] = &t->seq[i];
        t->n_seq[i] = 1;
        t->pos[i] = pos[i];
        t->out[i] = (int8_t)out[i];
    }
    t->b = (opscope_cap_batch){.n_tokens = n, .pos = t->pos, .n_seq_id = t->n_seq, .seq_id = t->seq_ptr,
                               .logits = t->out};
    return &t->b;
}

static const int A = 1, MA = 2, B = 3, MB = 4; /* keys: their addresses stand for pointers */

static const opscope_run_info *collect(opscope_run_t **r) {
    *r = opscope_run_new();
    if (!*r || opscope_cap_decodes_add(*r)) return NULL;
    return opscope_run_view(*r);
}

#define SEQ_IS(q, s_, req, tok, pr, outs)                                                   \
    do {                                                                                    \
        ASSERT_EQ_INT((q).seq, s_);                                                         \
        ASSERT_EQ_INT((q).request, req);                                                    \
        ASSERT_EQ_INT((q).n_tokens, tok);                                                   \
        ASSERT_EQ_INT((q).n_prompt, pr);                                                    \
        ASSERT_EQ_INT((q).n_outputs, outs);                                                 \
    } while (0)

static int test_requests(void) {
    opscope_cap_decodes_reset();
    tbatch t;
    /* 1: two prompts together, 5 and 3 tokens, an output at each one's end */
    opscope_cap_decode_note(&A, &MA, make(&t, 8, (int[]){0, 0, 0, 0, 0, 1, 1, 1}, (int[]){0, 1, 2, 3, 4, 0, 1, 2},
                                         (int[]){0, 0, 0, 0, 1, 0, 0, 1}), 100, 200, 0, 1, 0);
    /* 2: both generate one token */
    opscope_cap_decode_note(&A, &MA, make(&t, 2, (int[]){0, 1}, (int[]){5, 3}, (int[]){1, 1}), 300, 400, 1, 2, 0);
    /* 3: sequence 1's positions go back to 0: a new prompt of 4; sequence 0 generates */
    opscope_cap_decode_note(&A, &MA, make(&t, 5, (int[]){1, 1, 1, 1, 0}, (int[]){0, 1, 2, 3, 6}, (int[]){0, 0, 0, 1, 1}),
                            500, 600, 2, 4, 0);
    /* 4: sequence 0, generating, gets tokens that ask no output: a new prompt after a kept
     * conversation (positions go on) */
    opscope_cap_decode_note(&A, &MA, make(&t, 3, (int[]){0, 0, 0}, (int[]){7, 8, 9}, (int[]){0, 0, 1}), 700, 800, 4, 5, 0);
    /* 5: a call that failed: counted, no sequence moves */
    opscope_cap_decode_note(&A, &MA, make(&t, 1, (int[]){1}, (int[]){0}, (int[]){1}), 900, 950, 5, 5, 1);
    /* 6: sequence 1 generates (still request 2: the failed call's position 0 was not taken);
     * sequence 300 is out of range: in the call, in no sequence */
    opscope_cap_decode_note(&A, &MA, make(&t, 2, (int[]){1, 300}, (int[]){4, 0}, (int[]){1, 1}), 1000, 1100, 5, 6, 0);
    /* 7: the memory is cleared with its data (llama.cpp's warm-up); llama's defaults (no
     * positions, sequence 0, the last token's output): a new request of 2 prompt tokens, the
     * call marked wiped */
    opscope_cap_decode_cleared(&MA, true);
    opscope_cap_batch dflt = {.n_tokens = 2};
    opscope_cap_decode_note(&A, &MA, &dflt, 1200, 1300, 6, 7, 0);
    /* 8: another context numbers its own sequences */
    opscope_cap_decode_note(&B, &MB, make(&t, 1, (int[]){0}, (int[]){0}, (int[]){1}), 1400, 1500, 7, 8, 0);

    opscope_run_t *r;
    const opscope_run_info *v = collect(&r);
    ASSERT_NOT_NULL(v);
    ASSERT_EQ_U64(v->n_decodes, 8);
    ASSERT_EQ_U64(v->decodes_lost, 0);
    const opscope_run_decode *d = v->decodes;
    ASSERT_EQ_INT(d[0].n_tokens, 8);
    ASSERT_EQ_INT(d[0].n_outputs, 2);
    ASSERT_EQ_U64(d[0].n_seqs, 2);
    SEQ_IS(d[0].seqs[0], 0, 0, 5, 5, 1);
    SEQ_IS(d[0].seqs[1], 1, 1, 3, 3, 1);
    SEQ_IS(d[1].seqs[0], 0, 0, 1, 0, 1);
    SEQ_IS(d[1].seqs[1], 1, 1, 1, 0, 1);
    ASSERT_EQ_U64(d[2].n_seqs, 2);
    SEQ_IS(d[2].seqs[0], 1, 2, 4, 4, 1);
    SEQ_IS(d[2].seqs[1], 0, 0, 1, 0, 1);
    ASSERT_EQ_INT(d[2].graph, 2);
    ASSERT_EQ_INT(d[2].n_graphs, 2);
    SEQ_IS(d[3].seqs[0], 0, 3, 3, 3, 1);
    ASSERT_EQ_INT(d[4].ret, 1);
    ASSERT_EQ_U64(d[4].n_seqs, 0);
    ASSERT_EQ_INT(d[4].n_graphs, 0);
    ASSERT_EQ_INT(d[5].n_tokens, 2);
    ASSERT_EQ_U64(d[5].n_seqs, 1);
    SEQ_IS(d[5].seqs[0], 1, 2, 1, 0, 1);
    ASSERT_EQ_INT(d[6].n_outputs, 1);
    SEQ_IS(d[6].seqs[0], 0, 4, 2, 2, 1);
    ASSERT_EQ_INT(d[6].context, 0);
    for (int i = 0; i < 8; i++) ASSERT_EQ_INT(d[i].wiped, i == 6);
    ASSERT_EQ_INT(d[7].context, 1);
    SEQ_IS(d[7].seqs[0], 0, 5, 1, 1, 1);
    ASSERT_EQ_U64(d[7].start_ns, 1400);
    ASSERT_EQ_U64(d[7].end_ns, 1500);
    opscope_run_free(r);
    return 0;
}

static int test_freed_context(void) {
    opscope_cap_decodes_reset();
    tbatch t;
    opscope_cap_decode_note(&A, &MA, make(&t, 1, (int[]){0}, (int[]){0}, (int[]){1}), 1, 2, 0, 1, 0);
    opscope_cap_decode_cleared(&MA, false); /* llama-bench's repetitions: no wipe */
    opscope_cap_decode_ctx_freed(&A);
    /* the same pointer again: a new context, its sequence 0 a new request */
    opscope_cap_decode_note(&A, &MA, make(&t, 1, (int[]){0}, (int[]){1}, (int[]){1}), 3, 4, 1, 2, 0);
    opscope_run_t *r;
    const opscope_run_info *v = collect(&r);
    ASSERT_NOT_NULL(v);
    ASSERT_EQ_U64(v->n_decodes, 2);
    ASSERT_EQ_INT(v->decodes[1].context, 1);
    SEQ_IS(v->decodes[1].seqs[0], 0, 1, 1, 1, 1);
    ASSERT_EQ_INT(v->decodes[1].wiped, 0);
    opscope_run_free(r);
    return 0;
}

static int test_bounded(void) {
    opscope_cap_decodes_reset();
    tbatch t;
    const opscope_cap_batch *b = make(&t, 1, (int[]){0}, (int[]){0}, (int[]){1});
    for (int i = 0; i < 65536 + 3; i++) opscope_cap_decode_note(&A, &MA, b, 1, 2, i, i + 1, 0);
    opscope_run_t *r;
    const opscope_run_info *v = collect(&r);
    ASSERT_NOT_NULL(v);
    ASSERT_EQ_U64(v->n_decodes, 65536);
    ASSERT_EQ_U64(v->decodes_lost, 3);
    opscope_run_free(r);
    opscope_cap_decodes_reset();
    return 0;
}

TEST_MAIN(TEST(test_requests), TEST(test_freed_context), TEST(test_bounded))
