/* diff_tests.c - diff's Tests section: llama-bench tests paired by model file name, n_prompt
 * and n_gen, their tokens/s side by side (docs/diff.md, "Tests"). */
#include "export/diff/diff_report.h"
#include "export/fmt/json_fmt.h"
#include "analyze/ggml/run_tests.h"

#include <string.h>

static const char *base_name(const char *p) {
    const char *b = p ? strrchr(p, '/') : NULL;
    return b ? b + 1 : p ? p : "?";
}

static bool same_test(const opscope_run_test *a, const opscope_run_test *b) {
    return a->n_prompt == b->n_prompt && a->n_gen == b->n_gen &&
           !strcmp(base_name(a->model), base_name(b->model));
}

/* The pairs: for BASE's test i, *NEW_OF[i] the index of its NEW test or -1; USED marks the
 * NEW tests paired. Up to 256 tests a side are paired (more are listed alone). */
enum { MAX_TESTS = 256 };

/* One pair's row (B or N NULL: the test of one side alone), onto CTX. */
typedef void (*row_fn)(void *ctx, const opscope_run_test *b, const opscope_run_test *n);

static void pairs(void *ctx, const opscope_diff_report_opts *o, row_fn row) {
    bool used[MAX_TESTS] = {false};
    for (size_t i = 0; i < o->n_tests[0]; i++) {
        const opscope_run_test *b = &o->tests[0][i], *n = NULL;
        for (size_t j = 0; j < o->n_tests[1] && j < MAX_TESTS && !n; j++)
            if (!used[j] && same_test(b, &o->tests[1][j])) {
                used[j] = true;
                n = &o->tests[1][j];
            }
        row(ctx, b, n);
    }
    for (size_t j = 0; j < o->n_tests[1]; j++)
        if (j >= MAX_TESTS || !used[j]) row(ctx, NULL, &o->tests[1][j]);
}

static void test_name(const opscope_run_test *t, char *buf, size_t size) {
    if (t->n_prompt && t->n_gen)
        snprintf(buf, size, "pp%lld+tg%lld", (long long)t->n_prompt, (long long)t->n_gen);
    else if (t->n_prompt) snprintf(buf, size, "pp%lld", (long long)t->n_prompt);
    else snprintf(buf, size, "tg%lld", (long long)t->n_gen);
}

static void text_row(void *ctx, const opscope_run_test *b, const opscope_run_test *n) {
    opscope_out_t *w = ctx;
    const opscope_run_test *t = b ? b : n;
    char name[48], bts[32] = "-", nts[32] = "-", chg[32] = "";
    test_name(t, name, sizeof name);
    if (b) snprintf(bts, sizeof bts, "%.2f", b->avg_ts);
    if (n) snprintf(nts, sizeof nts, "%.2f", n->avg_ts);
    if (b && n && b->avg_ts > 0) snprintf(chg, sizeof chg, "%+.1f%%", 100.0 * (n->avg_ts - b->avg_ts) / b->avg_ts);
    opscope_out_printf(w, " %-32.32s %-13s %14s %14s %9s\n", base_name(t->model), name, bts, nts, chg);
}

void opscope_diff_tests_write_text(opscope_out_t *w, const opscope_diff_report_opts *o) {
    if (!o->n_tests[0] || !o->n_tests[1]) return;
    opscope_out_str(w, "\n --- Tests (llama-bench; t/s: mean over repetitions, as its avg_ts; paired by model file, n_prompt, n_gen) ---\n");
    opscope_out_printf(w, " %-32s %-13s %14s %14s %9s\n", "model", "test", "BASE t/s", "NEW t/s", "change");
    pairs(w, o, text_row);
}

/* The member KEY: T's side of a pair (NULL: null). */
static void json_side(opscope_jw *j, const char *key, const opscope_run_test *t) {
    if (!opscope_jw_obj_or_null(j, key, t)) return;
    opscope_jw_g17(j, "avg_ts", t->avg_ts);
    opscope_jw_g17(j, "stddev_ts", t->stddev_ts);
    opscope_jw_u64(j, "reps", t->n_reps);
    opscope_jw_u64(j, "op_ns", t->op_ns);
    opscope_jw_end_obj(j);
}

/* A pair as an item of the "tests" array (CTX: its writer), a line each after the first. */
static void json_row(void *ctx, const opscope_run_test *b, const opscope_run_test *n) {
    opscope_jw *j = ctx;
    const opscope_run_test *t = b ? b : n;
    if (j->comma) opscope_jw_nl(j);
    opscope_jw_item_obj(j);
    opscope_jw_str(j, "model", base_name(t->model));
    opscope_jw_i64(j, "n_prompt", t->n_prompt);
    opscope_jw_i64(j, "n_gen", t->n_gen);
    json_side(j, "base", b);
    json_side(j, "new", n);
    if (b && n && b->avg_ts > 0) opscope_jw_g17(j, "ts_change", (n->avg_ts - b->avg_ts) / b->avg_ts);
    opscope_jw_end_obj(j);
}

void opscope_diff_tests_write_json(opscope_out_t *w, const opscope_diff_report_opts *o) {
    if (!o->n_tests[0] || !o->n_tests[1]) return;
    opscope_jw j = opscope_jw_resume(w);
    opscope_jw_nl(&j);
    opscope_jw_arr(&j, "tests");
    pairs(&j, o, json_row);
    opscope_jw_end_arr(&j);
}
