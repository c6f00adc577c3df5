/* kineto_report.c - plain-text Kineto section (see kineto_report.h). */
#include "export/kineto/kineto_report.h"
#include "export/kineto/cpu_ops_report.h"
#include "export/kineto/cupti_report.h"

#include "export/kineto/critical_path_out.h"
#include "export/kineto/collectives_report.h"
#include "export/kineto/kseries_report.h"
#include "export/kineto/kstats_report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* NS as milliseconds with 3 decimals, right-aligned in WIDTH. */
static void ms(opscope_out_t *w, uint64_t ns, int width) {
    char b[40];
    snprintf(b, sizeof b, "%" PRIu64 ".%03" PRIu64, ns / 1000000, (ns / 1000) % 1000);
    opscope_out_printf(w, "%*s", width, b);
}

static void pct(opscope_out_t *w, uint64_t part, uint64_t whole) {
    opscope_out_printf(w, "%6.1f%%", whole ? 100.0 * (double)part / (double)whole : 0.0);
}

static void name_cut(opscope_out_t *w, const char *s, size_t max) {
    size_t n = strlen(s);
    if (n <= max) {
        opscope_out_str(w, s);
        return;
    }
    opscope_out_write(w, s, max - 3);
    opscope_out_str(w, "...");
}

static int same_device(const opscope_kineto_device *a, const opscope_kineto_device *b) {
    return !strcmp(a->name, b->name) && a->total_mem == b->total_mem &&
           a->compute_major == b->compute_major && a->compute_minor == b->compute_minor &&
           a->num_sms == b->num_sms && a->warp_size == b->warp_size;
}

/* One line per run of identical devices ("devices 0-7: ..."). */
static void devices(opscope_out_t *w, const opscope_kineto_info *in) {
    for (int i = 0; i < in->n_devices;) {
        const opscope_kineto_device *d = &in->devices[i];
        int j = i + 1;
        while (j < in->n_devices && same_device(d, &in->devices[j]) &&
               in->devices[j].id == in->devices[j - 1].id + 1)
            j++;
        if (j - i > 1)
            opscope_out_printf(w, "  devices %" PRId64 "-%" PRId64 ": ", d->id, in->devices[j - 1].id);
        else
            opscope_out_printf(w, "  device %" PRId64 ": ", d->id);
        opscope_out_str(w, d->name[0] ? d->name : "(unnamed)");
        if (d->compute_major) opscope_out_printf(w, ", compute %d.%d", d->compute_major, d->compute_minor);
        if (d->num_sms) opscope_out_printf(w, ", %d SMs", d->num_sms);
        if (d->total_mem) opscope_out_printf(w, ", %.1f GiB", (double)d->total_mem / (1024.0 * 1024 * 1024));
        if (d->warp_size) opscope_out_printf(w, ", warp %d", d->warp_size);
        opscope_out_char(w, '\n');
        i = j;
    }
}

/* Steps, GPU busy/idle per device and top-level CPU time over the window; CPU-bound or not. */
static void cpu_side_text(opscope_out_t *w, const opscope_kineto_results *r) {
    if (!r->window_ns) return;
    opscope_out_printf(w, "\nCPU side (%s: ", r->n_steps ? "the profiler steps" : r->n_devices ? "the GPU span" : "the CPU ops' span");
    ms(w, r->window_ns, 0);
    opscope_out_str(w, " ms)\n");
    if (r->n_steps) {
        opscope_out_printf(w, "  steps %zu, ms each:", r->n_steps);
        for (size_t i = 0; i < r->n_steps && i < 16; i++) {
            opscope_out_char(w, ' ');
            ms(w, r->steps[i].dur_ns, 0);
        }
        opscope_out_str(w, r->n_steps > 16 ? " ...\n" : "\n");
    }
    for (size_t i = 0; i < r->n_devices; i++) {
        const opscope_kineto_device_busy *d = &r->devices[i];
        opscope_out_printf(w, "  GPU %" PRId64 " busy ", d->device);
        ms(w, d->busy_ns, 0);
        opscope_out_str(w, " ms, idle ");
        ms(w, d->idle_ns, 0);
        opscope_out_printf(w, " ms (%.1f%%)\n", 100.0 * (double)d->idle_ns / (double)r->window_ns);
    }
    opscope_out_str(w, "  top-level CPU ops ");
    ms(w, r->cpu_top_ns, 0);
    opscope_out_printf(w, " ms (%.1f%% of the window, busiest thread)%s\n",
                       100.0 * (double)r->cpu_top_ns / (double)r->window_ns,
                       !r->cpu_bound ? ""
                       : r->n_devices ? ": CPU-bound (the GPU idles over half the time while the "
                                        "CPU runs ops)"
                                      : ": CPU-bound (no GPU activity: a CPU-only job)");
}

