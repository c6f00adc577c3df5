/*
 * collectives_report.c - collectives in the console and JSON (collectives_report.h).
 */
#include "export/kineto/collectives_report.h"
#include "export/fmt/json_fmt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "1 MiB" for 2^B bytes. */
static void size_label(char *out, size_t size, int64_t b) {
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    if (b < 0) {
        snprintf(out, size, "0 B");
        return;
    }
    snprintf(out, size, "%llu %s", 1ull << (b % 10), units[b / 10 < 6 ? b / 10 : 6]);
}

static void bucket_label(char *out, size_t size, int64_t b) {
    char lo[16], hi[16];
    size_label(lo, sizeof lo, b);
    if (b < 0) {
        snprintf(out, size, "%s", lo);
        return;
    }
    size_label(hi, sizeof hi, b + 1);
    snprintf(out, size, "%s-%s", lo, hi);
}

static const char *on_text(bool on_kernels) { return on_kernels ? "kernels" : "cpu_ops"; }

static void row_console(opscope_out_t *w, const opscope_job_coll *r, const char *label) {
    opscope_out_printf(w, "  %-14s %-16s %7llu %5lld %12.2f %10.3f %9.2f %9.2f\n", r->type, label,
                       (unsigned long long)r->count, (long long)r->group_size, (double)r->bytes / (1 << 20),
                       (double)r->time_ns / 1e6, opscope_colls_gbps(r->bytes, r->time_ns),
                       opscope_colls_gbps(r->bus_bytes, r->time_ns));
}

static void head_console(opscope_out_t *w) {
    opscope_out_printf(w, "  %-14s %-16s %7s %5s %12s %10s %9s %9s\n", "collective", "message size", "count", "ranks",
                       "MiB", "time ms", "algbw GB/s", "busbw GB/s");
}

/* Rows V[0..N) merged by type into a malloc'd array (*NT rows); NULL when out of memory. */
static opscope_job_coll *by_type(const opscope_job_coll *v, size_t n, size_t *nt) {
    opscope_job_coll *t = calloc(n ? n : 1, sizeof *t);
    *nt = 0;
    for (size_t i = 0; t && i < n; i++) opscope_colls_merge(t, nt, n, &v[i], false);
    return t;
}

void opscope_colls_report_console(opscope_out_t *w, const opscope_colls_t *c) {
    size_t n, nt;
    bool k;
    const opscope_job_coll *v = opscope_colls_rows(c, &n, &k);
    if (!n) return;
    opscope_job_coll *t = by_type(v, n, &nt);
    opscope_out_printf(w, "\n  Collectives (timed on their %s; message size from In/Out msg nelems x dtype; "
                          "busbw: nccl-tests' bus factor)\n", k ? "kernels" : "record_param_comms CPU ops");
    head_console(w);
    for (size_t i = 0; t && i < nt; i++) row_console(w, &t[i], "all");
    for (size_t i = 0; i < n; i++) {
        char label[40];
        bucket_label(label, sizeof label, v[i].bucket);
        row_console(w, &v[i], label);
    }
    free(t);
}

/* The members "count", "bytes", "bus_bytes" and "time_ns" of a row, a rank's row. */
static void sizes_json(opscope_jw *j, uint64_t count, uint64_t bytes, uint64_t bus_bytes, int64_t time_ns) {
    const opscope_jw_u64_kv kv[] = {{"count", count}, {"bytes", bytes}, {"bus_bytes", bus_bytes}};
    opscope_jw_u64s(j, kv, sizeof kv / sizeof *kv);
    opscope_jw_i64(j, "time_ns", time_ns);
}

/* The members "algbw_gbps" and "busbw_gbps". */
static void bandwidth_json(opscope_jw *j, double algbw_gbps, double busbw_gbps) {
    opscope_jw_fixed(j, "algbw_gbps", algbw_gbps, 4);
    opscope_jw_fixed(j, "busbw_gbps", busbw_gbps, 4);
}

