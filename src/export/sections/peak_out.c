/* peak_out.c - the peak file's JSON (sections.h; read back by analyze/ggml/roofline.c). */
#include "export/sections/sections.h"
#include "export/fmt/json_fmt.h"

#include <stdio.h>

/* The peak file's layout: a member a line, indented, ", " and ": " inside. */
static void line(opscope_jw *j) { opscope_jw_break(j, "\n  "); }

static void level_json(opscope_jw *j, const char *key, double all, double one, uint64_t ws, const char *unit) {
    char k[32];
    line(j);
    opscope_jw_obj(j, key);
    snprintf(k, sizeof k, "all_%s", unit);
    opscope_jw_fixed(j, k, all, 2);
    snprintf(k, sizeof k, "one_%s", unit);
    opscope_jw_fixed(j, k, one, 2);
    if (ws) opscope_jw_u64(j, "working_set_bytes", ws);
    opscope_jw_end_obj(j);
}

void opscope_peak_write_json(opscope_out_t *w, const opscope_peak *p) {
    opscope_jw j = opscope_jw_object(w);
    j.spaced = true;
    line(&j);
    opscope_jw_str(&j, "format", OPSCOPE_PEAK_FORMAT);
    line(&j);
    opscope_jw_i64(&j, "version", 1);
    line(&j);
    opscope_jw_str(&j, "cpu", p->cpu);
    line(&j);
    opscope_jw_str(&j, "host", p->host);
    line(&j);
    opscope_jw_str(&j, "isa", p->isa);
    line(&j);
    opscope_jw_i64(&j, "threads", (int)p->n_threads);
    line(&j);
    opscope_jw_u64(&j, "measured_unix", p->measured_unix);
    level_json(&j, "memory", p->mem_gbps_all, p->mem_gbps_one, p->mem_bytes, "gbps");
    level_json(&j, "cache", p->cache_gbps_all, p->cache_gbps_one, p->cache_bytes, "gbps");
    level_json(&j, "flops", p->gflops_all, p->gflops_one, 0, "gflops");
    opscope_out_char(w, '\n');
    opscope_jw_end_obj(&j);
    opscope_out_char(w, '\n');
}
