/* diff_json.c - `opscope diff --json`: the whole comparison as one JSON document. */
#include "export/diff/diff_report.h"
#include "export/kineto/kineto_report.h"

#include <math.h>
#include <string.h>

static void key_str(opscope_out_t *w, const char *k, const char *v, bool first) {
    opscope_out_str(w, first ? "\"" : ",\"");
    opscope_out_str(w, k);
    opscope_out_str(w, "\":");
    opscope_out_json_str(w, v);
}

static void key_u64(opscope_out_t *w, const char *k, uint64_t v) {
    opscope_out_str(w, ",\"");
    opscope_out_str(w, k);
    opscope_out_str(w, "\":");
    opscope_out_u64(w, v);
}

static void key_dbl(opscope_out_t *w, const char *k, double v) {
    opscope_out_str(w, ",\"");
    opscope_out_str(w, k);
    opscope_out_str(w, "\":");
    opscope_out_double(w, v);
}

static void key_bool(opscope_out_t *w, const char *k, bool v) {
    opscope_out_str(w, ",\"");
    opscope_out_str(w, k);
    opscope_out_str(w, v ? "\":true" : "\":false");
}

static void side(opscope_out_t *w, const char *path, const opscope_diff_side_t *s, double units) {
    const opscope_diff_totals *t = opscope_diff_side_totals(s);
    opscope_out_char(w, '{');
    key_str(w, "path", path ? path : "-", true);
    key_str(w, "format", t->trace ? "trace" : "ggml", false);
    key_str(w, "profiler", t->profiler, false);
    opscope_out_str(w, ",\"version\":");
    opscope_out_i64(w, t->version);
    key_u64(w, "records", t->n_records);
    key_u64(w, "ops", t->n_ops);
    key_u64(w, "copies", t->n_copies);
    key_u64(w, "graphs", t->graphs);
    key_u64(w, "prefill_graphs", t->prefill_graphs);
    key_u64(w, "decode_graphs", t->decode_graphs);
    key_u64(w, "tokens", t->tokens);
    key_u64(w, "iterations", t->iterations);
    key_dbl(w, "units", units);
    key_u64(w, "first_start_ns", t->first_start_ns);
    key_u64(w, "last_end_ns", t->last_end_ns);
    key_u64(w, "wall_ns", t->wall_ns);
    key_u64(w, "op_ns", t->op_ns);
    key_u64(w, "copy_ns", t->copy_ns);
    key_u64(w, "total_ns", t->total_ns);
    key_u64(w, "groups", opscope_diff_side_n_groups(s));
    key_u64(w, "phase_pending_dropped", t->phase_pending_dropped);
    key_u64(w, "runs_dropped", t->runs_dropped);
    key_u64(w, "atoms_capped", t->atoms_capped);
    key_u64(w, "runs", t->inputs);
    const opscope_kineto_t *k = opscope_diff_side_kineto(s);
    if (t->trace && k) { /* per-step durations, GPU busy/idle, top-level CPU time */
        opscope_out_str(w, ",\"cpu_side\":{");
        opscope_kineto_write_cpu_side(w, opscope_kineto_get_results(k));
        opscope_out_char(w, '}');
    }
    opscope_out_char(w, '}');
}

static void pair(opscope_out_t *w, const char *k, double b, double n, bool first) {
    opscope_out_str(w, first ? "\"" : ",\"");
    opscope_out_str(w, k);
    opscope_out_str(w, "\":{\"base_ns\":");
    opscope_out_double(w, b);
    opscope_out_str(w, ",\"new_ns\":");
    opscope_out_double(w, n);
    opscope_out_str(w, ",\"delta_ns\":");
    opscope_out_double(w, n - b);
    opscope_out_str(w, ",\"ratio\":");
    opscope_out_double(w, b > 0 ? n / b : NAN);
    opscope_out_char(w, '}');
}