/* The trace's platform, devices, event counts and input quirks. */
static void header_text(opscope_out_t *w, const opscope_kineto_info *in) {
    opscope_out_printf(w, "\nKineto trace (PyTorch profiler, schema %d)\n", in->schema_version);
    opscope_out_printf(w, "  platform: %s (%s)", opscope_kineto_platform_name(in->platform),
                       in->platform_hint[0] ? in->platform_hint : "no evidence");
    if (in->rank >= 0) {
        opscope_out_printf(w, "; rank %" PRId64, in->rank);
        if (in->world_size > 0) opscope_out_printf(w, " of %" PRId64, in->world_size);
        if (in->dist_backend[0]) opscope_out_printf(w, " (%s)", in->dist_backend);
    }
    opscope_out_char(w, '\n');
    if (in->n_devices) devices(w, in);
    else opscope_out_str(w, "  no deviceProperties in the trace\n");
    opscope_out_printf(w,
                       "  events: %" PRIu64 " (%" PRIu64 " kernels, %" PRIu64 " memcpy, %" PRIu64
                       " memset, %" PRIu64 " CPU ops, %" PRIu64 " runtime calls, %" PRIu64
                       " python frames, %" PRIu64 " annotations, %" PRIu64 " flow events)\n",
                       in->n_events, in->n_kernels, in->n_memcpy, in->n_memset, in->n_cpu_ops,
                       in->n_runtime, in->n_python, in->n_annotations + in->n_gpu_annotations,
                       in->n_flows);
    if (in->n_old_categories || in->n_string_ids || in->n_unmatched_end || in->n_unclosed_begin ||
        (in->display_time_unit[0] && strcmp(in->display_time_unit, "ms")))
        opscope_out_printf(w,
                           "  input quirks: %" PRIu64 " old-style categories, %" PRIu64
                           " string pid/tid, %" PRIu64 " E without B, %" PRIu64
                           " unclosed B; displayTimeUnit \"%s\" (ts read as microseconds)\n",
                           in->n_old_categories, in->n_string_ids, in->n_unmatched_end,
                           in->n_unclosed_begin, in->display_time_unit);
}

/* Kernels per category, memcpy and memset. */
static void categories_text(opscope_out_t *w, const opscope_kineto_results *r) {
    opscope_out_str(w, "\nGPU kernel categories\n  category              kernels     time ms   share\n");
    for (int c = 0; c < OPSCOPE_KCAT_COUNT; c++) {
        if (!r->cat_count[c]) continue;
        opscope_out_printf(w, "  %-20s %8" PRIu64 " ", opscope_kernel_category_name(c), r->cat_count[c]);
        ms(w, r->cat_ns[c], 11);
        opscope_out_char(w, ' ');
        pct(w, r->cat_ns[c], r->kernel_ns);
        opscope_out_char(w, '\n');
    }
    opscope_out_printf(w, "  %-20s %8" PRIu64 " ", "all kernels", r->kernels);
    ms(w, r->kernel_ns, 11);
    opscope_out_printf(w, "\n  memcpy %" PRIu64 " (", r->memcpy_n);
    ms(w, r->memcpy_ns, 0);
    opscope_out_printf(w, " ms, %.1f MB), memset %" PRIu64 " (", (double)r->memcpy_bytes / 1e6, r->memset_n);
    ms(w, r->memset_ns, 0);
    opscope_out_str(w, " ms)\n");
}

