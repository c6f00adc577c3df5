/* html_cpu.c - a trace's CPU side for the viewer page: slices (CPU ops, runtime calls, user
 * annotations, Python functions) by thread and depth, steps, device busy fractions. */
#include "export/html/html_cpu.h"
#include "export/fmt/json_fmt.h"
#include "model/strtab.h"
#include "util/sort.h"
#include "util/vec.h"

#include <stdlib.h>
#include <string.h>

enum { SLICE_CPU_OP = 0, SLICE_RUNTIME = 1, SLICE_ANNOTATION = 2, SLICE_PYTHON = 3 };

typedef struct slice {
    int64_t start, dur;
    uint32_t thread, name, kind, depth;
} slice;

struct opscope_html_cpu {
    opscope_strtab_t *names;
    OPSCOPE_VEC(slice) sl;
    OPSCOPE_VEC(opscope_kineto_step) steps;
    OPSCOPE_VEC(opscope_kineto_device_busy) busy;
    uint64_t window_start, window_ns;
    opscope_kineto_collector tee, *next;
    int failed;
};

opscope_html_cpu_t *opscope_html_cpu_new(void) {
    opscope_html_cpu_t *c = calloc(1, sizeof *c);
    if (c && !(c->names = opscope_strtab_new())) {
        free(c);
        return NULL;
    }
    return c;
}

void opscope_html_cpu_free(opscope_html_cpu_t *c) {
    if (!c) return;
    opscope_strtab_free(c->names);
    free(c->sl.v);
    free(c->steps.v);
    free(c->busy.v);
    free(c);
}

static int push(opscope_html_cpu_t *c, const char *name, uint32_t thread, uint32_t kind,
                int64_t start, int64_t dur) {
    uint32_t id;
    if (!opscope_strtab_intern(c->names, name ? name : "", name ? strlen(name) : 0, &id)) return -1;
    slice s = {start, dur > 0 ? dur : 0, thread, id, kind, 0};
    return OPSCOPE_VEC_PUSH(c->sl, s);
}

static int tee_add(void *ud, const opscope_kineto_event *ev) {
    opscope_html_cpu_t *c = ud;
    if (c->next->add(c->next->ud, ev)) return -1;
    uint32_t kind = ev->kind == OPSCOPE_KINETO_RUNTIME ? SLICE_RUNTIME
                    : ev->kind == OPSCOPE_KINETO_ANNOTATION ? SLICE_ANNOTATION
                    : ev->kind == OPSCOPE_KINETO_PYTHON ? SLICE_PYTHON : UINT32_MAX;
    if (kind == UINT32_MAX) return 0;
    const char *nm = ev->name_id != UINT32_MAX ? opscope_strtab_get(c->next->names, ev->name_id) : NULL;
    return push(c, nm ? nm : kind == SLICE_RUNTIME ? "(runtime call)" : "", (uint32_t)ev->thread, kind,
                ev->start_ns, ev->dur_ns);
}

opscope_kineto_collector *opscope_html_cpu_tee(opscope_html_cpu_t *c, opscope_kineto_collector *next) {
    if (!c || !next) return next;
    c->next = next;
    c->tee = *next;
    c->tee.ud = c;
    c->tee.add = tee_add;
    c->tee.want_links = 1; /* runtime calls keep their names */
    return &c->tee;
}

int opscope_html_cpu_add_kineto(opscope_html_cpu_t *c, const opscope_kineto_t *k) {
    if (!c || !k) return 0;
    const opscope_strtab_t *names = opscope_kineto_names(k);
    for (size_t i = 0, n = opscope_kineto_n_cpu_ops(k); i < n; i++) {
        opscope_kineto_cpu_op op;
        opscope_kineto_cpu_op_get(k, i, &op);
        if (push(c, opscope_strtab_get(names, op.name), op.thread, SLICE_CPU_OP, op.start_ns,
                 op.end_ns - op.start_ns))
            return -1;
    }
    const opscope_kineto_results *r = opscope_kineto_get_results(k);
    for (size_t i = 0; r && i < r->n_steps; i++)
        if (OPSCOPE_VEC_PUSH(c->steps, r->steps[i])) return -1;
    for (size_t i = 0; r && i < r->n_devices; i++)
        if (OPSCOPE_VEC_PUSH(c->busy, r->devices[i])) return -1;
    if (r) {
        c->window_start = r->window_start_ns;
        c->window_ns = r->window_ns;
    }
    return 0;
}

int opscope_html_cpu_first(const opscope_html_cpu_t *c, int64_t *first) {
    if (!c || (!c->sl.n && !c->steps.n)) return 0;
    int64_t t = INT64_MAX;
    for (size_t i = 0; i < c->sl.n; i++)
        if (c->sl.v[i].start < t) t = c->sl.v[i].start;
    for (size_t i = 0; i < c->steps.n; i++)
        if ((int64_t)c->steps.v[i].start_ns < t) t = (int64_t)c->steps.v[i].start_ns;
    *first = t;
    return 1;
}

