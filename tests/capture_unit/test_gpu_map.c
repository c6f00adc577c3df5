/*
 * test_gpu_map.c - device work to graph nodes (src/capture/gpu/gpu_map.c).
 *
 * Real streams: a decode graph of llama-completion on lavapipe (dense f32 and MoE q4_0), as the
 * capture read it (nodes, and the dispatches with ggml-vulkan's pipeline names and labels),
 * with the group names and counts GGML_VK_PERF_LOGGER printed for the same graph. The mapping
 * must give exactly those groups from the labels, and from the pipeline names alone (a program
 * that did not label its nodes). Small hand-made streams check the rules one at a time.
 */
#include "capture/gpu/gpu_map.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

#ifndef OPSCOPE_TEST_DATA_DIR
#define OPSCOPE_TEST_DATA_DIR "."
#endif

#define MAXN 2048

typedef struct fixture {
    opscope_gpu_node nodes[MAXN];
    opscope_gpu_item items[MAXN];
    int n_nodes, n_items;
    char *names[64];
    int counts[64];
    int n_names;
    char *buf;
} fixture;

static char *dash_null(char *s) {
    return strcmp(s, "-") == 0 ? NULL : s;
}

/* Parses a fixture file in place (strings point into f->buf). */
static int fixture_load(fixture *f, const char *name) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", OPSCOPE_TEST_DATA_DIR, name);
    memset(f, 0, sizeof *f);
    f->buf = test_slurp(path, NULL);
    if (!f->buf) {
        fprintf(stderr, "cannot read %s\n", path);
        return -1;
    }
    uint32_t label_id = 0;
    const char *prev_label = NULL;
    for (char *line = strtok(f->buf, "\n"); line; line = strtok(NULL, "\n")) {
        char *fld[8] = {0};
        int nf = 0;
        for (char *p = line; nf < 8;) {
            fld[nf++] = p;
            char *t = strchr(p, '\t');
            if (!t) break;
            *t = '\0';
            p = t + 1;
        }
        if (strcmp(fld[0], "#N") == 0 && nf >= 6 && f->n_nodes < MAXN) {
            opscope_gpu_node *x = &f->nodes[f->n_nodes++];
            x->op = fld[2];
            x->sub = dash_null(fld[3]);
            x->empty = fld[4][0] == '1';
            x->name = dash_null(fld[5]);
        } else if (strcmp(fld[0], "#I") == 0 && nf >= 4 && f->n_items < MAXN) {
            opscope_gpu_item *it = &f->items[f->n_items++];
            it->seq = (uint32_t)atoi(fld[1]);
            it->kind = (uint8_t)atoi(fld[2]);
            char *bar = strchr(fld[3], '|');
            *bar = '\0';
            it->name = fld[3];
            it->label = bar[1] ? bar + 1 : NULL;
            /* the dump does not keep label openings: a new text is a new opening */
            if (it->label && (!prev_label || strcmp(prev_label, it->label) != 0)) {
                label_id++;
            }
            it->label_id = it->label ? label_id : 0;
            prev_label = it->label;
        } else if (strcmp(fld[0], "P") == 0 && nf >= 3 && f->n_names < 64) {
            f->names[f->n_names] = fld[1];
            f->counts[f->n_names++] = atoi(fld[2]);
        }
    }
    return 0;
}

/* Every non-empty node in exactly one group, every item in exactly one, groups in order. */
static int check_cover(const fixture *f, const opscope_gpu_group *g, int ng) {
    int *node_hits = calloc((size_t)f->n_nodes, sizeof *node_hits);
    int item_next = 0;
    for (int k = 0; k < ng; k++) {
        ASSERT_EQ_INT(g[k].item0, item_next);
        ASSERT_GE_INT(g[k].n_items, 1);
        item_next += g[k].n_items;
        ASSERT_LE_INT(g[k].first, g[k].main);
        ASSERT_LE_INT(g[k].main, g[k].last);
        ASSERT_TRUE(!f->nodes[g[k].main].empty);
        for (int i = g[k].first; i <= g[k].last; i++) node_hits[i]++;
    }
    ASSERT_EQ_INT(item_next, f->n_items);
    for (int i = 0; i < f->n_nodes; i++) {
        if (!f->nodes[i].empty && node_hits[i] != 1) {
            fprintf(stderr, "node %d (%s %s) in %d groups\n", i, f->nodes[i].op, f->nodes[i].name ? f->nodes[i].name : "",
                    node_hits[i]);
            free(node_hits);
            return 1;
        }
    }
    free(node_hits);
    return 0;
}

