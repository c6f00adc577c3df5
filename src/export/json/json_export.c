/* json_export.c - version-3 ggml profile JSON with opscope additions and a summary. */
#include "export/json/json_export.h"
#include "export/sections/sections.h"
#include "export/fmt/json_fmt.h"
#include "model/run_info.h"
#include "analyze/ggml/graphs.h"
#include "analyze/ggml/warm_ops.h"
#include "analyze/rpc/rpc_calls.h"
#include "analyze/record/shape_fmt.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef struct saved_backend {
    int32_t id;
    char *name, *device, *process;
    opscope_device_type device_type;
    bool written;
} saved_backend;

struct opscope_json_export {
    opscope_out_t *out;
    saved_backend *backends;
    size_t n_backends, cap_backends;
    bool header_done, records_open, oom;
    uint64_t n_records, total_ns;
    opscope_meta drops; /* the meta's dropped_* fields (not its strings nor its capture) */
    const char *profiler; /* the header's: "ggml" (this layout), or a trace's profiler */
    bool has_capture;
    opscope_capture_info capture; /* strings owned */
    opscope_run_t *run;           /* capture.run's copy */
    void (*top_extra)(opscope_out_t *w, void *ud);
    void *top_ud;
    void (*summary_extra)(opscope_out_t *w, void *ud);
    void *summary_ud;
    const opscope_peak *peak;
    opscope_rpc_t *rpc; /* the RPC calls of a merged profile, borrowed (set_rpc) */
    const opscope_graphs_t *graphs; /* borrowed (set_graphs) */
};

void opscope_json_export_set_peak(opscope_json_export_t *x, const opscope_peak *peak) {
    x->peak = peak;
}

void opscope_json_export_set_rpc(opscope_json_export_t *x, opscope_rpc_t *rpc) {
    x->rpc = rpc;
}

void opscope_json_export_set_graphs(opscope_json_export_t *x, const opscope_graphs_t *graphs) {
    x->graphs = graphs;
}

void opscope_json_export_set_summary_extra(opscope_json_export_t *x,
                                           void (*fn)(opscope_out_t *w, void *ud), void *ud) {
    x->summary_extra = fn;
    x->summary_ud = ud;
}

void opscope_json_export_set_top_extra(opscope_json_export_t *x,
                                       void (*fn)(opscope_out_t *w, void *ud), void *ud) {
    x->top_extra = fn;
    x->top_ud = ud;
}

static void free_capture(opscope_capture_info *c) {
    free((char *)c->host);
    free((char *)c->program);
    free((char *)c->clock);
    free((char *)c->boot_id);
    free((char *)c->end);
    free((char *)c->end_signal);
    memset(c, 0, sizeof *c);
}

static void free_run(opscope_json_export_t *x) {
    opscope_run_free(x->run);
    x->run = NULL;
    x->capture.run = NULL;
}

opscope_json_export_t *opscope_json_export_new(opscope_out_t *out) {
    opscope_json_export_t *x = calloc(1, sizeof *x);
    if (!x) return NULL;
    x->out = out;
    return x;
}

void opscope_json_export_free(opscope_json_export_t *x) {
    if (!x) return;
    for (size_t i = 0; i < x->n_backends; i++) {
        free(x->backends[i].name);
        free(x->backends[i].device);
        free(x->backends[i].process);
    }
    free(x->backends);
    free_capture(&x->capture);
    free_run(x);
    free(x);
}

static void key(opscope_out_t *w, const char *k, size_t len) {
    opscope_out_write(w, ",\"", 2);
    opscope_out_write(w, k, len);
    opscope_out_write(w, "\":", 2);
}
#define KEY(w, lit) key((w), (lit), sizeof(lit) - 1)

static void ne_array(opscope_out_t *w, const int64_t *ne, int n) {
    opscope_out_char(w, '[');
    for (int d = 0; d < n; d++) {
        if (d) opscope_out_char(w, ',');
        opscope_out_i64(w, ne[d]);
    }
    opscope_out_char(w, ']');
}

