/* critical_path_out.c - the critical path in the console report and the JSON summary (see
 * critical_path_out.h). */
#include "export/kineto/critical_path_out.h"
#include "export/fmt/json_fmt.h"

#include <inttypes.h>

static uint64_t part_ns(const opscope_critical_path *p, int part) {
    switch (part) {
    case OPSCOPE_CPATH_CPU: return p->cpu_ns;
    case OPSCOPE_CPATH_LAUNCH: return p->launch_ns;
    case OPSCOPE_CPATH_KERNEL: return p->kernel_ns;
    case OPSCOPE_CPATH_COMM: return p->comm_ns;
    case OPSCOPE_CPATH_QUEUE: return p->queue_ns;
    case OPSCOPE_CPATH_WAIT: return p->wait_ns;
    default: return p->idle_ns;
    }
}

int opscope_critical_path_bound(const opscope_critical_path *p) {
    int best = OPSCOPE_CPATH_CPU;
    for (int i = 1; i < OPSCOPE_CPATH_IDLE; i++)
        if (part_ns(p, i) > part_ns(p, best)) best = i;
    return best;
}

/* What HTA's summary() divides by: the path's weighted edges (CPU, launch, GPU, queue). */
static uint64_t worked(const opscope_critical_path *p) {
    return p->cpu_ns + p->launch_ns + p->kernel_ns + p->comm_ns + p->queue_ns;
}

static void total(const opscope_critical_path *v, size_t n, opscope_critical_path *t) {
    *t = (opscope_critical_path){.step = -1, .start_ns = n ? v[0].start_ns : 0};
    for (size_t i = 0; i < n; i++) {
        t->window_ns += v[i].window_ns;
        t->length_ns += v[i].length_ns;
        t->cpu_ns += v[i].cpu_ns;
        t->launch_ns += v[i].launch_ns;
        t->kernel_ns += v[i].kernel_ns;
        t->comm_ns += v[i].comm_ns;
        t->queue_ns += v[i].queue_ns;
        t->wait_ns += v[i].wait_ns;
        t->idle_ns += v[i].idle_ns;
        t->gpu_ns += v[i].gpu_ns;
        t->n_edges += v[i].n_edges;
        t->n_events += v[i].n_events;
    }
}

static void pct_of(opscope_out_t *w, uint64_t part, uint64_t whole) {
    opscope_out_printf(w, " %5.1f%%", whole ? 100.0 * (double)part / (double)whole : 0.0);
}

static void row(opscope_out_t *w, const char *label, const opscope_critical_path *p) {
    opscope_out_printf(w, "  %-10s %11.3f", label, (double)p->length_ns / 1e6);
    for (int i = 0; i < OPSCOPE_CPATH_PART_COUNT; i++) pct_of(w, part_ns(p, i), p->length_ns);
    opscope_out_printf(w, "  %s (%.1f%% of the path's work)\n", opscope_cpath_part_name(opscope_critical_path_bound(p)),
                       worked(p) ? 100.0 * (double)part_ns(p, opscope_critical_path_bound(p)) / (double)worked(p) : 0.0);
}

void opscope_critical_path_write_text(opscope_out_t *w, const opscope_cpath_t *cp) {
    size_t n;
    const opscope_critical_path *v = opscope_cpath_steps(cp, &n);
    if (!v || !n) return;
    const char *ann = opscope_cpath_window_name(cp);
    if (ann) {
        opscope_out_printf(w, "\nCritical path of the annotation '%.200s', %zu instance%s (HTA's graph: CPU ops, "
                              "launches, kernels, syncs; %% of the window)\n", ann, opscope_cpath_window_count(cp),
                           opscope_cpath_window_count(cp) == 1 ? "" : "s");
        opscope_out_str(w, "  instance    length ms     cpu launch kernel   comm  queue   wait   idle  bound by\n");
    } else {
        opscope_out_str(w, "\nCritical path (HTA's graph: CPU ops, launches, kernels, syncs; % of the step)\n");
        opscope_out_str(w, "  step        length ms     cpu launch kernel   comm  queue   wait   idle  bound by\n");
    }
    size_t shown = n <= 12 ? n : 10;
    for (size_t i = 0; i < shown; i++) {
        char label[32];
        if (v[i].step >= 0) snprintf(label, sizeof label, ann ? "%" PRId64 : "#%" PRId64, v[i].step);
        else snprintf(label, sizeof label, "window");
        row(w, label, &v[i]);
    }
    if (shown < n) opscope_out_printf(w, "  ... %zu more %s\n", n - shown, ann ? "instances" : "steps");
    if (n > 1) {
        opscope_critical_path t;
        total(v, n, &t);
        row(w, "all", &t);
    }
}

static void members(opscope_jw *j, const opscope_critical_path *p) {
    opscope_jw_i64(j, "start_ns", p->start_ns);
    const opscope_jw_u64_kv kv[] = {
        {"window_ns", p->window_ns}, {"length_ns", p->length_ns}, {"cpu_ns", p->cpu_ns},
        {"launch_ns", p->launch_ns}, {"gpu_ns", p->gpu_ns}, {"kernel_ns", p->kernel_ns},
        {"comm_ns", p->comm_ns}, {"queue_ns", p->queue_ns}, {"wait_ns", p->wait_ns},
        {"idle_ns", p->idle_ns}, {"work_ns", worked(p)}, {"edges", p->n_edges},
        {"events", p->n_events}};
    opscope_jw_u64s(j, kv, sizeof kv / sizeof *kv);
    opscope_jw_str(j, "bound_by", opscope_cpath_part_name(opscope_critical_path_bound(p)));
}

void opscope_critical_path_write_json(opscope_out_t *w, const opscope_cpath_t *cp) {
    size_t n;
    const opscope_critical_path *v = opscope_cpath_steps(cp, &n);
    if (!v || !n) return;
    opscope_critical_path t;
    total(v, n, &t);
    opscope_jw j = opscope_jw_resume(w);
    opscope_jw_nl(&j);
    opscope_jw_obj(&j, "critical_path");
    members(&j, &t);
    const char *ann = opscope_cpath_window_name(cp);
    if (ann) { /* the windows are the instances of an annotation, not the steps */
        opscope_jw_str(&j, "annotation", ann);
        opscope_jw_u64(&j, "instances", opscope_cpath_window_count(cp));
    }
    size_t n_hops;
    opscope_cpath_hops(cp, &n_hops); /* the path's hops between lanes: flows in Chrome, arrows in the viewer */
    opscope_jw_u64(&j, "hops", n_hops);
    opscope_jw_arr(&j, "steps");
    for (size_t i = 0; i < n; i++) {
        opscope_jw_nl(&j);
        opscope_jw_item_obj(&j);
        opscope_jw_i64(&j, ann ? "instance" : "step", v[i].step);
        members(&j, &v[i]);
        opscope_jw_end_obj(&j);
    }
    opscope_jw_end_arr(&j);
    opscope_jw_end_obj(&j);
}