/* R as an array item, open: its members, the caller's after them, then opscope_jw_end_obj. */
static void row_json(opscope_jw *j, const opscope_job_coll *r, bool bucket) {
    opscope_jw_item_obj(j);
    opscope_jw_str(j, "type", r->type);
    if (bucket) {
        bool ok = r->bucket >= 0 && r->bucket < 64; /* always, for rows made or read back */
        opscope_jw_i64(j, "bucket", r->bucket);
        opscope_jw_u64(j, "min_bytes", ok ? 1ull << r->bucket : 0ull);
        opscope_jw_u64(j, "max_bytes", !ok ? 0ull : r->bucket == 63 ? ~0ull : (2ull << r->bucket) - 1);
    }
    opscope_jw_i64(j, "group_size", r->group_size);
    sizes_json(j, r->count, r->bytes, r->bus_bytes, r->time_ns);
    bandwidth_json(j, opscope_colls_gbps(r->bytes, r->time_ns), opscope_colls_gbps(r->bus_bytes, r->time_ns));
}

/* The "buckets" member: rows V[0..N). */
static void buckets_json(opscope_jw *j, const opscope_job_coll *v, size_t n) {
    opscope_jw_arr(j, "buckets");
    for (size_t i = 0; i < n; i++) {
        row_json(j, &v[i], true);
        opscope_jw_end_obj(j);
    }
    opscope_jw_end_arr(j);
}

void opscope_colls_report_json(opscope_out_t *w, const opscope_colls_t *c) {
    size_t n, nt;
    bool k;
    const opscope_job_coll *v = opscope_colls_rows(c, &n, &k);
    opscope_job_coll *t = by_type(v, n, &nt);
    opscope_jw j = opscope_jw_resume(w);
    opscope_jw_obj(&j, "collectives");
    opscope_jw_str(&j, "on", n ? on_text(k) : "none");
    opscope_jw_arr(&j, "types");
    for (size_t i = 0; t && i < nt; i++) {
        row_json(&j, &t[i], false);
        opscope_jw_end_obj(&j);
    }
    opscope_jw_end_arr(&j);
    buckets_json(&j, v, n);
    opscope_jw_end_obj(&j);
    free(t);
}

void opscope_colls_report_rank_json(opscope_out_t *w, const opscope_job_rank_summary *s) {
    opscope_jw j = opscope_jw_resume(w);
    opscope_jw_str(&j, "collectives_on",
                   !s->n_colls ? "none" : s->colls_unsized ? "annotations" : on_text(s->colls_on_kernels));
    opscope_jw_arr(&j, "collectives");
    for (size_t i = 0; i < s->n_colls; i++) {
        const opscope_job_coll *r = &s->colls[i];
        opscope_jw_item_obj(&j);
        opscope_jw_str(&j, "type", r->type);
        opscope_jw_i64(&j, "bucket", r->bucket);
        opscope_jw_i64(&j, "group_size", r->group_size);
        sizes_json(&j, r->count, r->bytes, r->bus_bytes, r->time_ns);
        opscope_jw_end_obj(&j);
    }
    opscope_jw_end_arr(&j);
}

/* Collectives with no sizes (gloo's annotations): counts and times per rank, no bandwidth. */
static void unsized_console(opscope_out_t *w, const opscope_job_colls *c) {
    opscope_out_printf(w, "\nCollectives (timed on gloo's annotations, gloo:all_reduce...: the trace has no sizes, "
                          "so no bandwidth; skew = (max - min) / median time)\n");
    opscope_out_printf(w, "  %-14s %6s %7s %10s %10s %10s %8s %6s %8s\n", "collective", "ranks", "count", "min ms",
                       "median ms", "max ms", "skew %", "late", "slowest");
    for (size_t i = 0; i < c->n_types; i++) {
        const opscope_job_coll_type *t = &c->types[i];
        opscope_out_printf(w, "  %-14s %6zu %7llu %10.3f %10.3f %10.3f %8.1f %6lld %8lld\n", t->tot.type, t->n_ranks,
                           (unsigned long long)t->tot.count, (double)t->time_min_ns / 1e6,
                           (double)t->median_time_ns / 1e6, (double)t->time_max_ns / 1e6, t->time_skew_pct,
                           (long long)t->late_rank, (long long)t->slowest_rank);
        for (size_t r = 0; r < t->n_ranks && r < 16; r++)
            opscope_out_printf(w, "    rank %-6lld %7llu x %10.3f ms\n", (long long)t->ranks[r].rank,
                               (unsigned long long)t->ranks[r].count, (double)t->ranks[r].time_ns / 1e6);
    }
}

