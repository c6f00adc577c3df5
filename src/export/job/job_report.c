/*
 * job_report.c - the job's console report and JSON summary (job_report.h).
 */
#include "export/job/job_report.h"

#include "analyze/record/kernel_name.h"
#include "export/fmt/json_fmt.h"
#include "export/kineto/collectives_report.h"

#include <string.h>

static double ms(int64_t ns) {
    return (double)ns / 1e6;
}

static const char *cause_text(opscope_job_cause c) {
    switch (c) {
    case OPSCOPE_JOB_CAUSE_COMPUTE: return "more compute than the other ranks";
    case OPSCOPE_JOB_CAUSE_INPUT: return "more time loading input (DataLoader)";
    case OPSCOPE_JOB_CAUSE_LAUNCH: return "its GPU waits longer for the host to launch work";
    default: return "no single cause found";
    }
}

/* The collective whose late rank makes the others wait longest: which, who, how long. */
static void write_skew(opscope_out_t *w, const opscope_job *job) {
    const opscope_job_coll_type *t = opscope_job_colls_worst_skew(&job->colls);
    if (!t) return;
    uint64_t calls = 0;
    int64_t late_ns = t->median_time_ns - t->late_wait_ns;
    for (size_t i = 0; i < t->n_ranks; i++)
        if (t->ranks[i].rank == t->late_rank) calls = t->ranks[i].count;
    if (job->colls.unsized)
        opscope_out_printf(w, "Collective skew: %s, time per rank %.1f-%.1f ms over %zu ranks (skew %.1f%%; the trace has "
                              "no sizes, so no bandwidth); rank %lld is late:\n",
                           t->tot.type, ms(t->time_min_ns), ms(t->time_max_ns), t->n_ranks, t->time_skew_pct,
                           (long long)t->late_rank);
    else
        opscope_out_printf(w, "Collective skew: %s, bus bandwidth %.2f-%.2f GB/s over %zu ranks (skew %.1f%%); "
                              "rank %lld is late:\n",
                           t->tot.type, t->busbw_min_gbps, t->busbw_max_gbps, t->n_ranks, t->skew_pct,
                           (long long)t->late_rank);
    opscope_out_printf(w, "          the others wait for it, its %llu %s calls take %.1f ms "
                          "against the median rank's %.1f ms (%.1f ms of waiting, %.2f ms per call)\n",
                       (unsigned long long)calls, t->tot.type, ms(late_ns),
                       ms(t->median_time_ns), ms(t->late_wait_ns), calls ? ms(t->late_wait_ns) / (double)calls : 0.0);
}

/* The first screen: what bounds the job. */
static void write_answer(opscope_out_t *w, const opscope_job *job, const opscope_job_read_info *ri) {
    const opscope_job_rank_summary *r0 = job->rows[0].s;
    size_t steps = 0;
    for (size_t i = 0; i < job->n; i++)
        if (job->rows[i].s->n_steps > steps) steps = job->rows[i].s->n_steps;
    opscope_out_printf(w, "Job: %zu ranks", job->n);
    if (r0->backend[0] || r0->world_size > 0)
        opscope_out_printf(w, " (%s, world size %lld)", r0->backend[0] ? r0->backend : "?",
                           (long long)r0->world_size);
    opscope_out_printf(w, ", %zu profiler steps, measured on the %s; read in %.2f s on %d thread%s\n",
                       steps, job->gpu ? "GPU activities" : "CPU side (no GPU activity)",
                       ri->wall_s, ri->threads, ri->threads == 1 ? "" : "s");
    const opscope_job_row *b = &job->rows[job->bound_row];
    if (job->n_stragglers) {
        const opscope_job_straggler *st = &job->stragglers[0];
        size_t n = b->s->n_steps ? b->s->n_steps : 1;
        opscope_out_printf(w, "Bound by: rank %lld, %s: %s (+%.1f ms per step over the median rank);\n"
                              "          the others wait for it in collectives (%.1f ms less "
                              "communication than the median rank)\n",
                           (long long)st->rank, job->bound_resource, cause_text(st->cause),
                           ms(st->excess_ns) / (double)n, ms(st->wait_ns));
    } else {
        opscope_out_printf(w, "Bound by: %s (the largest share of the median rank's time); no "
                              "straggler; slowest rank %lld (%+.1f%% step time vs the median)\n",
                           job->bound_resource, (long long)b->s->rank, b->step_dev_pct);
    }
    opscope_out_printf(w, "Median rank: compute %.1f%%, exposed communication %.1f%%, memory %.1f%%, "
                          "input %.1f%%, idle %.1f%%; overlap %.1f%% of communication\n",
                       job->median_compute_pct, job->median_exposed_comm_pct, job->median_memory_pct,
                       job->median_input_pct, job->median_idle_pct, job->median_overlap_pct);
    if (job->slowest_step_num >= 0)
        opscope_out_printf(w, "Slowest step: ProfilerStep#%lld on rank %lld, %.1f ms (median step %.1f ms)\n",
                           (long long)job->slowest_step_num, (long long)job->slowest_step_rank,
                           ms(job->slowest_step_ns), ms(job->median_step_ns));
    for (size_t i = 0; i < job->n_stragglers; i++) {
        const opscope_job_straggler *st = &job->stragglers[i];
        opscope_out_printf(w, "%s rank %lld (%s, +%.1f ms; others wait %.1f ms)", i ? "," : "Stragglers:",
                           (long long)st->rank, opscope_job_cause_name(st->cause), ms(st->excess_ns),
                           ms(st->wait_ns));
    }
    if (job->n_stragglers) opscope_out_char(w, '\n');
    write_skew(w, job);
}

