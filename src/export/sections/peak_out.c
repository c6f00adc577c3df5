/* peak_out.c - the peak file's JSON (sections.h; read back by analyze/ggml/roofline.c). */
#include "export/sections/sections.h"

static void level_json(opscope_out_t *w, const char *key, double all, double one, uint64_t ws,
                       const char *unit) {
    opscope_out_printf(w, ",\n  \"%s\": {\"all_%s\": ", key, unit);
    opscope_out_fixed(w, all, 2);
    opscope_out_printf(w, ", \"one_%s\": ", unit);
    opscope_out_fixed(w, one, 2);
    if (ws) {
        opscope_out_str(w, ", \"working_set_bytes\": ");
        opscope_out_u64(w, ws);
    }
    opscope_out_char(w, '}');
}

void opscope_peak_write_json(opscope_out_t *w, const opscope_peak *p) {
    opscope_out_str(w, "{\n  \"format\": \"" OPSCOPE_PEAK_FORMAT "\",\n  \"version\": 1,\n  \"cpu\": ");
    opscope_out_json_str(w, p->cpu);
    opscope_out_str(w, ",\n  \"host\": ");
    opscope_out_json_str(w, p->host);
    opscope_out_str(w, ",\n  \"isa\": ");
    opscope_out_json_str(w, p->isa);
    opscope_out_printf(w, ",\n  \"threads\": %d,\n  \"measured_unix\": ", (int)p->n_threads);
    opscope_out_u64(w, p->measured_unix);
    level_json(w, "memory", p->mem_gbps_all, p->mem_gbps_one, p->mem_bytes, "gbps");
    level_json(w, "cache", p->cache_gbps_all, p->cache_gbps_one, p->cache_bytes, "gbps");
    level_json(w, "flops", p->gflops_all, p->gflops_one, 0, "gflops");
    opscope_out_str(w, "\n}\n");
}
