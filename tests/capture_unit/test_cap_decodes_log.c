/* Tests of a long run's libllama batches through the record log (store/cap_decodes.c with
 * store/cap_log.c writing, read/oplog_read.c joining the DECODES chunks): more calls than the
 * capture's table bound (65536), flushed every few hundred calls, all come back from the log
 * in order with every sequence part, numbered into the requests the test itself started; the
 * table's memory stays at its first size however many flushes; and where no log takes the
 * calls, the bound holds and the calls past it are counted. Expected counts, token sums and
 * request numbers come from the workload the test generates (its own bookkeeping of which
 * prompt starts which request), not from the capture. */
#include "capture/store/cap_clock.h"
#include "capture/store/cap_decodes.h"
#include "capture/store/cap_log.h"
#include "model/run_info.h"
#include "read/readers.h"
#include "test.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* FLUSH_EVERY calls carry 4 parts each: 2000 parts, within the table's first 2048 */
enum { N_SEQ = 4, CALLS = 100003, FLUSH_EVERY = 500, MAX_REQ = 200000 };

/* The workload: 4 sequences of one context, each a prompt of 3..7 tokens (positions from 0,
 * an output at the last) then 2..8 generation steps of one token (an output each), then a new
 * prompt from position 0 (a new request, by the rule "positions go back"). Every call carries
 * each sequence's next piece, so batches mix prompts and generation. The test numbers the
 * requests in the order it starts them: by call, then by sequence (the batch's order). */
typedef struct seq_plan {
    int prompt, gen, done; /* this request's prompt length, generation steps, steps made */
    int32_t request;
} seq_plan;

typedef struct expect {
    uint32_t req_tokens[MAX_REQ], req_prompt[MAX_REQ], req_outputs[MAX_REQ];
    uint32_t n_req;
    uint64_t tokens;
} expect;

static expect g_want, g_got;
static seq_plan g_plan[N_SEQ];
static uint32_t g_counter;

static void start_request(int s) {
    g_counter = g_counter * 1103515245u + 12345u;
    g_plan[s] = (seq_plan){.prompt = 3 + (int)((g_counter >> 16) % 5), .gen = 2 + (int)((g_counter >> 8) % 7),
                           .done = -1, .request = (int32_t)g_want.n_req++};
}

/* Call C's batch (into the arrays given) and the expected sums it adds. */
static int make_call(int32_t *pos, int32_t **seq_ptr, int32_t *seq_ids, int32_t *n_seq, int8_t *out) {
    int n = 0;
    for (int s = 0; s < N_SEQ; s++) {
        seq_plan *p = &g_plan[s];
        if (p->done >= p->gen) start_request(s);
        uint32_t r = (uint32_t)p->request;
        if (p->done < 0) { /* the prompt */
            for (int i = 0; i < p->prompt; i++, n++) {
                pos[n] = i;
                seq_ids[n] = s;
                out[n] = i == p->prompt - 1;
            }
            g_want.req_tokens[r] += (uint32_t)p->prompt;
            g_want.req_prompt[r] += (uint32_t)p->prompt;
            g_want.req_outputs[r] += 1;
        } else { /* a generation step */
            pos[n] = p->prompt + p->done;
            seq_ids[n] = s;
            out[n] = 1;
            n++;
            g_want.req_tokens[r] += 1;
            g_want.req_outputs[r] += 1;
        }
        p->done++;
    }
    for (int i = 0; i < n; i++) {
        seq_ptr[i] = &seq_ids[i];
        n_seq[i] = 1;
    }
    g_want.tokens += (uint64_t)n;
    return n;
}

/* The reader's view of the log: every call in order (its graph id is its number), summed per
 * request. */
typedef struct got {
    uint64_t n_decodes, lost, in_order, parts;
    int bad_request;
} got;

