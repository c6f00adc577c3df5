/*
 * collectives_report.c - collectives in the console and JSON (collectives_report.h).
 */
#include "export/kineto/collectives_report.h"

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

static void row_json(opscope_out_t *w, const opscope_job_coll *r, bool bucket) {
    opscope_out_str(w, "{\"type\":");
    opscope_out_json_str(w, r->type);
    if (bucket) {
        bool ok = r->bucket >= 0 && r->bucket < 64; /* always, for rows made or read back */
        opscope_out_printf(w, ",\"bucket\":%lld,\"min_bytes\":%llu,\"max_bytes\":%llu", (long long)r->bucket,
                           ok ? 1ull << r->bucket : 0ull, !ok ? 0ull : r->bucket == 63 ? ~0ull : (2ull << r->bucket) - 1);
    }
    opscope_out_printf(w, ",\"group_size\":%lld,\"count\":%llu,\"bytes\":%llu,\"bus_bytes\":%llu,\"time_ns\":%lld",
                       (long long)r->group_size, (unsigned long long)r->count, (unsigned long long)r->bytes,
                       (unsigned long long)r->bus_bytes, (long long)r->time_ns);
    opscope_out_str(w, ",\"algbw_gbps\":");
    opscope_out_fixed(w, opscope_colls_gbps(r->bytes, r->time_ns), 4);
    opscope_out_str(w, ",\"busbw_gbps\":");
    opscope_out_fixed(w, opscope_colls_gbps(r->bus_bytes, r->time_ns), 4);
}

void opscope_colls_report_json(opscope_out_t *w, const opscope_colls_t *c) {
    size_t n, nt;
    bool k;
    const opscope_job_coll *v = opscope_colls_rows(c, &n, &k);
    opscope_job_coll *t = by_type(v, n, &nt);
    opscope_out_str(w, ",\"collectives\":{\"on\":");
    opscope_out_json_str(w, n ? on_text(k) : "none");
    opscope_out_str(w, ",\"types\":[");
    for (size_t i = 0; t && i < nt; i++) {
        if (i) opscope_out_char(w, ',');
        row_json(w, &t[i], false);
        opscope_out_char(w, '}');
    }
    opscope_out_str(w, "],\"buckets\":[");
    for (size_t i = 0; i < n; i++) {
        if (i) opscope_out_char(w, ',');
        row_json(w, &v[i], true);
        opscope_out_char(w, '}');
    }
    opscope_out_str(w, "]}");
    free(t);
}

void opscope_colls_report_rank_json(opscope_out_t *w, const opscope_job_rank_summary *s) {
    opscope_out_str(w, ",\"collectives_on\":");
    opscope_out_json_str(w, !s->n_colls ? "none" : s->colls_unsized ? "annotations" : on_text(s->colls_on_kernels));
    opscope_out_str(w, ",\"collectives\":[");
    for (size_t i = 0; i < s->n_colls; i++) {
        const opscope_job_coll *r = &s->colls[i];
        opscope_out_str(w, i ? ",{\"type\":" : "{\"type\":");
        opscope_out_json_str(w, r->type);
        opscope_out_printf(w, ",\"bucket\":%lld,\"group_size\":%lld,\"count\":%llu,\"bytes\":%llu,\"bus_bytes\":%llu,"
                              "\"time_ns\":%lld}",
                           (long long)r->bucket, (long long)r->group_size, (unsigned long long)r->count,
                           (unsigned long long)r->bytes, (unsigned long long)r->bus_bytes, (long long)r->time_ns);
    }
    opscope_out_char(w, ']');
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

static void kd(opscope_out_t *w, const char *k, double v) {
    opscope_out_printf(w, ",\"%s\":", k);
    opscope_out_fixed(w, v, 4);
}

void opscope_job_colls_json(opscope_out_t *w, const opscope_job_colls *c) {
    opscope_out_str(w, ",\"collectives\":{\"on\":");
    opscope_out_json_str(w, !c->n_types ? "none" : c->unsized ? "annotations" : on_text(c->on_kernels));
    opscope_out_str(w, ",\"types\":[");
    for (size_t i = 0; i < c->n_types; i++) {
        const opscope_job_coll_type *t = &c->types[i];
        if (i) opscope_out_char(w, ',');
        row_json(w, &t->tot, false);
        opscope_out_printf(w, ",\"ranks_count\":%zu", t->n_ranks);
        kd(w, "busbw_min_gbps", t->busbw_min_gbps);
        kd(w, "busbw_median_gbps", t->busbw_median_gbps);
        kd(w, "busbw_max_gbps", t->busbw_max_gbps);
        kd(w, "busbw_skew_pct", t->skew_pct);
        opscope_out_printf(w, ",\"slowest_rank\":%lld,\"late_rank\":%lld,\"median_time_ns\":%lld,\"late_wait_ns\":%lld",
                           (long long)t->slowest_rank, (long long)t->late_rank, (long long)t->median_time_ns,
                           (long long)t->late_wait_ns);
        opscope_out_printf(w, ",\"time_min_ns\":%lld,\"time_max_ns\":%lld", (long long)t->time_min_ns,
                           (long long)t->time_max_ns);
        kd(w, "time_skew_pct", t->time_skew_pct);
        opscope_out_str(w, ",\"ranks\":[");
        for (size_t r = 0; r < t->n_ranks; r++) {
            const opscope_job_coll_rank *x = &t->ranks[r];
            opscope_out_printf(w, "%s{\"rank\":%lld,\"count\":%llu,\"bytes\":%llu,\"bus_bytes\":%llu,\"time_ns\":%lld",
                               r ? "," : "", (long long)x->rank, (unsigned long long)x->count,
                               (unsigned long long)x->bytes, (unsigned long long)x->bus_bytes, (long long)x->time_ns);
            kd(w, "algbw_gbps", x->algbw_gbps);
            kd(w, "busbw_gbps", x->busbw_gbps);
            opscope_out_char(w, '}');
        }
        opscope_out_str(w, "]}");
    }
    opscope_out_str(w, "],\"buckets\":[");
    for (size_t i = 0; i < c->n_buckets; i++) {
        if (i) opscope_out_char(w, ',');
        row_json(w, &c->buckets[i], true);
        opscope_out_char(w, '}');
    }
    opscope_out_str(w, "]}");
}