void opscope_job_colls_console(opscope_out_t *w, const opscope_job_colls *c) {
    if (!c->n_types) return;
    if (c->unsized) {
        unsized_console(w, c);
        return;
    }
    opscope_out_printf(w, "\nCollectives (timed on their %s; message size from In/Out msg nelems x dtype; "
                          "busbw: nccl-tests' bus factor)\n", c->on_kernels ? "kernels" : "record_param_comms CPU ops");
    head_console(w);
    for (size_t i = 0; i < c->n_types; i++) row_console(w, &c->types[i].tot, "all");
    for (size_t i = 0; i < c->n_buckets; i++) {
        char label[40];
        bucket_label(label, sizeof label, c->buckets[i].bucket);
        row_console(w, &c->buckets[i], label);
    }
    opscope_out_printf(w, "\nCollectives per rank (bus bandwidth GB/s; skew = (max - min) / median)\n");
    opscope_out_printf(w, "  %-14s %6s %9s %9s %9s %8s %8s\n", "collective", "ranks", "min", "median", "max", "skew %",
                       "slowest");
    for (size_t i = 0; i < c->n_types; i++) {
        const opscope_job_coll_type *t = &c->types[i];
        opscope_out_printf(w, "  %-14s %6zu %9.2f %9.2f %9.2f %8.1f %8lld\n", t->tot.type, t->n_ranks, t->busbw_min_gbps,
                           t->busbw_median_gbps, t->busbw_max_gbps, t->skew_pct, (long long)t->slowest_rank);
        for (size_t r = 0; r < t->n_ranks && r < 16; r++)
            opscope_out_printf(w, "    rank %-6lld %7llu x %10.3f ms  algbw %9.2f  busbw %9.2f\n",
                               (long long)t->ranks[r].rank, (unsigned long long)t->ranks[r].count,
                               (double)t->ranks[r].time_ns / 1e6, t->ranks[r].algbw_gbps, t->ranks[r].busbw_gbps);
    }
}

/* One type's members after its row's: the spread over the ranks, then each rank's row. */
static void type_json(opscope_jw *j, const opscope_job_coll_type *t) {
    opscope_jw_u64(j, "ranks_count", t->n_ranks);
    const char *const bw_keys[] = {"busbw_min_gbps", "busbw_median_gbps", "busbw_max_gbps", "busbw_skew_pct"};
    const double bw[] = {t->busbw_min_gbps, t->busbw_median_gbps, t->busbw_max_gbps, t->skew_pct};
    for (size_t i = 0; i < sizeof bw / sizeof *bw; i++) opscope_jw_fixed(j, bw_keys[i], bw[i], 4);
    const opscope_jw_i64_kv kv[] = {{"slowest_rank", t->slowest_rank}, {"late_rank", t->late_rank},
                                    {"median_time_ns", t->median_time_ns}, {"late_wait_ns", t->late_wait_ns},
                                    {"time_min_ns", t->time_min_ns}, {"time_max_ns", t->time_max_ns}};
    opscope_jw_i64s(j, kv, sizeof kv / sizeof *kv);
    opscope_jw_fixed(j, "time_skew_pct", t->time_skew_pct, 4);
    opscope_jw_arr(j, "ranks");
    for (size_t r = 0; r < t->n_ranks; r++) {
        const opscope_job_coll_rank *x = &t->ranks[r];
        opscope_jw_item_obj(j);
        opscope_jw_i64(j, "rank", x->rank);
        sizes_json(j, x->count, x->bytes, x->bus_bytes, x->time_ns);
        bandwidth_json(j, x->algbw_gbps, x->busbw_gbps);
        opscope_jw_end_obj(j);
    }
    opscope_jw_end_arr(j);
}

void opscope_job_colls_json(opscope_out_t *w, const opscope_job_colls *c) {
    opscope_jw j = opscope_jw_resume(w);
    opscope_jw_obj(&j, "collectives");
    opscope_jw_str(&j, "on", !c->n_types ? "none" : c->unsized ? "annotations" : on_text(c->on_kernels));
    opscope_jw_arr(&j, "types");
    for (size_t i = 0; i < c->n_types; i++) {
        row_json(&j, &c->types[i].tot, false);
        type_json(&j, &c->types[i]);
        opscope_jw_end_obj(&j);
    }
    opscope_jw_end_arr(&j);
    buckets_json(&j, c->buckets, c->n_buckets);
    opscope_jw_end_obj(&j);
}
