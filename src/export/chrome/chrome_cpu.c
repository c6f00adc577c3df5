/* chrome_cpu.c - a Kineto trace's CPU side in the Chrome export: cpu_op slices, runtime
 * calls, user annotations, Python functions, launch flows (CPU call -> GPU activity) and
 * profiler steps. */
#include "export/chrome/chrome.h"
#include "export/chrome/chrome_state.h"

#include "analyze/kineto/critical_path.h"
#include "util/sort.h"

#include <string.h>

/* The tee: every event goes on to the analysis; runtime calls, flow starts and correlated GPU
 * activities are also kept here (the analysis keeps no runtime call's duration). */
static int tee_add(void *ud, const opscope_kineto_event *ev) {
    opscope_chrome_t *c = ud;
    if (c->next->add(c->next->ud, ev)) return -1;
    switch (ev->kind) {
    case OPSCOPE_KINETO_RUNTIME:
    case OPSCOPE_KINETO_FLOW_START: {
        if (ev->kind == OPSCOPE_KINETO_FLOW_START && ev->corr < 0) return 0;
        chrome_launch l = {ev->start_ns, ev->dur_ns > 0 ? ev->dur_ns : 0, ev->corr,
                           (uint32_t)ev->thread,
                           ev->kind == OPSCOPE_KINETO_RUNTIME ? ev->name_id : UINT32_MAX};
        if (ev->kind == OPSCOPE_KINETO_RUNTIME && l.name == UINT32_MAX) l.name = UINT32_MAX - 1;
        return OPSCOPE_VEC_PUSH(c->launches, l);
    }
    case OPSCOPE_KINETO_ANNOTATION:
    case OPSCOPE_KINETO_PYTHON: {
        const char *nm = ev->name_id != UINT32_MAX ? opscope_strtab_get(c->next->names, ev->name_id) : NULL;
        if (!nm || (ev->kind == OPSCOPE_KINETO_ANNOTATION && !strncmp(nm, "ProfilerStep#", 13)))
            return 0; /* the steps have their own lane */
        chrome_mark m = {ev->start_ns, ev->dur_ns > 0 ? ev->dur_ns : 0, (uint32_t)ev->thread, ev->name_id,
                         ev->kind == OPSCOPE_KINETO_PYTHON};
        return OPSCOPE_VEC_PUSH(c->marks, m);
    }
    case OPSCOPE_KINETO_KERNEL:
    case OPSCOPE_KINETO_MEMCPY:
    case OPSCOPE_KINETO_MEMSET: {
        if (ev->corr < 0 || ev->record == UINT64_MAX) return 0;
        chrome_gpu_act a = {ev->start_ns, ev->corr, ev->record};
        return OPSCOPE_VEC_PUSH(c->acts, a);
    }
    default: return 0;
    }
}

opscope_kineto_collector *opscope_chrome_kineto_tee(opscope_chrome_t *c,
                                                    opscope_kineto_collector *next) {
    if (!next) return NULL;
    c->next = next;
    c->tee = *next;
    c->tee.ud = c;
    c->tee.add = tee_add;
    c->tee.want_links = 1; /* runtime calls keep their names */
    c->teed = true;
    return &c->tee;
}

static uint64_t ns_of(int64_t t) { return t > 0 ? (uint64_t)t : 0; }

/* One X event of the CPU process on trace thread THREAD (its tid: THREAD + 1). */
static void cpu_slice(opscope_chrome_t *c, const char *cat, const char *name, uint32_t thread,
                      int64_t start, int64_t dur) {
    opscope_out_t *w = c->out;
    if (c->n_events++) opscope_out_char(w, ',');
    opscope_out_str(w, "\n{\"ph\":\"X\",\"cat\":\"");
    opscope_out_str(w, cat);
    opscope_out_str(w, "\",\"name\":");
    opscope_out_json_str(w, name ? name : "");
    opscope_out_str(w, ",\"pid\":");
    opscope_out_u64(w, (uint64_t)c->cpu_pid);
    opscope_out_str(w, ",\"tid\":");
    opscope_out_u64(w, (uint64_t)thread + 1);
    opscope_out_str(w, ",\"ts\":");
    opscope_out_ns_as_us(w, ns_of(start));
    opscope_out_str(w, ",\"dur\":");
    opscope_out_ns_as_us(w, ns_of(dur));
    opscope_out_str(w, "}");
    if (thread + 1 > c->cpu_threads) c->cpu_threads = thread + 1;
}

