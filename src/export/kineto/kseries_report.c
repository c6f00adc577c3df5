/* kseries_report.c - queue length and memory bandwidth in the report (see kseries_report.h). */
#include "export/kineto/kseries_report.h"

#include "analyze/kineto/kmembw.h"
#include "analyze/kineto/kqueue.h"
#include "analyze/kineto/kstats.h"
#include "export/fmt/json_fmt.h"

#include <inttypes.h>

static void describe_text(opscope_out_t *w, const opscope_kdescribe *d) {
    opscope_out_printf(w, "  %8" PRIu64, d->count);
    const double v[] = {d->mean, d->std, d->min, d->p25, d->p50, d->p75, d->max};
    for (size_t i = 0; i < sizeof v / sizeof *v; i++) opscope_out_printf(w, "  %8.3f", v[i]);
}

void opscope_kseries_report_write(opscope_out_t *w, const opscope_kineto_t *k) {
    size_t nq, nm;
    const opscope_kqueue_stream *q = opscope_kqueue_streams(opscope_kstats_queue(opscope_kineto_kstats(k)), &nq);
    const opscope_kmembw_kind *m = opscope_kmembw_kinds(opscope_kineto_kmembw(k), &nm);
    if (nq)
        opscope_out_str(w, "\nQueue length per stream (a point per change: HTA's get_queue_length_summary;"
                           " out: the activity leaves at its start, HTA, or its end)\n"
                           "  device  stream  out       count      mean       std    min    25%    50%    75%    max\n");
    for (size_t i = 0; i < nq; i++)
        for (int o = 0; o <= OPSCOPE_KQUEUE_OUT_END; o++) {
            opscope_out_printf(w, "  %6" PRId64 "  %6" PRId64 "  %-5s", q[i].device, q[i].stream,
                               o == OPSCOPE_KQUEUE_OUT_START ? "start" : "end");
            opscope_out_printf(w, "  %8" PRIu64 "  %8.3f  %8.3f", q[i].len[o].count, q[i].len[o].mean, q[i].len[o].std);
            const double v[] = {q[i].len[o].min, q[i].len[o].p25, q[i].len[o].p50, q[i].len[o].p75, q[i].len[o].max};
            for (size_t x = 0; x < sizeof v / sizeof *v; x++) opscope_out_printf(w, "  %5.4g", v[x]);
            opscope_out_char(w, '\n');
        }
    if (!nm) return;
    opscope_out_str(w, "\nMemory bandwidth per kind (GB/s; the points above 0: HTA's get_memory_bw_summary)\n"
                       "  kind             activities     count      mean       std       min       25%       50%"
                       "       75%       max\n");
    for (size_t i = 0; i < nm; i++) {
        opscope_out_printf(w, "  %-15s  %10" PRIu64, m[i].name, m[i].activities);
        describe_text(w, &m[i].bw);
        opscope_out_char(w, '\n');
    }
}

/* The member KEY: {count, mean, std, min, p25, p50, p75, max} of D (KEY NULL: D's members
 * into the open object). */
static void describe_json(opscope_jw *j, const char *key, const opscope_kdescribe *d) {
    if (key) opscope_jw_obj(j, key);
    opscope_jw_u64(j, "count", d->count);
    const char *const names[] = {"mean", "std", "min", "p25", "p50", "p75", "max"};
    const double v[] = {d->mean, d->std, d->min, d->p25, d->p50, d->p75, d->max};
    for (size_t i = 0; i < sizeof v / sizeof *v; i++) opscope_jw_double(j, names[i], v[i]);
    if (key) opscope_jw_end_obj(j);
}

void opscope_kseries_report_write_json(opscope_out_t *w, const opscope_kineto_t *k) {
    size_t nq, nm;
    const opscope_kqueue_stream *q = opscope_kqueue_streams(opscope_kstats_queue(opscope_kineto_kstats(k)), &nq);
    const opscope_kmembw_kind *m = opscope_kmembw_kinds(opscope_kineto_kmembw(k), &nm);
    opscope_jw j = opscope_jw_resume(w);
    opscope_jw_nl(&j);
    opscope_jw_obj(&j, "queue_length");
    opscope_jw_arr(&j, "streams");
    for (size_t i = 0; i < nq; i++) {
        opscope_jw_nl(&j);
        opscope_jw_item_obj(&j);
        const opscope_jw_i64_kv id[] = {{"device", q[i].device}, {"stream", q[i].stream}};
        opscope_jw_i64s(&j, id, sizeof id / sizeof *id);
        describe_json(&j, "out_at_start", &q[i].len[OPSCOPE_KQUEUE_OUT_START]);
        describe_json(&j, "out_at_end", &q[i].len[OPSCOPE_KQUEUE_OUT_END]);
        describe_json(&j, "out_at_start_hta", &q[i].len[OPSCOPE_KQUEUE_OUT_START_HTA]);
        opscope_jw_end_obj(&j);
    }
    opscope_jw_end_arr(&j);
    opscope_jw_end_obj(&j);
    opscope_jw_nl(&j);
    opscope_jw_obj(&j, "memory_bw");
    opscope_jw_arr(&j, "kinds");
    for (size_t i = 0; i < nm; i++) {
        opscope_jw_item_obj(&j);
        opscope_jw_str(&j, "name", m[i].name);
        opscope_jw_u64(&j, "activities", m[i].activities);
        describe_json(&j, NULL, &m[i].bw);
        opscope_jw_end_obj(&j);
    }
    opscope_jw_end_arr(&j);
    opscope_jw_end_obj(&j);
}
