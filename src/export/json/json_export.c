/* json_export.c - version-3 ggml profile JSON with opscope additions: the document's frame
 * (header, backends, totals, capture) and the records' stream; its summary: json_summary.c. */
#include "export/json/json_export.h"
#include "export/json/json_summary.h"
#include "export/fmt/json_fmt.h"
#include "model/backend_names.h"
#include "model/oplog_win.h"
#include "model/run_info.h"
#include "analyze/ggml/graphs.h"
#include "model/record.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef struct saved_backend {
    int32_t id;
    opscope_backend_names names;
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
    void *win;                    /* capture's windows and marks, copied */
    void (*top_extra)(opscope_out_t *w, void *ud);
    void *top_ud;
    opscope_json_summary_in summary; /* what the summary writes beside the stats (set_...) */
};

void opscope_json_export_set_peak(opscope_json_export_t *x, const opscope_peak *peak) {
    x->summary.peak = peak;
}

void opscope_json_export_set_rpc(opscope_json_export_t *x, opscope_rpc_t *rpc) {
    x->summary.rpc = rpc;
}

void opscope_json_export_set_graphs(opscope_json_export_t *x, const opscope_graphs_t *graphs) {
    x->summary.graphs = graphs;
}

void opscope_json_export_set_threads(opscope_json_export_t *x, struct opscope_threads *threads) {
    x->summary.threads = threads;
}

void opscope_json_export_set_summary_extra(opscope_json_export_t *x,
                                           void (*fn)(opscope_out_t *w, void *ud), void *ud) {
    x->summary.extra = fn;
    x->summary.extra_ud = ud;
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
    for (size_t i = 0; i < x->n_backends; i++) opscope_backend_names_free(&x->backends[i].names);
    free(x->backends);
    free_capture(&x->capture);
    free_run(x);
    free(x->win);
    free(x);
}

/* Writes the not yet written backends through J as a "backends" member on a line of its own
 * (nothing when none is pending). */
static void write_backends(opscope_json_export_t *x, opscope_jw *j) {
    size_t pending = 0;
    for (size_t i = 0; i < x->n_backends; i++) pending += !x->backends[i].written;
    if (!pending) return;
    opscope_jw_nl(j);
    opscope_jw_arr(j, "backends");
    for (size_t i = 0; i < x->n_backends; i++) {
        saved_backend *b = &x->backends[i];
        if (b->written) continue;
        b->written = true;
        opscope_jw_nl(j);
        opscope_jw_item(j);
        opscope_json_write_backend_in(j->out, b->id, b->names.name, b->names.device, (int)b->device_type,
                                      b->names.process);
    }
    opscope_jw_end_arr(j);
}

static void header(opscope_json_export_t *x) {
    if (x->header_done) return;
    x->header_done = true;
    opscope_jw j = opscope_jw_object(x->out);
    opscope_jw_str(&j, "profiler", x->profiler ? x->profiler : "ggml");
    opscope_jw_u64(&j, "version", 3);
    opscope_jw_str(&j, "generator", "opscope " OPSCOPE_VERSION_STRING);
    write_backends(x, &j);
    opscope_jw_nl(&j);
    opscope_jw_arr(&j, "records"); /* closed by opscope_json_export_finish */
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
        int win_failed = 0;
        free(x->win);
        x->win = opscope_capture_win_copy(&x->capture, c, &win_failed);
        x->has_capture = true;
        if (run_failed || win_failed) return x->oom = true, -1;
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
    s->id = b->id;
    s->device_type = b->device_type;
    return opscope_backend_names_set(&s->names, b) ? (x->oom = true, -1) : 0;
}

static void jf_ne_arrays(json_fmt *f, const int64_t (*ne)[OPSCOPE_MAX_DIMS], int n) {
    jf_char(f, '[');
    for (int i = 0; i < n; i++) {
        if (i) jf_char(f, ',');
        jf_i64_array(f, ne[i], OPSCOPE_MAX_DIMS);
    }
    jf_char(f, ']');
}

