/* cpu_ops_report.c - the CPU-op section of a Kineto trace's report (see cpu_ops_report.h). */
#include "export/kineto/cpu_ops_report.h"
#include "analyze/kineto/cpu_ops.h"
#include "export/fmt/json_fmt.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define NONE UINT32_MAX
#define NAME_W 44
#define SHAPE_W 40

bool opscope_cpu_ops_report_cpu_only(const opscope_kineto_t *k) {
    const opscope_kineto_results *r = opscope_kineto_get_results(k);
    const opscope_cpu_ops_results *c = opscope_cpu_ops_results_get(opscope_kineto_cpu_ops(k));
    return c->n_recs && !r->kernels && !r->memcpy_n && !r->memset_n;
}

static void ms(opscope_out_t *w, uint64_t ns, int width) {
    char b[40];
    snprintf(b, sizeof b, "%" PRIu64 ".%03" PRIu64, ns / 1000000, (ns / 1000) % 1000);
    opscope_out_printf(w, "%*s", width, b);
}

static void us(opscope_out_t *w, double ns, int width) {
    opscope_out_printf(w, "%*.1f", width, ns / 1000.0);
}

/* S padded or cut (in the middle, "...") to exactly WIDTH bytes. */
static void cell(opscope_out_t *w, const char *s, size_t width) {
    size_t n = strlen(s);
    if (n <= width) {
        opscope_out_str(w, s);
        for (; n < width; n++) opscope_out_char(w, ' ');
        return;
    }
    size_t head = (width - 3) / 2, tail = width - 3 - head;
    opscope_out_write(w, s, head);
    opscope_out_str(w, "...");
    opscope_out_write(w, s + n - tail, tail);
}

/* "[8,64]x[64] float,float" of a group, "" when the trace had neither. */
static void shape_text(char *b, size_t cap, const opscope_strtab_t *names, uint32_t dims, uint32_t types) {
    const char *d = dims != NONE ? opscope_strtab_get(names, dims) : "";
    const char *t = types != NONE ? opscope_strtab_get(names, types) : "";
    snprintf(b, cap, "%s%s%s", d, *d && *t ? " " : "", t);
}

static void groups_text(opscope_out_t *w, const opscope_kineto_t *k, size_t top, bool by_shape) {
    const opscope_cpu_ops_t *c = opscope_kineto_cpu_ops(k);
    const opscope_cpu_ops_results *r = opscope_cpu_ops_results_get(c);
    const opscope_strtab_t *names = opscope_kineto_names(k);
    const opscope_cpu_op_group *g = by_shape ? r->by_shape : r->by_name;
    size_t n = by_shape ? r->n_by_shape : r->n_by_name;
    bool gpu = opscope_kineto_get_results(k)->kernels != 0;
    opscope_out_printf(w, "\nCPU ops by self time (%s; %zu records on %zu threads)\n",
                       by_shape ? "by name and input shape" : "by name", r->n_recs, r->n_threads);
    opscope_out_str(w, "  self: time in the op itself; the self times add up to the threads' busy "
                       "time (nothing counted twice);\n  inclusive: with the ops nested in it (not "
                       "additive); avg/min/max: inclusive per call\n");
    if (gpu)
        opscope_out_str(w, "  GPU: the kernels this op launched itself (innermost CPU op), a "
                           "GPU-level sum beside the CPU one\n");
    opscope_out_printf(w, "  %-*s %8s %10s %6s %10s %9s %9s %9s", NAME_W, "name", "calls", "self ms",
                       "self%", "incl ms", "avg us", "min us", "max us");
    if (gpu) opscope_out_printf(w, " %10s", "GPU ms");
    opscope_out_str(w, "  shape\n");
    if (!top) top = 30;
    uint64_t rest_self = 0;
    size_t rest = 0;
    for (size_t i = 0; i < n; i++) {
        if (i >= top) {
            rest++;
            rest_self += g[i].self_ns;
            continue;
        }
        opscope_out_str(w, "  ");
        cell(w, opscope_cpu_ops_label(c, g[i].name), NAME_W);
        opscope_out_printf(w, " %8" PRIu64 " ", g[i].count);
        ms(w, g[i].self_ns, 10);
        opscope_out_printf(w, " %5.1f%% ", r->self_ns ? 100.0 * (double)g[i].self_ns / (double)r->self_ns : 0.0);
        ms(w, g[i].total_ns, 10);
        opscope_out_char(w, ' ');
        us(w, g[i].count ? (double)g[i].total_ns / (double)g[i].count : 0, 9);
        opscope_out_char(w, ' ');
        us(w, (double)g[i].min_ns, 9);
        opscope_out_char(w, ' ');
        us(w, (double)g[i].max_ns, 9);
        if (gpu) {
            opscope_out_char(w, ' ');
            ms(w, g[i].gpu_ns, 10);
        }
        char sh[512];
        shape_text(sh, sizeof sh, names, g[i].dims, g[i].types);
        if (*sh) {
            opscope_out_str(w, "  ");
            cell(w, sh, strlen(sh) < SHAPE_W ? strlen(sh) : SHAPE_W);
        }
        opscope_out_char(w, '\n');
    }
    if (rest) {
        opscope_out_printf(w, "  (%zu more groups: ", rest);
        ms(w, rest_self, 0);
        opscope_out_str(w, " ms self)\n");
    }
    opscope_out_str(w, "  total self ");
    ms(w, r->self_ns, 0);
    opscope_out_str(w, " ms (CPU level: the sum of every record's self time)");
    if (gpu) {
        uint64_t gk = 0;
        for (size_t i = 0; i < r->n_by_name; i++) gk += r->by_name[i].gpu_ns;
        opscope_out_str(w, "; GPU ");
        ms(w, gk, 0);
        opscope_out_str(w, " ms (kernel level: kernels linked to a CPU op)");
    }
    opscope_out_char(w, '\n');
    if (r->dropped)
        opscope_out_printf(w, "  %" PRIu64 " slices left out as torch does (profiler::_record_function_*, "
                              "aten::is_leaf..., and a lone child named as its parent)\n", r->dropped);
}