/* The groups' names counted, against the perf logger's P lines. */
static int check_names(const fixture *f, const opscope_gpu_group *g, int ng) {
    const opscope_gpu_rules *rules = opscope_gpu_rules_for("vulkan");
    char names[64][128];
    int counts[64] = {0}, n = 0;
    for (int k = 0; k < ng; k++) {
        char buf[128];
        if (g[k].first == g[k].last) {
            snprintf(buf, sizeof buf, "%s", f->nodes[g[k].main].op);
        } else {
            opscope_gpu_group_name(rules, f->nodes, &g[k], buf, sizeof buf);
        }
        int j = 0;
        while (j < n && strcmp(names[j], buf) != 0) j++;
        if (j == n && n < 64) {
            snprintf(names[n++], sizeof names[0], "%s", buf);
        }
        counts[j]++;
    }
    ASSERT_EQ_INT(n, f->n_names);
    for (int i = 0; i < f->n_names; i++) {
        int j = 0;
        while (j < n && strcmp(names[j], f->names[i]) != 0) j++;
        if (j == n) TEST_FAIL_("perf logger group %s not made", f->names[i]);
        if (counts[j] != f->counts[i]) TEST_FAIL_("%s: %d groups, perf logger %d", f->names[i], counts[j], f->counts[i]);
    }
    return 0;
}

static int run_fixture(const char *file, bool labels) {
    static fixture f;
    if (fixture_load(&f, file)) return 1;
    ASSERT_GT_INT(f.n_nodes, 50);
    ASSERT_GT_INT(f.n_items, 30);
    ASSERT_GT_INT(f.n_names, 5);
    if (!labels) {
        for (int k = 0; k < f.n_items; k++) f.items[k].label = NULL;
    }
    static opscope_gpu_group g[MAXN + 1];
    int ng = opscope_gpu_map(opscope_gpu_rules_for("vulkan"), f.nodes, f.n_nodes, f.items, f.n_items, g, MAXN + 1);
    ASSERT_GT_INT(ng, 0);
    int rc = check_cover(&f, g, ng) || check_names(&f, g, ng);
    free(f.buf);
    return rc;
}

static int test_dense_labels(void) { return run_fixture("vk_decode_dense_f32.txt", true); }
static int test_dense_names_only(void) { return run_fixture("vk_decode_dense_f32.txt", false); }
static int test_moe_labels(void) { return run_fixture("vk_decode_moe_q4_0.txt", true); }
static int test_moe_names_only(void) { return run_fixture("vk_decode_moe_q4_0.txt", false); }

/* ---- hand-made streams ---- */

#define N(op_, name_) {op_, name_, NULL, false}
#define E(op_) {op_, NULL, NULL, true}
#define D(name_) {0, 0, 0, 0, name_, NULL, 0, 0, 0, OPSCOPE_GPU_ITEM_DISPATCH, 0, 0}
#define L(name_, label_, id_) {0, 0, 0, 0, name_, label_, id_, 0, 0, OPSCOPE_GPU_ITEM_DISPATCH, 0, 0}

