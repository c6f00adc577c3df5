/* test_top_live.c - opscope top's parts: the record log read as it grows (read/oplog_tail.h)
 * gives the totals of one full read (read/oplog_read.c) and of the generator's own sums, and
 * the live window (analyze/live/live.h) counts only its last seconds, in bounded memory. */
#include "test.h"

#include "analyze/live/live.h"
#include "model/oplog_dec.h"
#include "model/oplog_rec.h"
#include "read/oplog_tail.h"
#include "util/oplog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N_TMPL 6
#define N_CHUNKS 240
#define PER_CHUNK 40

static const char *const k_names[N_TMPL] = {"OP_A", "OP_B", "OP_C", "OP_D", "OP_E", "OP_F"};

/* What the generator wrote, summed by itself (the expected figures). */
typedef struct expect {
    uint64_t ns[N_TMPL], calls[N_TMPL], records, prompt, gen, decodes, requests;
} expect;

static void chunk(opscope_oplog_buf *file, uint32_t type, const opscope_oplog_buf *p) {
    unsigned char h[OPSCOPE_OPLOG_CHUNK_HEAD];
    opscope_oplog_chunk_head(h, type, p->v, (uint32_t)p->n);
    for (size_t i = 0; i < sizeof h; i++) OPSCOPE_VEC_PUSH(*file, h[i]);
    for (size_t i = 0; i < p->n; i++) OPSCOPE_VEC_PUSH(*file, p->v[i]);
}

static uint64_t g_lcg = 12345;
static uint32_t rnd(uint32_t n) {
    g_lcg = g_lcg * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(g_lcg >> 33) % n;
}

static void put_meta(opscope_oplog_buf *f) {
    opscope_oplog_buf p = {0};
    opscope_oplog_put_str(&p, "host");
    opscope_oplog_put_str(&p, "fake-server");
    opscope_oplog_put_str(&p, "CLOCK_MONOTONIC");
    opscope_oplog_put_str(&p, "boot");
    opscope_oplog_put_i(&p, 4242);
    opscope_oplog_put_u(&p, 0);
    opscope_oplog_put_i(&p, 0);
    opscope_oplog_put_u(&p, 1000000000ull);
    opscope_oplog_put_u(&p, OPSCOPE_CAPTURE_HAS_PID | OPSCOPE_CAPTURE_HAS_START);
    chunk(f, OPSCOPE_OPLOG_META, &p);
    p.n = 0;
    opscope_oplog_put_u(&p, 0);
    opscope_oplog_put_str(&p, "CPU");
    opscope_oplog_put_str(&p, "cpu0");
    opscope_oplog_put_u(&p, 0);
    chunk(f, OPSCOPE_OPLOG_BACKEND, &p);
    free(p.v);
}

/* Chunk K's records: keys rising inside the chunk, the first ones before the previous
 * chunk's last (a long compute committed late). Templates 0-4 defined in chunk 0, 5 in 100. */
static void put_records(opscope_oplog_buf *f, int k, expect *e) {
    opscope_oplog_buf p = {0}, recs = {0};
    opscope_oplog_state st = {0};
    uint64_t total = 0, key = 1000000000ull + (uint64_t)k * 250000000ull;
    for (int i = 0; i < PER_CHUNK; i++) {
        uint32_t t = rnd(k >= 100 ? N_TMPL : N_TMPL - 1);
        uint64_t dur = 1000 + rnd(2000000);
        key += rnd(5000000);
        opscope_oplog_inst in = {.tmpl = t, .key = key, .key_end = key + dur, .graph = k * 10 + i / 8,
                                 .start_ns = key, .duration_ns = dur, .host_start_ns = key, .host_end_ns = key + dur};
        opscope_oplog_put_inst(&recs, &st, &in, true);
        total += dur;
        e->ns[t] += dur;
        e->calls[t]++;
        e->records++;
    }
    int n_tmpl = k == 0 ? N_TMPL - 1 : k == 100 ? 1 : 0;
    opscope_oplog_put_u(&p, PER_CHUNK);
    opscope_oplog_put_u(&p, total);
    opscope_oplog_put_u(&p, (uint64_t)n_tmpl);
    for (int t = 0; t < n_tmpl; t++) {
        int id = k == 100 ? N_TMPL - 1 : t;
        opscope_record r;
        opscope_record_init(&r);
        r.name = k_names[id];
        r.backend_id = 0;
        r.has |= OPSCOPE_HAS_GRAPH;
        opscope_oplog_put_u(&p, (uint64_t)id);
        opscope_oplog_put_tmpl(&p, &r);
    }
    for (size_t i = 0; i < recs.n; i++) OPSCOPE_VEC_PUSH(p, recs.v[i]);
    chunk(f, OPSCOPE_OPLOG_RECORDS, &p);
    free(p.v);
    free(recs.v);
}