static void write_ranks(opscope_out_t *w, const opscope_job *job) {
    opscope_out_str(w, "\nPer rank (% of each rank's span; overlap: % of its communication)\n");
    opscope_out_printf(w, "%5s %5s %9s %7s %6s %6s %8s %6s %6s %6s %8s %10s  %s\n", "rank", "steps",
                       "step ms", "vs med", "busy%", "idle%", "compute%", "comm%", "mem%", "input%",
                       "overlap%", "delay p50", "trace");
    for (size_t i = 0; i < job->n; i++) {
        const opscope_job_row *r = &job->rows[i];
        const opscope_job_rank_summary *s = r->s;
        const char *base = strrchr(r->path, '/');
        opscope_out_printf(w, "%5lld %5zu %9.2f %+6.1f%% %6.1f %6.1f %8.1f %6.1f %6.1f %6.1f %8.1f ",
                           (long long)s->rank, s->n_steps,
                           ms(s->n_steps ? s->step_median_ns : s->span_ns), r->step_dev_pct,
                           r->busy_pct, r->idle_pct, r->compute_pct, r->comm_pct, r->memory_pct,
                           r->input_pct, r->overlap_pct);
        if (s->gpu) opscope_out_printf(w, "%8.1fus", (double)s->launch.delay_p50_ns / 1e3);
        else opscope_out_printf(w, "%10s", "-");
        opscope_out_printf(w, "  %s\n", base ? base + 1 : r->path);
    }
}

/* The steps by number: each step's duration over the ranks that have it. */
static void write_steps(opscope_out_t *w, const opscope_job *job) {
    const opscope_job_rank_summary *s0 = job->rows[0].s;
    if (!s0->n_steps) return;
    opscope_out_str(w, "\nPer step (duration over the ranks; overlap: of the step's communication)\n");
    opscope_out_printf(w, "%12s %9s %9s %9s %8s %9s\n", "step", "min ms", "max ms", "slowest", "comm%",
                       "overlap%");
    for (size_t k = 0; k < s0->n_steps; k++) {
        int64_t num = s0->steps[k].num, lo = INT64_MAX, hi = -1, slow = -1, comm = 0, ov = 0, dur = 0;
        for (size_t i = 0; i < job->n; i++) {
            const opscope_job_rank_summary *s = job->rows[i].s;
            for (size_t j = 0; j < s->n_steps; j++) {
                const opscope_job_step *st = &s->steps[j];
                if (st->num != num) continue;
                if (st->dur_ns < lo) lo = st->dur_ns;
                if (st->dur_ns > hi) {
                    hi = st->dur_ns;
                    slow = s->rank;
                }
                comm += st->comm_ns;
                ov += st->overlap_ns;
                dur += st->dur_ns;
            }
        }
        opscope_out_printf(w, "%12lld %9.2f %9.2f %9lld %8.1f %9.1f\n", (long long)num, ms(lo), ms(hi),
                           (long long)slow, dur ? 100.0 * (double)comm / (double)dur : 0.0,
                           comm ? 100.0 * (double)ov / (double)comm : 0.0);
    }
}