/* A row of a top list: time, kernels, the share of KERNEL_NS when SHARE (the CPU ops), NAME. */
static void top_row(opscope_out_t *w, const opscope_kineto_agg *a, const char *name, uint64_t kernel_ns, bool share) {
    opscope_out_str(w, "  ");
    ms(w, a->ns, 12);
    opscope_out_printf(w, " %8" PRIu64 " ", a->count);
    if (share) {
        pct(w, a->ns, kernel_ns);
        opscope_out_char(w, ' ');
    }
    opscope_out_char(w, ' ');
    name_cut(w, name, 90);
    opscope_out_char(w, '\n');
}

/* How kernels link to their launch and CPU op; the top CPU ops and python functions. */
static void links_text(opscope_out_t *w, const opscope_kineto_results *r, const opscope_strtab_t *names) {
    opscope_out_printf(w, "\nKernel launch links (%" PRIu64 " kernels)\n", r->kernels);
    opscope_out_printf(w, "  runtime call (correlation)  %8" PRIu64 " ", r->link_runtime);
    pct(w, r->link_runtime, r->kernels);
    opscope_out_printf(w, "\n  CPU op                      %8" PRIu64 " ", r->link_cpu);
    pct(w, r->link_cpu, r->kernels);
    opscope_out_printf(w, "  (%" PRIu64 " enclosing the launch, %" PRIu64 " by External id)\n",
                       r->link_cpu_enclose, r->link_cpu_ext);
    opscope_out_printf(w, "  python function only        %8" PRIu64 " ", r->link_python);
    pct(w, r->link_python, r->kernels);
    opscope_out_printf(w, "\n  unlinked                    %8" PRIu64 " ", r->link_none);
    pct(w, r->link_none, r->kernels);
    opscope_out_str(w, "\n\n  Top CPU ops by GPU kernel time\n       time ms  kernels   share  CPU op\n");
    for (size_t i = 0; i < r->n_top_cpu_ops; i++) {
        const opscope_kineto_agg *a = &r->top_cpu_ops[i];
        top_row(w, a, a->name_id == UINT32_MAX ? "(no CPU op)" : opscope_strtab_get(names, a->name_id), r->kernel_ns,
                true);
    }
    if (r->n_top_python) {
        opscope_out_str(w, "\n  Top python functions (kernels without a CPU op)\n");
        for (size_t i = 0; i < r->n_top_python; i++)
            top_row(w, &r->top_python[i], opscope_strtab_get(names, r->top_python[i].name_id), 0, false);
    }
}

/* Prefill/decode phases from the trace's annotations. */
static void phases_text(opscope_out_t *w, const opscope_kineto_results *r) {
    bool training = r->phase[OPSCOPE_KINETO_PHASE_FORWARD].kernels ||
                    r->phase[OPSCOPE_KINETO_PHASE_BACKWARD].kernels ||
                    r->phase[OPSCOPE_KINETO_PHASE_OPTIMIZER].kernels;
    if (r->n_phase_annotations || training) {
        opscope_out_printf(w, "\nPhases (%" PRIu64 " prefill/decode annotations%s)\n"
                              "  phase          kernels     time ms   top category\n",
                           r->n_phase_annotations,
                           training ? "; training: backward ops and optimizer steps" : "");
        for (int p = 0; p < OPSCOPE_KINETO_PHASE_COUNT; p++) {
            const opscope_kineto_phase_stats *ps = &r->phase[p];
            if (!ps->kernels) continue;
            int best = 0;
            for (int c = 1; c < OPSCOPE_KCAT_COUNT; c++)
                if (ps->cat_ns[c] > ps->cat_ns[best]) best = c;
            opscope_out_printf(w, "  %-12s %9" PRIu64 " ", opscope_kineto_phase_name(p), ps->kernels);
            ms(w, ps->ns, 11);
            opscope_out_printf(w, "   %s (", opscope_kernel_category_name(best));
            pct(w, ps->cat_ns[best], ps->ns);
            opscope_out_str(w, ")\n");
        }
    }
}

