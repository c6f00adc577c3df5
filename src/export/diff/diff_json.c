/* diff_json.c - `opscope diff --json`: the whole comparison as one JSON document. */
#include "export/diff/diff_report.h"
#include "export/fmt/json_fmt.h"
#include "export/kineto/kineto_report.h"

#include <math.h>
#include <string.h>

/* The member KEY: one side's totals (PATH NULL: "-"). */
static void side(opscope_jw *j, const char *key, const char *path, const opscope_diff_side_t *s, double units) {
    const opscope_diff_totals *t = opscope_diff_side_totals(s);
    opscope_jw_obj(j, key);
    opscope_jw_str(j, "path", path ? path : "-");
    opscope_jw_str(j, "format", t->trace ? "trace" : "ggml");
    opscope_jw_str(j, "profiler", t->profiler);
    opscope_jw_i64(j, "version", t->version);
    const opscope_jw_u64_kv counts[] = {
        {"records", t->n_records}, {"ops", t->n_ops}, {"copies", t->n_copies}, {"graphs", t->graphs},
        {"prefill_graphs", t->prefill_graphs}, {"decode_graphs", t->decode_graphs}, {"tokens", t->tokens},
        {"iterations", t->iterations}};
    opscope_jw_u64s(j, counts, sizeof counts / sizeof *counts);
    opscope_jw_double(j, "units", units);
    const opscope_jw_u64_kv times[] = {
        {"first_start_ns", t->first_start_ns}, {"last_end_ns", t->last_end_ns}, {"wall_ns", t->wall_ns},
        {"op_ns", t->op_ns}, {"copy_ns", t->copy_ns}, {"total_ns", t->total_ns},
        {"groups", opscope_diff_side_n_groups(s)}, {"phase_pending_dropped", t->phase_pending_dropped},
        {"runs_dropped", t->runs_dropped}, {"atoms_capped", t->atoms_capped}, {"runs", t->inputs}};
    opscope_jw_u64s(j, times, sizeof times / sizeof *times);
    if (t->windowed) { /* recorded in capture windows: the totals are over them alone */
        const opscope_jw_u64_kv win[] = {{"windows", t->windows}, {"window_ns", t->window_ns}};
        opscope_jw_bool(j, "windowed", true);
        opscope_jw_u64s(j, win, 2);
    }
    const opscope_kineto_t *k = opscope_diff_side_kineto(s);
    if (t->trace && k) { /* per-step durations, GPU busy/idle, top-level CPU time */
        opscope_jw_obj(j, "cpu_side");
        opscope_kineto_write_cpu_side(j, opscope_kineto_get_results(k));
        opscope_jw_end_obj(j);
    }
    opscope_jw_end_obj(j);
}

static void pair(opscope_jw *j, const char *k, double b, double n) {
    opscope_jw_obj(j, k);
    opscope_jw_double(j, "base_ns", b);
    opscope_jw_double(j, "new_ns", n);
    opscope_jw_double(j, "delta_ns", n - b);
    opscope_jw_double(j, "ratio", b > 0 ? n / b : NAN);
    opscope_jw_end_obj(j);
}

/* V, or null when V is negative (not set). */
static void double_or_null(opscope_jw *j, const char *key, double v) {
    if (v >= 0) opscope_jw_double(j, key, v);
    else opscope_jw_null(j, key);
}

static void group_side(opscope_jw *j, const char *p, const opscope_diff_group *g) {
    char k[32];
    snprintf(k, sizeof k, "%s_count", p);
    opscope_jw_u64(j, k, g ? g->count : 0);
    snprintf(k, sizeof k, "%s_calls", p);
    opscope_jw_u64(j, k, g ? g->calls : 0);
    snprintf(k, sizeof k, "%s_total_ns", p);
    opscope_jw_u64(j, k, g ? g->total_ns : 0);
    snprintf(k, sizeof k, "%s_min_ns", p);
    opscope_jw_u64(j, k, g ? g->min_ns : 0);
    snprintf(k, sizeof k, "%s_max_ns", p);
    opscope_jw_u64(j, k, g ? g->max_ns : 0);
    snprintf(k, sizeof k, "%s_mean_ns", p);
    opscope_jw_double(j, k, g ? opscope_moments_mean(&g->m) : 0);
    snprintf(k, sizeof k, "%s_stddev_ns", p);
    opscope_jw_double(j, k, g ? sqrt(opscope_moments_var(&g->m)) : 0);
    if (g && g->timed_computes) { /* sampled device timing: the estimate, marked by its key */
        snprintf(k, sizeof k, "%s_device_timed_computes", p);
        opscope_jw_u64(j, k, g->timed_computes);
        snprintf(k, sizeof k, "%s_computes", p);
        opscope_jw_u64(j, k, g->sampled_computes);
        snprintf(k, sizeof k, "%s_estimated_total_ns", p);
        opscope_jw_u64(j, k, g->est_ns);
    }
}