static int on_meta(void *ud, const opscope_meta *m) {
    got *g = ud;
    const opscope_run_info *run = m->capture ? m->capture->run : NULL;
    if (!run) return 0;
    g->n_decodes = run->n_decodes;
    g->lost = run->decodes_lost;
    for (size_t i = 0; i < run->n_decodes; i++) {
        const opscope_run_decode *d = &run->decodes[i];
        g->in_order += d->graph == (int64_t)i && d->n_graphs == 1;
        g_got.tokens += d->n_tokens;
        for (size_t k = 0; k < d->n_seqs; k++) {
            const opscope_run_seq *q = &d->seqs[k];
            if (q->request >= MAX_REQ) {
                g->bad_request = 1;
                continue;
            }
            g_got.req_tokens[q->request] += q->n_tokens;
            g_got.req_prompt[q->request] += q->n_prompt;
            g_got.req_outputs[q->request] += q->n_outputs;
            if (q->request + 1 > g_got.n_req) g_got.n_req = q->request + 1;
            g->parts++;
        }
    }
    return 0;
}

static int32_t g_pos[64], g_seq[64], g_n_seq[64], *g_seq_ptr[64];
static int8_t g_out[64];
static const int g_ctx = 1, g_mem = 2;

/* Notes call I (graph id I); returns its tokens. */
static int note_next(int64_t i) {
    int n = make_call(g_pos, g_seq_ptr, g_seq, g_n_seq, g_out);
    opscope_cap_batch b = {.n_tokens = n, .pos = g_pos, .n_seq_id = g_n_seq, .seq_id = g_seq_ptr, .logits = g_out};
    opscope_cap_decode_note(&g_ctx, &g_mem, &b, (uint64_t)i * 10, (uint64_t)i * 10 + 5, i, i + 1, 0);
    return n;
}

static void reset_workload(void) {
    memset(&g_want, 0, sizeof g_want);
    memset(&g_got, 0, sizeof g_got);
    for (int s = 0; s < N_SEQ; s++) g_plan[s] = (seq_plan){.done = 1, .gen = 0};
    g_counter = 7;
}

static int test_long_run_through_the_log(void) {
    opscope_cap_clock_init("monotonic");
    opscope_cap_decodes_reset();
    reset_workload();
    char path[128];
    snprintf(path, sizeof path, "/tmp/opscope-declong-%ld.log", (long)getpid());
    unlink(path);
    opscope_cap_log_start(path, 0);
    char why[128];
    uint32_t cap_first = 0, cap_max = 0, held_max = 0;
    for (int64_t i = 0; i < CALLS; i++) {
        note_next(i);
        if ((i + 1) % FLUSH_EVERY == 0 || i + 1 == CALLS) {
            ASSERT_EQ_INT(opscope_cap_log_flush("checkpoint", NULL, why, sizeof why), 0);
            opscope_cap_decodes_held h;
            opscope_cap_decodes_usage(&h);
            ASSERT_EQ_U64(h.calls, 0); /* all in the file: none held */
            ASSERT_EQ_U64(h.parts, 0);
            ASSERT_EQ_U64(h.noted, (uint64_t)i + 1);
            if (!cap_first) cap_first = h.cap_calls;
            cap_max = h.cap_calls > cap_max ? h.cap_calls : cap_max;
            held_max = h.cap_parts > held_max ? h.cap_parts : held_max;
        }
    }
    /* the table never grew past its first size (1024 calls, 2048 parts: docs/capture.md) */
    ASSERT_EQ_U64(cap_first, 1024);
    ASSERT_EQ_U64(cap_max, 1024);
    ASSERT_EQ_U64(held_max, 2048);
    ASSERT_GT_U64(g_want.n_req, 65536); /* and more requests than a table of 65536 could hold */
    got g = {0};
    opscope_sink sink = {&g, on_meta, NULL, NULL, NULL};
    opscope_error err;
    ASSERT_EQ_INT(opscope_read_file(path, OPSCOPE_FORMAT_AUTO, &sink, &err), 0);
    ASSERT_EQ_U64(g.n_decodes, CALLS);
    ASSERT_EQ_U64(g.in_order, CALLS);
    ASSERT_EQ_U64(g.lost, 0);
    ASSERT_EQ_INT(g.bad_request, 0);
    ASSERT_EQ_U64(g_got.tokens, g_want.tokens);
    ASSERT_EQ_U64(g_got.n_req, g_want.n_req);
    uint64_t parts_want = 0;
    for (uint32_t r = 0; r < g_want.n_req; r++) {
        ASSERT_EQ_U64(g_got.req_tokens[r], g_want.req_tokens[r]);
        ASSERT_EQ_U64(g_got.req_prompt[r], g_want.req_prompt[r]);
        ASSERT_EQ_U64(g_got.req_outputs[r], g_want.req_outputs[r]);
    }
    parts_want = (uint64_t)CALLS * N_SEQ; /* every call carries each sequence */
    ASSERT_EQ_U64(g.parts, parts_want);
    opscope_cap_log_close();
    unlink(path);
    opscope_cap_decodes_reset();
    return 0;
}

