/*
 * test_diff_unit.c - the pieces of `opscope diff` with closed-form or hand-made answers:
 * Student's t tail and the incomplete beta against closed forms, streamed moments against a
 * two-pass computation, --by parsing, and a side fed records by hand (layers from tensor
 * names, a graph's phase and tokens from its first MUL_MAT, records held until then, runs of
 * consecutive records, fused names).
 */
#include "analyze/diff/diff.h"
#include "analyze/record/fused_name.h"
#include "analyze/record/op_category.h"
#include "test.h"
#include "analyze/diff/welch.h"

#include <math.h>

static int test_betai_closed_forms(void) {
    const double xs[] = {0.01, 0.2, 0.5, 0.73, 0.99};
    for (size_t i = 0; i < sizeof xs / sizeof *xs; i++) {
        double x = xs[i];
        ASSERT_NEAR(opscope_betai(1, 1, x), x, 1e-12);
        ASSERT_NEAR(opscope_betai(3.5, 1, x), pow(x, 3.5), 1e-12);
        ASSERT_NEAR(opscope_betai(1, 2.25, x), 1 - pow(1 - x, 2.25), 1e-12);
        ASSERT_NEAR(opscope_betai(2.5, 7, x), 1 - opscope_betai(7, 2.5, 1 - x), 1e-12);
    }
    ASSERT_NEAR(opscope_betai(2, 3, 0), 0, 0);
    ASSERT_NEAR(opscope_betai(2, 3, 1), 1, 0);
    return 0;
}

static int test_t_closed_forms(void) {
    const double ts[] = {0, 0.3, 1, 2.5, 12, 300};
    for (size_t i = 0; i < sizeof ts / sizeof *ts; i++) {
        double t = ts[i];
        /* df 1: Cauchy; df 2: 1 - |t| / sqrt(2 + t^2) */
        ASSERT_NEAR(opscope_t_two_sided(t, 1), 1 - 2 / M_PI * atan(t), 1e-12);
        ASSERT_NEAR(opscope_t_two_sided(-t, 2), 1 - t / sqrt(2 + t * t), 1e-12);
    }
    /* large df tends to the normal: P(|Z| >= 1.959964) = 0.05 */
    ASSERT_NEAR(opscope_t_two_sided(1.959963984540054, 1e7), 0.05, 1e-6);
    /* table value: t = 2.228139 at df 10 is the two-sided 5% point */
    ASSERT_NEAR(opscope_t_two_sided(2.228138851986, 10), 0.05, 1e-9);
    return 0;
}

static int test_moments(void) {
    /* values with a big offset and a small spread: the shifted sums keep the variance */
    uint64_t a[] = {1000000007, 1000000003, 1000000011, 1000000001, 1000000009};
    uint64_t b[] = {999999990, 1000000020, 1000000005};
    opscope_moments ma = {0}, mb = {0}, all = {0};
    double sum = 0;
    for (size_t i = 0; i < 5; i++) {
        opscope_moments_add(&ma, a[i]);
        opscope_moments_add(&all, a[i]);
        sum += (double)a[i];
    }
    for (size_t i = 0; i < 3; i++) {
        opscope_moments_add(&mb, b[i]);
        opscope_moments_add(&all, b[i]);
        sum += (double)b[i];
    }
    double mean = sum / 8, ss = 0;
    for (size_t i = 0; i < 5; i++) ss += ((double)a[i] - mean) * ((double)a[i] - mean);
    for (size_t i = 0; i < 3; i++) ss += ((double)b[i] - mean) * ((double)b[i] - mean);
    opscope_moments merged = ma;
    opscope_moments_merge(&merged, &mb);
    ASSERT_EQ_U64(merged.n, 8);
    ASSERT_NEAR(opscope_moments_mean(&merged), mean, 1e-6);
    ASSERT_NEAR(opscope_moments_var(&merged), ss / 7, 1e-6);
    ASSERT_NEAR(opscope_moments_var(&all), ss / 7, 1e-6);
    ASSERT_NEAR(opscope_moments_var(&ma), 17.2, 1e-9); /* by hand: deviations from 6.2, 68.8 / 4 */
    /* equal samples: no spread, the test says 1 for equal means and 0 otherwise */
    opscope_moments c = {0}, d = {0};
    for (int i = 0; i < 4; i++) {
        opscope_moments_add(&c, 5);
        opscope_moments_add(&d, 5);
    }
    ASSERT_NEAR(opscope_welch_p(&c, &d, NULL), 1.0, 0);
    opscope_moments_add(&d, 5);
    ASSERT_NEAR(opscope_welch_sum_p(10, 0, 0, 0, 0), 0.0, 0);
    ASSERT_NEAR(opscope_welch_p(&ma, &(opscope_moments){1, 5, 0, 0}, NULL), -1, 0);
    return 0;
}