/* Work pairs: the kernels the group ran on one side ("base_kernels": [...]), if known. */
static void group_kernels(opscope_jw *j, const char *p, const opscope_diff_side_t *s,
                          const opscope_diff_group *g) {
    const opscope_diff_kernel *ks;
    size_t n = g ? opscope_diff_side_group_kernels(s, (size_t)(g - opscope_diff_side_group(s, 0)), &ks) : 0;
    if (!n) return;
    char k[32];
    snprintf(k, sizeof k, "%s_kernels", p);
    opscope_jw_arr(j, k);
    for (size_t i = 0; i < n; i++) {
        opscope_jw_item_obj(j);
        opscope_jw_str(j, "name", ks[i].name);
        opscope_jw_str(j, "type", ks[i].type == OPSCOPE_RECORD_COPY ? "copy" : "op");
        opscope_jw_u64(j, "count", ks[i].count);
        opscope_jw_u64(j, "total_ns", ks[i].total_ns);
        opscope_jw_end_obj(j);
    }
    opscope_jw_end_arr(j);
}

/* The options the comparison ran with: key, normalization, noise test, thresholds, filter. */
static void opts_json(opscope_jw *j, const opscope_diff_t *d, const opscope_diff_report_opts *o, const char *by) {
    const opscope_diff_opts *op = opscope_diff_get_opts(d);
    opscope_jw_str(j, "by", by);
    opscope_jw_bool(j, "merged_backends", opscope_diff_merged_backends(d));
    opscope_jw_obj(j, "normalization");
    opscope_jw_str(j, "unit", opscope_diff_norm_name(opscope_diff_norm_used(d)));
    opscope_jw_bool(j, "auto", op->norm == OPSCOPE_DIFF_NORM_AUTO);
    opscope_jw_double(j, "base_units", opscope_diff_units(d, 0));
    opscope_jw_double(j, "new_units", opscope_diff_units(d, 1));
    opscope_jw_end_obj(j);
    static const char *const tests[] = {"welch_t_runs", "welch_t_graphs", "welch_t_calls"};
    opscope_jw_obj(j, "noise");
    opscope_jw_str(j, "test", tests[opscope_diff_noise_used(d)]);
    opscope_jw_double(j, "alpha", op->alpha);
    opscope_jw_double(j, "alpha_per_check", opscope_diff_alpha_check(d));
    opscope_jw_bool(j, "total_tested", opscope_diff_total_tested(d));
    opscope_jw_end_obj(j);
    opscope_jw_double(j, "min_share_pct", op->min_share);
    double_or_null(j, "fail_on_regression_pct", op->fail_pct);
    opscope_jw_bool(j, "failed", opscope_diff_failed(d));
    if (o->filter) {
        opscope_jw_obj(j, "filter");
        opscope_jw_str(j, "select", o->filter);
        opscope_jw_u64(j, "base_kept", o->filter_kept[0]);
        opscope_jw_u64(j, "base_records", o->filter_records[0]);
        opscope_jw_u64(j, "new_kept", o->filter_kept[1]);
        opscope_jw_u64(j, "new_records", o->filter_records[1]);
        opscope_jw_end_obj(j);
    }
}

/* One row of the "groups" member. */
static void row_json(opscope_jw *j, const opscope_diff_t *d, const opscope_diff_row *r, const char *by) {
    const opscope_diff_group *g = r->newg ? r->newg : r->base;
    opscope_jw_nl(j);
    opscope_jw_item_obj(j);
    opscope_jw_str(j, "name", r->name);
    opscope_jw_str(j, "by", by);
    opscope_jw_obj(j, "key");
    const char *parts[][2] = {{"op", g->op},           {"backend", g->backend},
                              {"shape", g->shape},     {"category", g->category},
                              {"cpu_op", g->cpu_op},   {"layer", g->layer},
                              {"phase", g->phase}};
    for (size_t k = 0; k < sizeof parts / sizeof *parts; k++)
        if (parts[k][1]) opscope_jw_str(j, parts[k][0], parts[k][1]);
    opscope_jw_end_obj(j);
    opscope_jw_str(j, "status", r->status == OPSCOPE_DIFF_BOTH        ? "both"
                                : r->status == OPSCOPE_DIFF_ONLY_BASE ? "only_base"
                                                                      : "only_new");
    group_side(j, "base", r->base);
    group_side(j, "new", r->newg);
    opscope_jw_double(j, "base_norm_ns", r->base_ns);
    opscope_jw_double(j, "new_norm_ns", r->new_ns);
    opscope_jw_double(j, "delta_ns", r->delta_ns);
    opscope_jw_double(j, "delta_pct", r->base_ns > 0 ? 100.0 * r->delta_ns / r->base_ns : NAN);
    opscope_jw_double(j, "ratio", r->ratio);
    opscope_jw_double(j, "base_share_pct", r->base_share);
    opscope_jw_double(j, "new_share_pct", r->new_share);
    double_or_null(j, "p_value", r->p_value);
    opscope_jw_bool(j, "significant", r->significant);
    opscope_jw_bool(j, "shown", r->shown);
    opscope_jw_bool(j, "regression", r->regression);
    group_kernels(j, "base", opscope_diff_base(d), r->base);
    group_kernels(j, "new", opscope_diff_newer(d), r->newg);
    opscope_diff_threads_row_json(j, d, r);
    opscope_jw_end_obj(j);
}