static void write_launches(opscope_out_t *w, const opscope_job *job) {
    opscope_out_str(w, "\nLaunches (delay: kernel start - runtime call start; CPU: the call's duration; us)\n");
    opscope_out_printf(w, "%5s %9s %9s %9s %9s %9s %8s %8s %8s %9s %9s\n", "rank", "launches",
                       "delay p50", "p90", "p99", "max", "cpu p50", "p90", "max", "delay>cut",
                       "cpu>cut");
    for (size_t i = 0; i < job->n; i++) {
        const opscope_job_rank_summary *s = job->rows[i].s;
        const opscope_job_launch *l = &s->launch;
        if (!s->gpu) continue;
        opscope_out_printf(w, "%5lld %9llu %9.1f %9.1f %9.1f %9.1f %8.1f %8.1f %8.1f %9llu %9llu\n",
                           (long long)s->rank, (unsigned long long)l->launches, l->delay_p50_ns / 1e3,
                           l->delay_p90_ns / 1e3, l->delay_p99_ns / 1e3, l->delay_max_ns / 1e3,
                           l->cpu_p50_ns / 1e3, l->cpu_p90_ns / 1e3, l->cpu_max_ns / 1e3,
                           (unsigned long long)l->delay_outliers, (unsigned long long)l->cpu_outliers);
        for (int k = 0; k < l->n_outliers; k++) {
            char shortn[128];
            opscope_kernel_name_short(shortn, sizeof shortn, l->outliers[k].name);
            opscope_out_printf(w, "%5s   %llu of %llu launches delayed, max %.1f us: %.60s\n", "",
                               (unsigned long long)l->outliers[k].count,
                               (unsigned long long)l->outliers[k].launches,
                               l->outliers[k].max_delay_ns / 1e3, shortn);
        }
    }
}

static void write_streams(opscope_out_t *w, const opscope_job *job) {
    opscope_out_str(w, "\nStreams (idle split: host wait = nothing queued, kernel wait = queued; "
                       "queue: launched, unfinished)\n");
    opscope_out_printf(w, "%5s %6s %6s %8s %9s %9s %9s %9s %9s %6s %7s %9s\n", "rank", "device", "stream",
                       "kernels", "busy ms", "idle ms", "host ms", "kernel ms", "other ms", "q max",
                       "q mean", "at max ms");
    for (size_t i = 0; i < job->n; i++) {
        const opscope_job_rank_summary *s = job->rows[i].s;
        for (size_t k = 0; k < s->n_streams; k++) {
            const opscope_job_stream *t = &s->streams[k];
            opscope_out_printf(w, "%5lld %6lld %6lld %8llu %9.2f %9.2f %9.2f %9.2f %9.2f %6lld %7.2f %9.3f\n",
                               (long long)s->rank, (long long)t->device, (long long)t->stream,
                               (unsigned long long)t->activities, ms(t->busy_ns), ms(t->idle_ns),
                               ms(t->host_wait_ns), ms(t->kernel_wait_ns), ms(t->other_wait_ns),
                               (long long)t->queue_max, t->queue_mean, ms(t->queue_at_max_ns));
        }
    }
}

static void write_annots(opscope_out_t *w, const opscope_job *job, const opscope_job_annot_row *rows, size_t n,
                         const char *what) {
    if (!n) return;
    opscope_out_printf(w, "\nTime per %s (nested; %s time, each rank's top %d)\n", what,
                       job->gpu ? "GPU kernel" : "CPU", OPSCOPE_JOB_ANNOTS);
    opscope_out_printf(w, "%10s %10s %6s %9s %8s  %s\n", "median ms", "max ms", "rank", "kernels", "ranks",
                       "name");
    for (size_t i = 0; i < n && i < 15; i++) {
        const opscope_job_annot_row *a = &rows[i];
        opscope_out_printf(w, "%10.2f %10.2f %6lld %9llu %8zu  %.70s\n", ms(a->median_ns), ms(a->max_ns),
                           (long long)a->max_rank, (unsigned long long)a->kernels, a->ranks, a->name);
    }
}

void opscope_job_report_console(opscope_out_t *w, const opscope_job *job,
                                const opscope_job_read_info *ri) {
    if (!job->n) return;
    write_answer(w, job, ri);
    write_ranks(w, job);
    write_steps(w, job);
    write_annots(w, job, job->annots, job->n_annots, "annotation (record_function ranges)");
    write_annots(w, job, job->modules, job->n_modules, "module (nn.Module python frames)");
    opscope_job_colls_console(w, &job->colls);
    if (job->gpu) {
        write_launches(w, job);
        write_streams(w, job);
    }
}

/* ------------------------------------------------------------------------------------------ */
/* JSON                                                                                        */