static void layers_text(opscope_out_t *w, const opscope_kineto_results *r) {
    if (r->n_layers) {
        opscope_out_printf(w, "\nLayers: %" PRIu64 " (%s); %.1f kernels and ", r->n_layers,
                           r->layer_method == 1 ? "launches of >= 70 kernels with attention and GEMM"
                                                : "attention-anchored segments with a GEMM",
                           (double)r->layer_kernels / (double)r->n_layers);
        ms(w, r->layer_ns / r->n_layers, 0);
        opscope_out_str(w, " ms per layer (min ");
        ms(w, r->layer_min_ns, 0);
        opscope_out_str(w, ", max ");
        ms(w, r->layer_max_ns, 0);
        opscope_out_printf(w, "); %" PRIu64 " once steps and passes fold (--by layer)\n", r->n_layers_folded);
    }
}

/* Busy and idle time per GPU stream, the largest idle gaps. */
static void streams_text(opscope_out_t *w, const opscope_kineto_results *r) {
    uint64_t t0 = UINT64_MAX;
    for (size_t i = 0; i < r->n_streams; i++)
        if (r->streams[i].first_ns < t0) t0 = r->streams[i].first_ns;
    opscope_out_str(w, "\nGPU streams (busy = union of activity; time ms)\n"
                       "  device  stream  activities      span   busy  compute     comm   memory      idle  overlaps\n");
    for (size_t i = 0; i < r->n_streams; i++) {
        const opscope_kineto_stream *s = &r->streams[i];
        uint64_t span = s->last_ns - s->first_ns;
        opscope_out_printf(w, "  %6" PRId64 "  %6" PRId64 "  %10" PRIu64 " ", s->device, s->stream, s->n);
        ms(w, span, 9);
        opscope_out_char(w, ' ');
        pct(w, s->busy_ns, span);
        ms(w, s->compute_ns, 9);
        ms(w, s->comm_ns, 9);
        ms(w, s->memory_ns, 9);
        ms(w, s->idle_ns, 10);
        opscope_out_printf(w, "  %8" PRIu64 "\n", s->overlapped);
    }
    if (r->n_gaps) {
        opscope_out_str(w, "\nLargest idle gaps (ms after the first GPU activity)\n"
                           "  device  stream        at    length\n");
        for (size_t i = 0; i < r->n_gaps; i++) {
            const opscope_kineto_gap *g = &r->gaps[i];
            opscope_out_printf(w, "  %6" PRId64 "  %6" PRId64 " ", g->device, g->stream);
            ms(w, g->start_ns - t0, 9);
            opscope_out_char(w, ' ');
            ms(w, g->len_ns, 9);
            opscope_out_char(w, '\n');
        }
    }
}

void opscope_kineto_report_write(opscope_out_t *w, const opscope_kineto_t *k) {
    const opscope_kineto_info *in = opscope_kineto_get_info(k);
    const opscope_kineto_results *r = opscope_kineto_get_results(k);
    if (!in->is_kineto && !r->kernels && !in->n_cpu_ops) return;
    header_text(w, in);
    opscope_colls_report_console(w, opscope_kineto_colls(k));
    if (!r->kernels && !r->memcpy_n && !r->memset_n) {
        opscope_out_str(w, opscope_kineto_cupti(k) ? "  no GPU activity records: its kernels were measured by CUPTI's profiler (below)\n"
                                                   : "  no GPU activity in this trace (CPU-only profile)\n");
        cpu_side_text(w, r);
        opscope_cupti_report_write(w, k, OPSCOPE_KINETO_TOP);
        return;
    }
    categories_text(w, r);
    if (r->kernels) links_text(w, r, opscope_kineto_names(k));
    phases_text(w, r);
    layers_text(w, r);
    cpu_side_text(w, r);
    streams_text(w, r);
    opscope_kstats_report_write(w, k, OPSCOPE_KINETO_TOP);
    opscope_cupti_report_write(w, k, OPSCOPE_KINETO_TOP);
    opscope_kseries_report_write(w, k);
}

/* ---------------------------------------------------------------------------------------- */
/* JSON                                                                                       */

