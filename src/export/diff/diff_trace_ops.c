/* diff_trace_ops.c - the trace ops by step (analyze/diff/trace_ops.h) in diff's console, text
 * and JSON (see diff_report.h). */
#include "export/diff/diff_report.h"

#include "analyze/diff/trace_ops.h"
#include "analyze/record/kernel_name.h"

#include <inttypes.h>
#include <stdio.h>

#define TRACE_OPS_CONSOLE 15

/* The steps of side K as "1009-1014" (a run of consecutive numbers) or "1009, 1011, ...". */
static void steps_text(opscope_out_t *w, const int64_t *v, size_t n) {
    if (!n) {
        opscope_out_str(w, "whole trace (no profiler steps)");
        return;
    }
    bool run = true;
    for (size_t i = 1; i < n; i++) run &= v[i] == v[i - 1] + 1;
    if (run && n > 1) opscope_out_printf(w, "steps %" PRId64 "-%" PRId64, v[0], v[n - 1]);
    else opscope_out_printf(w, "step%s %" PRId64, n > 1 ? "s" : "", v[0]);
    for (size_t i = 1; !run && i < n && i < 8; i++) opscope_out_printf(w, ", %" PRId64, v[i]);
    if (!run && n > 8) opscope_out_printf(w, ", ... (%zu)", n);
}

static void side_text(opscope_out_t *w, const char *what, const opscope_trace_op_pair *p, size_t n, size_t limit,
                      bool console) {
    size_t plus = 0, minus = 0, same = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i].count[1] > p[i].count[0]) plus++;
        else if (p[i].count[1] < p[i].count[0]) minus++;
        else same++;
    }
    opscope_out_printf(w, "\n  %s: %zu names; count + %zu, - %zu, = %zu\n", what, n, plus, minus, same);
    if (!n) return;
    opscope_out_str(w, "      delta time  BASE count   BASE time   NEW count    NEW time  name\n");
    for (size_t i = 0; i < n && (!limit || i < limit); i++) {
        char d[32], b[32], c[32];
        opscope_fmt_time(d, sizeof d, (double)p[i].ns[1] - (double)p[i].ns[0], true);
        opscope_fmt_time(b, sizeof b, (double)p[i].ns[0], false);
        opscope_fmt_time(c, sizeof c, (double)p[i].ns[1], false);
        char sh[64];
        const char *name = p[i].name;
        if (console) name = opscope_kernel_name_short(sh, sizeof sh, name) ? sh : name;
        opscope_out_printf(w, "  %14s  %10" PRIu64 "  %10s  %10" PRIu64 "  %10s  %s\n", d, p[i].count[0], b,
                           p[i].count[1], c, name);
    }
    if (limit && n > limit) opscope_out_printf(w, "  ... %zu more (--text, --json: every name)\n", n - limit);
}

void opscope_diff_trace_ops_write_text(opscope_out_t *w, const opscope_diff_report_opts *o, bool console) {
    const opscope_trace_ops_cmp *c = o->trace_ops;
    if (!c) return;
    opscope_out_str(w, "\nTrace ops by step (HTA's compare_traces: count and summed time per name), BASE ");
    steps_text(w, c->steps[0], c->n_steps[0]);
    opscope_out_str(w, ", NEW ");
    steps_text(w, c->steps[1], c->n_steps[1]);
    opscope_out_char(w, '\n');
    size_t limit = console ? (o->top ? o->top : TRACE_OPS_CONSOLE) : 0;
    side_text(w, "CPU side (cpu_op, user_annotation, python_function, runtime calls)", c->cpu, c->n_cpu, limit, console);
    side_text(w, "GPU side (kernels, memcpys, memsets; step of the launching call)", c->gpu, c->n_gpu, limit, console);
}

static void pairs_json(opscope_jw *j, const char *key, const opscope_trace_op_pair *p, size_t n) {
    opscope_jw_nl(j);
    opscope_jw_arr(j, key);
    for (size_t i = 0; i < n; i++) {
        opscope_jw_nl(j);
        opscope_jw_item_obj(j);
        opscope_jw_str(j, "name", p[i].name);
        const opscope_jw_u64_kv kv[] = {{"base_count", p[i].count[0]}, {"base_ns", p[i].ns[0]},
                                        {"new_count", p[i].count[1]}, {"new_ns", p[i].ns[1]}};
        opscope_jw_u64s(j, kv, sizeof kv / sizeof *kv);
        opscope_jw_end_obj(j);
    }
    opscope_jw_end_arr(j);
}

void opscope_diff_trace_ops_write_json(opscope_out_t *w, const opscope_diff_report_opts *o) {
    const opscope_trace_ops_cmp *c = o->trace_ops;
    if (!c) return;
    opscope_jw j = opscope_jw_resume(w);
    opscope_jw_nl(&j);
    opscope_jw_obj(&j, "trace_ops");
    opscope_jw_bool(&j, "steps_chosen", c->chosen);
    const char *sides[2] = {"base_steps", "new_steps"};
    for (int k = 0; k < 2; k++) {
        opscope_jw_arr(&j, sides[k]);
        for (size_t i = 0; i < c->n_steps[k]; i++) opscope_jw_item_i64(&j, c->steps[k][i]);
        opscope_jw_end_arr(&j);
    }
    pairs_json(&j, "cpu", c->cpu, c->n_cpu);
    pairs_json(&j, "gpu", c->gpu, c->n_gpu);
    opscope_jw_end_obj(&j);
}