static int launch_cmp(const void *pa, const void *pb, void *ctx) {
    (void)ctx;
    const chrome_launch *a = pa, *b = pb;
    if (a->corr != b->corr) return a->corr < b->corr ? -1 : 1;
    /* a runtime call before a flow start of the same id: the call is the launch */
    bool fa = a->name == UINT32_MAX, fb = b->name == UINT32_MAX;
    return (fa > fb) - (fa < fb);
}

/* The launch of correlation CORR (the runtime call, else the flow start), or NULL. */
static const chrome_launch *launch_of(const opscope_chrome_t *c, int64_t corr) {
    size_t lo = 0, hi = c->launches.n;
    while (lo < hi) {
        size_t m = lo + (hi - lo) / 2;
        if (c->launches.v[m].corr < corr) lo = m + 1;
        else hi = m;
    }
    return lo < c->launches.n && c->launches.v[lo].corr == corr ? &c->launches.v[lo] : NULL;
}

/* One flow per GPU activity whose launch is known: "s" on the launching call, "f" (bound to
 * the enclosing slice) on the activity's own event; ids 1, 2, 3... (a CUDA graph's kernels
 * share a correlation id, a flow must not), the correlation id in args. */
static void write_flows(opscope_chrome_t *c) {
    opscope_out_t *w = c->out;
    uint64_t id = 0;
    for (size_t i = 0; i < c->acts.n; i++) {
        const chrome_gpu_act *a = &c->acts.v[i];
        const chrome_launch *l = launch_of(c, a->corr);
        if (!l || a->record >= c->places.n) continue;
        const chrome_place *pl = &c->places.v[a->record];
        id++;
        opscope_out_char(w, ',');
        opscope_out_str(w, "\n{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"launch\",\"id\":");
        opscope_out_u64(w, id);
        opscope_out_str(w, ",\"pid\":");
        opscope_out_u64(w, (uint64_t)c->cpu_pid);
        opscope_out_str(w, ",\"tid\":");
        opscope_out_u64(w, (uint64_t)l->thread + 1);
        opscope_out_str(w, ",\"ts\":");
        opscope_out_ns_as_us(w, ns_of(l->start));
        opscope_out_str(w, ",\"args\":{\"correlation\":");
        opscope_out_i64(w, a->corr);
        opscope_out_str(w, "}},\n{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"ac2g\",\"name\":\"launch\",\"id\":");
        opscope_out_u64(w, id);
        opscope_out_str(w, ",\"pid\":");
        opscope_out_u64(w, pl->pid);
        opscope_out_str(w, ",\"tid\":");
        opscope_out_u64(w, pl->tid);
        opscope_out_str(w, ",\"ts\":");
        opscope_out_ns_as_us(w, ns_of(a->start));
        opscope_out_str(w, "}");
        c->n_events += 2;
        if (l->thread + 1 > c->cpu_threads) c->cpu_threads = l->thread + 1;
    }
}

int opscope_chrome_add_kineto_cpu(opscope_chrome_t *c, const opscope_kineto_t *k) {
    size_t n = k ? opscope_kineto_n_cpu_ops(k) : 0;
    const opscope_kineto_results *r = k ? opscope_kineto_get_results(k) : NULL;
    if (!n && (!r || !r->n_steps) && !c->launches.n && !c->marks.n) return 0;
    opscope_chrome_start(c);
    const opscope_strtab_t *names = k ? opscope_kineto_names(k) : NULL;
    c->cpu_pid = (long)c->n_procs; /* after the backends' processes */
    for (size_t i = 0; i < n; i++) {
        opscope_kineto_cpu_op op;
        opscope_kineto_cpu_op_get(k, i, &op);
        cpu_slice(c, "cpu_op", opscope_strtab_get(names, op.name), op.thread, op.start_ns,
                  op.end_ns > op.start_ns ? op.end_ns - op.start_ns : 0);
    }
    for (size_t i = 0; i < c->launches.n; i++) { /* runtime calls, in input order */
        const chrome_launch *l = &c->launches.v[i];
        if (l->name == UINT32_MAX) continue; /* a flow start: drawn as a flow below */
        const char *nm = names && l->name < UINT32_MAX - 1 ? opscope_strtab_get(names, l->name) : NULL;
        cpu_slice(c, "runtime", nm ? nm : "(runtime call)", l->thread, l->start, l->dur);
    }
    for (size_t i = 0; i < c->marks.n; i++) { /* annotations, Python functions: nested by the viewer */
        const chrome_mark *m = &c->marks.v[i];
        cpu_slice(c, m->python ? "python_function" : "user_annotation", opscope_strtab_get(names, m->name),
                  m->thread, m->start, m->dur);
    }
    opscope_out_t *w = c->out;
    for (size_t i = 0; r && i < r->n_steps; i++) { /* tid 0: the profiler steps */
        if (c->n_events++) opscope_out_char(w, ',');
        opscope_out_str(w, "\n{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#");
        opscope_out_i64(w, r->steps[i].number);
        opscope_out_str(w, "\",\"pid\":");
        opscope_out_u64(w, (uint64_t)c->cpu_pid);
        opscope_out_str(w, ",\"tid\":0,\"ts\":");
        opscope_out_ns_as_us(w, r->steps[i].start_ns);
        opscope_out_str(w, ",\"dur\":");
        opscope_out_ns_as_us(w, r->steps[i].dur_ns);
        opscope_out_str(w, "}");
    }
    opscope_sort_r(c->launches.v, c->launches.n, sizeof *c->launches.v, launch_cmp, NULL);
    if (c->n_events) write_flows(c);
    c->has_cpu = true;
    return 0;
}