/* A flush whose write fails keeps its calls: the next one writes them (none lost, none twice). */
static int test_failed_write_keeps_the_calls(void) {
    opscope_cap_decodes_reset();
    reset_workload();
    char path[128];
    snprintf(path, sizeof path, "/tmp/opscope-declong-f-%ld.log", (long)getpid());
    unlink(path);
    opscope_cap_log_start(path, 0);
    char why[128];
    for (int64_t i = 0; i < 10; i++) note_next(i);
    ASSERT_EQ_INT(opscope_cap_log_flush("checkpoint", NULL, why, sizeof why), 0);
    for (int64_t i = 10; i < 25; i++) note_next(i);
    /* the file's descriptor made read-only: the append fails */
    int fd = opscope_cap_log_fd();
    int ro = open(path, O_RDONLY | O_CLOEXEC);
    ASSERT_GE_INT(ro, 0);
    int saved = dup(fd);
    ASSERT_GE_INT(saved, 0);
    ASSERT_EQ_INT(dup2(ro, fd), fd);
    ASSERT_EQ_INT(opscope_cap_log_flush("checkpoint", NULL, why, sizeof why), -1);
    opscope_cap_decodes_held h;
    opscope_cap_decodes_usage(&h);
    ASSERT_EQ_U64(h.calls, 15); /* not in the file: still held */
    ASSERT_EQ_INT(dup2(saved, fd), fd);
    close(saved);
    close(ro);
    for (int64_t i = 25; i < 30; i++) note_next(i);
    ASSERT_EQ_INT(opscope_cap_log_flush("checkpoint", NULL, why, sizeof why), 0);
    opscope_cap_decodes_usage(&h);
    ASSERT_EQ_U64(h.calls, 0);
    got g = {0};
    opscope_sink sink = {&g, on_meta, NULL, NULL, NULL};
    opscope_error err;
    ASSERT_EQ_INT(opscope_read_file(path, OPSCOPE_FORMAT_AUTO, &sink, &err), 0);
    ASSERT_EQ_U64(g.n_decodes, 30);
    ASSERT_EQ_U64(g.in_order, 30);
    ASSERT_EQ_U64(g_got.tokens, g_want.tokens);
    opscope_cap_log_close();
    unlink(path);
    opscope_cap_decodes_reset();
    return 0;
}

/* Calls noted while a flush writes (another thread's) stay when the flush releases the ones it
 * wrote: they move to the front of the table with their own sequence parts, and calls noted
 * after go on behind them. Each call's parts
 * are checked against its batch: sequences 0..3 in order, their tokens summing to the call's,
 * the tokens the test put in each (kept per call here). */
