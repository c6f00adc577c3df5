/* chrome.c - Chrome Trace Event JSON at real timestamps, streamed. */
#include "export/chrome/chrome.h"
#include "export/chrome/chrome_state.h"
#include "export/fmt/json_fmt.h"
#include "analyze/record/shape_fmt.h"
#include "analyze/ggml/stats.h"
#include "model/record.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define ALL_SPLITS INT32_MIN /* the track of a backend's work with its splits collapsed */

typedef chrome_proc proc;

opscope_chrome_t *opscope_chrome_new(opscope_out_t *out) {
    opscope_chrome_t *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->out = out;
    c->lanes = opscope_lanes_new();
    if (!c->lanes) {
        free(c);
        return NULL;
    }
    c->track_word = "split";
    return c;
}

void opscope_chrome_free(opscope_chrome_t *c) {
    if (!c) return;
    for (size_t i = 0; i < c->n_procs; i++) opscope_backend_names_free(&c->procs[i].names);
    free(c->procs);
    free(c->launches.v);
    free(c->marks.v);
    free(c->acts.v);
    free(c->places.v);
    free(c->reqs);
    opscope_win_copy_free(&c->win);
    opscope_lanes_free(c->lanes);
    free(c);
}

/* The process index of BACKEND_ID (its pid), created on first sight. */
static long proc_of(opscope_chrome_t *c, int32_t backend_id) {
    if (c->last_proc < c->n_procs && c->procs[c->last_proc].backend_id == backend_id)
        return (long)c->last_proc;
    for (size_t i = 0; i < c->n_procs; i++)
        if (c->procs[i].backend_id == backend_id) return (long)(c->last_proc = i);
    if (c->n_procs == c->cap_procs) {
        size_t nc = c->cap_procs ? c->cap_procs * 2 : 8;
        proc *np = realloc(c->procs, nc * sizeof *np);
        if (!np) return -1;
        c->procs = np;
        c->cap_procs = nc;
    }
    proc *p = &c->procs[c->n_procs];
    memset(p, 0, sizeof *p);
    p->backend_id = backend_id;
    c->last_proc = c->n_procs;
    return (long)c->n_procs++;
}

static int on_meta(void *ud, const opscope_meta *m) {
    opscope_chrome_t *c = ud;
    if (m->profiler && (!strcmp(m->profiler, "kineto") || !strcmp(m->profiler, "chrome")))
        c->track_word = "stream", c->is_trace = true;
    if (opscope_chrome_take_windows(c, m->capture)) return -1;
    return opscope_chrome_take_requests(c, m->capture);
}

void opscope_chrome_set_splits(opscope_chrome_t *c, bool per_split) { c->per_split = per_split; }

/* The track of a record: copies have one per backend; a trace's streams are real queues
 * (their work overlaps), a ggml scheduler's splits only cut one backend's work in turns. */
static int32_t track_of(const opscope_chrome_t *c, const opscope_record *r) {
    if (r->type == OPSCOPE_RECORD_COPY) return 0;
    if (c->per_split || c->is_trace) return r->split_id;
    return ALL_SPLITS;
}

static int on_backend(void *ud, const opscope_backend *b) {
    opscope_chrome_t *c = ud;
    long i = proc_of(c, b->id);
    if (i < 0) return c->oom = true, -1;
    proc *p = &c->procs[i];
    if (opscope_backend_names_set(&p->names, b)) return c->oom = true, -1;
    p->device_type = b->device_type;
    p->described = true;
    return 0;
}

/* "src0":"[4096, 4096] q4_0" style value for one tensor. */
static void tensor_value(json_fmt *f, const int64_t ne[OPSCOPE_MAX_DIMS], int32_t type) {
    jf_char(f, '"');
    jf_ne_text(f, ne);
    if (type >= 0) {
        jf_char(f, ' ');
        const char *tn = opscope_ggml_type_name(type);
        jf_mem(f, tn, strlen(tn));
    }
    jf_char(f, '"');
}