/* quantize_q8_1 goes with the matrix product after it, split_k_reduce with the one before. */
static int test_helpers(void) {
    opscope_gpu_node nodes[] = {N("RMS_NORM", "n"), N("MUL_MAT", "a"), N("MUL_MAT", "b"), N("ADD", "c")};
    opscope_gpu_item items[] = {D("rms_norm_f32"), D("quantize_q8_1"), D("mul_mat_vec_q4_0_q8_1_f32"),
                                D("matmul_f32_f32"), D("split_k_reduce"), D("add_f32_f32_f32")};
    opscope_gpu_group g[8];
    int ng = opscope_gpu_map(opscope_gpu_rules_for("vulkan"), nodes, 4, items, 6, g, 8);
    ASSERT_EQ_INT(ng, 4);
    ASSERT_EQ_INT(g[1].main, 1);
    ASSERT_EQ_INT(g[1].item0, 1);
    ASSERT_EQ_INT(g[1].n_items, 2);
    ASSERT_EQ_INT(g[2].item0, 3);
    ASSERT_EQ_INT(g[2].n_items, 2);
    ASSERT_EQ_INT(g[3].main, 3);
    return 0;
}

/* A fused kernel takes the nodes it jumped over (views included in the range, named by the
 * perf logger's rules); "mul_mat_vec" is MUL_MAT even though "mul" names MUL too. */
static int test_fusion_and_longest_prefix(void) {
    opscope_gpu_node nodes[] = {N("RMS_NORM", "n"), N("MUL", "m"),  N("MUL_MAT", "q"), N("ADD", "b"),
                                {"GLU", "g", "SWIGLU", false}, E("VIEW"), N("ADD", "x"), N("ADD", "y")};
    opscope_gpu_item items[] = {D("rms_norm_mul_f32"), D("mul_mat_vec_f32_f32_f32"), D("swiglu_f32"),
                                D("multi_add_f32_2")};
    opscope_gpu_group g[8];
    const opscope_gpu_rules *r = opscope_gpu_rules_for("vulkan");
    int ng = opscope_gpu_map(r, nodes, 8, items, 4, g, 8);
    ASSERT_EQ_INT(ng, 4);
    ASSERT_EQ_INT(g[0].first, 0);
    ASSERT_EQ_INT(g[0].last, 1);
    ASSERT_EQ_INT(g[1].main, 2);
    ASSERT_EQ_INT(g[1].last, 3);
    ASSERT_EQ_INT(g[2].main, 4);
    ASSERT_EQ_INT(g[2].last, 4);
    ASSERT_EQ_INT(g[3].first, 6);
    ASSERT_EQ_INT(g[3].last, 7);
    char buf[64];
    opscope_gpu_group_name(r, nodes, &g[0], buf, sizeof buf);
    ASSERT_EQ_STR(buf, "RMS_NORM_MUL");
    opscope_gpu_group_name(r, nodes, &g[1], buf, sizeof buf);
    ASSERT_EQ_STR(buf, "MUL_MAT_ADD");
    opscope_gpu_group_name(r, nodes, &g[3], buf, sizeof buf);
    ASSERT_EQ_STR(buf, "MULTI_ADD");
    return 0;
}

/* ggml-vulkan names a fused UNARY+MUL and the sigmoid top-k MoE routing after the UNARY's
 * function (its fusion_string); any other function gets the remaining name. */
static int test_sub_op_fusion_names(void) {
    static const char *const subs[] = {"SILU", "GELU", "SIGMOID", "SOFTPLUS", "GELU_QUICK"};
    static const char *const want[] = {"SILU_MUL", "GELU_MUL", "SIGMOID_MUL", "SOFTPLUS_MUL", "SOFTPLUS_MUL"};
    const opscope_gpu_rules *r = opscope_gpu_rules_for("vulkan");
    char buf[64];
    for (int i = 0; i < 5; i++) {
        opscope_gpu_node nodes[] = {{"UNARY", "u", subs[i], false}, N("MUL", "m")};
        opscope_gpu_group g = {.first = 0, .last = 1, .main = 0};
        opscope_gpu_group_name(r, nodes, &g, buf, sizeof buf);
        ASSERT_EQ_STR(buf, want[i]);
    }
    opscope_gpu_node moe[] = {{"UNARY", "s", "SIGMOID", false}, N("ADD", "b"), N("ARGSORT", "a"),
                              N("VIEW", "v"), N("GET_ROWS", "w")};
    opscope_gpu_group g = {.first = 0, .last = 4, .main = 2};
    opscope_gpu_group_name(r, moe, &g, buf, sizeof buf);
    ASSERT_EQ_STR(buf, "TOPK_MOE_SIGMOID_NORM_BIAS");
    moe[0].sub = "SOFTPLUS";
    opscope_gpu_group_name(r, moe, &g, buf, sizeof buf);
    ASSERT_EQ_STR(buf, "TOPK_MOE_SQRT_SOFTPLUS_NORM_BIAS");
    return 0;
}

