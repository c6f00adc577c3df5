/* kstats_report.c - kernel and launch statistics in the report (see kstats_report.h). */
#include "export/kineto/kstats_report.h"

#include "analyze/kineto/kbreak.h"
#include "analyze/kineto/kseq.h"
#include "analyze/kineto/kstats.h"
#include "analyze/record/kernel_name.h"
#include "export/fmt/json_fmt.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>

/* NS as microseconds with 3 decimals (HTA's unit), right-aligned in WIDTH. */
static void us(opscope_out_t *w, double ns, int width) { opscope_out_printf(w, "%*.3f", width, ns / 1000.0); }

static void kernels_text(opscope_out_t *w, const opscope_kineto_t *k, size_t top) {
    size_t n;
    const opscope_kstats_kernel *v = opscope_kstats_kernels(opscope_kineto_kstats(k), &n);
    opscope_out_printf(w, "\nKernels by time (us; std: sample, n - 1), %zu names\n"
                          "       count          sum        mean         std         min         max  name\n",
                       n);
    for (size_t i = 0; i < n && i < top; i++) {
        const char *name = opscope_strtab_get(opscope_kineto_names(k), v[i].name);
        char b[64];
        opscope_kernel_name_short(b, sizeof b, name ? name : "?");
        opscope_out_printf(w, "  %10" PRIu64 " ", v[i].count);
        us(w, (double)v[i].sum_ns, 12);
        us(w, v[i].mean_ns, 12);
        us(w, v[i].std_ns, 12);
        us(w, (double)v[i].min_ns, 12);
        us(w, (double)v[i].max_ns, 12);
        opscope_out_printf(w, "  %s\n", b);
    }
}

static void series_text(opscope_out_t *w, const char *what, const opscope_kstats_series *s) {
    opscope_out_printf(w, "  %-34s", what);
    us(w, s->mean_ns, 12);
    us(w, s->std_ns, 12);
    us(w, (double)s->min_ns, 12);
    us(w, (double)s->max_ns, 12);
    opscope_out_char(w, '\n');
}

static void launches_text(opscope_out_t *w, const opscope_kstats_launch *l) {
    opscope_out_printf(w, "\nLaunches (cudaLaunchKernel(ExC), cudaMemcpyAsync, cudaMemsetAsync): %" PRIu64
                          "; shorter than their call %" PRIu64 " (call <= 50 us: %" PRIu64 ")\n"
                          "  (us)                                      mean         std         min         max\n",
                       l->launches, l->shorter_than_call, l->shorter_short_call);
    series_text(w, "delay from the call's end (>= 0)", &l->delay_end);
    series_text(w, "delay from the call's start", &l->delay_start);
    series_text(w, "call duration", &l->call);
}

static void streams_text(opscope_out_t *w, const opscope_kstats_t *s) {
    size_t n;
    const opscope_kstats_stream *v = opscope_kstats_streams(s, &n);
    opscope_out_printf(w, "\nQueue and idle split per stream (queue out at start: mean per change, time mean, max;"
                          " out at end: time mean, max; full >= %" PRId64 "; idle us by HTA's rule)\n"
                          "  device  stream   q_mean  q_tmean  q_max  end_tmean  end_max     full_us      host_us"
                          "    kernel_us     other_us\n",
                       opscope_kstats_full_queue(s));
    for (size_t i = 0; i < n; i++) {
        const opscope_kstats_stream *t = &v[i];
        opscope_out_printf(w, "  %6" PRId64 "  %6" PRId64 "  %7.2f  %7.2f  %5" PRId64 "  %9.2f  %7" PRId64, t->device,
                           t->stream, t->q_mean, t->q_time_mean, t->q_max, t->q_end_time_mean, t->q_end_max);
        us(w, (double)t->full_ns, 12);
        us(w, (double)t->idle_host_ns, 13);
        us(w, (double)t->idle_kernel_ns, 13);
        us(w, (double)t->idle_other_ns, 13);
        opscope_out_char(w, '\n');
    }
}

/* The TOP patterns of at least 3 activities (HTA's least pattern length) by calls. */
static void sequences_text(opscope_out_t *w, const opscope_kineto_t *k, size_t top) {
    size_t n, shown = 0;
    const opscope_kseq_pattern *v = opscope_kseq_patterns(opscope_kineto_kseq(k), &n);
    const opscope_strtab_t *names = opscope_kineto_names(k);
    for (size_t i = 0; i < n && shown < top; i++) {
        if (v[i].len < 3) continue;
        if (!shown++) opscope_out_str(w, "\nKernel sequences per CPU op call (3 or more activities; by calls)\n"
                                         "   calls    GPU us       CPU us  op: kernels in GPU order\n");
        const char *op = opscope_strtab_get(names, v[i].op);
        opscope_out_printf(w, "  %6" PRIu64 " ", v[i].count);
        us(w, (double)v[i].gpu_ns, 9);
        us(w, (double)v[i].cpu_ns, 12);
        opscope_out_printf(w, "  %s:", op ? op : "?");
        for (size_t x = 0; x < v[i].len; x++) {
            const char *kn = opscope_strtab_get(names, v[i].names[x]);
            char b[48];
            opscope_kernel_name_short(b, sizeof b, kn ? kn : "?");
            opscope_out_printf(w, "%s %s", x ? " |" : "", b);
        }
        opscope_out_char(w, '\n');
    }
}