static void json_steps(opscope_jw *j, const opscope_job_rank_summary *s) {
    opscope_jw_arr(j, "steps");
    for (size_t k = 0; k < s->n_steps; k++) {
        const opscope_job_step *t = &s->steps[k];
        opscope_jw_item_obj(j);
        const opscope_jw_i64_kv kv[] = {{"step", t->num}, {"start_ns", t->start_ns},
                                        {"dur_ns", t->dur_ns}, {"busy_ns", t->busy_ns},
                                        {"compute_ns", t->compute_ns}, {"comm_ns", t->comm_ns},
                                        {"overlap_ns", t->overlap_ns}, {"input_ns", t->input_ns}};
        opscope_jw_i64s(j, kv, sizeof kv / sizeof *kv);
        opscope_jw_fixed(j, "overlap_pct", t->comm_ns ? 100.0 * (double)t->overlap_ns / (double)t->comm_ns : 0.0, 4);
        opscope_jw_end_obj(j);
    }
    opscope_jw_end_arr(j);
}

static void json_streams(opscope_jw *j, const opscope_job_rank_summary *s) {
    opscope_jw_arr(j, "streams");
    for (size_t k = 0; k < s->n_streams; k++) {
        const opscope_job_stream *t = &s->streams[k];
        const opscope_jw_i64_kv kv[] = {
            {"device", t->device}, {"stream", t->stream},
            {"activities", (int64_t)t->activities}, {"span_ns", t->span_ns},
            {"busy_ns", t->busy_ns}, {"idle_ns", t->idle_ns}, {"host_wait_ns", t->host_wait_ns},
            {"kernel_wait_ns", t->kernel_wait_ns}, {"other_wait_ns", t->other_wait_ns},
            {"queue_max", t->queue_max}};
        opscope_jw_item_obj(j);
        opscope_jw_i64s(j, kv, sizeof kv / sizeof *kv);
        opscope_jw_double(j, "queue_mean", t->queue_mean); /* round trip: summaries combine exactly */
        opscope_jw_i64(j, "queue_at_max_ns", t->queue_at_max_ns);
        opscope_jw_end_obj(j);
    }
    opscope_jw_end_arr(j);
}

static void json_launch(opscope_jw *j, const opscope_job_launch *l) {
    opscope_jw_obj(j, "launch");
    const opscope_jw_i64_kv kv[] = {
        {"launches", (int64_t)l->launches}, {"delay_p50_ns", l->delay_p50_ns},
        {"delay_p90_ns", l->delay_p90_ns}, {"delay_p99_ns", l->delay_p99_ns},
        {"delay_max_ns", l->delay_max_ns}, {"cpu_p50_ns", l->cpu_p50_ns},
        {"cpu_p90_ns", l->cpu_p90_ns}, {"cpu_max_ns", l->cpu_max_ns},
        {"delay_outliers", (int64_t)l->delay_outliers}, {"cpu_outliers", (int64_t)l->cpu_outliers}};
    opscope_jw_i64s(j, kv, sizeof kv / sizeof *kv);
    opscope_jw_arr(j, "outliers");
    for (int k = 0; k < l->n_outliers; k++) {
        opscope_jw_item_obj(j);
        opscope_jw_str(j, "name", l->outliers[k].name);
        const opscope_jw_i64_kv o[] = {{"count", (int64_t)l->outliers[k].count},
                                       {"launches", (int64_t)l->outliers[k].launches},
                                       {"max_delay_ns", l->outliers[k].max_delay_ns}};
        opscope_jw_i64s(j, o, sizeof o / sizeof *o);
        opscope_jw_end_obj(j);
    }
    opscope_jw_end_arr(j);
    opscope_jw_end_obj(j);
}

static void json_annots(opscope_jw *j, const char *key, const opscope_job_annot *v, int n) {
    opscope_jw_arr(j, key);
    for (int k = 0; k < n; k++) {
        const opscope_job_annot *a = &v[k];
        const opscope_jw_i64_kv kv[] = {{"count", (int64_t)a->count}, {"kernels", (int64_t)a->kernels},
                                        {"cpu_ns", a->cpu_ns}, {"gpu_ns", a->gpu_ns},
                                        {"self_gpu_ns", a->self_gpu_ns}};
        opscope_jw_item_obj(j);
        opscope_jw_str(j, "name", a->name);
        opscope_jw_i64s(j, kv, sizeof kv / sizeof *kv);
        opscope_jw_end_obj(j);
    }
    opscope_jw_end_arr(j);
}