/* Nodes sharing one label text (test-backend-ops repeats a node) are told apart by the
 * label's openings; a node whose label opens again (its recording went on in a new command
 * buffer) stays one group. */
static int test_label_openings(void) {
    opscope_gpu_node nodes[] = {N("ADD", "out"), N("ADD", "out"), N("FLASH_ATTN_EXT", "fa"), N("ADD", "z")};
    opscope_gpu_item items[] = {L("add_f32", "ADD out", 1), L("add_f32", "ADD out", 2),
                                L("flash_attn_f32_f16", "FLASH_ATTN_EXT fa", 3),
                                L("fa_split_k_reduce", "FLASH_ATTN_EXT fa", 4), L("add_f32", "ADD z", 5)};
    opscope_gpu_group g[8];
    int ng = opscope_gpu_map(opscope_gpu_rules_for("vulkan"), nodes, 4, items, 5, g, 8);
    ASSERT_EQ_INT(ng, 4);
    ASSERT_EQ_INT(g[0].main, 0);
    ASSERT_EQ_INT(g[1].main, 1);
    ASSERT_EQ_INT(g[2].main, 2);
    ASSERT_EQ_INT(g[2].n_items, 2);
    ASSERT_EQ_INT(g[3].main, 3);
    return 0;
}

/* A program whose kernels name nothing the rules or the graph know: one group, nothing lost. */
static int test_unknown_names(void) {
    opscope_gpu_node nodes[] = {E("VIEW"), N("MUL_MAT", "a"), N("ADD", "b")};
    opscope_gpu_item items[] = {D("pipeline 0x1234"), D("pipeline 0x5678")};
    opscope_gpu_group g[4];
    int ng = opscope_gpu_map(opscope_gpu_rules_for("vulkan"), nodes, 3, items, 2, g, 4);
    ASSERT_EQ_INT(ng, 1);
    ASSERT_EQ_INT(g[0].first, 1);
    ASSERT_EQ_INT(g[0].last, 2);
    ASSERT_EQ_INT(g[0].n_items, 2);
    ASSERT_EQ_INT(opscope_gpu_map(NULL, nodes, 3, items, 0, g, 4), 0);
    return 0;
}

/* A shared interval split by output bytes, slices tiling it; runs apart; zero weights: equal. */
static int test_split_shared(void) {
    uint64_t s[6] = {100, 200, 200, 200, 900, 900}, e[6] = {200, 800, 800, 800, 1000, 1000};
    uint64_t w[6] = {5, 1, 2, 3, 0, 0};
    opscope_gpu_split_shared(s, e, w, 6);
    uint64_t ws[6] = {100, 200, 300, 500, 900, 950}, we[6] = {200, 300, 500, 800, 950, 1000};
    for (int i = 0; i < 6; i++) {
        ASSERT_EQ_U64(s[i], ws[i]);
        ASSERT_EQ_U64(e[i], we[i]);
    }
    return 0;
}

TEST_MAIN(TEST(test_split_shared), TEST(test_dense_labels), TEST(test_dense_names_only), TEST(test_moe_labels), TEST(test_moe_names_only),
          TEST(test_helpers), TEST(test_fusion_and_longest_prefix), TEST(test_label_openings),
          TEST(test_unknown_names), TEST(test_sub_op_fusion_names))
