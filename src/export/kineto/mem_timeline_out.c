/* mem_timeline_out.c - the memory timeline's peaks as text and JSON (see mem_timeline_out.h). */
#include "export/kineto/mem_timeline_out.h"
#include "export/fmt/json_fmt.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* BYTES as MiB with 3 decimals, right-aligned in WIDTH. */
static void mib(opscope_out_t *w, int64_t bytes, int width) {
    opscope_out_printf(w, "%*.3f", width, (double)bytes / (1024.0 * 1024.0));
}

/* T as ms after the timeline's first time. */
static void ms_after(opscope_out_t *w, const opscope_mem_timeline *m, int64_t t) {
    opscope_out_printf(w, "%12.3f", (double)(t - m->first_ns) / 1e6);
}

void opscope_mem_timeline_write_text(opscope_out_t *w, const opscope_mem_timeline *m, const char *source) {
    opscope_out_printf(w, "Memory timeline (torch.profiler export_memory_timeline, raw): %s\n", source);
    opscope_out_printf(w, "  %" PRIu64 " entries (%" PRIu64 " pre-existing), %" PRIu64 " points over %.3f ms\n",
                       m->entries, m->preexisting, m->points, (double)(m->last_ns - m->first_ns) / 1e6);
    if (!m->points) return;
    opscope_out_str(w, "  peak: ");
    mib(w, m->peak_total, 0);
    opscope_out_printf(w, " MiB (%" PRId64 " bytes) at %.3f ms\n", m->peak_total, (double)(m->peak_ns - m->first_ns) / 1e6);
    opscope_out_str(w, "\n  category           at peak MiB  own peak MiB  own peak at ms   at end MiB\n");
    for (int c = 0; c < OPSCOPE_MEM_CATEGORIES; c++) {
        opscope_out_printf(w, "  %-17s", opscope_mem_category_name(c));
        mib(w, m->at_peak[c], 13);
        mib(w, m->cat_peak[c], 14);
        opscope_out_str(w, "    ");
        ms_after(w, m, m->cat_peak_ns[c]);
        mib(w, m->final[c], 13);
        opscope_out_char(w, '\n');
    }
}

/* An object of the eight categories' V, by name. */
static void by_category(opscope_jw *j, const char *key, const int64_t *v) {
    opscope_jw_obj(j, key);
    for (int c = 0; c < OPSCOPE_MEM_CATEGORIES; c++) opscope_jw_i64(j, opscope_mem_category_name(c), v[c]);
    opscope_jw_end_obj(j);
}

void opscope_mem_timeline_write_json(opscope_out_t *w, const opscope_mem_timeline *m, const char *source) {
    opscope_jw j = opscope_jw_begin(w);
    opscope_jw_open_obj(&j);
    opscope_jw_obj(&j, "summary");
    opscope_jw_obj(&j, "memory_timeline");
    opscope_jw_str(&j, "source", source);
    const opscope_jw_u64_kv counts[] = {{"entries", m->entries}, {"preexisting", m->preexisting}, {"points", m->points}};
    opscope_jw_u64s(&j, counts, sizeof counts / sizeof *counts);
    const opscope_jw_i64_kv times[] = {{"first_ns", m->first_ns}, {"last_ns", m->last_ns},
                                       {"peak_ns", m->peak_ns}, {"peak_total_bytes", m->peak_total}};
    opscope_jw_i64s(&j, times, sizeof times / sizeof *times);
    const struct { const char *key; const int64_t *v; } per[] = {
        {"at_peak_bytes", m->at_peak}, {"category_peak_bytes", m->cat_peak},
        {"category_peak_ns", m->cat_peak_ns}, {"final_bytes", m->final}};
    for (size_t i = 0; i < sizeof per / sizeof *per; i++) {
        opscope_jw_nl(&j);
        by_category(&j, per[i].key, per[i].v);
    }
    opscope_jw_end_obj(&j);
    opscope_jw_end_obj(&j);
    opscope_jw_end_obj(&j);
    opscope_out_char(w, '\n');
}

int opscope_mem_timeline_report(const char *input, const char *json, bool quiet, opscope_error *err) {
    opscope_mem_timeline m;
    if (opscope_mem_timeline_read(input, &m, err)) return -1;
    if (json) {
        opscope_out_t *w = opscope_out_open(json, err);
        if (!w) return -1;
        opscope_mem_timeline_write_json(w, &m, input);
        if (opscope_out_commit(w, err)) return -1;
    }
    if (quiet || (json && !strcmp(json, "-"))) return 0;
    opscope_out_t *con = opscope_out_from_file(stdout, err);
    if (!con) return -1;
    opscope_mem_timeline_write_text(con, &m, input);
    return opscope_out_commit(con, err);
}