static void steps_text(opscope_out_t *w, const opscope_kineto_t *k) {
    const opscope_cpu_ops_t *c = opscope_kineto_cpu_ops(k);
    const opscope_cpu_ops_results *r = opscope_cpu_ops_results_get(c);
    if (!r->n_steps) return;
    opscope_out_str(w, "\nCPU ops per profiler step\n  step                       ms    records    self ms  top op by self time\n");
    for (size_t i = 0; i < r->n_steps; i++) {
        const opscope_cpu_step *s = &r->steps[i];
        if (i == 32) {
            opscope_out_printf(w, "  (%zu more steps)\n", r->n_steps - i);
            break;
        }
        opscope_out_str(w, "  ");
        cell(w, opscope_strtab_get(opscope_kineto_names(k), s->name), 20);
        ms(w, (uint64_t)(s->end_ns - s->start_ns), 10);
        opscope_out_printf(w, " %10" PRIu64 " ", s->records);
        ms(w, s->self_ns, 10);
        if (s->top_group != NONE) {
            opscope_out_str(w, "  ");
            opscope_out_str(w, opscope_cpu_ops_label(c, r->by_name[s->top_group].name));
            opscope_out_str(w, " (");
            ms(w, s->top_self_ns, 0);
            opscope_out_str(w, ")");
        }
        opscope_out_char(w, '\n');
    }
}

static void threads_text(opscope_out_t *w, const opscope_cpu_ops_results *r) {
    opscope_out_str(w, "\nCPU threads\n  pid/tid                  records  top-level    self ms    span ms\n");
    for (size_t i = 0; i < r->n_threads; i++) {
        const opscope_cpu_thread *t = &r->threads[i];
        char id[48];
        snprintf(id, sizeof id, "%" PRId64 "/%" PRId64, t->pid, t->tid);
        opscope_out_printf(w, "  %-22s %9" PRIu64 " %10" PRIu64 " ", id, t->records, t->top_level);
        ms(w, t->self_ns, 10);
        opscope_out_char(w, ' ');
        ms(w, (uint64_t)(t->last_ns - t->first_ns), 10);
        opscope_out_char(w, '\n');
    }
}

static void phases_text(opscope_out_t *w, const opscope_cpu_ops_results *r) {
    opscope_out_printf(w, "\nCPU time by phase (%s)\n  phase            records    self ms   share\n",
                       r->training ? "training: backward ops, optimizer and data-loading ranges, "
                                     "the rest of a step forward"
                                   : "no backward op or optimizer: phases only from named ranges");
    for (int p = 0; p < OPSCOPE_CPU_PHASE_COUNT; p++) {
        const opscope_cpu_phase_stats *s = &r->phase[p];
        if (!s->records) continue;
        opscope_out_printf(w, "  %-14s %9" PRIu64 " ", opscope_cpu_phase_name(p), s->records);
        ms(w, s->self_ns, 10);
        opscope_out_printf(w, " %6.1f%%\n", r->self_ns ? 100.0 * (double)s->self_ns / (double)r->self_ns : 0.0);
    }
}

void opscope_cpu_ops_report_write(opscope_out_t *w, const opscope_kineto_t *k, size_t top, bool by_shape) {
    const opscope_cpu_ops_results *r = opscope_cpu_ops_results_get(opscope_kineto_cpu_ops(k));
    if (!r->n_recs) return;
    groups_text(w, k, top, false);
    if (by_shape) groups_text(w, k, top, true);
    steps_text(w, k);
    threads_text(w, r);
    phases_text(w, r);
}

/* ---------------------------------------------------------------------------------------- */
/* JSON                                                                                       */

/* The string ID of NAMES, NULL for none (written null). */
static const char *name_or_null(const opscope_strtab_t *names, uint32_t id) {
    return id != NONE ? opscope_strtab_get(names, id) : NULL;
}