/* Three calls of two sequences each; the first chunk starts with a warm-up (a call of 2
 * prompt tokens that generates nothing, the next call marked wiped): not counted in the
 * tokens or requests, as report's requests table leaves it out. */
static void put_decodes(opscope_oplog_buf *f, int k, expect *e) {
    opscope_oplog_buf p = {0};
    bool warm = k == 3;
    opscope_oplog_put_u(&p, 0);
    opscope_oplog_put_u(&p, warm ? 4 : 3);
    if (warm) {
        opscope_run_seq w = {5, 0, 2, 2, 1};
        opscope_run_decode d = {999000000ull, 999000100ull, 0, 1, 2, 1, 0, 0, 1, &w, 0};
        opscope_oplog_put_decode(&p, &d);
        e->decodes++;
    }
    for (int i = 0; i < 3; i++) {
        opscope_run_seq s[2] = {{0, (uint32_t)k, 1 + (uint32_t)i, i == 0 ? 1u : 0u, 1}, {1, (uint32_t)k, 7, 7, 1}};
        uint64_t t0 = 1000000000ull + (uint64_t)k * 250000000ull + (uint64_t)i * 1000;
        opscope_run_decode d = {t0, t0 + 500, k, 1, 8 + (uint32_t)i, 2, 0, 0, 2, s, 0};
        opscope_oplog_put_decode(&p, &d);
        e->prompt += s[0].n_prompt + s[1].n_prompt;
        e->gen += (s[0].n_tokens - s[0].n_prompt) + (s[1].n_tokens - s[1].n_prompt);
        e->decodes++;
    }
    opscope_oplog_put_u(&p, warm ? 1 : 0); /* the wiped marks: the call after the warm-up */
    if (warm) opscope_oplog_put_u(&p, 1);
    e->requests += 2;
    chunk(f, OPSCOPE_OPLOG_DECODES, &p);
    free(p.v);
}

static opscope_oplog_buf make_log(expect *e) {
    opscope_oplog_buf f = {0};
    memset(e, 0, sizeof *e);
    g_lcg = 12345;
    unsigned char head[OPSCOPE_OPLOG_HEAD];
    opscope_oplog_file_head(head);
    for (size_t i = 0; i < sizeof head; i++) OPSCOPE_VEC_PUSH(f, head[i]);
    put_meta(&f);
    for (int k = 0; k < N_CHUNKS; k++) {
        put_records(&f, k, e);
        if (k % 10 == 3) put_decodes(&f, k, e);
    }
    return f;
}

static const opscope_live_row *row_of(const opscope_live_view *v, const char *name) {
    for (size_t i = 0; i < v->n_rows; i++)
        if (!strcmp(v->rows[i].display, name)) return &v->rows[i];
    return NULL;
}

static int tail_rec(void *ud, const opscope_record *r, uint32_t t) {
    return opscope_live_add_record(ud, r, t);
}
static int tail_dec(void *ud, const opscope_run_decode *d) {
    return opscope_live_add_decode(ud, d);
}
static int tail_be(void *ud, const opscope_backend *b) {
    return opscope_live_add_backend(ud, b);
}

/* Appends the log to a file in pieces of random size, cut inside chunks and headers, one
 * poll after each piece; the totals equal the generator's and one full read's. */
