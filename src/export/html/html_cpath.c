/* html_cpath.c - the critical path's steps and hops in the viewer's data (html_cpath.h). */
#include "export/html/html_cpath.h"

#include "export/fmt/json_fmt.h"
#include "export/kineto/critical_path_out.h"

/* A hop's end: [1, device, stream, activity start] on a GPU stream, [0, thread] on a CPU thread. */
static void lane(opscope_jw *j, const opscope_cpath_lane *l, uint64_t t0) {
    opscope_jw_item_arr(j);
    opscope_jw_item_u64(j, l->gpu ? 1 : 0);
    if (l->gpu) {
        opscope_jw_item_i64(j, l->device);
        opscope_jw_item_i64(j, l->stream);
        opscope_jw_item_i64(j, l->act_start - (int64_t)t0);
    } else {
        opscope_jw_item_u64(j, l->thread);
    }
    opscope_jw_end_arr(j);
}

/* Per step: number (-1: the trace's window; with an annotation, its instance), start, length,
 * the parts' ns in "parts" order, bound. */
static void step(opscope_jw *j, const opscope_critical_path *p, uint64_t t0) {
    opscope_jw_item_arr(j);
    opscope_jw_item_i64(j, p->step);
    opscope_jw_item_i64(j, p->start_ns - (int64_t)t0);
    const uint64_t v[] = {p->length_ns, p->cpu_ns,   p->launch_ns, p->kernel_ns,
                          p->comm_ns,   p->queue_ns, p->wait_ns,   p->idle_ns};
    for (size_t k = 0; k < sizeof v / sizeof *v; k++) opscope_jw_item_u64(j, v[k]);
    opscope_jw_item_i64(j, opscope_critical_path_bound(p));
    opscope_jw_end_arr(j);
}

void opscope_html_cpath_write(opscope_out_t *w, const opscope_cpath_t *cp, uint64_t t0) {
    size_t ns, nh;
    const opscope_critical_path *s = opscope_cpath_steps(cp, &ns);
    const opscope_cpath_hop *h = opscope_cpath_hops(cp, &nh);
    if (!s || !ns) return;
    opscope_jw j = opscope_jw_resume(w);
    opscope_jw_obj(&j, "cpath");
    const char *ann = opscope_cpath_window_name(cp);
    if (ann) opscope_jw_str(&j, "annotation", ann); /* the windows are this annotation's instances (step: the instance) */
    opscope_jw_arr(&j, "parts");
    for (int p = 0; p < OPSCOPE_CPATH_PART_COUNT; p++) opscope_jw_item_str(&j, opscope_cpath_part_name(p));
    opscope_jw_end_arr(&j);
    opscope_jw_arr(&j, "steps");
    for (size_t i = 0; i < ns; i++) step(&j, &s[i], t0);
    opscope_jw_end_arr(&j);
    /* per hop, in path order: source time, destination time, part, source lane, destination lane */
    opscope_jw_arr(&j, "hops");
    for (size_t i = 0; i < nh; i++) {
        opscope_jw_item_arr(&j);
        opscope_jw_item_i64(&j, h[i].src_ns - (int64_t)t0);
        opscope_jw_item_i64(&j, h[i].dst_ns - (int64_t)t0);
        opscope_jw_item_u64(&j, h[i].part);
        lane(&j, &h[i].src, t0);
        lane(&j, &h[i].dst, t0);
        opscope_jw_end_arr(&j);
    }
    opscope_jw_end_arr(&j);
    opscope_jw_end_obj(&j);
}