static int test_keys(void) {
    unsigned k = 0;
    const char *bad = NULL;
    ASSERT_EQ_INT(opscope_diff_keys_parse("op,phase", &k, &bad), 0);
    ASSERT_EQ_INT(k, OPSCOPE_DIFF_KEY_OP | OPSCOPE_DIFF_KEY_PHASE);
    ASSERT_EQ_INT(opscope_diff_keys_parse("cpu-op", &k, &bad), 0);
    ASSERT_EQ_INT(k, OPSCOPE_DIFF_KEY_CPU_OP);
    ASSERT_EQ_INT(opscope_diff_keys_parse("layer,nope", &k, &bad), -1);
    ASSERT_EQ_STR(bad, "nope");
    ASSERT_EQ_INT(opscope_diff_keys_parse("op,", &k, &bad), -1);
    char buf[64];
    opscope_diff_keys_name(OPSCOPE_DIFF_KEY_SHAPE | OPSCOPE_DIFF_KEY_LAYER, buf, sizeof buf);
    ASSERT_EQ_STR(buf, "shape,layer");
    return 0;
}

static int test_categories(void) {
    opscope_record r;
    opscope_record_init(&r);
    r.name = "MUL_MAT";
    ASSERT_EQ_STR(opscope_record_category(&r), "gemm");
    r.name = "FLASH_ATTN_EXT";
    r.n_src = 1;
    r.ne_src[0][0] = 64;
    r.ne_src[0][1] = 7;
    ASSERT_EQ_STR(opscope_record_category(&r), "attention_prefill");
    r.ne_src[0][1] = 1;
    ASSERT_EQ_STR(opscope_record_category(&r), "attention_decode");
    r.name = "RMS_NORM";
    ASSERT_EQ_STR(opscope_record_category(&r), "norm");
    r.name = "ampere_sgemm_128x64_nn"; /* not a ggml op: the kernel rules */
    ASSERT_EQ_STR(opscope_record_category(&r), "gemm");
    r.type = OPSCOPE_RECORD_COPY;
    r.name = "copy_H2D";
    ASSERT_EQ_STR(opscope_record_category(&r), "memory");
    r.category = "communication";
    ASSERT_EQ_STR(opscope_record_category(&r), "communication");
    return 0;
}

/* One ggml record of graph G at time T. */
static opscope_record rec(const char *name, const char *tensor, int64_t g, uint64_t t, uint64_t d,
                          int64_t tokens, const char *extra, int n_fused) {
    opscope_record r;
    opscope_record_init(&r);
    r.name = name;
    r.tensor_name = tensor;
    r.graph_id = g;
    r.has = OPSCOPE_HAS_GRAPH | OPSCOPE_HAS_NODE;
    r.start_ns = t;
    r.duration_ns = d;
    r.n_src = 2;
    r.ne_src[0][0] = r.ne_src[1][0] = 64;
    r.ne_src[0][1] = 64;
    r.ne_src[1][1] = tokens;
    r.extra = extra;
    r.n_fused = n_fused;
    return r;
}

static const opscope_diff_group *find(const opscope_diff_side_t *s, const char *name) {
    for (size_t i = 0; i < opscope_diff_side_n_groups(s); i++)
        if (!strcmp(opscope_diff_side_group(s, i)->name, name)) return opscope_diff_side_group(s, i);
    return NULL;
}