static int test_tail_equals_full_read(void) {
    expect e;
    opscope_oplog_buf f = make_log(&e);
    char path[] = "tail_growing.log";
    unlink(path);
    opscope_oplog_tail_t *t = opscope_oplog_tail_new(path);
    opscope_live_t *a = opscope_live_new(5), *b = opscope_live_new(5);
    ASSERT_NOT_NULL(t);
    opscope_oplog_tail_cb cb = {a, NULL, tail_be, tail_rec, tail_dec};
    opscope_oplog_tail_status st;
    opscope_error err;
    ASSERT_EQ_INT(opscope_oplog_tail_poll(t, &cb, &st, &err), 0);
    ASSERT_EQ_INT(st.state, OPSCOPE_OPLOG_TAIL_WAITING); /* no file yet */
    FILE *w = fopen(path, "wb");
    ASSERT_NOT_NULL(w);
    size_t polls = 0;
    for (size_t off = 0; off < f.n; polls++) {
        size_t n = 1 + rnd(1200);
        if (n > f.n - off) n = f.n - off;
        fwrite(f.v + off, 1, n, w);
        fflush(w);
        off += n;
        ASSERT_EQ_INT(opscope_oplog_tail_poll(t, &cb, &st, &err), 0);
        ASSERT_LE_U64(st.offset, off);
    }
    fclose(w);
    ASSERT_GT_U64(polls, 100); /* many cuts inside chunks */
    ASSERT_EQ_INT(st.state, OPSCOPE_OPLOG_TAIL_GROWING);
    ASSERT_EQ_U64(st.offset, f.n);
    ASSERT_EQ_U64(st.records, e.records);
    opscope_sink s = opscope_live_sink(b);
    ASSERT_EQ_INT(opscope_read_buffer(f.v, f.n, "gen", OPSCOPE_FORMAT_AUTO, &s, &err), 0);
    opscope_live_view va, vb;
    opscope_live_get(a, &va);
    opscope_live_get(b, &vb);
    ASSERT_EQ_U64(va.records, e.records);
    ASSERT_EQ_U64(vb.records, e.records);
    ASSERT_EQ_U64(va.n_rows, N_TMPL);
    for (int k = 0; k < N_TMPL; k++) {
        const opscope_live_row *ra = row_of(&va, k_names[k]), *rb = row_of(&vb, k_names[k]);
        ASSERT_NOT_NULL(ra);
        ASSERT_NOT_NULL(rb);
        ASSERT_EQ_U64(ra->total_ns, e.ns[k]);
        ASSERT_EQ_U64(ra->total_calls, e.calls[k]);
        ASSERT_EQ_U64(rb->total_ns, e.ns[k]);
        ASSERT_EQ_U64(ra->win_ns, rb->win_ns); /* the window too, whatever the order */
        ASSERT_EQ_U64(ra->win_calls, rb->win_calls);
    }
    ASSERT_EQ_U64(va.now_ns, vb.now_ns);
    ASSERT_EQ_U64(va.decodes, e.decodes);
    ASSERT_EQ_U64(va.prompt_tokens, e.prompt);
    ASSERT_EQ_U64(va.gen_tokens, e.gen);
    ASSERT_EQ_U64(vb.gen_tokens, e.gen);
    ASSERT_EQ_U64(vb.prompt_tokens, e.prompt); /* the warm-up's 2 tokens left out both ways */
    ASSERT_EQ_INT(va.requests, e.requests);
    ASSERT_EQ_INT(vb.requests, e.requests);
    opscope_oplog_tail_free(t);
    opscope_live_free(a);
    opscope_live_free(b);
    unlink(path);
    free(f.v);
    return 0;
}

/* A chunk appended just before the profile is renamed over the log is still read, and the
 * state says the log was replaced; later polls read nothing more. */