static int act_cmp(const void *pa, const void *pb, void *ctx) {
    (void)ctx;
    const chrome_gpu_act *a = pa, *b = pb;
    if (a->corr != b->corr) return a->corr < b->corr ? -1 : 1;
    return (a->start > b->start) - (a->start < b->start);
}

/* Where the GPU activity of L went (its correlation and start), or false. */
static bool gpu_place(const opscope_chrome_t *c, const opscope_cpath_lane *l, chrome_place *out) {
    size_t lo = 0, hi = c->acts.n;
    while (lo < hi) {
        size_t m = lo + (hi - lo) / 2;
        const chrome_gpu_act *a = &c->acts.v[m];
        if (a->corr < l->corr || (a->corr == l->corr && a->start < l->act_start)) lo = m + 1;
        else hi = m;
    }
    if (lo >= c->acts.n || c->acts.v[lo].corr != l->corr || c->acts.v[lo].start != l->act_start ||
        c->acts.v[lo].record >= c->places.n)
        return false;
    *out = c->places.v[c->acts.v[lo].record];
    return true;
}

static bool place_of(const opscope_chrome_t *c, const opscope_cpath_lane *l, chrome_place *out) {
    if (l->gpu) return gpu_place(c, l, out);
    *out = (chrome_place){(uint32_t)c->cpu_pid, l->thread + 1};
    return true;
}

static void flow_end(opscope_chrome_t *c, const char *ph, const char *part, uint64_t id, chrome_place p, int64_t ts) {
    opscope_out_t *w = c->out;
    opscope_out_str(w, ",\n{\"ph\":\"");
    opscope_out_str(w, ph);
    opscope_out_str(w, "\",\"cat\":\"critical_path\",\"name\":\"critical_path_");
    opscope_out_str(w, part);
    opscope_out_str(w, "\",\"id\":");
    opscope_out_u64(w, id);
    opscope_out_str(w, ",\"pid\":");
    opscope_out_u64(w, p.pid);
    opscope_out_str(w, ",\"tid\":");
    opscope_out_u64(w, p.tid);
    opscope_out_str(w, ",\"ts\":");
    opscope_out_ns_as_us(w, ns_of(ts));
    opscope_out_str(w, "}");
    c->n_events++;
}

int opscope_chrome_add_critical_path(opscope_chrome_t *c, const opscope_cpath_t *cp) {
    size_t n;
    const opscope_cpath_hop *h = opscope_cpath_hops(cp, &n);
    if (!n || !c->has_cpu || !c->n_events) return 0;
    opscope_sort_r(c->acts.v, c->acts.n, sizeof *c->acts.v, act_cmp, NULL); /* the launch flows are written */
    uint64_t id = 1u << 30; /* apart from the launch flows' ids */
    for (size_t i = 0; i < n; i++) {
        chrome_place a, b;
        if (!place_of(c, &h[i].src, &a) || !place_of(c, &h[i].dst, &b)) continue;
        const char *part = opscope_cpath_part_name(h[i].part);
        flow_end(c, "s", part, ++id, a, h[i].src_ns);
        flow_end(c, "f\",\"bp\":\"e", part, id, b, h[i].dst_ns);
        if (!h[i].src.gpu && h[i].src.thread + 1 > c->cpu_threads) c->cpu_threads = h[i].src.thread + 1;
        if (!h[i].dst.gpu && h[i].dst.thread + 1 > c->cpu_threads) c->cpu_threads = h[i].dst.thread + 1;
    }
    return 0;
}