int opscope_chrome_sink_derived(void *ud, const opscope_record *r, opscope_derived *d) {
    opscope_chrome_t *c = ud;
    long pi = proc_of(c, r->backend_id);
    if (pi < 0) return c->oom = true, -1;
    c->procs[pi].has_events = true;
    bool copy = r->type == OPSCOPE_RECORD_COPY;
    uint32_t tid = opscope_lanes_assign(c->lanes, r->backend_id, track_of(c, r), copy ? 1 : 0,
                                        r->start_ns, r->duration_ns);
    if (!tid) return c->oom = true, -1;
    /* a teed trace: where each record went, for the flows from its launch */
    if (c->teed && OPSCOPE_VEC_PUSH(c->places, ((chrome_place){(uint32_t)pi, tid})))
        return c->oom = true, -1;
    opscope_chrome_start(c);
    json_fmt f;
    jf_init(&f, c->out);
    if (c->n_events++) jf_char(&f, ',');
    const char *sub = opscope_derived_sub_op(d, NULL);
    if (copy)
        jf_lit(&f, "\n{\"ph\":\"X\",\"cat\":\"copy\",\"name\":");
    else
        jf_lit(&f, "\n{\"ph\":\"X\",\"cat\":\"compute\",\"name\":");
    bool renamed = true;
    /* A COPY's extra is the ggml call that made it: the event keeps the direction's name. */
    const char *fused = copy ? NULL : r->extra;
    if (fused) {
        jf_str(&f, fused);
    } else if (sub) {
        char buf[256];
        size_t n = opscope_op_display(buf, sizeof buf, r->type, r->name, sub, NULL);
        (void)n;
        jf_str(&f, buf);
    } else {
        jf_str(&f, r->name);
        renamed = false;
    }
    jf_key_u64(&f, "pid", (uint64_t)pi);
    jf_key_u64(&f, "tid", tid);
    jf_key(&f, "ts");
    jf_ns_as_us(&f, r->start_ns);
    jf_key(&f, "dur");
    jf_ns_as_us(&f, r->duration_ns);
    jf_lit(&f, ",\"args\":{");
    if (renamed) { /* the op itself when the event shows a fused or sub-op name */
        jf_lit(&f, "\"op\":");
        jf_str(&f, r->name);
        jf_char(&f, ',');
    }
    if (sub) {
        jf_lit(&f, "\"sub_op\":");
        jf_str(&f, sub);
        jf_char(&f, ',');
    }
    if (r->extra) {
        if (copy)
            jf_lit(&f, "\"call\":");
        else
            jf_lit(&f, "\"fused\":");
        jf_str(&f, r->extra);
        jf_char(&f, ',');
    }
    if (r->category) {
        jf_lit(&f, "\"category\":");
        jf_str(&f, r->category);
        jf_char(&f, ',');
    }
    /* Backend and split are the event's process and thread: not repeated here. */
    jf_lit(&f, "\"bytes\":");
    jf_u64(&f, r->bytes);
    uint64_t flops = opscope_derived_flops(d);
    if (flops) jf_key_u64(&f, "flops", flops);
    int n_src = opscope_record_n_src(r);
    for (int i = 0; i < n_src; i++) {
        const int64_t *ne = r->ne_src[i];
        if (ne[0] <= 0 && ne[1] <= 0 && ne[2] <= 0 && ne[3] <= 0) continue;
        char k[8] = {',', '"', 's', 'r', 'c', (char)('0' + i), '"', ':'};
        jf_mem(&f, k, 8);
        tensor_value(&f, ne, r->type_src[i]);
    }
    if (r->has & OPSCOPE_HAS_OUT) {
        jf_key(&f, "out");
        tensor_value(&f, r->ne, r->out_type);
    }
    if (r->tensor_name) jf_key_str(&f, "tensor", r->tensor_name);
    if (r->has & OPSCOPE_HAS_NODE) {
        jf_key_i64(&f, "node", r->node_index);
        if (r->n_fused > 1) jf_key_i64(&f, "n_fused", r->n_fused);
    }
    if (r->has & OPSCOPE_HAS_GRAPH) jf_key_i64(&f, "graph", r->graph_id);
    if (r->has & OPSCOPE_HAS_THREAD) {
        jf_key_i64(&f, "thread", r->thread_id);
    }
    jf_lit(&f, "}}");
    jf_flush(&f);
    opscope_chrome_add_threads(c, r, pi, fused ? fused : r->name);
    return 0;
}

static const char *device_type_word(opscope_device_type t) {
    switch (t) {
    case OPSCOPE_DEVICE_CPU: return "CPU";
    case OPSCOPE_DEVICE_GPU: return "GPU";
    case OPSCOPE_DEVICE_ACCEL: return "ACCEL";
    default: return "Device";
    }
}

/* The display name of process I (a backend, after its process in a merged profile). */
static void proc_name(const opscope_chrome_t *c, size_t i, char *buf, size_t size) {
    const proc *p = &c->procs[i];
    const opscope_backend_names *n = &p->names;
    if (p->described && n->device && n->device[0] && strcmp(n->device, "unknown") != 0)
        snprintf(buf, size, "%s: %s (%s)", device_type_word(p->device_type), n->device,
                 n->name && n->name[0] ? n->name : "?");
    else if (p->described && n->name && n->name[0])
        snprintf(buf, size, "%s: %s", device_type_word(p->device_type), n->name);
    else
        snprintf(buf, size, "Backend %d", (int)p->backend_id);
    if (n->process) { /* a merged profile: the process first, so its backends read as a group */
        char tmp[600];
        snprintf(tmp, sizeof tmp, "%s", buf);
        snprintf(buf, size, "%.200s: %.390s", n->process, tmp);
    }
}