static void group_side(opscope_out_t *w, const char *p, const opscope_diff_group *g) {
    char k[32];
    snprintf(k, sizeof k, "%s_count", p);
    key_u64(w, k, g ? g->count : 0);
    snprintf(k, sizeof k, "%s_calls", p);
    key_u64(w, k, g ? g->calls : 0);
    snprintf(k, sizeof k, "%s_total_ns", p);
    key_u64(w, k, g ? g->total_ns : 0);
    snprintf(k, sizeof k, "%s_min_ns", p);
    key_u64(w, k, g ? g->min_ns : 0);
    snprintf(k, sizeof k, "%s_max_ns", p);
    key_u64(w, k, g ? g->max_ns : 0);
    snprintf(k, sizeof k, "%s_mean_ns", p);
    key_dbl(w, k, g ? opscope_moments_mean(&g->m) : 0);
    snprintf(k, sizeof k, "%s_stddev_ns", p);
    key_dbl(w, k, g ? sqrt(opscope_moments_var(&g->m)) : 0);
    if (g && g->timed_computes) { /* sampled device timing: the estimate, marked by its key */
        snprintf(k, sizeof k, "%s_device_timed_computes", p);
        key_u64(w, k, g->timed_computes);
        snprintf(k, sizeof k, "%s_computes", p);
        key_u64(w, k, g->sampled_computes);
        snprintf(k, sizeof k, "%s_estimated_total_ns", p);
        key_u64(w, k, g->est_ns);
    }
}

/* Work pairs: the kernels the group ran on one side ("base_kernels": [...]), if known. */
static void group_kernels(opscope_out_t *w, const char *p, const opscope_diff_side_t *s,
                          const opscope_diff_group *g) {
    const opscope_diff_kernel *ks;
    size_t n = g ? opscope_diff_side_group_kernels(s, (size_t)(g - opscope_diff_side_group(s, 0)), &ks) : 0;
    if (!n) return;
    opscope_out_str(w, ",\"");
    opscope_out_str(w, p);
    opscope_out_str(w, "_kernels\":[");
    for (size_t i = 0; i < n; i++) {
        opscope_out_str(w, i ? ",{" : "{");
        key_str(w, "name", ks[i].name, true);
        key_str(w, "type", ks[i].type == OPSCOPE_RECORD_COPY ? "copy" : "op", false);
        key_u64(w, "count", ks[i].count);
        key_u64(w, "total_ns", ks[i].total_ns);
        opscope_out_char(w, '}');
    }
    opscope_out_char(w, ']');
}