static int test_release_keeps_the_newer(void) {
    opscope_cap_decodes_reset();
    reset_workload();
    uint32_t want[27][N_SEQ];
    for (int64_t i = 0; i < 27; i++) {
        int n = note_next(i);
        memset(want[i], 0, sizeof want[i]);
        for (int t = 0; t < n; t++) want[i][g_seq[t]]++;
        if (i == 9) {
            opscope_oplog_buf b = {0};
            opscope_cap_decodes_cursor cur = {0};
            ASSERT_EQ_INT(opscope_cap_decodes_put(&b, &cur), 10);
            ASSERT_EQ_U64(cur.next, 10);
            free(b.v);
        }
        if (i == 16) { /* the flush's file write done: the 10 leave, 7 stay; 10 more come */
            opscope_cap_decodes_release(10);
            opscope_cap_decodes_held h;
            opscope_cap_decodes_usage(&h);
            ASSERT_EQ_U64(h.calls, 7);
            ASSERT_EQ_U64(h.parts, 7 * N_SEQ);
        }
    }
    opscope_run_t *r = opscope_run_new();
    ASSERT_NOT_NULL(r);
    ASSERT_EQ_INT(opscope_cap_decodes_add(r), 0);
    const opscope_run_info *v = opscope_run_view(r);
    ASSERT_EQ_U64(v->n_decodes, 17);
    for (size_t i = 0; i < 17; i++) {
        const opscope_run_decode *d = &v->decodes[i];
        ASSERT_EQ_U64(d->graph, 10 + i);
        ASSERT_EQ_U64(d->n_seqs, N_SEQ);
        uint32_t sum = 0;
        for (int s = 0; s < N_SEQ; s++) {
            ASSERT_EQ_INT(d->seqs[s].seq, s);
            ASSERT_EQ_U64(d->seqs[s].n_tokens, want[10 + i][s]);
            sum += d->seqs[s].n_tokens;
        }
        ASSERT_EQ_U64(sum, d->n_tokens);
    }
    opscope_run_free(r);
    opscope_cap_decodes_reset();
    return 0;
}

/* The log's reader joins the DECODES chunks' calls to the last RUN chunk's run by handing
 * the arrays over (no second copy of a long run's calls); a run that has calls already gets
 * the others appended. Each call's sequences must follow it either way. */
static int add_calls(opscope_run_t *r, int first, int n) {
    for (int i = first; i < first + n; i++) {
        opscope_run_seq q[2] = {{.seq = 0, .request = (uint32_t)i, .n_tokens = (uint32_t)i + 1},
                                {.seq = 1, .request = (uint32_t)i + 100, .n_tokens = 7}};
        opscope_run_decode d = {.graph = i, .n_tokens = (uint32_t)i + 8, .n_seqs = 2, .seqs = q};
        if (opscope_run_add_decode(r, &d)) return -1;
    }
    return 0;
}

static int test_run_move_decodes(void) {
    opscope_run_t *dst = opscope_run_new(), *a = opscope_run_new(), *b = opscope_run_new();
    ASSERT_TRUE(dst && a && b);
    ASSERT_EQ_INT(opscope_run_add_arg(dst, "prog", 4), 0);
    ASSERT_EQ_INT(add_calls(a, 0, 3), 0);
    opscope_run_set_decodes_lost(a, 4);
    ASSERT_EQ_INT(add_calls(b, 3, 2), 0);
    opscope_run_set_decodes_lost(b, 9);
    ASSERT_EQ_INT(opscope_run_move_decodes(dst, a), 0); /* handed over */
    ASSERT_EQ_U64(opscope_run_view(a)->n_decodes, 0);
    ASSERT_EQ_INT(opscope_run_move_decodes(dst, b), 0); /* appended */
    ASSERT_EQ_U64(opscope_run_view(b)->n_decodes, 0);
    const opscope_run_info *v = opscope_run_view(dst);
    ASSERT_EQ_U64(v->n_argv, 1);
    ASSERT_EQ_U64(v->n_decodes, 5);
    ASSERT_EQ_U64(v->decodes_lost, 9);
    for (int i = 0; i < 5; i++) {
        ASSERT_EQ_U64(v->decodes[i].graph, i);
        ASSERT_EQ_U64(v->decodes[i].n_tokens, i + 8);
        ASSERT_EQ_U64(v->decodes[i].n_seqs, 2);
        ASSERT_EQ_U64(v->decodes[i].seqs[0].request, i);
        ASSERT_EQ_U64(v->decodes[i].seqs[0].n_tokens, i + 1);
        ASSERT_EQ_U64(v->decodes[i].seqs[1].request, i + 100);
    }
    ASSERT_EQ_INT(add_calls(a, 5, 1), 0); /* the emptied one is still usable */
    ASSERT_EQ_U64(opscope_run_view(a)->decodes[0].seqs[0].request, 5);
    opscope_run_free(a);
    opscope_run_free(b);
    opscope_run_free(dst);
    return 0;
}

