/* cupti_report.c - CUPTI counters per operator in the report (see cupti_report.h). */
#include "export/kineto/cupti_report.h"

#include "analyze/kineto/cupti.h"
#include "analyze/record/kernel_name.h"
#include "export/fmt/json_fmt.h"

#include <inttypes.h>
#include <stdio.h>

static const char *name_of(const opscope_kineto_t *k, uint32_t id) {
    const char *s = id == UINT32_MAX ? NULL : opscope_strtab_get(opscope_kineto_names(k), id);
    return s ? s : "(none)";
}

void opscope_cupti_report_write(opscope_out_t *w, const opscope_kineto_t *k, size_t top) {
    const opscope_cupti_results *r = opscope_cupti_results_get(opscope_kineto_cupti(k));
    if (!r || !r->n_rows) return;
    opscope_out_printf(w, "\nCUPTI counters per operator: %zu kernels measured, %zu counters, %zu cudaLaunchKernel calls\n",
                       r->n_rows, r->n_counters, r->n_launches);
    if (!r->attributed) {
        opscope_out_str(w, "  not attributed: the kernels measured and the launches differ in number\n");
    } else {
        opscope_out_printf(w, "  kernels  %16s  top-level op -> bottom-level op\n", r->has_flops ? "SASS FLOPs" : "");
        for (size_t g = 0; g < r->n_groups && g < top; g++) {
            const opscope_cupti_group *gr = &r->groups[g];
            opscope_out_printf(w, "  %7" PRIu64 "  ", gr->kernels);
            if (r->has_flops) opscope_out_printf(w, "%16.0f", gr->flops);
            else opscope_out_printf(w, "%16s", "");
            opscope_out_printf(w, "  %s -> %s\n", name_of(k, gr->top_op), name_of(k, gr->bottom_op));
        }
        if (r->n_groups > top) opscope_out_printf(w, "  ... %zu more (JSON: kineto.cupti_counters)\n", r->n_groups - top);
    }
    opscope_out_str(w, "  counter totals\n");
    for (size_t j = 0; j < r->n_counters; j++)
        opscope_out_printf(w, "  %20.0f  %s\n", r->totals[j], name_of(k, r->counters[j]));
    if (r->has_flops) opscope_out_printf(w, "  %20.0f  SASS FLOPs (fma x2)\n", r->flops);
}

/* The counters' values of row or group V as an object by counter name. */
static void values_json(opscope_jw *j, const opscope_kineto_t *k, const opscope_cupti_results *r, const double *v) {
    opscope_jw_obj(j, "counters");
    for (size_t c = 0; c < r->n_counters; c++) opscope_jw_double(j, name_of(k, r->counters[c]), v[c]);
    opscope_jw_end_obj(j);
}

static void rows_json(opscope_jw *j, const opscope_kineto_t *k, const opscope_cupti_results *r) {
    opscope_jw_arr(j, "rows");
    for (size_t i = 0; i < r->n_rows; i++) {
        const opscope_cupti_row *w = &r->rows[i];
        opscope_jw_nl(j);
        opscope_jw_item_obj(j);
        opscope_jw_str(j, "name", name_of(k, w->kernel));
        opscope_jw_i64(j, "start_ns", w->start_ns);
        opscope_jw_i64(j, "dur_ns", w->dur_ns);
        opscope_jw_str(j, "top_level_op", w->top_op == UINT32_MAX ? NULL : name_of(k, w->top_op));
        opscope_jw_str(j, "bottom_level_op", w->bottom_op == UINT32_MAX ? NULL : name_of(k, w->bottom_op));
        opscope_jw_arr(j, "op_stack");
        for (uint32_t s = 0; s < w->n_stack; s++) opscope_jw_item_str(j, name_of(k, r->stack[w->stack + s]));
        opscope_jw_end_arr(j);
        values_json(j, k, r, &r->values[i * r->n_counters]);
        opscope_jw_end_obj(j);
    }
    opscope_jw_end_arr(j);
}

void opscope_cupti_report_write_json(opscope_out_t *w, const opscope_kineto_t *k) {
    const opscope_cupti_results *r = opscope_cupti_results_get(opscope_kineto_cupti(k));
    if (!r || !r->n_rows) return;
    opscope_jw j = opscope_jw_resume(w);
    opscope_jw_nl(&j);
    opscope_jw_obj(&j, "cupti_counters");
    const opscope_jw_u64_kv head[] = {{"kernels", r->n_rows}, {"launches", r->n_launches}};
    opscope_jw_u64s(&j, head, sizeof head / sizeof *head);
    opscope_jw_bool(&j, "attributed", r->attributed);
    if (r->has_flops) opscope_jw_double(&j, "sass_flops", r->flops);
    else opscope_jw_null(&j, "sass_flops");
    values_json(&j, k, r, r->totals);
    opscope_jw_nl(&j);
    opscope_jw_arr(&j, "by_op");
    for (size_t g = 0; g < r->n_groups; g++) {
        const opscope_cupti_group *gr = &r->groups[g];
        opscope_jw_nl(&j);
        opscope_jw_item_obj(&j);
        opscope_jw_str(&j, "top_level_op", gr->top_op == UINT32_MAX ? NULL : name_of(k, gr->top_op));
        opscope_jw_str(&j, "bottom_level_op", gr->bottom_op == UINT32_MAX ? NULL : name_of(k, gr->bottom_op));
        opscope_jw_u64(&j, "kernels", gr->kernels);
        if (r->has_flops) opscope_jw_double(&j, "sass_flops", gr->flops);
        values_json(&j, k, r, &r->sums[gr->sums]);
        opscope_jw_end_obj(&j);
    }
    opscope_jw_end_arr(&j);
    opscope_jw_nl(&j);
    rows_json(&j, k, r);
    opscope_jw_end_obj(&j);
}