void opscope_diff_write_json(opscope_out_t *w, const opscope_diff_t *d,
                             const opscope_diff_report_opts *o) {
    const opscope_diff_opts *op = opscope_diff_get_opts(d);
    const opscope_diff_summary *sm = opscope_diff_get_summary(d);
    opscope_diff_norm norm = opscope_diff_norm_used(d);
    char by[128];
    opscope_diff_keys_name(op->keys, by, sizeof by);
    if (op->by) snprintf(by, sizeof by, "%s", op->by);
    opscope_out_str(w, "{\"format\":\"opscope-diff\",\"version\":1,\"generator\":\"opscope " OPSCOPE_VERSION_STRING "\"");
    key_str(w, "by", by, false);
    key_bool(w, "merged_backends", opscope_diff_merged_backends(d));
    opscope_out_str(w, ",\"normalization\":{\"unit\":");
    opscope_out_json_str(w, opscope_diff_norm_name(norm));
    key_bool(w, "auto", op->norm == OPSCOPE_DIFF_NORM_AUTO);
    key_dbl(w, "base_units", opscope_diff_units(d, 0));
    key_dbl(w, "new_units", opscope_diff_units(d, 1));
    static const char *const tests[] = {"welch_t_runs", "welch_t_graphs", "welch_t_calls"};
    opscope_out_str(w, "},\"noise\":{\"test\":");
    opscope_out_json_str(w, tests[opscope_diff_noise_used(d)]);
    opscope_out_str(w, ",\"alpha\":");
    opscope_out_double(w, op->alpha);
    key_dbl(w, "alpha_per_check", opscope_diff_alpha_check(d));
    key_bool(w, "total_tested", opscope_diff_total_tested(d));
    opscope_out_str(w, "},\"min_share_pct\":");
    opscope_out_double(w, op->min_share);
    opscope_out_str(w, ",\"fail_on_regression_pct\":");
    if (op->fail_pct >= 0) opscope_out_double(w, op->fail_pct);
    else opscope_out_str(w, "null");
    key_bool(w, "failed", opscope_diff_failed(d));
    if (o->filter) {
        opscope_out_str(w, ",\"filter\":{");
        opscope_out_str(w, "\"select\":");
        opscope_out_json_str(w, o->filter);
        key_u64(w, "base_kept", o->filter_kept[0]);
        key_u64(w, "base_records", o->filter_records[0]);
        key_u64(w, "new_kept", o->filter_kept[1]);
        key_u64(w, "new_records", o->filter_records[1]);
        opscope_out_char(w, '}');
    }
    opscope_diff_apart_write_json(w, &o->apart);
    opscope_out_str(w, ",\n\"base\":");
    side(w, o->base_path, opscope_diff_base(d), opscope_diff_units(d, 0));
    opscope_out_str(w, ",\n\"new\":");
    side(w, o->new_path, opscope_diff_newer(d), opscope_diff_units(d, 1));
    opscope_out_str(w, ",\n\"totals\":{");
    pair(w, "wall", sm->base_wall, sm->new_wall, true);
    pair(w, "op", sm->base_op, sm->new_op, false);
    pair(w, "copy", sm->base_copy, sm->new_copy, false);
    pair(w, "total", sm->base_total, sm->new_total, false);
    key_bool(w, "total_regression", sm->total_regression);
    opscope_out_str(w, "},\n\"summary\":{\"groups\":");
    opscope_out_u64(w, opscope_diff_n_rows(d));
    key_u64(w, "both", sm->n_both);
    key_u64(w, "only_base", sm->n_only_base);
    key_u64(w, "only_new", sm->n_only_new);
    key_u64(w, "not_significant", sm->n_not_significant);
    key_u64(w, "below_min_share", sm->n_hidden);
    key_u64(w, "regressions", sm->n_regressions);
    opscope_out_str(w, "},\n\"groups\":[");
    for (size_t i = 0; i < opscope_diff_n_rows(d); i++) {
        const opscope_diff_row *r = opscope_diff_row_get(d, i);
        const opscope_diff_group *g = r->newg ? r->newg : r->base;
        opscope_out_str(w, i ? ",\n{" : "\n{");
        key_str(w, "name", r->name, true);
        key_str(w, "by", by, false);
        opscope_out_str(w, ",\"key\":{");
        const char *parts[][2] = {{"op", g->op},           {"backend", g->backend},
                                  {"shape", g->shape},     {"category", g->category},
                                  {"cpu_op", g->cpu_op},   {"layer", g->layer},
                                  {"phase", g->phase}};
        bool first = true;
        for (size_t k = 0; k < sizeof parts / sizeof *parts; k++) {
            if (!parts[k][1]) continue;
            key_str(w, parts[k][0], parts[k][1], first);
            first = false;
        }
        opscope_out_char(w, '}');
        key_str(w, "status", r->status == OPSCOPE_DIFF_BOTH ? "both"
                             : r->status == OPSCOPE_DIFF_ONLY_BASE ? "only_base" : "only_new",
                false);
        group_side(w, "base", r->base);
        group_side(w, "new", r->newg);
        key_dbl(w, "base_norm_ns", r->base_ns);
        key_dbl(w, "new_norm_ns", r->new_ns);
        key_dbl(w, "delta_ns", r->delta_ns);
        key_dbl(w, "delta_pct", r->base_ns > 0 ? 100.0 * r->delta_ns / r->base_ns : NAN);
        key_dbl(w, "ratio", r->ratio);
        key_dbl(w, "base_share_pct", r->base_share);
        key_dbl(w, "new_share_pct", r->new_share);
        opscope_out_str(w, ",\"p_value\":");
        if (r->p_value >= 0) opscope_out_double(w, r->p_value);
        else opscope_out_str(w, "null");
        key_bool(w, "significant", r->significant);
        key_bool(w, "shown", r->shown);
        key_bool(w, "regression", r->regression);
        group_kernels(w, "base", opscope_diff_base(d), r->base);
        group_kernels(w, "new", opscope_diff_newer(d), r->newg);
        opscope_out_char(w, '}');
    }
    opscope_out_str(w, "],\n\"fusion\":[");
    for (size_t i = 0; i < opscope_diff_n_fusions(d); i++) {
        const opscope_diff_fusion *f = opscope_diff_fusion_get(d, i);
        opscope_out_str(w, i ? ",\n{" : "\n{");
        key_str(w, "kind", f->kind == OPSCOPE_DIFF_FUSION_GGML ? "ggml" : "cpu_op", true);
        key_str(w, "name", f->name, false);
        key_u64(w, "base_calls", f->base_calls);
        key_u64(w, "base_kernels", f->base_kernels);
        key_dbl(w, "base_ns", f->base_ns);
        key_u64(w, "new_calls", f->new_calls);
        key_u64(w, "new_kernels", f->new_kernels);
        key_dbl(w, "new_ns", f->new_ns);
        key_dbl(w, "delta_ns", f->delta_ns);
        if (f->kernel) key_str(w, "kernel", f->kernel, false);
        opscope_out_char(w, '}');
    }
    opscope_out_str(w, "]");
    opscope_diff_tests_write_json(w, o);
    opscope_diff_requests_write_json(w, o);
    opscope_out_str(w, "}\n");
}