/* Writes the not yet written backends as a "backends" member (LEADING_COMMA before it). */
static void write_backends(opscope_json_export_t *x, bool leading_comma) {
    opscope_out_t *w = x->out;
    size_t pending = 0;
    for (size_t i = 0; i < x->n_backends; i++) pending += !x->backends[i].written;
    if (!pending) return;
    opscope_out_str(w, leading_comma ? ",\n\"backends\":[" : "\"backends\":[");
    bool first = true;
    for (size_t i = 0; i < x->n_backends; i++) {
        saved_backend *b = &x->backends[i];
        if (b->written) continue;
        b->written = true;
        opscope_out_str(w, first ? "\n" : ",\n");
        first = false;
        opscope_json_write_backend_in(w, b->id, b->name, b->device, (int)b->device_type, b->process);
    }
    opscope_out_str(w, "]");
}

static void header(opscope_json_export_t *x) {
    if (x->header_done) return;
    x->header_done = true;
    opscope_out_str(x->out, "{\"profiler\":\"");
    opscope_out_str(x->out, x->profiler ? x->profiler : "ggml");
    opscope_out_str(x->out, "\",\"version\":3,\"generator\":\"opscope " OPSCOPE_VERSION_STRING "\",\n");
    write_backends(x, false);
    if (x->n_backends) opscope_out_str(x->out, ",\n");
    opscope_out_str(x->out, "\"records\":[");
    x->records_open = true;
}

static int on_meta(void *ud, const opscope_meta *m) {
    opscope_json_export_t *x = ud;
    x->drops = *m;
    /* a trace's records keep this layout but say where they came from; ggml-layout inputs
     * (ggml, opscope, the seed's names) stay "ggml" */
    if (m->profiler && (!strcmp(m->profiler, "kineto") || !strcmp(m->profiler, "chrome")))
        x->profiler = !strcmp(m->profiler, "kineto") ? "kineto" : "chrome";
    x->drops.profiler = NULL;
    x->drops.capture = NULL;
    if (m->capture) {
        free_capture(&x->capture);
        free_run(x);
        const opscope_capture_info *c = m->capture;
        x->capture = *c;
        x->capture.host = c->host ? strdup(c->host) : NULL;
        x->capture.program = c->program ? strdup(c->program) : NULL;
        x->capture.clock = c->clock ? strdup(c->clock) : NULL;
        x->capture.boot_id = c->boot_id ? strdup(c->boot_id) : NULL;
        x->capture.end = c->end ? strdup(c->end) : NULL;
        x->capture.end_signal = c->end_signal ? strdup(c->end_signal) : NULL;
        int run_failed = 0;
        x->run = opscope_run_copy(c->run, &run_failed);
        x->capture.run = opscope_run_view(x->run);
        x->has_capture = true;
        if (run_failed) return x->oom = true, -1;
        if ((c->host && !x->capture.host) || (c->program && !x->capture.program) ||
            (c->clock && !x->capture.clock) || (c->boot_id && !x->capture.boot_id) ||
            (c->end && !x->capture.end) || (c->end_signal && !x->capture.end_signal))
            return x->oom = true, -1;
    }
    return 0;
}

static int on_backend(void *ud, const opscope_backend *b) {
    opscope_json_export_t *x = ud;
    saved_backend *s = NULL;
    for (size_t i = 0; i < x->n_backends; i++)
        if (x->backends[i].id == b->id) s = &x->backends[i];
    if (s && s->written) return 0; /* already in the file: the first description stays */
    if (!s) {
        if (x->n_backends == x->cap_backends) {
            size_t nc = x->cap_backends ? x->cap_backends * 2 : 8;
            saved_backend *nb = realloc(x->backends, nc * sizeof *nb);
            if (!nb) return x->oom = true, -1;
            x->backends = nb;
            x->cap_backends = nc;
        }
        s = &x->backends[x->n_backends++];
        memset(s, 0, sizeof *s);
    }
    free(s->name);
    free(s->device);
    free(s->process);
    s->id = b->id;
    s->name = strdup(b->name ? b->name : "");
    s->device = strdup(b->device ? b->device : "");
    s->process = b->process ? strdup(b->process) : NULL;
    s->device_type = b->device_type;
    if (!s->name || !s->device || (b->process && !s->process)) return x->oom = true, -1;
    return 0;
}

static void jf_ne_arrays(json_fmt *f, const int64_t (*ne)[OPSCOPE_MAX_DIMS], int n) {
    jf_char(f, '[');
    for (int i = 0; i < n; i++) {
        if (i) jf_char(f, ',');
        jf_i64_array(f, ne[i], OPSCOPE_MAX_DIMS);
    }
    jf_char(f, ']');
}