/* An array item {ID_KEY: ID, then KV's members}: a step, a device's busy time, a gap. */
static void item_id_u64s(opscope_jw *j, const char *id_key, int64_t id, const opscope_jw_u64_kv *kv, size_t n) {
    opscope_jw_item_obj(j);
    opscope_jw_i64(j, id_key, id);
    opscope_jw_u64s(j, kv, n);
    opscope_jw_end_obj(j);
}

void opscope_kineto_write_cpu_side(opscope_jw *j, const opscope_kineto_results *r) {
    opscope_jw_arr(j, "steps");
    for (size_t i = 0; i < r->n_steps; i++) {
        const opscope_jw_u64_kv kv[] = {{"start_ns", r->steps[i].start_ns}, {"dur_ns", r->steps[i].dur_ns}};
        item_id_u64s(j, "number", r->steps[i].number, kv, sizeof kv / sizeof *kv);
    }
    opscope_jw_end_arr(j);
    const opscope_jw_u64_kv window[] = {{"window_start_ns", r->window_start_ns}, {"window_ns", r->window_ns}};
    opscope_jw_u64s(j, window, sizeof window / sizeof *window);
    opscope_jw_arr(j, "gpu_busy");
    for (size_t i = 0; i < r->n_devices; i++) {
        const opscope_jw_u64_kv kv[] = {{"busy_ns", r->devices[i].busy_ns}, {"idle_ns", r->devices[i].idle_ns}};
        item_id_u64s(j, "device", r->devices[i].device, kv, sizeof kv / sizeof *kv);
    }
    opscope_jw_end_arr(j);
    opscope_jw_u64(j, "cpu_top_level_ns", r->cpu_top_ns);
    opscope_jw_bool(j, "cpu_bound", r->cpu_bound);
}

/* An array item {"KEY": NAME, "kernels": COUNT, "ns": NS}: a top name, a kernel category. */
static void item_name_count_ns(opscope_jw *j, const char *key, const char *name, uint64_t count, uint64_t ns) {
    opscope_jw_item_obj(j);
    opscope_jw_str(j, key, name);
    opscope_jw_u64(j, "kernels", count);
    opscope_jw_u64(j, "ns", ns);
    opscope_jw_end_obj(j);
}

static void jtop(opscope_jw *j, const char *key, const opscope_kineto_agg *a, size_t n,
                 const opscope_strtab_t *names) {
    opscope_jw_arr(j, key);
    for (size_t i = 0; i < n; i++)
        item_name_count_ns(j, "name", a[i].name_id == UINT32_MAX ? NULL : opscope_strtab_get(names, a[i].name_id),
                           a[i].count, a[i].ns);
    opscope_jw_end_arr(j);
}

/* The trace's header members: schema, platform, rank, devices, event counts. */
static void info_json(opscope_jw *j, const opscope_kineto_info *in) {
    opscope_jw_i64(j, "schema_version", in->schema_version);
    opscope_jw_str(j, "platform", opscope_kineto_platform_name(in->platform));
    opscope_jw_str(j, "platform_hint", in->platform_hint);
    opscope_jw_str(j, "display_time_unit", in->display_time_unit);
    opscope_jw_i64(j, "rank", in->rank);
    opscope_jw_i64(j, "world_size", in->world_size);
    opscope_jw_str(j, "dist_backend", in->dist_backend);

    opscope_jw_arr(j, "devices");
    for (int i = 0; i < in->n_devices; i++) {
        const opscope_kineto_device *d = &in->devices[i];
        opscope_jw_nl(j);
        opscope_jw_item_obj(j);
        opscope_jw_i64(j, "id", d->id);
        opscope_jw_str(j, "name", d->name);
        const opscope_jw_i64_kv kv[] = {
            {"total_mem", d->total_mem}, {"compute_major", d->compute_major},
            {"compute_minor", d->compute_minor}, {"num_sms", d->num_sms}, {"warp_size", d->warp_size},
            {"max_threads_per_block", d->max_threads_per_block},
            {"shared_mem_per_block", d->shared_mem_per_block}};
        opscope_jw_i64s(j, kv, sizeof kv / sizeof *kv);
        opscope_jw_end_obj(j);
    }
    opscope_jw_end_arr(j);

    opscope_jw_nl(j);
    opscope_jw_obj(j, "events");
    const opscope_jw_u64_kv events[] = {
        {"all", in->n_events}, {"kernels", in->n_kernels}, {"memcpy", in->n_memcpy},
        {"memset", in->n_memset}, {"cpu_ops", in->n_cpu_ops}, {"runtime", in->n_runtime},
        {"python", in->n_python}, {"annotations", in->n_annotations},
        {"gpu_annotations", in->n_gpu_annotations}, {"flows", in->n_flows},
        {"metadata", in->n_metadata}, {"other", in->n_other}, {"ends", in->n_ends},
        {"unmatched_end", in->n_unmatched_end}, {"unclosed_begin", in->n_unclosed_begin},
        {"old_categories", in->n_old_categories}, {"string_ids", in->n_string_ids},
        {"float_ts", in->n_float_ts}};
    opscope_jw_u64s(j, events, sizeof events / sizeof *events);
    opscope_jw_end_obj(j);
}

