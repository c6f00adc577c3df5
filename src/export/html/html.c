/* html.c - the HTML viewer sink: columnar buffering, lane/row layout, one-file output. */
#include "export/html/html.h"

#include "export/html/html_data.h"
#include "export/html/html_graphs.h"
#include "export/html/html_requests.h"
#include "export/html/html_threads.h"
#include "export/sections/win_out.h"
#include "analyze/record/fused_name.h"
#include "util/out.h"
#include "util/hash.h"
#include "util/hindex.h"
#include "util/vec.h"
#include "model/record.h"
#include "model/run_end.h"
#include "model/strtab.h"

#include <stdlib.h>
#include <string.h>

typedef opscope_html_sig html_sig;
typedef opscope_html_lane html_lane;

struct opscope_html_sink {
    opscope_peak peak;
    bool has_peak;
    char *out_path;
    char *source_name;
    size_t max_records;
    uint64_t seen, stride;
    int failed; /* out of memory inside a callback */

    opscope_strtab_t *strings;
    html_sig *sigs;
    size_t n_sigs, cap_sigs;
    opscope_hindex sig_map; /* a sig's bytes -> sig id */

    html_lane *lanes;
    size_t n_lanes, cap_lanes;
    opscope_hindex lane_map; /* (backend, copy, split) -> lane id */

    uint64_t *start, *dur;
    uint32_t *sig, *lane;
    size_t n, cap;

    opscope_backend *backends; /* strings interned in STRINGS */
    size_t n_backends, cap_backends;
    int32_t dev_from, dev_to;  /* the last device_id() answer, while dev_valid */
    bool dev_valid;
    const char *profiler;
    int32_t version;
    uint64_t total_records, dropped_records;
    const char *ended; /* how the program ended, when the capture did not see it (in STRINGS) */
    opscope_html_sampled *sampled; /* sampled device timing per op (few: ops, not records) */
    size_t n_sampled, cap_sampled, last_sampled;
    opscope_html_cpu_t *cpu; /* a trace's CPU side (opscope_html_sink_kineto_tee), or NULL */
    opscope_html_graphs_t *graphs; /* the graph computes, from every record */
    opscope_html_threads_t *threads; /* kept CPU nodes' per-thread times */
    opscope_run_request *reqs;     /* a llama.cpp run's requests (html_requests.h), owned */
    size_t n_reqs;
    opscope_win_copy win;          /* the capture's windows and marks, owned */
    const opscope_cpath_t *cpath; /* its critical path (borrowed until finish), or NULL */
    char shape_buf[2048];
};

#define HTML_SAMPLED_MAX 4096 /* ops with weights kept; more is no profile the capture writes */

/* ---------------------------------------------------------------------------------------- */

void opscope_html_sink_set_cpath(opscope_html_sink_t *h, const opscope_cpath_t *cp) {
    h->cpath = cp;
}

/* ---------------------------------------------------------------------------------------- */

opscope_html_sink_t *opscope_html_sink_new(const char *out_path, const char *source_name,
                                           size_t max_records, opscope_error *err) {
    opscope_html_sink_t *h = calloc(1, sizeof *h);
    if (!h) goto nomem;
    h->out_path = strdup(out_path ? out_path : "-");
    h->source_name = strdup(source_name ? source_name : "");
    h->strings = opscope_strtab_new();
    h->graphs = opscope_html_graphs_new();
    h->threads = opscope_html_threads_new();
    h->max_records = max_records;
    h->stride = 1;
    h->profiler = "";
    if (!h->out_path || !h->source_name || !h->strings || !h->graphs || !h->threads || opscope_hindex_init(&h->sig_map, 48) ||
        opscope_hindex_init(&h->lane_map, 48))
        goto nomem;
    return h;
nomem:
    opscope_html_sink_abort(h);
    if (err) {
        memset(err, 0, sizeof *err);
        err->code = OPSCOPE_ERROR_NOMEM;
        err->msg = "out of memory";
    }
    return NULL;
}

void opscope_html_sink_abort(opscope_html_sink_t *h) {
    if (!h) return;
    free(h->out_path);
    free(h->source_name);
    opscope_strtab_free(h->strings);
    free(h->sigs);
    opscope_hindex_free(&h->sig_map);
    free(h->lanes);
    opscope_hindex_free(&h->lane_map);
    free(h->start);
    free(h->dur);
    free(h->sig);
    free(h->lane);
    free(h->backends);
    free(h->sampled);
    opscope_html_cpu_free(h->cpu);
    opscope_html_graphs_free(h->graphs);
    opscope_html_threads_free(h->threads);
    free(h->reqs);
    opscope_win_copy_free(&h->win);
    free(h);
}