static int test_side_layers_phases(void) {
    opscope_diff_side_t *s =
        opscope_diff_side_new(OPSCOPE_DIFF_KEY_LAYER | OPSCOPE_DIFF_KEY_PHASE);
    ASSERT_NOT_NULL(s);
    opscope_sink k = opscope_diff_side_sink(s);
    /* graph 5: a 7-token prompt; GET_ROWS and RMS_NORM come before the first MUL_MAT */
    opscope_record rs[] = {
        rec("GET_ROWS", "inp_embd", 5, 100, 10, 7, NULL, 1),
        rec("RMS_NORM", "norm-0", 5, 110, 20, 7, "RMS_NORM+MUL", 2),
        rec("MUL_MAT", "Qcur-0", 5, 130, 40, 7, NULL, 1),
        rec("FLASH_ATTN_EXT", "node_17", 5, 170, 50, 7, NULL, 1),  /* layer 0, inherited */
        rec("SET_ROWS", "cache_k_l1 (view)", 5, 220, 5, 7, NULL, 1), /* layer 1 */
        rec("MUL_MAT", "ffn_out-1", 5, 225, 30, 3, NULL, 1),
        rec("ADD", "", 5, 255, 3, 3, NULL, 1),                        /* inherits 1 */
        rec("MUL_MAT", "result_output", 5, 258, 9, 1, NULL, 1),       /* no layer */
        /* graph 6: one token */
        rec("GET_ROWS", "inp_embd", 6, 300, 2, 1, NULL, 1),
        rec("MUL_MAT", "Qcur-0", 6, 302, 8, 1, NULL, 1),
        rec("ADD", "node_3", 6, 310, 1, 1, NULL, 1),
        /* graph 7: no MUL_MAT at all */
        rec("ADD", "l_out-2", 7, 400, 4, 1, NULL, 1),
    };
    for (size_t i = 0; i < sizeof rs / sizeof *rs; i++) ASSERT_EQ_INT(k.on_record(k.ud, &rs[i]), 0);
    opscope_record cp;
    opscope_record_init(&cp); /* a copy without a graph: phase none, no layer */
    cp.type = OPSCOPE_RECORD_COPY;
    cp.name = "copy_H2D";
    cp.tensor_name = "inp_tokens";
    cp.start_ns = 90;
    cp.duration_ns = 7;
    ASSERT_EQ_INT(k.on_record(k.ud, &cp), 0);
    ASSERT_EQ_INT(k.on_end(k.ud), 0);
    ASSERT_EQ_INT(opscope_diff_side_finish(s, false), 0);
    const opscope_diff_totals *t = opscope_diff_side_totals(s);
    ASSERT_EQ_U64(t->graphs, 3);
    ASSERT_EQ_U64(t->tokens, 8);
    ASSERT_EQ_U64(t->prefill_graphs, 1);
    ASSERT_EQ_U64(t->decode_graphs, 1);
    ASSERT_EQ_U64(t->n_records, 13);
    ASSERT_EQ_U64(t->copy_ns, 7);
    ASSERT_EQ_U64(t->wall_ns, 404 - 90);
    const opscope_diff_group *g;
    ASSERT_NOT_NULL(g = find(s, "prefill \xc2\xb7 (no layer)")); /* GET_ROWS, result_output */
    ASSERT_EQ_U64(g->count, 2);
    ASSERT_EQ_U64(g->total_ns, 19);
    ASSERT_NOT_NULL(g = find(s, "prefill \xc2\xb7 layer 0")); /* RMS_NORM, MUL_MAT, FLASH */
    ASSERT_EQ_U64(g->count, 3);
    ASSERT_EQ_U64(g->total_ns, 110);
    ASSERT_NOT_NULL(g = find(s, "prefill \xc2\xb7 layer 1"));
    ASSERT_EQ_U64(g->count, 3);
    ASSERT_EQ_U64(g->total_ns, 38);
    ASSERT_NOT_NULL(g = find(s, "decode \xc2\xb7 layer 0")); /* MUL_MAT, ADD node_3 */
    ASSERT_EQ_U64(g->count, 2);
    ASSERT_EQ_U64(g->total_ns, 9);
    ASSERT_NOT_NULL(g = find(s, "decode \xc2\xb7 (no layer)"));
    ASSERT_EQ_U64(g->total_ns, 2);
    ASSERT_NOT_NULL(g = find(s, "none \xc2\xb7 layer 2")); /* graph 7 */
    ASSERT_EQ_U64(g->total_ns, 4);
    ASSERT_NOT_NULL(g = find(s, "none \xc2\xb7 (no layer)")); /* the copy */
    ASSERT_EQ_U64(g->total_ns, 7);
    ASSERT_EQ_INT(opscope_diff_side_n_groups(s), 7);
    /* fused names and runs of consecutive records */
    ASSERT_EQ_INT(opscope_diff_side_n_fused(s), 1);
    ASSERT_EQ_STR(opscope_diff_side_fused(s, 0)->pattern, "RMS_NORM+MUL");
    uint64_t ns = 0;
    const char *run[] = {"MUL_MAT", "FLASH_ATTN_EXT", "SET_ROWS"};
    ASSERT_EQ_U64(opscope_diff_side_runs(s, run, 3, &ns), 1);
    ASSERT_EQ_U64(ns, 95);
    const char *pair[] = {"MUL_MAT", "ADD"};
    ASSERT_EQ_U64(opscope_diff_side_runs(s, pair, 2, &ns), 2); /* graphs 5 and 6 */
    ASSERT_EQ_U64(ns, 33 + 9);
    const char *cut[] = {"GET_ROWS", "RMS_NORM"}; /* a fused record cuts the run */
    ASSERT_EQ_U64(opscope_diff_side_runs(s, cut, 2, &ns), 0);
    const char *across[] = {"MUL_MAT", "GET_ROWS"}; /* graph 5 -> 6 is no run */
    ASSERT_EQ_U64(opscope_diff_side_runs(s, across, 2, &ns), 0);
    opscope_diff_side_free(s);
    return 0;
}