void opscope_kstats_report_write(opscope_out_t *w, const opscope_kineto_t *k, size_t top) {
    const opscope_kstats_t *s = opscope_kineto_kstats(k);
    size_t n;
    opscope_kstats_kernels(s, &n);
    if (!n) return;
    kernels_text(w, k, top);
    launches_text(w, opscope_kstats_launches(s));
    streams_text(w, s);
    sequences_text(w, k, top);
}

static void series_json(opscope_jw *j, const char *key, const opscope_kstats_series *s) {
    const opscope_jw_i64_kv kv[] = {{"n", (int64_t)s->n}, {"sum_ns", s->sum_ns}, {"min_ns", s->min_ns},
                                    {"max_ns", s->max_ns}};
    opscope_jw_obj(j, key);
    opscope_jw_i64s(j, kv, sizeof kv / sizeof *kv);
    opscope_jw_double(j, "mean_ns", s->mean_ns);
    opscope_jw_double(j, "std_ns", s->std_ns);
    opscope_jw_end_obj(j);
}

static void kernels_json(opscope_jw *j, const opscope_kineto_t *k) {
    static const char *const kinds[] = {"kernel", "memcpy", "memset"};
    size_t n;
    const opscope_kstats_kernel *v = opscope_kstats_kernels(opscope_kineto_kstats(k), &n);
    opscope_jw_arr(j, "kernels");
    for (size_t i = 0; i < n; i++) {
        opscope_jw_nl(j);
        opscope_jw_item_obj(j);
        opscope_jw_str(j, "name", opscope_strtab_get(opscope_kineto_names(k), v[i].name));
        opscope_jw_str(j, "kind", v[i].kind >= 0 && v[i].kind < 3 ? kinds[v[i].kind] : "?");
        const opscope_jw_u64_kv kv[] = {{"count", v[i].count}, {"sum_ns", v[i].sum_ns},
                                        {"min_ns", v[i].min_ns}, {"max_ns", v[i].max_ns}};
        opscope_jw_u64s(j, kv, sizeof kv / sizeof *kv);
        opscope_jw_double(j, "mean_ns", v[i].mean_ns);
        opscope_jw_double(j, "std_ns", v[i].std_ns);
        opscope_jw_end_obj(j);
    }
    opscope_jw_end_arr(j);
}

static void streams_json(opscope_jw *j, const opscope_kstats_t *s) {
    size_t n;
    const opscope_kstats_stream *v = opscope_kstats_streams(s, &n);
    opscope_jw_arr(j, "streams");
    for (size_t i = 0; i < n; i++) {
        const opscope_kstats_stream *t = &v[i];
        opscope_jw_nl(j);
        opscope_jw_item_obj(j);
        const opscope_jw_i64_kv id[] = {{"device", t->device}, {"stream", t->stream},
                                        {"queue_points", (int64_t)t->q_points}};
        const opscope_jw_i64_kv q[] = {
            {"queue_max", t->q_max}, {"full_queue_ns", (int64_t)t->full_ns},
            {"queue_below_zero_ns", (int64_t)t->q_below_ns}, {"queue_end_max", t->q_end_max},
            {"idle_host_wait_ns", t->idle_host_ns}, {"idle_kernel_wait_ns", t->idle_kernel_ns},
            {"idle_other_ns", t->idle_other_ns}};
        opscope_jw_i64s(j, id, sizeof id / sizeof *id);
        opscope_jw_double(j, "queue_mean", t->q_mean);
        opscope_jw_double(j, "queue_std", t->q_std);
        opscope_jw_double(j, "queue_time_mean", t->q_time_mean);
        opscope_jw_double(j, "queue_end_time_mean", t->q_end_time_mean);
        opscope_jw_double(j, "idle_host_wait_hta_us", t->idle_host_hta_us);
        opscope_jw_double(j, "idle_kernel_wait_hta_us", t->idle_kernel_hta_us);
        opscope_jw_double(j, "idle_other_hta_us", t->idle_other_hta_us);
        opscope_jw_i64s(j, q, sizeof q / sizeof *q);
        opscope_jw_arr(j, "queue_time_at_ns");
        for (size_t x = 0; x < t->q_n_at; x++) opscope_jw_item_u64(j, t->q_at[x]);
        opscope_jw_end_arr(j);
        opscope_jw_end_obj(j);
    }
    opscope_jw_end_arr(j);
}

/* The array KEY of S's patterns: op, count, then the sums (DELAYS: as the mean first delays of
 * katen.h, else as kseq.h's GPU and CPU time), then the kernels. */