/* No log: the table grows to its bounds (65536 calls, 131072 parts) and counts the rest, as
 * before: with 4 parts a call the parts fill at 131072 / 4 = 32768 calls; the calls after
 * that are kept without their parts (counted lost), and those past 65536 are not kept. */
static int test_no_log_keeps_the_bound(void) {
    opscope_cap_decodes_reset();
    reset_workload();
    for (int64_t i = 0; i < 65536 + 100; i++) note_next(i);
    opscope_cap_decodes_held h;
    opscope_cap_decodes_usage(&h);
    ASSERT_EQ_U64(h.calls, 65536);
    ASSERT_EQ_U64(h.cap_calls, 65536);
    ASSERT_EQ_U64(h.cap_parts, 131072);
    ASSERT_EQ_U64(h.parts, 131072);
    ASSERT_EQ_U64(h.lost, (65536 - 32768) + 100);
    ASSERT_EQ_U64(opscope_cap_decodes_lost(), (65536 - 32768) + 100);
    ASSERT_LE_U64(h.bytes, 8u << 20); /* 6 MiB (docs/capture.md) */
    /* every call held already in a chunk: one more says the lost count alone, once */
    opscope_oplog_buf b = {0};
    opscope_cap_decodes_cursor cur = {.next = h.noted, .lost = 0};
    ASSERT_EQ_INT(opscope_cap_decodes_put(&b, &cur), 0);
    opscope_oplog_cur c = {b.v, b.v + b.n, false};
    ASSERT_EQ_U64(opscope_oplog_get_u(&c), 32868); /* the lost count */
    ASSERT_EQ_U64(opscope_oplog_get_u(&c), 0);     /* no call */
    ASSERT_EQ_U64(opscope_oplog_get_u(&c), 0);     /* none of them wiped */
    ASSERT_TRUE(!c.bad && c.p == c.end);
    ASSERT_EQ_U64(cur.lost, 32868);
    size_t len = b.n;
    ASSERT_EQ_INT(opscope_cap_decodes_put(&b, &cur), 0);
    ASSERT_EQ_U64(b.n, len); /* nothing new: no chunk */
    free(b.v);
    char line[320];
    ASSERT_GT_U64(opscope_cap_decodes_lost_line(line, sizeof line, false), 0);
    ASSERT_CONTAINS(line, "opscope: 32868 llama_decode calls not recorded whole");
    ASSERT_CONTAINS(line, "no record log takes them");
    opscope_cap_decodes_reset();
    ASSERT_EQ_U64(opscope_cap_decodes_lost_line(line, sizeof line, false), 0); /* none lost: nothing said */
    opscope_cap_decodes_reset();
    return 0;
}

TEST_MAIN(TEST(test_long_run_through_the_log), TEST(test_failed_write_keeps_the_calls),
          TEST(test_release_keeps_the_newer), TEST(test_run_move_decodes),
          TEST(test_no_log_keeps_the_bound))