/* A CPU node's per-thread work and wait pairs, when it has them. */
static void jf_threads(json_fmt *f, const opscope_record *r) {
    if (!(r->has & OPSCOPE_HAS_THREADS) || !r->threads || r->n_threads <= 0) return;
    jf_key(f, "threads");
    jf_char(f, '[');
    for (int32_t i = 0; i < 2 * r->n_threads; i++) {
        if (i) jf_char(f, ',');
        jf_u64(f, r->threads[i]);
    }
    jf_char(f, ']');
    if (!r->thread_cpus) return;
    jf_key(f, "thread_cpus");
    jf_char(f, '[');
    for (int32_t i = 0; i < r->n_threads; i++) {
        if (i) jf_char(f, ',');
        jf_i64(f, r->thread_cpus[i]);
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
    jf_key_i64(&f, "backend_id", r->backend_id);
    jf_key_i64(&f, "split_id", r->split_id);
    jf_key_u64(&f, "start_ns", r->start_ns);
    jf_key_u64(&f, "duration_ns", r->duration_ns);
    jf_key_u64(&f, "bytes", r->bytes);
    jf_key_str(&f, "extra", r->extra); /* null when absent, as the seed layout */
    int n_src = opscope_record_n_src(r);
    jf_key_i64(&f, "n_src", n_src);
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
        jf_i32_array(&f, r->type_src, n_src);
    }
    if (r->tensor_name) jf_key_str(&f, "tensor_name", r->tensor_name);
    if (r->has & OPSCOPE_HAS_OUT) {
        jf_key(&f, "ne");
        jf_i64_array(&f, r->ne, OPSCOPE_MAX_DIMS);
        jf_key_i64(&f, "out_type", r->out_type);
    }
    if (r->has & OPSCOPE_HAS_OP_PARAMS) {
        jf_key(&f, "op_params");
        jf_i32_array(&f, r->op_params, OPSCOPE_MAX_OP_PARAMS);
    }
    if (r->sub_op || (r->has & OPSCOPE_HAS_SUB_OP)) {
        /* the seed's v3 layout: ggml's enum value (-1 for none, e.g. a trace's copy
         * direction); the name beside it in a field of opscope's own */
        int32_t sv;
        const char *sn = opscope_derived_sub_op(dv, &sv);
        jf_key_i64(&f, "sub_op", sv);
        if (sn) jf_key_str(&f, "sub_op_name", sn);
    }
    if (r->has & OPSCOPE_HAS_GRAPH) jf_key_i64(&f, "graph_id", r->graph_id);
    if (r->has & OPSCOPE_HAS_NODE) {
        jf_key_i64(&f, "node_index", r->node_index);
    }
    if (r->n_fused > 1) jf_key_i64(&f, "n_fused", r->n_fused);
    if (r->has & OPSCOPE_HAS_THREAD) {
        jf_key_i64(&f, "thread_id", r->thread_id);
    }
    jf_threads(&f, r);
    if (r->has & OPSCOPE_HAS_HOST_TIME) {
        jf_key_u64(&f, "host_start_ns", r->host_start_ns);
        jf_key_u64(&f, "host_end_ns", r->host_end_ns);
    }
    if (r->has & OPSCOPE_HAS_FLOPS) jf_key_u64(&f, "flops", r->flops);
    if (r->category) {
        jf_key_str(&f, "category", r->category);
    }
    if (r->has & OPSCOPE_HAS_KERNEL) {
        jf_key_str(&f, "kernel", r->kernel ? r->kernel : "");
        jf_key_i64(&f, "n_kernels", r->n_kernels);
    }
    if (r->has & OPSCOPE_HAS_WEIGHT) jf_key_u64(&f, "weight", r->weight);
    if (r->has & OPSCOPE_HAS_BATCH) {
        jf_key_i64(&f, "batch", r->batch);
        jf_key_i64(&f, "queries", r->queries);
    }
    if (r->has & OPSCOPE_HAS_SAMPLED_OUT) {
        jf_key(&f, "sampled_out");
        jf_mem(&f, "true", 4);
    }
    if (r->has & OPSCOPE_HAS_DEVICE_TIME) {
        jf_key_str(&f, "time_source", (r->has & OPSCOPE_HAS_CLOCK_ALIGNED) ? "device_aligned" : "device");
    }
    jf_char(&f, '}');
    jf_flush(&f);
    return 0;
}

int opscope_json_export_finish(opscope_json_export_t *x, const opscope_stats_t *stats) {
    opscope_out_t *w = x->out;
    header(x);
    opscope_out_char(w, ']'); /* "records" */
    opscope_jw j = opscope_jw_resume(w);
    /* Backends described only after the first record (rare in practice). */
    write_backends(x, &j);
    opscope_jw_nl(&j);
    opscope_jw_u64(&j, "total_records", x->n_records);
    opscope_jw_u64(&j, "total_ns", x->total_ns);
    const opscope_meta *d = &x->drops;
    if (d->dropped_records) {
        opscope_jw_u64(&j, "dropped_records", d->dropped_records);
        if (d->dropped_graphs) {
            opscope_jw_u64(&j, "dropped_graphs", d->dropped_graphs);
            opscope_jw_i64(&j, "dropped_first_graph", d->dropped_first_graph);
            opscope_jw_i64(&j, "dropped_last_graph", d->dropped_last_graph);
        }
        if (d->dropped_cause) {
            opscope_drop_cause c = d->dropped_cause;
            opscope_jw_str(&j, "dropped_cause", c == OPSCOPE_DROP_CAP             ? "memory cap"
                                                : c == OPSCOPE_DROP_OUT_OF_MEMORY ? "out of memory"
                                                : c == OPSCOPE_DROP_LOG_CAP       ? "log cap"
                                                                                  : "device timing lost");
        }
    }
    if (d->capture_cap_mb && d->dropped_records) opscope_jw_u64(&j, "capture_cap_mb", d->capture_cap_mb);
    if (x->has_capture) {
        opscope_jw_nl(&j);
        opscope_jw_obj(&j, "capture");
        opscope_json_write_capture_members(w, &x->capture);
        opscope_jw_end_obj(&j);
    }
    if (x->top_extra) x->top_extra(w, x->top_ud);
    if (stats && opscope_json_summary_write(w, stats, &x->summary)) x->oom = true;
    opscope_out_str(w, "}\n");
    return x->oom ? -1 : 0;
}

OPSCOPE_DERIVED_ON_RECORD(on_record, opscope_json_export_derived)

opscope_sink opscope_json_export_sink(opscope_json_export_t *x) {
    return opscope_record_sink(x, on_meta, on_backend, on_record);
}