static void patterns_json(opscope_jw *j, const char *key, const opscope_kineto_t *k, const opscope_kseq_t *s,
                          bool delays) {
    size_t n;
    const opscope_kseq_pattern *v = opscope_kseq_patterns(s, &n);
    const opscope_strtab_t *names = opscope_kineto_names(k);
    opscope_jw_arr(j, key);
    for (size_t i = 0; i < n; i++) {
        opscope_jw_nl(j);
        opscope_jw_item_obj(j);
        opscope_jw_str(j, "op", opscope_strtab_get(names, v[i].op));
        opscope_jw_u64(j, "count", v[i].count);
        if (delays) { /* sums modulo 2^64 of signed delays */
            opscope_jw_double(j, "mean_aten_op_delay_ns", (double)(int64_t)v[i].cpu_ns / (double)v[i].count);
            opscope_jw_double(j, "mean_runtime_delay_ns", (double)(int64_t)v[i].gpu_ns / (double)v[i].count);
        } else {
            opscope_jw_u64(j, "gpu_ns", v[i].gpu_ns);
            opscope_jw_u64(j, "cpu_ns", v[i].cpu_ns);
        }
        opscope_jw_arr(j, "kernels");
        for (size_t x = 0; x < v[i].len; x++) opscope_jw_item_str(j, opscope_strtab_get(names, v[i].names[x]));
        opscope_jw_end_arr(j);
        opscope_jw_end_obj(j);
    }
    opscope_jw_end_arr(j);
}

/* "kernel_types": HTA's span and its split of the kernel types' overlaps (kbreak.h), the
 * split's microseconds and HTA's rows by mask of the types running (bits: computation,
 * communication, memory). */
static void types_json(opscope_jw *j, const opscope_kineto_t *k) {
    const opscope_kbreak_results *r = opscope_kbreak_results_of(opscope_kineto_kbreak(k));
    const opscope_jw_i64_kv kv[] = {{"events", (int64_t)r->events}, {"span_ns", r->span_ns},
                                    {"busy_ns", r->busy_ns}, {"compute_ns", r->compute_ns}};
    opscope_jw_obj(j, "kernel_types");
    opscope_jw_i64s(j, kv, sizeof kv / sizeof *kv);
    opscope_jw_g17(j, "span_us", r->span_us);
    opscope_jw_g17(j, "busy_us", r->busy_us);
    opscope_jw_g17(j, "compute_us", r->compute_us);
    const int64_t *by[] = {r->with_memory_us, r->without_memory_us};
    const uint64_t *rows[] = {r->with_memory_rows, r->without_memory_rows};
    const char *const key[] = {"with_memory_us", "without_memory_us"};
    const char *const rkey[] = {"with_memory_rows", "without_memory_rows"};
    for (int x = 0; x < 2; x++) {
        opscope_jw_arr(j, key[x]);
        for (int m = 0; m < OPSCOPE_KBREAK_MASKS; m++) opscope_jw_item_i64(j, by[x][m]);
        opscope_jw_end_arr(j);
    }
    for (int x = 0; x < 2; x++) {
        opscope_jw_arr(j, rkey[x]);
        for (int m = 0; m < OPSCOPE_KBREAK_MASKS; m++) opscope_jw_item_i64(j, (int64_t)rows[x][m]);
        opscope_jw_end_arr(j);
    }
    opscope_jw_end_obj(j);
}

void opscope_kstats_report_write_json(opscope_out_t *w, const opscope_kineto_t *k) {
    const opscope_kstats_t *s = opscope_kineto_kstats(k);
    const opscope_kstats_launch *l = opscope_kstats_launches(s);
    opscope_jw j = opscope_jw_resume(w);
    opscope_jw_nl(&j);
    const opscope_jw_i64_kv head[] = {{"full_queue", opscope_kstats_full_queue(s)},
                                      {"kernel_wait_under_ns", OPSCOPE_KSTATS_KERNEL_WAIT_NS}};
    opscope_jw_obj(&j, "kernel_stats");
    opscope_jw_i64s(&j, head, sizeof head / sizeof *head);
    kernels_json(&j, k);
    opscope_jw_nl(&j);
    const opscope_jw_u64_kv lk[] = {{"launches", l->launches}, {"shorter_than_call", l->shorter_than_call},
                                    {"shorter_than_call_under_50us", l->shorter_short_call}};
    opscope_jw_obj(&j, "launches");
    opscope_jw_u64s(&j, lk, sizeof lk / sizeof *lk);
    series_json(&j, "delay_from_end", &l->delay_end);
    series_json(&j, "delay_from_end_hta", &l->delay_end_hta);
    series_json(&j, "delay_from_start", &l->delay_start);
    series_json(&j, "call", &l->call);
    opscope_jw_end_obj(&j);
    opscope_jw_nl(&j);
    streams_json(&j, s);
    opscope_jw_nl(&j);
    patterns_json(&j, "kernel_sequences", k, opscope_kineto_kseq(k), false);
    opscope_jw_nl(&j);
    patterns_json(&j, "aten_op_kernels", k, opscope_kineto_katen(k), true);
    opscope_jw_nl(&j);
    types_json(&j, k);
    opscope_jw_end_obj(&j);
}