static int test_tail_replaced(void) {
    expect e;
    opscope_oplog_buf f = make_log(&e);
    const char *path = "tail_replaced.log";
    FILE *w = fopen(path, "wb");
    ASSERT_NOT_NULL(w);
    size_t half = f.n / 2;
    fwrite(f.v, 1, half, w);
    fflush(w);
    opscope_oplog_tail_t *t = opscope_oplog_tail_new(path);
    opscope_oplog_tail_status st;
    opscope_error err;
    ASSERT_EQ_INT(opscope_oplog_tail_poll(t, NULL, &st, &err), 0);
    ASSERT_EQ_INT(st.state, OPSCOPE_OPLOG_TAIL_GROWING);
    uint64_t first = st.records;
    ASSERT_LT_U64(first, e.records);
    fwrite(f.v + half, 1, f.n - half, w);
    fclose(w);
    FILE *j = fopen("tail_profile.json", "wb");
    fputs("{\"records\": []}\n", j);
    fclose(j);
    ASSERT_EQ_INT(rename("tail_profile.json", path), 0);
    ASSERT_EQ_INT(opscope_oplog_tail_poll(t, NULL, &st, &err), 0);
    ASSERT_EQ_INT(st.state, OPSCOPE_OPLOG_TAIL_REPLACED);
    ASSERT_EQ_U64(st.records, e.records);
    ASSERT_EQ_INT(opscope_oplog_tail_poll(t, NULL, &st, &err), 0);
    ASSERT_EQ_U64(st.records, e.records);
    opscope_oplog_tail_free(t);
    unlink(path);
    free(f.v);
    return 0;
}

static opscope_record rec_at(const char *name, int32_t backend, uint64_t start, uint64_t dur) {
    opscope_record r;
    opscope_record_init(&r);
    r.name = name, r.backend_id = backend; /* a host-timed record of a group */
    r.start_ns = start, r.duration_ns = dur;
    return r;
}

/* The window holds the last 5 seconds only (the sums by hand), a record older than the window
 * counts in the totals alone, and a million records over a day keep the rows at 2. */
static int test_live_window(void) {
    opscope_live_t *l = opscope_live_new(5);
    const uint64_t S = 1000000000ull;
    for (uint64_t sec = 100; sec <= 200; sec++) {
        opscope_record a = rec_at("OP_A", 0, sec * S, 1000 * sec), b = rec_at("OP_B", 1, sec * S + S / 2, 10);
        ASSERT_EQ_INT(opscope_live_add_record(l, &a, OPSCOPE_LIVE_NO_TMPL), 0);
        ASSERT_EQ_INT(opscope_live_add_record(l, &b, 7), 0);
    }
    opscope_record old = rec_at("OP_A", 0, 50 * S, 999);
    ASSERT_EQ_INT(opscope_live_add_record(l, &old, OPSCOPE_LIVE_NO_TMPL), 0);
    opscope_run_seq s = {3, 1, 4, 0, 1};
    opscope_run_decode d = {200 * S, 200 * S + 100, 0, 1, 4, 1, 0, 0, 1, &s, 0};
    ASSERT_EQ_INT(opscope_live_add_decode(l, &d), 0);
    opscope_live_view v;
    opscope_live_get(l, &v);
    const opscope_live_row *a = row_of(&v, "OP_A"), *b = row_of(&v, "OP_B");
    ASSERT_NOT_NULL(a);
    ASSERT_EQ_U64(a->win_ns, 1000 * (196 + 197 + 198 + 199 + 200));
    ASSERT_EQ_U64(a->win_calls, 5);
    ASSERT_EQ_U64(a->total_calls, 102);
    ASSERT_EQ_U64(a->total_ns, 999 + 1000 * (100 + 200) * 101 / 2);
    ASSERT_EQ_U64(b->win_ns, 50);
    ASSERT_EQ_U64(v.win_gen, 4);
    ASSERT_EQ_INT(v.in_flight, 1);
    opscope_live_set_now(l, 205 * S); /* idle for 5 s: nothing in flight */
    opscope_live_get(l, &v);
    ASSERT_EQ_INT(v.in_flight, 0);
    ASSERT_EQ_U64(v.idle_ns, 205 * S - (200 * S + S / 2 + 10));
    for (uint64_t i = 0; i < 1000000; i++) {
        opscope_record r = rec_at(i & 1 ? "OP_A" : "OP_B", (int32_t)(i & 1) ^ 1, 300 * S + i * 86400, 5);
        ASSERT_EQ_INT(opscope_live_add_record(l, &r, i & 1 ? 3 : 7), 0);
    }
    opscope_live_get(l, &v);
    ASSERT_EQ_U64(v.n_rows, 2);
    ASSERT_EQ_U64(v.n_backends, 2);
    opscope_live_free(l);
    return 0;
}

TEST_MAIN(TEST(test_tail_equals_full_read), TEST(test_tail_replaced), TEST(test_live_window))