static void fusion_json(opscope_jw *j, const opscope_diff_fusion *f) {
    opscope_jw_nl(j);
    opscope_jw_item_obj(j);
    opscope_jw_str(j, "kind", f->kind == OPSCOPE_DIFF_FUSION_GGML ? "ggml" : "cpu_op");
    opscope_jw_str(j, "name", f->name);
    opscope_jw_u64(j, "base_calls", f->base_calls);
    opscope_jw_u64(j, "base_kernels", f->base_kernels);
    opscope_jw_double(j, "base_ns", f->base_ns);
    opscope_jw_u64(j, "new_calls", f->new_calls);
    opscope_jw_u64(j, "new_kernels", f->new_kernels);
    opscope_jw_double(j, "new_ns", f->new_ns);
    opscope_jw_double(j, "delta_ns", f->delta_ns);
    if (f->kernel) opscope_jw_str(j, "kernel", f->kernel);
    opscope_jw_end_obj(j);
}

void opscope_diff_write_json(opscope_out_t *w, const opscope_diff_t *d,
                             const opscope_diff_report_opts *o) {
    const opscope_diff_opts *op = opscope_diff_get_opts(d);
    const opscope_diff_summary *sm = opscope_diff_get_summary(d);
    char by[128];
    opscope_diff_keys_name(op->keys, by, sizeof by);
    if (op->by) snprintf(by, sizeof by, "%s", op->by);
    opscope_jw j = opscope_jw_object(w);
    opscope_jw_str(&j, "format", "opscope-diff");
    opscope_jw_i64(&j, "version", 1);
    opscope_jw_str(&j, "generator", "opscope " OPSCOPE_VERSION_STRING);
    opts_json(&j, d, o, by);
    opscope_diff_apart_write_json(w, &o->apart);
    opscope_jw_nl(&j);
    side(&j, "base", o->base_path, opscope_diff_base(d), opscope_diff_units(d, 0));
    opscope_jw_nl(&j);
    side(&j, "new", o->new_path, opscope_diff_newer(d), opscope_diff_units(d, 1));
    opscope_jw_nl(&j);
    opscope_jw_obj(&j, "totals");
    pair(&j, "wall", sm->base_wall, sm->new_wall);
    pair(&j, "op", sm->base_op, sm->new_op);
    pair(&j, "copy", sm->base_copy, sm->new_copy);
    pair(&j, "total", sm->base_total, sm->new_total);
    opscope_jw_bool(&j, "total_regression", sm->total_regression);
    opscope_jw_end_obj(&j);
    opscope_diff_threads_write_json(&j, d);
    opscope_jw_nl(&j);
    opscope_jw_obj(&j, "summary");
    const opscope_jw_u64_kv summary[] = {
        {"groups", opscope_diff_n_rows(d)}, {"both", sm->n_both}, {"only_base", sm->n_only_base},
        {"only_new", sm->n_only_new}, {"not_significant", sm->n_not_significant},
        {"below_min_share", sm->n_hidden}, {"regressions", sm->n_regressions}};
    opscope_jw_u64s(&j, summary, sizeof summary / sizeof *summary);
    opscope_jw_end_obj(&j);
    opscope_jw_nl(&j);
    opscope_jw_arr(&j, "groups");
    for (size_t i = 0; i < opscope_diff_n_rows(d); i++) row_json(&j, d, opscope_diff_row_get(d, i), by);
    opscope_jw_end_arr(&j);
    opscope_jw_nl(&j);
    opscope_jw_arr(&j, "fusion");
    for (size_t i = 0; i < opscope_diff_n_fusions(d); i++) fusion_json(&j, opscope_diff_fusion_get(d, i));
    opscope_jw_end_arr(&j);
    opscope_diff_tests_write_json(w, o);
    opscope_diff_requests_write_json(w, o);
    opscope_diff_trace_ops_write_json(w, o);
    opscope_jw_end_obj(&j);
    opscope_out_char(w, '\n');
}