/* GPU totals, kernel categories and launch links. */
static void gpu_json(opscope_jw *j, const opscope_kineto_results *r, const opscope_strtab_t *names) {
    opscope_jw_nl(j);
    opscope_jw_obj(j, "gpu");
    const opscope_jw_u64_kv gpu[] = {{"kernels", r->kernels}, {"kernel_ns", r->kernel_ns},
                                     {"memcpy", r->memcpy_n}, {"memcpy_ns", r->memcpy_ns},
                                     {"memcpy_bytes", r->memcpy_bytes}, {"memset", r->memset_n},
                                     {"memset_ns", r->memset_ns}};
    opscope_jw_u64s(j, gpu, sizeof gpu / sizeof *gpu);
    opscope_jw_end_obj(j);

    /* Every category, in the order of the rule table, zeros included: a fixed shape. */
    opscope_jw_nl(j);
    opscope_jw_arr(j, "kernel_categories");
    for (int c = 0; c < OPSCOPE_KCAT_COUNT; c++)
        item_name_count_ns(j, "category", opscope_kernel_category_name(c), r->cat_count[c], r->cat_ns[c]);
    opscope_jw_end_arr(j);

    opscope_jw_nl(j);
    opscope_jw_obj(j, "links");
    const opscope_jw_u64_kv links[] = {{"kernels", r->kernels}, {"runtime", r->link_runtime},
                                       {"cpu_op", r->link_cpu}, {"cpu_op_enclosing", r->link_cpu_enclose},
                                       {"cpu_op_external_id", r->link_cpu_ext},
                                       {"python_only", r->link_python}, {"none", r->link_none}};
    opscope_jw_u64s(j, links, sizeof links / sizeof *links);
    jtop(j, "top_cpu_ops", r->top_cpu_ops, r->n_top_cpu_ops, names);
    jtop(j, "top_python", r->top_python, r->n_top_python, names);
    opscope_jw_end_obj(j);
}

static void phases_layers_json(opscope_jw *j, const opscope_kineto_results *r) {
    opscope_jw_nl(j);
    opscope_jw_obj(j, "phases");
    opscope_jw_u64(j, "annotations", r->n_phase_annotations);
    opscope_jw_arr(j, "list");
    for (int p = 0; p < OPSCOPE_KINETO_PHASE_COUNT; p++) {
        const opscope_kineto_phase_stats *ps = &r->phase[p];
        opscope_jw_nl(j);
        opscope_jw_item_obj(j);
        opscope_jw_str(j, "phase", opscope_kineto_phase_name(p));
        opscope_jw_u64(j, "kernels", ps->kernels);
        opscope_jw_u64(j, "ns", ps->ns);
        opscope_jw_obj(j, "category_ns");
        for (int c = 0; c < OPSCOPE_KCAT_COUNT; c++) opscope_jw_u64(j, opscope_kernel_category_name(c), ps->cat_ns[c]);
        opscope_jw_end_obj(j);
        opscope_jw_end_obj(j);
    }
    opscope_jw_end_arr(j);
    opscope_jw_end_obj(j);

    static const char *const methods[] = {"none", "launch_groups", "attention_anchored"};
    opscope_jw_nl(j);
    opscope_jw_obj(j, "layers");
    opscope_jw_str(j, "method", methods[r->layer_method >= 0 && r->layer_method <= 2 ? r->layer_method : 0]);
    const opscope_jw_u64_kv layers[] = {{"count", r->n_layers}, {"kernels", r->layer_kernels},
                                        {"ns", r->layer_ns}, {"min_ns", r->n_layers ? r->layer_min_ns : 0},
                                        {"max_ns", r->n_layers ? r->layer_max_ns : 0},
                                        {"folded", r->n_layers_folded}};
    opscope_jw_u64s(j, layers, sizeof layers / sizeof *layers);
    opscope_jw_end_obj(j);
}