static void json_rank(opscope_jw *j, const opscope_job_row *r) {
    const opscope_job_rank_summary *s = r->s;
    opscope_jw_item_obj(j);
    opscope_jw_i64(j, "rank", s->rank);
    opscope_jw_str(j, "trace", r->path);
    opscope_jw_str(j, "measured_on", s->gpu ? "gpu" : "cpu");
    opscope_jw_i64(j, "world_size", s->world_size);
    opscope_jw_str(j, "backend", s->backend);
    const opscope_jw_i64_kv times[] = {
        {"gpu_activities", (int64_t)s->gpu_activities}, {"cpu_ops", (int64_t)s->cpu_ops},
        {"steps_count", (int64_t)s->n_steps}, {"step_median_ns", s->step_median_ns},
        {"span_ns", s->span_ns}, {"busy_ns", s->busy_ns}, {"idle_ns", s->idle_ns},
        {"compute_ns", s->compute_ns}, {"comm_ns", s->comm_ns}, {"memory_ns", s->memory_ns},
        {"input_ns", s->input_ns}, {"overlap_ns", s->overlap_ns}};
    opscope_jw_i64s(j, times, sizeof times / sizeof *times);
    const char *const pct_keys[] = {"idle_pct", "compute_pct", "non_compute_pct", "overlap_pct", "step_dev_pct"};
    const double pcts[] = {r->idle_pct, r->compute_pct, r->non_compute_pct, r->overlap_pct, r->step_dev_pct};
    for (size_t i = 0; i < sizeof pcts / sizeof *pcts; i++) opscope_jw_fixed(j, pct_keys[i], pcts[i], 4);
    const opscope_jw_i64_kv waits[] = {{"launch_delay_p50_ns", s->launch.delay_p50_ns},
                                       {"host_wait_ns", s->host_wait_ns},
                                       {"kernel_wait_ns", s->kernel_wait_ns},
                                       {"other_wait_ns", s->other_wait_ns}};
    opscope_jw_i64s(j, waits, sizeof waits / sizeof *waits);
    json_steps(j, s);
    json_streams(j, s);
    json_launch(j, &s->launch);
    json_annots(j, "annotations", s->annots, s->n_annots);
    json_annots(j, "modules", s->modules, s->n_modules);
    opscope_colls_report_rank_json(j->out, s);
    opscope_jw_end_obj(j);
}

void opscope_job_report_json(opscope_out_t *w, const opscope_job *job,
                             const opscope_job_read_info *ri) {
    opscope_jw j = opscope_jw_object(w);
    opscope_jw_obj(&j, "summary");
    opscope_jw_obj(&j, "job");
    opscope_jw_i64(&j, "ranks_count", (int64_t)job->n);
    opscope_jw_i64(&j, "read_threads", ri->threads);
    opscope_jw_str(&j, "measured_on", job->gpu ? "gpu" : "cpu");
    opscope_jw_i64(&j, "median_step_ns", job->median_step_ns);
    opscope_jw_obj(&j, "bound");
    opscope_jw_i64(&j, "rank", job->n ? job->rows[job->bound_row].s->rank : -1);
    opscope_jw_str(&j, "resource", job->bound_resource ? job->bound_resource : "unknown");
    const opscope_jw_i64_kv slowest[] = {{"slowest_step", job->slowest_step_num},
                                         {"slowest_step_rank", job->slowest_step_rank},
                                         {"slowest_step_ns", job->slowest_step_ns}};
    opscope_jw_i64s(&j, slowest, sizeof slowest / sizeof *slowest);
    opscope_jw_end_obj(&j);
    opscope_jw_arr(&j, "ranks");
    for (size_t i = 0; i < job->n; i++) json_rank(&j, &job->rows[i]);
    opscope_jw_end_arr(&j);
    opscope_jw_arr(&j, "stragglers");
    for (size_t i = 0; i < job->n_stragglers; i++) {
        const opscope_job_straggler *st = &job->stragglers[i];
        const opscope_jw_i64_kv kv[] = {{"wait_ns", st->wait_ns}, {"excess_ns", st->excess_ns}};
        opscope_jw_item_obj(&j);
        opscope_jw_i64(&j, "rank", st->rank);
        opscope_jw_str(&j, "cause", opscope_job_cause_name(st->cause));
        opscope_jw_i64s(&j, kv, sizeof kv / sizeof *kv);
        opscope_jw_end_obj(&j);
    }
    opscope_jw_end_arr(&j);
    opscope_job_colls_json(w, &job->colls);
    opscope_jw_end_obj(&j);
    opscope_jw_end_obj(&j);
    opscope_jw_end_obj(&j);
    opscope_out_char(w, '\n');
}