uint64_t opscope_html_sink_seen(const opscope_html_sink_t *h) { return h->seen; }
uint64_t opscope_html_sink_kept(const opscope_html_sink_t *h) { return h->n; }

/* String id of S (NULL -> UINT32_MAX); sets h->failed on allocation failure. */
static uint32_t str_id(opscope_html_sink_t *h, const char *s, size_t len) {
    if (!s) return UINT32_MAX;
    uint32_t id;
    if (!opscope_strtab_intern(h->strings, s, len, &id)) {
        h->failed = 1;
        return UINT32_MAX;
    }
    return id;
}

static uint32_t str_id0(opscope_html_sink_t *h, const char *s) {
    return s ? str_id(h, s, strlen(s)) : UINT32_MAX;
}

static int on_meta(void *ud, const opscope_meta *m) {
    opscope_html_sink_t *h = ud;
    uint32_t id = str_id0(h, m->profiler ? m->profiler : "");
    if (h->failed) return 1;
    h->profiler = opscope_strtab_get(h->strings, id);
    h->version = m->version;
    h->total_records = m->total_records;
    h->dropped_records = m->dropped_records;
    if (opscope_run_end_partial(m->capture)) {
        char ended[512];
        opscope_run_end_text(m->capture, ended, sizeof ended);
        uint32_t e = str_id0(h, ended);
        if (h->failed) return 1;
        h->ended = opscope_strtab_get(h->strings, e);
    }
    if (opscope_win_copy_take(&h->win, opscope_win_any(m->capture) ? m->capture : NULL)) return h->failed = 1;
    free(h->reqs);
    if (opscope_html_requests_take(m->capture, &h->reqs, &h->n_reqs)) return h->failed = 1;
    return 0;
}

static int on_backend(void *ud, const opscope_backend *b) {
    opscope_html_sink_t *h = ud;
    opscope_backend c = *b;
    c.name = opscope_strtab_get(h->strings, str_id0(h, b->name ? b->name : ""));
    c.device = opscope_strtab_get(h->strings, str_id0(h, b->device ? b->device : ""));
    c.process = b->process ? opscope_strtab_get(h->strings, str_id0(h, b->process)) : NULL;
    if (h->failed) return 1;
    h->dev_valid = false;
    for (size_t i = 0; i < h->n_backends; i++) {
        if (h->backends[i].id == b->id) {
            h->backends[i] = c;
            return 0;
        }
    }
    if (h->n_backends == h->cap_backends) {
        size_t nc = h->cap_backends ? h->cap_backends * 2 : 8;
        opscope_backend *nb = realloc(h->backends, nc * sizeof *nb);
        if (!nb) return h->failed = 1;
        h->backends = nb;
        h->cap_backends = nc;
    }
    h->backends[h->n_backends++] = c;
    return 0;
}

/* The id a record of backend ID is shown under: the lowest id of the backends known so far
 * on the same device (same name, description and type), so that a device the program made
 * several ggml backends for is one set of lanes and one table row, as in the report
 * (analyze/ggml/stats.h, opscope_device_stats). */
static int32_t device_id(opscope_html_sink_t *h, int32_t id) {
    if (h->dev_valid && h->dev_from == id) return h->dev_to;
    const opscope_backend *me = NULL;
    for (size_t i = 0; i < h->n_backends && !me; i++)
        if (h->backends[i].id == id) me = &h->backends[i];
    int32_t best = id;
    for (size_t i = 0; me && i < h->n_backends; i++) {
        const opscope_backend *b = &h->backends[i];
        if (b->id < best && b->device_type == me->device_type && !strcmp(b->name, me->name) &&
            !strcmp(b->device, me->device) && b->process == me->process) /* interned */
            best = b->id;
    }
    h->dev_from = id;
    h->dev_to = best;
    h->dev_valid = true;
    return best;
}