static int test_align(void) {
    /* two sides by op: a 2x slower op, one only on each side, per-graph normalisation */
    opscope_diff_side_t *side[2];
    for (int x = 0; x < 2; x++) {
        side[x] = opscope_diff_side_new(OPSCOPE_DIFF_KEY_OP);
        opscope_sink k = opscope_diff_side_sink(side[x]);
        int graphs = x ? 4 : 2;
        for (int g = 0; g < graphs; g++) {
            for (int i = 0; i < 3; i++) {
                opscope_record r = rec("MUL_MAT", "m", g, (uint64_t)(1000 * g + 10 * i),
                                       (uint64_t)((x ? 200 : 100) + i), 1, NULL, 1);
                ASSERT_EQ_INT(k.on_record(k.ud, &r), 0);
            }
            opscope_record r = rec(x ? "SCALE" : "CPY", "s", g, (uint64_t)(1000 * g + 50), 10, 1, NULL, 1);
            ASSERT_EQ_INT(k.on_record(k.ud, &r), 0);
        }
        ASSERT_EQ_INT(k.on_end(k.ud), 0);
        ASSERT_EQ_INT(opscope_diff_side_finish(side[x], false), 0);
    }
    opscope_diff_opts o = {.keys = OPSCOPE_DIFF_KEY_OP, .fail_pct = 50};
    const char *why;
    opscope_diff_t *d = opscope_diff_new(side[0], side[1], &o, &why);
    ASSERT_NOT_NULL(d);
    ASSERT_EQ_INT(opscope_diff_norm_used(d), OPSCOPE_DIFF_NORM_TOKEN); /* 2 against 4 tokens */
    ASSERT_EQ_INT(opscope_diff_n_rows(d), 3);
    const opscope_diff_row *r = opscope_diff_row_get(d, 0);
    ASSERT_EQ_STR(r->name, "MUL_MAT @backend 0");
    ASSERT_NEAR(r->base_ns, (3 * 100 + 3) * 2 / 2.0, 1e-9);
    ASSERT_NEAR(r->new_ns, (3 * 200 + 3) * 4 / 4.0, 1e-9);
    ASSERT_NEAR(r->ratio, 603.0 / 303.0, 1e-12);
    ASSERT_TRUE(r->significant && r->regression);
    ASSERT_TRUE(opscope_diff_failed(d));
    ASSERT_EQ_INT(opscope_diff_row_get(d, 1)->status + opscope_diff_row_get(d, 2)->status,
                  OPSCOPE_DIFF_ONLY_BASE + OPSCOPE_DIFF_ONLY_NEW);
    opscope_diff_free(d);
    o.norm = OPSCOPE_DIFF_NORM_ITERATION; /* ggml profiles have no profiler steps */
    ASSERT_NULL(opscope_diff_new(side[0], side[1], &o, &why));
    ASSERT_CONTAINS(why, "profiler steps");
    opscope_diff_side_free(side[0]);
    opscope_diff_side_free(side[1]);
    return 0;
}

/* CPU and Vulkan name one fused group two ways ("RMS_NORM+MUL", ggml-vulkan's "RMS_NORM_MUL");
 * the diff aligns them as one row, and neither side is a fusion difference (two spellings
 * would leave every row only in BASE or only in NEW, and a fusion section of "no run of these
 * ops"). */