/* An array item {"device", "stream", then KV's members}: a stream, an idle gap. */
static void item_stream(opscope_jw *j, int64_t device, int64_t stream, const opscope_jw_u64_kv *kv, size_t n) {
    opscope_jw_item_obj(j);
    opscope_jw_i64(j, "device", device);
    opscope_jw_i64(j, "stream", stream);
    opscope_jw_u64s(j, kv, n);
    opscope_jw_end_obj(j);
}

static void streams_json(opscope_jw *j, const opscope_kineto_results *r) {
    opscope_jw_nl(j);
    opscope_jw_arr(j, "streams");
    for (size_t i = 0; i < r->n_streams; i++) {
        const opscope_kineto_stream *st = &r->streams[i];
        const opscope_jw_u64_kv kv[] = {
            {"activities", st->n}, {"first_ns", st->first_ns}, {"last_ns", st->last_ns},
            {"span_ns", st->last_ns - st->first_ns}, {"busy_ns", st->busy_ns},
            {"compute_ns", st->compute_ns}, {"comm_ns", st->comm_ns}, {"memory_ns", st->memory_ns},
            {"idle_ns", st->idle_ns}, {"overlapped", st->overlapped}};
        opscope_jw_nl(j);
        item_stream(j, st->device, st->stream, kv, sizeof kv / sizeof *kv);
    }
    opscope_jw_end_arr(j);
}

static void gaps_json(opscope_jw *j, const opscope_kineto_results *r) {
    opscope_jw_nl(j);
    opscope_jw_arr(j, "idle_gaps");
    for (size_t i = 0; i < r->n_gaps; i++) {
        const opscope_jw_u64_kv kv[] = {{"start_ns", r->gaps[i].start_ns}, {"len_ns", r->gaps[i].len_ns}};
        item_stream(j, r->gaps[i].device, r->gaps[i].stream, kv, sizeof kv / sizeof *kv);
    }
    opscope_jw_end_arr(j);
}

void opscope_kineto_report_write_json(opscope_out_t *w, const opscope_kineto_t *k, const opscope_cpath_t *cp) {
    const opscope_kineto_info *in = opscope_kineto_get_info(k);
    const opscope_kineto_results *r = opscope_kineto_get_results(k);
    if (!in->is_kineto && !r->kernels && !in->n_cpu_ops) return; /* as the text section */
    opscope_jw j = opscope_jw_resume(w);
    opscope_jw_nl(&j);
    opscope_jw_obj(&j, "kineto");
    info_json(&j, in);
    opscope_colls_report_json(w, opscope_kineto_colls(k));
    gpu_json(&j, r, opscope_kineto_names(k));
    phases_layers_json(&j, r);
    streams_json(&j, r);
    opscope_jw_nl(&j);
    opscope_kineto_write_cpu_side(&j, r);
    gaps_json(&j, r);
    if (r->kernels || r->memcpy_n || r->memset_n) {
        opscope_kstats_report_write_json(w, k);
        opscope_kseries_report_write_json(w, k);
    }
    opscope_cpu_ops_report_write_json(w, k);
    opscope_cupti_report_write_json(w, k);
    opscope_critical_path_write_json(w, cp);
    opscope_jw_end_obj(&j);
}