/* By thread, start, longer first (an enclosing slice before what it holds), CPU op before
 * the runtime call it makes. */
static int nest_cmp(const void *pa, const void *pb, void *ctx) {
    (void)ctx;
    const slice *a = pa, *b = pb;
    if (a->thread != b->thread) return a->thread < b->thread ? -1 : 1;
    if (a->start != b->start) return a->start < b->start ? -1 : 1;
    if (a->dur != b->dur) return a->dur > b->dur ? -1 : 1;
    return (a->kind > b->kind) - (a->kind < b->kind);
}

static int row_cmp(const void *pa, const void *pb, void *ctx) {
    (void)ctx;
    const slice *a = pa, *b = pb;
    if (a->thread != b->thread) return a->thread < b->thread ? -1 : 1;
    if (a->depth != b->depth) return a->depth < b->depth ? -1 : 1;
    return (a->start > b->start) - (a->start < b->start);
}

#define MAX_DEPTH 64

/* Each slice's depth: the slices still open around it on its thread (a stack of ends). */
static void nest(opscope_html_cpu_t *c) {
    opscope_sort_r(c->sl.v, c->sl.n, sizeof *c->sl.v, nest_cmp, NULL);
    int64_t ends[MAX_DEPTH];
    uint32_t depth = 0, thread = UINT32_MAX;
    for (size_t i = 0; i < c->sl.n; i++) {
        slice *s = &c->sl.v[i];
        if (s->thread != thread) thread = s->thread, depth = 0;
        while (depth && ends[depth - 1] <= s->start) depth--;
        /* a slice that outlives its parent (clock rounding) still nests; past MAX_DEPTH
         * the deepest row takes it (a row may then overlap: the viewer searches it so) */
        s->depth = depth < MAX_DEPTH ? depth : MAX_DEPTH - 1;
        if (depth < MAX_DEPTH) ends[depth++] = s->start + s->dur;
    }
    opscope_sort_r(c->sl.v, c->sl.n, sizeof *c->sl.v, row_cmp, NULL);
}

/* The member KEY: one column of the slices as a JSON array. */
static void column(opscope_jw *j, const char *key, const opscope_html_cpu_t *c, int which, uint64_t t0) {
    opscope_jw_arr(j, key);
    for (size_t i = 0; i < c->sl.n; i++) {
        const slice *s = &c->sl.v[i];
        switch (which) {
        case 0: opscope_jw_item_u64(j, s->thread); break;
        case 1: opscope_jw_item_u64(j, s->depth); break;
        case 2: opscope_jw_item_u64(j, s->kind); break;
        case 3: opscope_jw_item_u64(j, s->name); break;
        case 4: opscope_jw_item_i64(j, s->start - (int64_t)t0); break;
        default: opscope_jw_item_i64(j, s->dur); break;
        }
    }
    opscope_jw_end_arr(j);
}

void opscope_html_cpu_write(opscope_out_t *w, opscope_html_cpu_t *c, uint64_t t0) {
    if (!c || (!c->sl.n && !c->steps.n && !c->busy.n)) return;
    nest(c);
    opscope_jw j = opscope_jw_resume(w);
    opscope_jw_obj(&j, "cpu");
    opscope_jw_arr(&j, "names");
    for (uint32_t i = 0, n = opscope_strtab_count(c->names); i < n; i++)
        opscope_jw_item_str(&j, opscope_strtab_get(c->names, i));
    opscope_jw_end_arr(&j);
    static const char *const cols[] = {"thread", "depth", "kind", "name", "start", "dur"};
    for (int k = 0; k < 6; k++) column(&j, cols[k], c, k, t0);
    opscope_jw_arr(&j, "steps");
    for (size_t i = 0; i < c->steps.n; i++) {
        opscope_jw_item_arr(&j);
        opscope_jw_item_i64(&j, c->steps.v[i].number);
        opscope_jw_item_i64(&j, (int64_t)c->steps.v[i].start_ns - (int64_t)t0);
        opscope_jw_item_u64(&j, c->steps.v[i].dur_ns);
        opscope_jw_end_arr(&j);
    }
    opscope_jw_end_arr(&j);
    opscope_jw_arr(&j, "window");
    opscope_jw_item_i64(&j, (int64_t)c->window_start - (int64_t)t0);
    opscope_jw_item_u64(&j, c->window_ns);
    opscope_jw_end_arr(&j);
    opscope_jw_arr(&j, "busy");
    for (size_t i = 0; i < c->busy.n; i++) {
        opscope_jw_item_arr(&j);
        opscope_jw_item_i64(&j, c->busy.v[i].device);
        opscope_jw_item_u64(&j, c->busy.v[i].busy_ns);
        opscope_jw_item_u64(&j, c->busy.v[i].idle_ns);
        opscope_jw_end_arr(&j);
    }
    opscope_jw_end_arr(&j);
    opscope_jw_end_obj(&j);
}