/* Appends the decimal text of V to P; returns the new end. */
static char *put_i64(char *p, int64_t v) {
    char tmp[24];
    int n = 0;
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    do {
        tmp[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0) *p++ = '-';
    while (n) *p++ = tmp[--n];
    return p;
}

/* "4096x4096 q4_0": dimensions up to the last one > 1, then the type when known. */
static char *put_dims(char *p, const int64_t *ne, int32_t type) {
    int last = 0;
    for (int d = 0; d < OPSCOPE_MAX_DIMS; d++)
        if (ne[d] > 1) last = d;
    for (int d = 0; d <= last; d++) {
        if (d) *p++ = 'x';
        p = put_i64(p, ne[d]);
    }
    if (type >= 0) {
        const char *tn = opscope_ggml_type_name(type);
        size_t l = strlen(tn);
        if (l > 16) l = 16;
        *p++ = ' ';
        memcpy(p, tn, l);
        p += l;
    }
    return p;
}

/* The shape text of REC into h->shape_buf (bounded: 10 sources x ~100 bytes + output). */
static size_t format_shape(opscope_html_sink_t *h, const opscope_record *rec) {
    char *p = h->shape_buf;
    int n_src = opscope_record_n_src(rec);
    int first = 1;
    for (int s = 0; s < n_src; s++) {
        const int64_t *ne = rec->ne_src[s];
        if (!ne[0] && !ne[1] && !ne[2] && !ne[3]) continue;
        if (!first) {
            *p++ = ',';
            *p++ = ' ';
        }
        first = 0;
        int32_t t = (rec->has & OPSCOPE_HAS_SRC_TYPES) ? rec->type_src[s] : -1;
        p = put_dims(p, ne, t);
    }
    if (rec->has & OPSCOPE_HAS_OUT) {
        memcpy(p, first ? "-> " : " -> ", first ? 3 : 4);
        p += first ? 3 : 4;
        p = put_dims(p, rec->ne, rec->out_type);
    }
    return (size_t)(p - h->shape_buf);
}

static uint64_t lane_key(int32_t backend, uint32_t is_copy, int32_t split) {
    return ((uint64_t)(uint32_t)backend << 33) ^ ((uint64_t)is_copy << 32) ^ (uint32_t)split;
}

static bool lane_eq(const void *ctx, uint32_t id, const void *key) {
    const html_lane *l = &((const opscope_html_sink_t *)ctx)->lanes[id];
    return lane_key(l->backend, l->is_copy, l->split) == *(const uint64_t *)key;
}

static int lane_id(opscope_html_sink_t *h, int32_t backend, uint32_t is_copy, int32_t split,
                   uint32_t *out) {
    uint64_t key = lane_key(backend, is_copy, split), hash = opscope_mix64(key);
    html_lane lane = {backend, split, is_copy};
    uint32_t id = opscope_hindex_find(&h->lane_map, hash, &key, lane_eq, h);
    if (id == OPSCOPE_HINDEX_NONE) {
        id = (uint32_t)h->n_lanes;
        if (opscope_vec_reserve((void **)&h->lanes, &h->cap_lanes, h->n_lanes + 1, sizeof *h->lanes, 16) ||
            opscope_hindex_add(&h->lane_map, hash, id))
            return -1;
        h->lanes[h->n_lanes++] = lane;
    }
    *out = id;
    return 0;
}

static bool sig_eq(const void *ctx, uint32_t id, const void *key) {
    return !memcmp(&((const opscope_html_sink_t *)ctx)->sigs[id], key, sizeof(html_sig));
}

static int sig_id(opscope_html_sink_t *h, const html_sig *s, uint32_t *out) {
    uint64_t hash = opscope_hash_bytes(s, sizeof *s);
    uint32_t id = opscope_hindex_find(&h->sig_map, hash, s, sig_eq, h);
    if (id == OPSCOPE_HINDEX_NONE) {
        id = (uint32_t)h->n_sigs;
        if (opscope_vec_reserve((void **)&h->sigs, &h->cap_sigs, h->n_sigs + 1, sizeof *h->sigs, 256) ||
            opscope_hindex_add(&h->sig_map, hash, id))
            return -1;
        h->sigs[h->n_sigs++] = *s;
    }
    *out = id;
    return 0;
}

/* Keeps every other kept record (those whose stream index is a multiple of 2*stride). */
static void decimate(opscope_html_sink_t *h) {
    size_t w = 0;
    for (size_t i = 0; i < h->n; i += 2, w++) {
        h->start[w] = h->start[i];
        h->dur[w] = h->dur[i];
        h->sig[w] = h->sig[i];
        h->lane[w] = h->lane[i];
    }
    h->n = w;
    h->stride *= 2;
    opscope_html_threads_decimate(h->threads, h->stride);
}

static int grow_records(opscope_html_sink_t *h) {
    size_t nc = h->cap ? h->cap * 2 : 4096;
    if (h->max_records && nc > h->max_records) nc = h->max_records;
    if (opscope_vec_resize((void **)&h->start, nc, sizeof *h->start) ||
        opscope_vec_resize((void **)&h->dur, nc, sizeof *h->dur) ||
        opscope_vec_resize((void **)&h->sig, nc, sizeof *h->sig) ||
        opscope_vec_resize((void **)&h->lane, nc, sizeof *h->lane))
        return -1;
    h->cap = nc;
    return 0;
}

/* A device-timed record of a sampled compute (OPSCOPE_HAS_WEIGHT): counted for its op from
 * every record, before any stride, so the viewer's counts and estimates cover the profile. */
static void sampled_add(opscope_html_sink_t *h, const opscope_record *rec, opscope_derived *d) {
    uint32_t name = str_id0(h, rec->name ? rec->name : ""), sub = str_id0(h, opscope_derived_sub_op(d, NULL));
    size_t i = h->last_sampled;
    if (i >= h->n_sampled || h->sampled[i].name != name || h->sampled[i].sub_op != sub) {
        for (i = 0; i < h->n_sampled && (h->sampled[i].name != name || h->sampled[i].sub_op != sub); i++) {
        }
        if (i == h->n_sampled) {
            if (i == HTML_SAMPLED_MAX ||
                opscope_vec_reserve((void **)&h->sampled, &h->cap_sampled, i + 1, sizeof *h->sampled, 16))
                return;
            h->sampled[h->n_sampled++] = (opscope_html_sampled){name, sub, 0, 0, 0, -1, -1};
        }
        h->last_sampled = i;
    }
    opscope_html_sampled *x = &h->sampled[i];
    uint32_t wt = rec->weight ? rec->weight : 1;
    x->est_ns += rec->duration_ns * wt;
    if (!x->timed || x->graph_ != rec->graph_id || x->split_ != rec->split_id) {
        x->timed++;
        x->computes += wt;
        x->graph_ = rec->graph_id;
        x->split_ = rec->split_id;
    }
}

int opscope_html_sink_derived(void *ud, const opscope_record *rec, opscope_derived *d) {
    opscope_html_sink_t *h = ud;
    if (rec->has & OPSCOPE_HAS_WEIGHT) sampled_add(h, rec, d);
    if ((rec->has & OPSCOPE_HAS_GRAPH) && opscope_html_graphs_add(h->graphs, rec)) return h->failed = 1;
    uint64_t idx = h->seen++;
    if (idx % h->stride) return 0;
    if (h->max_records && h->n == h->max_records) {
        decimate(h);
        if (idx % h->stride) return 0;
    }
    if (h->n == h->cap && grow_records(h)) return h->failed = 1;

    html_sig s;
    memset(&s, 0, sizeof s); /* padding too: sigs are hashed and compared as bytes */
    s.type = rec->type == OPSCOPE_RECORD_COPY ? 1u : 0u;
    s.name = str_id0(h, rec->name ? rec->name : "");
    s.sub_op = str_id0(h, opscope_derived_sub_op(d, NULL)); /* as the report names it */
    s.extra = str_id0(h, opscope_derived_fused(d)); /* RMS_NORM_MUL: RMS_NORM+MUL, as the report */
    s.tensor = str_id0(h, rec->tensor_name);
    s.category = str_id0(h, rec->category);
    s.kernel = str_id0(h, (rec->has & OPSCOPE_HAS_KERNEL) ? rec->kernel : NULL);
    s.n_kernels = (rec->has & OPSCOPE_HAS_KERNEL) ? rec->n_kernels : 0;
    s.shape = str_id(h, h->shape_buf, format_shape(h, rec));
    int32_t backend = device_id(h, rec->backend_id);
    s.backend = backend;
    s.node = (rec->has & OPSCOPE_HAS_NODE) ? rec->node_index : -1;
    s.n_fused = rec->n_fused;
    s.bytes = rec->bytes;
    s.flops = opscope_derived_flops(d);
    uint64_t tb;
    const opscope_traffic *tr = opscope_derived_traffic(d, &tb);
    if (tr->flags & OPSCOPE_TRAFFIC_KNOWN) s.traffic = tb == UINT64_MAX ? tb : tb + 1;
    s.traffic_upper = (tr->flags & OPSCOPE_TRAFFIC_UPPER_BOUND) != 0;
    if (h->failed) return 1;
    uint32_t sid, lid;
    if (sig_id(h, &s, &sid) || lane_id(h, backend, s.type, rec->split_id, &lid))
        return h->failed = 1;
    h->start[h->n] = rec->start_ns;
    h->dur[h->n] = rec->duration_ns;
    h->sig[h->n] = sid;
    h->lane[h->n] = lid;
    h->n++;
    if ((rec->has & OPSCOPE_HAS_THREADS) && opscope_html_threads_add(h->threads, rec, sid, idx)) return h->failed = 1;
    return 0;
}

void opscope_html_sink_set_peak(opscope_html_sink_t *h, const opscope_peak *peak) {
    h->has_peak = peak != NULL;
    if (peak) h->peak = *peak;
}

opscope_kineto_collector *opscope_html_sink_kineto_tee(opscope_html_sink_t *h,
                                                       opscope_kineto_collector *next) {
    if (!next) return NULL;
    if (!h->cpu && !(h->cpu = opscope_html_cpu_new())) return next; /* no memory: no CPU lanes */
    return opscope_html_cpu_tee(h->cpu, next);
}

int opscope_html_sink_add_kineto(opscope_html_sink_t *h, const opscope_kineto_t *k) {
    if (!k || !h->cpu) return 0;
    return opscope_html_cpu_add_kineto(h->cpu, k);
}

OPSCOPE_DERIVED_ON_RECORD(on_record, opscope_html_sink_derived)

opscope_sink opscope_html_sink(opscope_html_sink_t *h) {
    return opscope_record_sink(h, on_meta, on_backend, on_record);
}

/* ---------------------------------------------------------------------------------------- */

/* The kept records' last end, where a window still open needs it (no write time): a loop
 * at the finish, not a cost per record. */
static uint64_t last_end(const opscope_html_sink_t *h) {
    const opscope_capture_info *c = &h->win.info;
    bool open = false;
    for (size_t i = 0; i < c->n_windows && !c->end_ns; i++) open |= !c->windows[i].end_ns;
    uint64_t e = 0;
    for (size_t i = 0; open && i < h->n; i++)
        if (h->start[i] + h->dur[i] > e) e = h->start[i] + h->dur[i];
    return e;
}

static void fill_data(const opscope_html_sink_t *h, opscope_html_data *out) {
    opscope_html_data data = {
        .out_path = h->out_path,
        .source_name = h->source_name,
        .strings = h->strings,
        .n = h->n,
        .start = h->start,
        .dur = h->dur,
        .sig = h->sig,
        .lane = h->lane,
        .seen = h->seen,
        .stride = h->stride,
        .n_sigs = h->n_sigs,
        .n_lanes = h->n_lanes,
        .backends = h->backends,
        .n_backends = h->n_backends,
        .profiler = h->profiler,
        .version = h->version,
        .total_records = h->total_records,
        .dropped_records = h->dropped_records,
        .ended = h->ended,
        .peak = h->has_peak ? &h->peak : NULL,
        .sampled = h->sampled,
        .n_sampled = h->n_sampled,
        .cpu = h->cpu,
        .graphs = h->graphs,
        .threads = h->threads,
        .cpath = h->cpath,
        .reqs = h->reqs,
        .n_reqs = h->n_reqs,
        .win = opscope_win_any(&h->win.info) ? &h->win.info : NULL,
        .last_ns = last_end(h),
    };
    data.sigs = h->sigs;
    data.lanes = h->lanes;
    *out = data;
}

/* Fills *DATA with H's page data; -1 (ERR filled when given) when buffering ran out of memory. */
static int ready_data(opscope_html_sink_t *h, opscope_html_data *data, opscope_error *err) {
    if (h->failed || opscope_html_graphs_finish(h->graphs)) {
        if (err) {
            memset(err, 0, sizeof *err);
            err->code = OPSCOPE_ERROR_NOMEM;
            err->msg = "out of memory while buffering records for the HTML viewer";
        }
        return -1;
    }
    fill_data(h, data);
    return 0;
}

/* Writes H's page: to W when given, else its own file (temp + rename); frees H. */
static int finish_page(opscope_html_sink_t *h, opscope_out_t *w, opscope_error *err) {
    opscope_html_data data;
    int rc = ready_data(h, &data, err);
    if (rc == 0) rc = w ? opscope_html_write_page(w, &data, err) : opscope_html_write(&data, err);
    opscope_html_sink_abort(h);
    return rc;
}

int opscope_html_sink_finish(opscope_html_sink_t *h, opscope_error *err) {
    return finish_page(h, NULL, err);
}

int opscope_html_sink_finish_to(opscope_html_sink_t *h, opscope_out_t *w, opscope_error *err) {
    return finish_page(h, w, err);
}

int opscope_html_sink_write_data(opscope_html_sink_t *h, opscope_out_t *w, opscope_error *err) {
    opscope_html_data data;
    if (ready_data(h, &data, err)) return -1;
    return opscope_html_write_data(w, &data, err);
}