static void groups_json(opscope_jw *j, const opscope_kineto_t *k, const char *key, bool by_shape) {
    const opscope_cpu_ops_t *c = opscope_kineto_cpu_ops(k);
    const opscope_cpu_ops_results *r = opscope_cpu_ops_results_get(c);
    const opscope_strtab_t *names = opscope_kineto_names(k);
    const opscope_cpu_op_group *g = by_shape ? r->by_shape : r->by_name;
    size_t n = by_shape ? r->n_by_shape : r->n_by_name;
    opscope_jw_nl(j);
    opscope_jw_arr(j, key);
    for (size_t i = 0; i < n; i++) {
        if (i) opscope_jw_nl(j);
        opscope_jw_item_obj(j);
        opscope_jw_str(j, "name", opscope_cpu_ops_label(c, g[i].name));
        opscope_jw_str(j, "kind", opscope_cpu_kind_name(g[i].kind));
        opscope_jw_u64(j, "count", g[i].count);
        opscope_jw_u64(j, "self_ns", g[i].self_ns);
        opscope_jw_u64(j, "total_ns", g[i].total_ns);
        opscope_jw_u64(j, "min_ns", g[i].min_ns);
        opscope_jw_u64(j, "max_ns", g[i].max_ns);
        if (!by_shape) {
            opscope_jw_u64(j, "gpu_kernels", g[i].gpu_kernels);
            opscope_jw_u64(j, "gpu_ns", g[i].gpu_ns);
        }
        opscope_jw_str(j, "dims", name_or_null(names, g[i].dims));
        opscope_jw_str(j, "types", name_or_null(names, g[i].types));
        opscope_jw_end_obj(j);
    }
    opscope_jw_end_arr(j);
}

void opscope_cpu_ops_report_write_json(opscope_out_t *w, const opscope_kineto_t *k) {
    const opscope_cpu_ops_t *c = opscope_kineto_cpu_ops(k);
    const opscope_cpu_ops_results *r = opscope_cpu_ops_results_get(c);
    const opscope_strtab_t *names = opscope_kineto_names(k);
    opscope_jw j = opscope_jw_resume(w);
    opscope_jw_u64(&j, "cpu_self_ns", r->self_ns);
    opscope_jw_u64(&j, "cpu_records", r->n_recs);
    opscope_jw_u64(&j, "cpu_dropped", r->dropped);
    groups_json(&j, k, "cpu_ops", false);
    groups_json(&j, k, "cpu_ops_by_shape", true);
    opscope_jw_nl(&j);
    opscope_jw_arr(&j, "cpu_threads");
    for (size_t i = 0; i < r->n_threads; i++) {
        const opscope_cpu_thread *t = &r->threads[i];
        const opscope_jw_u64_kv kv[] = {{"records", t->records}, {"top_level", t->top_level},
                                        {"self_ns", t->self_ns}, {"span_ns", (uint64_t)(t->last_ns - t->first_ns)}};
        opscope_jw_item_obj(&j);
        opscope_jw_i64(&j, "pid", t->pid);
        opscope_jw_i64(&j, "tid", t->tid);
        opscope_jw_u64s(&j, kv, sizeof kv / sizeof *kv);
        opscope_jw_end_obj(&j);
    }
    opscope_jw_end_arr(&j);
    opscope_jw_nl(&j);
    opscope_jw_arr(&j, "cpu_steps");
    for (size_t i = 0; i < r->n_steps; i++) {
        const opscope_cpu_step *s = &r->steps[i];
        opscope_jw_item_obj(&j);
        opscope_jw_str(&j, "name", opscope_strtab_get(names, s->name));
        opscope_jw_u64(&j, "start_ns", (uint64_t)s->start_ns);
        opscope_jw_u64(&j, "dur_ns", (uint64_t)(s->end_ns - s->start_ns));
        opscope_jw_u64(&j, "records", s->records);
        opscope_jw_u64(&j, "self_ns", s->self_ns);
        opscope_jw_str(&j, "top_op", s->top_group != NONE ? opscope_cpu_ops_label(c, r->by_name[s->top_group].name) : NULL);
        opscope_jw_u64(&j, "top_self_ns", s->top_self_ns);
        opscope_jw_end_obj(&j);
    }
    opscope_jw_end_arr(&j);
    opscope_jw_nl(&j);
    opscope_jw_obj(&j, "cpu_phases");
    opscope_jw_bool(&j, "training", r->training);
    opscope_jw_arr(&j, "list");
    for (int p = 0; p < OPSCOPE_CPU_PHASE_COUNT; p++) {
        opscope_jw_item_obj(&j);
        opscope_jw_str(&j, "phase", opscope_cpu_phase_name(p));
        opscope_jw_u64(&j, "records", r->phase[p].records);
        opscope_jw_u64(&j, "self_ns", r->phase[p].self_ns);
        opscope_jw_end_obj(&j);
    }
    opscope_jw_end_arr(&j);
    opscope_jw_end_obj(&j);
}