static int test_fused_vocabulary(void) {
    char buf[128];
    ASSERT_EQ_STR(opscope_fused_name_canonical("RMS_NORM_MUL", 2, buf, sizeof buf), "RMS_NORM+MUL");
    ASSERT_EQ_STR(opscope_fused_name_canonical("MULTI_ADD", 3, buf, sizeof buf), "ADD+ADD+ADD");
    ASSERT_EQ_STR(opscope_fused_name_canonical("ROPE_VIEW_SET_ROWS", 3, buf, sizeof buf), "ROPE+VIEW+SET_ROWS");
    const char *keep[] = {"RMS_NORM+MUL", "TOPK_MOE_LATE_SOFTMAX", "81 nodes, no per-op timing", "RMS_NORM"};
    for (size_t i = 0; i < sizeof keep / sizeof *keep; i++)
        ASSERT_TRUE(opscope_fused_name_canonical(keep[i], 2, buf, sizeof buf) == keep[i]);
    ASSERT_NULL(opscope_fused_name_canonical(NULL, 2, buf, sizeof buf));

    const char *extra[2] = {"RMS_NORM+MUL", "RMS_NORM_MUL"};
    opscope_diff_side_t *side[2];
    for (int x = 0; x < 2; x++) {
        side[x] = opscope_diff_side_new(OPSCOPE_DIFF_KEY_OP);
        opscope_sink k = opscope_diff_side_sink(side[x]);
        for (int g = 0; g < 3; g++) {
            opscope_record r = rec("RMS_NORM", "norm-0", g, (uint64_t)(100 * g), 10, 1, extra[x], 2);
            ASSERT_EQ_INT(k.on_record(k.ud, &r), 0);
        }
        ASSERT_EQ_INT(k.on_end(k.ud), 0);
        ASSERT_EQ_INT(opscope_diff_side_finish(side[x], true), 0);
    }
    opscope_diff_opts o = {.keys = OPSCOPE_DIFF_KEY_OP, .fail_pct = -1, .merged_backends = true};
    const char *why;
    opscope_diff_t *d = opscope_diff_new(side[0], side[1], &o, &why);
    ASSERT_NOT_NULL(d);
    ASSERT_EQ_INT(opscope_diff_n_rows(d), 1);
    ASSERT_EQ_STR(opscope_diff_row_get(d, 0)->name, "RMS_NORM [fused: RMS_NORM+MUL]");
    ASSERT_EQ_INT(opscope_diff_row_get(d, 0)->status, OPSCOPE_DIFF_BOTH);
    ASSERT_EQ_INT(opscope_diff_n_fusions(d), 0);
    opscope_diff_free(d);
    opscope_diff_side_free(side[0]);
    opscope_diff_side_free(side[1]);
    return 0;
}

/* llama-server decoding 4 sequences at once: the first MUL_MAT multiplies 4 rows, the
 * attention's queries are 1 token in each of 4 sequences (ne [32, 1, 8, 4], as captured):
 * a decode step (its 4 rows alone would say prefill). A prompt of 26 tokens in 4 sequences is
 * prefill; a graph without attention falls back to its MUL_MAT's rows. */
static int test_phase_per_sequence(void) {
    opscope_diff_side_t *s = opscope_diff_side_new(OPSCOPE_DIFF_KEY_PHASE);
    opscope_sink k = opscope_diff_side_sink(s);
    const int64_t q[3] = {26, 1, 0}, rows[3] = {104, 4, 3};
    for (int g = 0; g < 3; g++) {
        opscope_record m = rec("MUL_MAT", "Qcur-0", g, (uint64_t)(100 * g), 10, rows[g], NULL, 1);
        ASSERT_EQ_INT(k.on_record(k.ud, &m), 0);
        if (q[g]) {
            opscope_record f = rec("FLASH_ATTN_EXT", "__fattn__-0", g, (uint64_t)(100 * g + 20), 10, 1, NULL, 1);
            f.ne_src[0][0] = 32;
            f.ne_src[0][1] = q[g];
            f.ne_src[0][2] = 8;
            f.ne_src[0][3] = 4;
            ASSERT_EQ_INT(k.on_record(k.ud, &f), 0);
        }
    }
    ASSERT_EQ_INT(k.on_end(k.ud), 0);
    ASSERT_EQ_INT(opscope_diff_side_finish(s, false), 0);
    const opscope_diff_totals *t = opscope_diff_side_totals(s);
    ASSERT_EQ_U64(t->graphs, 3);
    ASSERT_EQ_U64(t->prefill_graphs, 2); /* the prompt, and 3 rows without attention */
    ASSERT_EQ_U64(t->decode_graphs, 1);
    ASSERT_EQ_U64(t->tokens, 104 + 4 + 3);
    const opscope_diff_group *d = find(s, "decode");
    ASSERT_NOT_NULL(d);
    ASSERT_EQ_U64(d->count, 2); /* the decode graph's MUL_MAT waited for its attention */
    opscope_diff_side_free(s);
    return 0;
}

TEST_MAIN(TEST(test_betai_closed_forms), TEST(test_t_closed_forms), TEST(test_moments),
          TEST(test_keys), TEST(test_categories), TEST(test_side_layers_phases), TEST(test_align),
          TEST(test_fused_vocabulary), TEST(test_phase_per_sequence))
