/* html_cpath.c - the critical path's steps and hops in the viewer's data (html_cpath.h). */
#include "export/html/html_cpath.h"

#include "export/kineto/critical_path_out.h"

#include <inttypes.h>

/* A hop's end: [1, device, stream, activity start] on a GPU stream, [0, thread] on a CPU thread. */
static void lane(opscope_out_t *w, const opscope_cpath_lane *l, uint64_t t0) {
    if (l->gpu) opscope_out_printf(w, "[1,%" PRId64 ",%" PRId64 ",%" PRId64 "]", l->device, l->stream,
                                   l->act_start - (int64_t)t0);
    else opscope_out_printf(w, "[0,%" PRIu32 "]", l->thread);
}

void opscope_html_cpath_write(opscope_out_t *w, const opscope_cpath_t *cp, uint64_t t0) {
    size_t ns, nh;
    const opscope_critical_path *s = opscope_cpath_steps(cp, &ns);
    const opscope_cpath_hop *h = opscope_cpath_hops(cp, &nh);
    if (!s || !ns) return;
    opscope_out_str(w, ",\"cpath\":{");
    const char *ann = opscope_cpath_window_name(cp);
    if (ann) { /* the windows are this annotation's instances (step: the instance) */
        opscope_out_str(w, "\"annotation\":");
        opscope_out_json_str(w, ann);
        opscope_out_char(w, ',');
    }
    opscope_out_str(w, "\"parts\":[");
    for (int p = 0; p < OPSCOPE_CPATH_PART_COUNT; p++)
        opscope_out_printf(w, "%s\"%s\"", p ? "," : "", opscope_cpath_part_name(p));
    /* per step: number (-1: the trace's window; with an annotation, its instance), start, length, the parts' ns in "parts" order, bound */
    opscope_out_str(w, "],\"steps\":[");
    for (size_t i = 0; i < ns; i++) {
        const opscope_critical_path *p = &s[i];
        opscope_out_printf(w, "%s[%" PRId64 ",%" PRId64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
                              ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%d]",
                           i ? "," : "", p->step, p->start_ns - (int64_t)t0, p->length_ns, p->cpu_ns,
                           p->launch_ns, p->kernel_ns, p->comm_ns, p->queue_ns, p->wait_ns, p->idle_ns,
                           opscope_critical_path_bound(p));
    }
    /* per hop, in path order: source time, destination time, part, source lane, destination lane */
    opscope_out_str(w, "],\"hops\":[");
    for (size_t i = 0; i < nh; i++) {
        opscope_out_printf(w, "%s[%" PRId64 ",%" PRId64 ",%u,", i ? "," : "", h[i].src_ns - (int64_t)t0,
                           h[i].dst_ns - (int64_t)t0, (unsigned)h[i].part);
        lane(w, &h[i].src, t0);
        opscope_out_char(w, ',');
        lane(w, &h[i].dst, t0);
        opscope_out_char(w, ']');
    }
    opscope_out_str(w, "]}");
}