int opscope_json_export_derived(void *ud, const opscope_record *r, opscope_derived *dv) {
    opscope_json_export_t *x = ud;
    header(x);
    json_fmt f;
    jf_init(&f, x->out);
    if (x->n_records++)
        jf_lit(&f, ",\n{\"type\":");
    else
        jf_lit(&f, "\n{\"type\":");
    x->total_ns += r->duration_ns;
    jf_i64(&f, r->type);
    jf_lit(&f, ",\"name\":");
    jf_str(&f, r->name);
    jf_key(&f, "backend_id");
    jf_i64(&f, r->backend_id);
    jf_key(&f, "split_id");
    jf_i64(&f, r->split_id);
    jf_key(&f, "start_ns");
    jf_u64(&f, r->start_ns);
    jf_key(&f, "duration_ns");
    jf_u64(&f, r->duration_ns);
    jf_key(&f, "bytes");
    jf_u64(&f, r->bytes);
    jf_key(&f, "extra");
    jf_str(&f, r->extra); /* null when absent, as the seed layout */
    int n_src = r->n_src < 0 ? 0 : r->n_src > OPSCOPE_MAX_SRC ? OPSCOPE_MAX_SRC : r->n_src;
    jf_key(&f, "n_src");
    jf_i64(&f, n_src);
    jf_key(&f, "ne_src");
    jf_ne_arrays(&f, r->ne_src, n_src);
    if (r->has & OPSCOPE_HAS_STRIDES) {
        jf_key(&f, "nb_src");
        jf_char(&f, '[');
        for (int i = 0; i < n_src; i++) {
            if (i) jf_char(&f, ',');
            jf_char(&f, '[');
            for (int d = 0; d < OPSCOPE_MAX_DIMS; d++) {
                if (d) jf_char(&f, ',');
                jf_u64(&f, r->nb_src[i][d]);
            }
            jf_char(&f, ']');
        }
        jf_char(&f, ']');
    }
    if (r->has & OPSCOPE_HAS_SRC_TYPES) {
        jf_key(&f, "type_src");
        jf_char(&f, '[');
        for (int i = 0; i < n_src; i++) {
            if (i) jf_char(&f, ',');
            jf_i64(&f, r->type_src[i]);
        }
        jf_char(&f, ']');
    }
    if (r->tensor_name) {
        jf_key(&f, "tensor_name");
        jf_str(&f, r->tensor_name);
    }
    if (r->has & OPSCOPE_HAS_OUT) {
        jf_key(&f, "ne");
        jf_i64_array(&f, r->ne, OPSCOPE_MAX_DIMS);
        jf_key(&f, "out_type");
        jf_i64(&f, r->out_type);
    }
    if (r->has & OPSCOPE_HAS_OP_PARAMS) {
        jf_key(&f, "op_params");
        jf_char(&f, '[');
        for (int i = 0; i < OPSCOPE_MAX_OP_PARAMS; i++) {
            if (i) jf_char(&f, ',');
            jf_i64(&f, r->op_params[i]);
        }
        jf_char(&f, ']');
    }
    if (r->sub_op || (r->has & OPSCOPE_HAS_SUB_OP)) {
        /* the seed's v3 layout: ggml's enum value (-1 for none, e.g. a trace's copy
         * direction); the name beside it in a field of opscope's own */
        int32_t sv;
        const char *sn = opscope_derived_sub_op(dv, &sv);
        jf_key(&f, "sub_op");
        jf_i64(&f, sv);
        if (sn) {
            jf_key(&f, "sub_op_name");
            jf_str(&f, sn);
        }
    }
    if (r->has & OPSCOPE_HAS_GRAPH) {
        jf_key(&f, "graph_id");
        jf_i64(&f, r->graph_id);
    }
    if (r->has & OPSCOPE_HAS_NODE) {
        jf_key(&f, "node_index");
        jf_i64(&f, r->node_index);
    }
    if (r->n_fused > 1) {
        jf_key(&f, "n_fused");
        jf_i64(&f, r->n_fused);
    }
    if (r->has & OPSCOPE_HAS_THREAD) {
        jf_key(&f, "thread_id");
        jf_i64(&f, r->thread_id);
    }
    if (r->has & OPSCOPE_HAS_HOST_TIME) {
        jf_key(&f, "host_start_ns");
        jf_u64(&f, r->host_start_ns);
        jf_key(&f, "host_end_ns");
        jf_u64(&f, r->host_end_ns);
    }
    if (r->has & OPSCOPE_HAS_FLOPS) {
        jf_key(&f, "flops");
        jf_u64(&f, r->flops);
    }
    if (r->category) {
        jf_key(&f, "category");
        jf_str(&f, r->category);
    }
    if (r->has & OPSCOPE_HAS_KERNEL) {
        jf_key(&f, "kernel");
        jf_str(&f, r->kernel ? r->kernel : "");
        jf_key(&f, "n_kernels");
        jf_i64(&f, r->n_kernels);
    }
    if (r->has & OPSCOPE_HAS_WEIGHT) {
        jf_key(&f, "weight");
        jf_u64(&f, r->weight);
    }
    if (r->has & OPSCOPE_HAS_BATCH) {
        jf_key(&f, "batch");
        jf_i64(&f, r->batch);
        jf_key(&f, "queries");
        jf_i64(&f, r->queries);
    }
    if (r->has & OPSCOPE_HAS_SAMPLED_OUT) {
        jf_key(&f, "sampled_out");
        jf_mem(&f, "true", 4);
    }
    if (r->has & OPSCOPE_HAS_DEVICE_TIME) {
        jf_key(&f, "time_source");
        jf_str(&f, (r->has & OPSCOPE_HAS_CLOCK_ALIGNED) ? "device_aligned" : "device");
    }
    jf_char(&f, '}');
    jf_flush(&f);
    return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* Summary                                                                                    */

static void shape_obj(opscope_out_t *w, const opscope_shape *sh) {
    opscope_out_str(w, "{\"n_src\":");
    opscope_out_i64(w, sh->n_src);
    opscope_out_str(w, ",\"ne_src\":[");
    for (int i = 0; i < sh->n_src; i++) {
        if (i) opscope_out_char(w, ',');
        ne_array(w, sh->ne_src[i], OPSCOPE_MAX_DIMS);
    }
    opscope_out_str(w, "],\"type_src\":[");
    for (int i = 0; i < sh->n_src; i++) {
        if (i) opscope_out_char(w, ',');
        opscope_out_i64(w, sh->type_src[i]);
    }
    opscope_out_char(w, ']');
    if (sh->has_out) {
        KEY(w, "ne");
        ne_array(w, sh->ne, OPSCOPE_MAX_DIMS);
        KEY(w, "out_type");
        opscope_out_i64(w, sh->out_type);
    }
    char buf[1024];
    size_t n = opscope_fmt_sources(buf, sizeof buf, sh);
    KEY(w, "text");
    opscope_out_json_strn(w, buf, n < sizeof buf ? n : sizeof buf - 1);
    opscope_out_char(w, '}');
}

static double ratio(uint64_t a, uint64_t b) { return b ? (double)a / (double)b : 0.0; }

/* Traffic, intensity and the roofline of group G: null where unknown (no shapes with types,
 * a Kineto kernel), never a guess. */
static void traffic_members(opscope_out_t *w, const opscope_op_stats *g, const opscope_stats_t *s,
                            const opscope_peak *peak) {
    bool known = g->n_with_traffic > 0;
    opscope_roof r;
    opscope_roofline_of(peak, g, s ? opscope_stats_backend_by_id(s, g->backend_id) : NULL, &r);
    KEY(w, "traffic_bytes");
    if (known) opscope_out_u64(w, g->traffic_bytes);
    else opscope_out_str(w, "null");
    KEY(w, "traffic_calls");
    opscope_out_u64(w, g->n_with_traffic);
    KEY(w, "traffic_upper_bound");
    opscope_out_str(w, g->n_traffic_upper ? "true" : "false");
    KEY(w, "traffic_gbps");
    if (known) opscope_out_double(w, ratio(g->traffic_bytes, g->total_ns));
    else opscope_out_str(w, "null");
    KEY(w, "intensity");
    if (known && g->traffic_bytes && g->type == OPSCOPE_RECORD_OP)
        opscope_out_double(w, ratio(g->flops, g->traffic_bytes));
    else
        opscope_out_str(w, "null");
    KEY(w, "bound");
    if (r.bound == OPSCOPE_BOUND_UNKNOWN) {
        opscope_out_str(w, "null");
    } else {
        opscope_out_json_str(w, r.bound == OPSCOPE_BOUND_COMPUTE ? "compute" : "memory");
        KEY(w, "bound_level");
        opscope_out_json_str(w, r.bound == OPSCOPE_BOUND_COMPUTE ? "fma" : r.cache ? "l2" : "memory");
        KEY(w, "roof_gflops");
        opscope_out_double(w, r.roof_gflops);
        KEY(w, "roofline_pct");
        opscope_out_double(w, r.pct);
    }
}

/* The members of a backend (or device) entry after its id. */
static void backend_members(opscope_out_t *w, const opscope_backend_stats *b, const opscope_peak *peak) {
    KEY(w, "name");
    opscope_out_json_str(w, b->name);
    KEY(w, "device");
    opscope_out_json_str(w, b->device);
    KEY(w, "device_type");
    opscope_out_i64(w, b->device_type);
    KEY(w, "n_ops");
    opscope_out_u64(w, b->n_ops);
    KEY(w, "busy_ns");
    opscope_out_u64(w, b->busy_ns);
    KEY(w, "overlap_ns");
    opscope_out_u64(w, b->overlap_ns);
    KEY(w, "op_ns");
    opscope_out_u64(w, b->op_ns);
    KEY(w, "op_bytes");
    opscope_out_u64(w, b->op_bytes);
    KEY(w, "op_flops");
    opscope_out_u64(w, b->op_flops);
    KEY(w, "op_traffic_bytes");
    opscope_out_u64(w, b->op_traffic);
    KEY(w, "roofline");
    opscope_out_str(w, peak && opscope_roofline_applies(b) ? "true" : "false");
    KEY(w, "n_copies");
    opscope_out_u64(w, b->n_copies);
    KEY(w, "copy_ns");
    opscope_out_u64(w, b->copy_ns);
    KEY(w, "copy_bytes");
    opscope_out_u64(w, b->copy_bytes);
    KEY(w, "op_bandwidth_gbps");
    opscope_out_double(w, ratio(b->op_bytes, b->op_ns));
    KEY(w, "copy_bandwidth_gbps");
    opscope_out_double(w, ratio(b->copy_bytes, b->copy_ns));
    KEY(w, "first_start_ns");
    opscope_out_u64(w, b->first_start_ns);
    KEY(w, "last_end_ns");
    opscope_out_u64(w, b->last_end_ns);
    if (b->rpc_covered_ns) {
        KEY(w, "rpc_covered_ns");
        opscope_out_u64(w, b->rpc_covered_ns);
    }
}

/* "sub_op" as in the records (ggml's enum value, -1 for none) and its name beside it. */
static void sub_op_members(opscope_out_t *w, int32_t value, const char *name) {
    KEY(w, "sub_op");
    opscope_out_i64(w, value);
    KEY(w, "sub_op_name");
    opscope_out_json_str(w, name);
}

/* WARM (NULL: none): the op table's warm-up marks (analyze/ggml/warm_ops.h, docs/metrics.md). */
static void op_obj(opscope_out_t *w, const opscope_op_stats *g, uint64_t total_ns,
                   const opscope_stats_t *s, const opscope_peak *peak, const opscope_warm_ops_t *warm) {
    opscope_out_str(w, "{\"name\":");
    opscope_out_json_str(w, g->name);
    sub_op_members(w, opscope_sub_op_value(g->name, g->sub_op), g->sub_op);
    KEY(w, "extra");
    opscope_out_json_str(w, g->extra);
    KEY(w, "call");
    opscope_out_json_str(w, g->call);
    KEY(w, "display");
    opscope_out_json_str(w, g->display);
    KEY(w, "type");
    opscope_out_i64(w, g->type);
    KEY(w, "backend_id");
    opscope_out_i64(w, g->backend_id);
    KEY(w, "count");
    opscope_out_u64(w, g->count);
    KEY(w, "total_ns");
    opscope_out_u64(w, g->total_ns);
    KEY(w, "min_ns");
    opscope_out_u64(w, g->min_ns);
    KEY(w, "max_ns");
    opscope_out_u64(w, g->max_ns);
    KEY(w, "avg_ns");
    opscope_out_double(w, ratio(g->total_ns, g->count));
    KEY(w, "pct_time");
    opscope_out_double(w, 100.0 * ratio(g->total_ns - g->rpc_covered_ns, total_ns));
    if (g->rpc_covered_ns) {
        KEY(w, "rpc_covered_ns");
        opscope_out_u64(w, g->rpc_covered_ns);
    }
    KEY(w, "bytes");
    opscope_out_u64(w, g->bytes);
    KEY(w, "bandwidth_gbps");
    opscope_out_double(w, ratio(g->bytes, g->total_ns));
    KEY(w, "flops");
    opscope_out_u64(w, g->flops);
    KEY(w, "gflops_per_s");
    opscope_out_double(w, ratio(g->flops, g->total_ns));
    traffic_members(w, g, s, peak);
    if (g->timed_computes) {
        /* sampled device timing: measured over timed_computes, estimated over all */
        KEY(w, "device_timed_computes");
        opscope_out_u64(w, g->timed_computes);
        KEY(w, "computes");
        opscope_out_u64(w, g->sampled_computes);
        KEY(w, "estimated_total_ns");
        opscope_out_u64(w, g->est_ns);
    } else if (g->n_sampled_out) {
        /* host time of computes sampled out of device timing: measured, no part of the
         * estimate (the timed computes' weights hold their device work) */
        KEY(w, "sampled_out_records");
        opscope_out_u64(w, g->n_sampled_out);
        KEY(w, "estimated_total_ns");
        opscope_out_u64(w, g->total_ns - g->sampled_out_ns);
    }
    uint64_t wc, wns;
    if (opscope_warm_ops_get(warm, g->display, g->backend_id, g->type, &wc, &wns)) {
        KEY(w, "warmup_count"); /* of count: calls in warm-up computes and the load */
        opscope_out_u64(w, wc);
        KEY(w, "warmup_ns");
        opscope_out_u64(w, wns);
    }
    KEY(w, "shape");
    shape_obj(w, &g->shape);
    opscope_out_char(w, '}');
}

static void op_list(opscope_out_t *w, const char *name, size_t n,
                    const opscope_op_stats *(*get)(const opscope_stats_t *, size_t),
                    const opscope_stats_t *s, uint64_t total_ns, const opscope_peak *peak,
                    const opscope_warm_ops_t *warm) {
    opscope_out_str(w, ",\n\"");
    opscope_out_str(w, name);
    opscope_out_str(w, "\":[");
    for (size_t i = 0; i < n; i++) {
        opscope_out_str(w, i ? ",\n" : "\n");
        op_obj(w, get(s, i), total_ns, s, peak, warm);
    }
    opscope_out_char(w, ']');
}

/* The summary object without its closing brace. */
static void summary_members(opscope_out_t *w, const opscope_stats_t *s, const opscope_peak *peak,
                            const opscope_warm_ops_t *warm) {
    const opscope_totals *t = opscope_stats_totals(s);
    opscope_out_str(w, "{\"n_records\":");
    opscope_out_u64(w, t->n_records);
    KEY(w, "n_ops");
    opscope_out_u64(w, t->n_ops);
    KEY(w, "n_copies");
    opscope_out_u64(w, t->n_copies);
    KEY(w, "total_ns");
    opscope_out_u64(w, t->total_ns);
    KEY(w, "op_ns");
    opscope_out_u64(w, t->op_ns);
    KEY(w, "copy_ns");
    opscope_out_u64(w, t->copy_ns);
    KEY(w, "bytes");
    opscope_out_u64(w, t->bytes);
    KEY(w, "copy_bytes");
    opscope_out_u64(w, t->copy_bytes);
    KEY(w, "flops");
    opscope_out_u64(w, t->flops);
    KEY(w, "traffic_bytes");
    opscope_out_u64(w, t->traffic_bytes);
    KEY(w, "first_start_ns");
    opscope_out_u64(w, t->first_start_ns);
    KEY(w, "last_end_ns");
    opscope_out_u64(w, t->last_end_ns);
    KEY(w, "unique_ops");
    opscope_out_u64(w, opscope_stats_n_ops(s));
    KEY(w, "shape_groups_dropped");
    opscope_out_u64(w, t->shape_groups_dropped);
    if (t->rpc_covered_ns) {
        KEY(w, "rpc_covered_ns");
        opscope_out_u64(w, t->rpc_covered_ns);
        KEY(w, "counted_ns");
        opscope_out_u64(w, opscope_totals_counted_ns(t));
    }
    if (t->rpc_cover_unsorted) opscope_out_str(w, ",\"rpc_cover_unsorted\":true");
    if (opscope_totals_sampled(t)) { /* total_ns, op_ns, copy_ns above: measured only */
        KEY(w, "weighted_records");
        opscope_out_u64(w, t->n_weighted);
        KEY(w, "sampled_out_records");
        opscope_out_u64(w, t->n_sampled_out);
        KEY(w, "estimated_total_ns");
        opscope_out_u64(w, t->est_total_ns);
        KEY(w, "estimated_op_ns");
        opscope_out_u64(w, t->est_op_ns);
        KEY(w, "estimated_copy_ns");
        opscope_out_u64(w, t->est_copy_ns);
    }

    if (peak) {
        opscope_out_str(w, ",\n\"peak\":");
        opscope_peak_write_json(w, peak);
    }
    uint64_t counted = opscope_totals_counted_ns(t); /* pct_time's denominator */
    op_list(w, "ops", opscope_stats_n_ops(s), opscope_stats_op, s, counted, peak, warm);
    if (opscope_stats_n_shapes(s))
        op_list(w, "by_shape", opscope_stats_n_shapes(s), opscope_stats_shape, s, counted, peak, NULL);
    op_list(w, "inefficiency", opscope_stats_n_inefficient(s), opscope_stats_inefficient, s,
            counted, peak, NULL);
    op_list(w, "copies", opscope_stats_n_copy_dirs(s), opscope_stats_copy_dir, s, counted, peak, NULL);
    op_list(w, "copy_calls", opscope_stats_n_copy_calls(s), opscope_stats_copy_call, s, counted,
            peak, NULL);

    opscope_out_str(w, ",\n\"backends\":[");
    for (size_t i = 0; i < opscope_stats_n_backends(s); i++) {
        const opscope_backend_stats *b = opscope_stats_backend(s, i);
        opscope_out_str(w, i ? ",\n{\"id\":" : "\n{\"id\":");
        opscope_out_i64(w, b->backend_id);
        backend_members(w, b, peak);
        opscope_out_char(w, '}');
    }
    /* the same merged by device: one entry per device with all its backend ids */
    opscope_out_str(w, "],\n\"devices\":[");
    for (size_t i = 0; i < opscope_stats_n_devices(s); i++) {
        const opscope_device_stats *dv = opscope_stats_device(s, i);
        opscope_out_str(w, i ? ",\n{\"backend_ids\":[" : "\n{\"backend_ids\":[");
        for (size_t k = 0; k < dv->n_ids; k++) {
            if (k) opscope_out_char(w, ',');
            opscope_out_i64(w, dv->ids[k]);
        }
        opscope_out_char(w, ']');
        backend_members(w, &dv->sum, peak);
        opscope_out_char(w, '}');
    }
    opscope_out_str(w, "],\n\"top_kernels\":[");
    for (size_t i = 0; i < opscope_stats_n_top(s); i++) {
        const opscope_record *r = opscope_stats_top(s, i);
        opscope_out_str(w, i ? ",\n{\"type\":" : "\n{\"type\":");
        opscope_out_i64(w, r->type);
        KEY(w, "name");
        opscope_out_json_str(w, r->name);
        int32_t sv;
        const char *sn = opscope_record_sub_op(r, &sv);
        sub_op_members(w, sv, sn);
        /* As in the groups: a COPY's extra is its ggml call, not a fused name. */
        bool copy = r->type == OPSCOPE_RECORD_COPY;
        KEY(w, "extra");
        opscope_out_json_str(w, copy ? NULL : r->extra);
        KEY(w, "call");
        opscope_out_json_str(w, copy ? r->extra : NULL);
        char disp[512], *dp = disp;
        size_t dn = opscope_op_display(disp, sizeof disp, r->type, r->name, r->sub_op, r->extra);
        if (dn >= sizeof disp && (dp = malloc(dn + 1)) != NULL)
            opscope_op_display(dp, dn + 1, r->type, r->name, r->sub_op, r->extra);
        KEY(w, "display");
        opscope_out_json_strn(w, dp ? dp : disp, dp ? dn : sizeof disp - 1);
        if (dp != disp) free(dp);
        KEY(w, "backend_id");
        opscope_out_i64(w, r->backend_id);
        KEY(w, "split_id");
        opscope_out_i64(w, r->split_id);
        KEY(w, "start_ns");
        opscope_out_u64(w, r->start_ns);
        KEY(w, "duration_ns");
        opscope_out_u64(w, r->duration_ns);
        KEY(w, "bytes");
        opscope_out_u64(w, r->bytes);
        KEY(w, "flops");
        opscope_out_u64(w, r->flops);
        KEY(w, "tensor_name");
        opscope_out_json_str(w, r->tensor_name);
        if (r->has & OPSCOPE_HAS_NODE) {
            KEY(w, "node_index");
            opscope_out_i64(w, r->node_index);
        }
        if (r->has & OPSCOPE_HAS_GRAPH) {
            KEY(w, "graph_id");
            opscope_out_i64(w, r->graph_id);
        }
        opscope_shape sh;
        opscope_shape_of_record(&sh, r);
        KEY(w, "shape");
        shape_obj(w, &sh);
        opscope_out_char(w, '}');
    }
    opscope_out_str(w, "]");
}

void opscope_json_write_summary(opscope_out_t *w, const opscope_stats_t *s) {
    summary_members(w, s, NULL, NULL);
    opscope_out_char(w, '}');
}

int opscope_json_export_finish(opscope_json_export_t *x, const opscope_stats_t *stats) {
    opscope_out_t *w = x->out;
    header(x);
    opscope_out_str(w, "]");
    /* Backends described only after the first record (rare in practice). */
    write_backends(x, true);
    opscope_out_str(w, ",\n\"total_records\":");
    opscope_out_u64(w, x->n_records);
    opscope_out_str(w, ",\"total_ns\":");
    opscope_out_u64(w, x->total_ns);
    const opscope_meta *d = &x->drops;
    if (d->dropped_records) {
        opscope_out_str(w, ",\"dropped_records\":");
        opscope_out_u64(w, d->dropped_records);
        if (d->dropped_graphs) {
            opscope_out_str(w, ",\"dropped_graphs\":");
            opscope_out_u64(w, d->dropped_graphs);
            opscope_out_str(w, ",\"dropped_first_graph\":");
            opscope_out_i64(w, d->dropped_first_graph);
            opscope_out_str(w, ",\"dropped_last_graph\":");
            opscope_out_i64(w, d->dropped_last_graph);
        }
        if (d->dropped_cause) {
            opscope_out_str(w, ",\"dropped_cause\":");
            opscope_out_str(w, d->dropped_cause == OPSCOPE_DROP_CAP             ? "\"memory cap\""
                               : d->dropped_cause == OPSCOPE_DROP_OUT_OF_MEMORY ? "\"out of memory\""
                               : d->dropped_cause == OPSCOPE_DROP_LOG_CAP       ? "\"log cap\""
                                                                                : "\"device timing lost\"");
        }
    }
    if (d->capture_cap_mb && d->dropped_records) {
        opscope_out_str(w, ",\"capture_cap_mb\":");
        opscope_out_u64(w, d->capture_cap_mb);
    }
    if (x->has_capture) {
        opscope_out_str(w, ",\n\"capture\":{");
        opscope_json_write_capture_members(w, &x->capture);
        opscope_out_char(w, '}');
    }
    if (x->top_extra) x->top_extra(w, x->top_ud);
    if (stats) {
        opscope_out_str(w, ",\n\"summary\":");
        summary_members(w, stats, x->peak, opscope_graphs_warm_ops(x->graphs));
        if (x->rpc && opscope_rpc_finish(x->rpc)) x->oom = true;
        else if (x->rpc) opscope_rpc_write_json(w, x->rpc);
        opscope_graphs_write_json(w, x->graphs);
        if (opscope_run_write_json(w, stats, x->graphs, x->peak)) x->oom = true;
        if (opscope_req_write_json(w, stats, x->graphs)) x->oom = true;
        if (x->summary_extra) x->summary_extra(w, x->summary_ud);
        opscope_out_char(w, '}');
    }
    opscope_out_str(w, "}\n");
    return x->oom ? -1 : 0;
}

static int on_record(void *ud, const opscope_record *r) {
    opscope_derived d;
    opscope_derived_init(&d, r);
    return opscope_json_export_derived(ud, r, &d);
}

opscope_sink opscope_json_export_sink(opscope_json_export_t *x) {
    opscope_sink k = {x, on_meta, on_backend, on_record, NULL};
    return k;
}