int opscope_chrome_finish(opscope_chrome_t *c) {
    opscope_out_t *w = c->out;
    opscope_chrome_start(c);
    char buf[600];
    for (size_t i = 0; i < c->n_procs; i++) {
        const proc *p = &c->procs[i];
        if (!p->has_events) continue; /* described but idle: no empty process */
        proc_name(c, i, buf, sizeof buf);
        /* two backends of one name on one device (two schedulers, a merged run) must not
         * read as one process in Perfetto: the later ones get their id */
        for (size_t j = 0; j < i; j++) {
            char prev[600];
            if (!c->procs[j].has_events) continue;
            proc_name(c, j, prev, sizeof prev);
            if (strcmp(prev, buf) == 0) {
                size_t l = strlen(buf);
                snprintf(buf + l, sizeof buf - l, " [backend %d]", (int)p->backend_id);
                break;
            }
        }
        opscope_chrome_meta_event(c, "process_name", (long)i, -1);
        opscope_out_str(w, "\"name\":");
        opscope_out_json_str(w, buf);
        opscope_out_str(w, "}}");
        opscope_chrome_meta_event(c, "process_sort_index", (long)i, -1);
        opscope_out_str(w, "\"sort_index\":");
        opscope_out_i64(w, p->backend_id);
        opscope_out_str(w, "}}");
    }
    size_t n = opscope_lanes_count(c->lanes);
    for (size_t i = 0; i < n; i++) {
        const opscope_lane_info *li = opscope_lanes_get(c->lanes, i);
        long pi = proc_of(c, li->backend_id);
        if (pi < 0) return -1;
        int len;
        if (li->kind == 1)
            len = snprintf(buf, sizeof buf, "copies");
        else if (li->split_id == ALL_SPLITS)
            len = snprintf(buf, sizeof buf, "compute");
        else
            len = li->split_id < 0 ? snprintf(buf, sizeof buf, "no %s", c->track_word)
                                   : snprintf(buf, sizeof buf, "%s %d", c->track_word, (int)li->split_id);
        if (li->lane > 0 && len > 0 && (size_t)len < sizeof buf)
            snprintf(buf + len, sizeof buf - (size_t)len, " #%u", li->lane + 1);
        opscope_chrome_meta_event(c, "thread_name", pi, li->tid);
        opscope_out_str(w, "\"name\":");
        opscope_out_json_str(w, buf);
        opscope_out_str(w, "}}");
        /* Splits in order, each split's extra lanes right below it, copies last. */
        int64_t order = li->kind == 1              ? (int64_t)1 << 40
                        : li->split_id == ALL_SPLITS ? (int64_t)li->lane
                                                     : (int64_t)li->split_id * 1024 + (int64_t)li->lane;
        opscope_chrome_meta_event(c, "thread_sort_index", pi, li->tid);
        opscope_out_str(w, "\"sort_index\":");
        opscope_out_i64(w, order);
        opscope_out_str(w, "}}");
    }
    opscope_chrome_write_thread_tracks(c);
    if (c->has_cpu) {
        opscope_chrome_meta_event(c, "process_name", c->cpu_pid, -1);
        opscope_out_str(w, "\"name\":\"CPU (the trace's threads: cpu_op slices, runtime calls, profiler steps)\"}}");
        opscope_chrome_meta_event(c, "process_sort_index", c->cpu_pid, -1);
        opscope_out_str(w, "\"sort_index\":-1}}"); /* above the devices, as in the input */
        opscope_chrome_meta_event(c, "thread_name", c->cpu_pid, 0);
        opscope_out_str(w, "\"name\":\"profiler steps\"}}");
        for (uint32_t t = 0; t < c->cpu_threads; t++) {
            opscope_chrome_meta_event(c, "thread_name", c->cpu_pid, (long)t + 1);
            opscope_out_printf(w, "\"name\":\"thread %u\"}}", (unsigned)t);
        }
    }
    /* after the backends' processes and a trace's CPU process */
    opscope_chrome_write_requests(c, c->has_cpu ? c->cpu_pid + 1 : (long)c->n_procs);
    opscope_chrome_write_windows(c, (c->has_cpu ? c->cpu_pid + 1 : (long)c->n_procs) + 1, 0);
    opscope_out_str(w, "\n]}\n");
    return c->oom ? -1 : 0;
}

OPSCOPE_DERIVED_ON_RECORD(on_record, opscope_chrome_sink_derived)

opscope_sink opscope_chrome_sink(opscope_chrome_t *c) {
    return opscope_record_sink(c, on_meta, on_backend, on_record);
}
