/* ktrace_out.c - the trace written back with counter tracks or its critical path (see
 * ktrace_out.h). */
#include "export/kineto/ktrace_out.h"

#include "analyze/kineto/critical_path.h"
#include "analyze/kineto/kmembw.h"
#include "analyze/kineto/kqueue.h"
#include "analyze/kineto/kstats.h"
#include "export/kineto/ktrace_scan.h"
#include "read/kineto_read.h"
#include "util/sort.h"
#include "util/out.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct ktrace_output {
    opscope_out_t *w;
    const char *path, *source;
    bool cpath;                  /* the critical path trace, else the counters trace */
    bool only_critical;          /* cpath: X slices off the path left out (HTA's default) */
    const opscope_cpath_t *cp;   /* the path's marks, at the finish */
    opscope_cpath_mark *sorted;  /* a copy of them by pid, tid, start, end: the look-up */
    size_t n_sorted;
    uint64_t n_marked;
} ktrace_output;

static void put_sep(opscope_out_t *w, bool *first) {
    opscope_out_str(w, *first ? "\n" : ",\n");
    *first = false;
}

/* The queue counter events of one stream's changes: the length after each (the event's text
 * up to its time made once per stream). */
static void queue_events(opscope_out_t *w, const opscope_kqueue_stream *st, int out, const char *name, bool *first) {
    char head[192], mid[96];
    snprintf(head, sizeof head, "{\"ph\":\"C\",\"name\":\"%s\",\"pid\":%" PRId64 ",\"id\":%" PRId64 ",\"ts\":", name,
             st->device, st->stream);
    snprintf(mid, sizeof mid, ",\"args\":{\"%s\":", name);
    int64_t v = 0;
    for (size_t i = 0; i < st->n_keys[out]; i++) {
        int64_t key = st->keys[out][i], t = opscope_kqueue_key_time(key);
        v += opscope_kqueue_key_up(key) ? 1 : -1;
        put_sep(w, first);
        opscope_out_str(w, head);
        if (t < 0) opscope_out_char(w, '-');
        opscope_out_ns_as_us(w, (uint64_t)(t < 0 ? -t : t));
        opscope_out_str(w, mid);
        opscope_out_i64(w, v);
        opscope_out_str(w, "}}");
    }
}

/* Every counter event, each after a separator (the first after FIRST's). */
static void counter_events(opscope_out_t *w, const opscope_kineto_t *k, bool first) {
    size_t nq, nm;
    const opscope_kqueue_stream *q = opscope_kqueue_streams(opscope_kstats_queue(opscope_kineto_kstats(k)), &nq);
    for (size_t i = 0; i < nq; i++) queue_events(w, &q[i], OPSCOPE_KQUEUE_OUT_START, "Queue Length", &first);
    for (size_t i = 0; i < nq; i++)
        queue_events(w, &q[i], OPSCOPE_KQUEUE_OUT_END, "Queue Length (out at end)", &first);
    const opscope_kmembw_kind *m = opscope_kmembw_kinds(opscope_kineto_kmembw(k), &nm);
    for (size_t i = 0; i < nm; i++)
        for (size_t p = 0; p < m[i].n_pts; p++) {
            const opscope_kmembw_point *pt = &m[i].pts[p];
            put_sep(w, &first);
            opscope_out_str(w, "{\"ph\":\"C\",\"name\":");
            opscope_out_json_str(w, m[i].name);
            opscope_out_str(w, ",\"pid\":");
            opscope_out_i64(w, pt->device);
            opscope_out_str(w, ",\"ts\":");
            opscope_out_ns_as_us(w, pt->ts_ns > 0 ? (uint64_t)pt->ts_ns : 0);
            opscope_out_str(w, ",\"args\":{\"Memcpy BW\":");
            opscope_out_double(w, pt->gbps);
            opscope_out_str(w, "}}");
        }
}

static void counters_tail(void *ud, opscope_out_t *w, bool empty) {
    counter_events(w, ud, empty);
}

/* ---- the critical path trace ---- */

static int mark_cmp(const void *pa, const void *pb) {
    const opscope_cpath_mark *a = pa, *b = pb;
    int c = (a->pid > b->pid) - (a->pid < b->pid);
    if (!c) c = (a->tid > b->tid) - (a->tid < b->tid);
    if (!c) c = (a->start_ns > b->start_ns) - (a->start_ns < b->start_ns);
    return c ? c : (a->end_ns > b->end_ns) - (a->end_ns < b->end_ns);
}

/* An integer member's text (not a string) into *V. */
static bool int_of(const char *txt, bool str, int64_t *v) {
    char *e;
    errno = 0;
    long long x = strtoll(txt, &e, 10);
    *v = x;
    return *txt && !str && !*e && !errno;
}

/* A time member's text in microseconds as ns, converted as the reader does. */
static bool time_of(const char *txt, bool str, int64_t *ns) {
    if (!*txt) return false;
    opscope_json_token t = {.type = str ? OPSCOPE_JSON_STRING : OPSCOPE_JSON_NUMBER, .str = txt, .len = strlen(txt),
                            .dec = -1};
    if (!str) {
        t.is_int = int_of(txt, false, &t.i);
        t.d = strtod(txt, NULL);
    }
    return !opscope_kineto_us_to_ns(&t, ns);
}

/* Whether the slice M is on a path: its thread or stream and interval among the marks. */
static bool is_marked(const ktrace_output *p, const opscope_ktrace_members *m) {
    opscope_cpath_mark k = {0};
    int64_t dur = 0;
    if (strcmp(m->ph, "X") || !int_of(m->pid, m->pid_str, &k.pid) || !int_of(m->tid, m->tid_str, &k.tid) ||
        !time_of(m->ts, m->ts_str, &k.start_ns) || (*m->dur && !time_of(m->dur, m->dur_str, &dur)))
        return false;
    k.end_ns = k.start_ns + (dur > 0 ? dur : 0);
    return bsearch(&k, p->sorted, p->n_sorted, sizeof k, mark_cmp) != NULL;
}

/* An event of the trace: as it is, or with "critical": 1 in its args (HTA's mark). */
static void cpath_event(void *ud, opscope_out_t *w, const char *text, size_t len, const opscope_ktrace_members *m) {
    ktrace_output *p = ud;
    if (!is_marked(p, m)) {
        opscope_out_write(w, text, len);
        return;
    }
    p->n_marked++;
    if (m->args_at >= 0) {
        size_t at = (size_t)m->args_at + 1;
        opscope_out_write(w, text, at);
        opscope_out_str(w, m->args_empty ? "\"critical\":1" : "\"critical\":1,");
        opscope_out_write(w, text + at, len - at);
    } else {
        opscope_out_write(w, text, len - 1); /* before its closing '}' */
        opscope_out_str(w, m->n_members ? ",\"args\":{\"critical\":1}}" : "\"args\":{\"critical\":1}}");
    }
}

/* HTA's only_show_critical_events: every event but the X slices off the path, the user
 * annotations and python frames kept whole. */
static bool cpath_keep(void *ud, const opscope_ktrace_members *m) {
    const ktrace_output *p = ud;
    if (!p->only_critical || strcmp(m->ph, "X") || !strcmp(m->cat, "user_annotation") ||
        !strcmp(m->cat, "python_function"))
        return true;
    return is_marked(p, m);
}

/* One end of a flow at mark M's start or END (a GPU activity's end 1 us inside it, as HTA
 * draws it, so that the arrow binds to the slice). */
static void flow_end(opscope_out_t *w, const char *ph, uint64_t id, const opscope_cpath_mark *m, bool end,
                     const opscope_cpath_medge *e) {
    int64_t t = m->start_ns, dur = m->end_ns - m->start_ns;
    if (end) t = m->end_ns - (m->gpu ? (dur < 1000 ? dur : 1000) : 0);
    opscope_out_printf(w, "{\"ph\":\"%s\",\"id\":%" PRIu64 ",\"pid\":%" PRId64 ",\"tid\":%" PRId64 ",\"ts\":", ph, id,
                       m->pid, m->tid);
    opscope_out_ns_as_us(w, t > 0 ? (uint64_t)t : 0);
    static const char *const kinds[] = {"critical_path_kernel_launch_delay", "critical_path_sync_dependency",
                                        "critical_path_dependency", "critical_path_other"};
    opscope_out_printf(w, ",\"cat\":\"critical_path\",\"name\":\"critical_path\",\"args\":{\"type\":\"%s\","
                          "\"part\":\"%s\",\"weight_ns\":%" PRIu64 ",\"critical\":1}%s}",
                       kinds[e->kind < 4 ? e->kind : 3], opscope_cpath_part_name(e->part), e->weight_ns,
                       ph[0] == 'f' ? ",\"bp\":\"e\"" : "");
}

/* The path's edges between lanes as flow events. */
static void cpath_tail(void *ud, opscope_out_t *w, bool empty) {
    const ktrace_output *p = ud;
    size_t nm, ne;
    const opscope_cpath_mark *m = opscope_cpath_marks(p->cp, &nm);
    const opscope_cpath_medge *e = opscope_cpath_medges(p->cp, &ne);
    uint64_t id = 0;
    for (size_t i = 0; i < ne; i++) {
        const opscope_cpath_mark *a = &m[e[i].src], *b = &m[e[i].dst];
        if (a->pid < 0 || b->pid < 0) continue; /* a thread whose ids the read did not give */
        id++;
        put_sep(w, &empty);
        flow_end(w, "s", id, a, e[i].src_end, &e[i]);
        put_sep(w, &empty);
        flow_end(w, "f", id, b, e[i].dst_end, &e[i]);
    }
}

static int cpath_finish(ktrace_output *p, opscope_session_t *s, opscope_error *err) {
    p->cp = opscope_session_cpath(s);
    if (!p->cp) {
        opscope_ktrace_error(err, OPSCOPE_ERROR_SCHEMA, "--critical-path-trace: no critical path was computed for the trace",
                p->source, 0);
        return -1;
    }
    size_t n;
    const opscope_cpath_mark *m = opscope_cpath_marks(p->cp, &n);
    if (!(p->sorted = malloc((n ? n : 1) * sizeof *p->sorted))) {
        opscope_ktrace_error(err, OPSCOPE_ERROR_NOMEM, "out of memory", NULL, 0);
        return -1;
    }
    if (n) memcpy(p->sorted, m, n * sizeof *m);
    opscope_sort(p->sorted, n, sizeof *m, mark_cmp);
    p->n_sorted = n;
    opscope_ktrace_copy c = {.w = p->w, .tail = cpath_tail, .event = cpath_event, .ud = p,
                             .keep = p->only_critical ? cpath_keep : NULL};
    int rc = opscope_ktrace_copy_run(p->source, &c, err);
    free(p->sorted); /* the look-up served the copy */
    p->sorted = NULL;
    return rc;
}

static int ktrace_finish(void *impl, opscope_session_t *s, opscope_error *err) {
    ktrace_output *p = impl;
    const opscope_kineto_t *k = opscope_session_kineto(s);
    if (!k || !opscope_kineto_get_info(k)->n_events) {
        opscope_ktrace_error(err, OPSCOPE_ERROR_FORMAT, "the input is not a trace", p->source, 0);
        return -1;
    }
    if (p->cpath) return cpath_finish(p, s, err);
    size_t nq;
    const opscope_kqueue_stream *q = opscope_kqueue_streams(opscope_kstats_queue(opscope_kineto_kstats(k)), &nq);
    for (size_t i = 0; i < nq; i++)
        if (q[i].len[0].count && !q[i].keys[0]) {
            opscope_ktrace_error(err, OPSCOPE_ERROR_NOMEM, "out of memory", NULL, 0);
            return -1;
        }
    opscope_ktrace_copy c = {.w = p->w, .tail = counters_tail, .ud = (void *)k};
    return opscope_ktrace_copy_run(p->source, &c, err);
}

static int ktrace_commit(void *impl, opscope_error *err) {
    ktrace_output *p = impl;
    return opscope_out_commit_take(&p->w, err);
}

static void ktrace_release(void *impl, bool discard) {
    (void)discard; /* uncommitted, the temporary file goes either way */
    opscope_out_abort(((ktrace_output *)impl)->w);
    free(impl);
}

static int make_output(opscope_output *o, const char *path, const char *source, bool cpath, opscope_error *err) {
    ktrace_output *p = calloc(1, sizeof *p);
    if (!p) {
        opscope_ktrace_error(err, OPSCOPE_ERROR_NOMEM, "out of memory", NULL, 0);
        return -1;
    }
    if (!(p->w = opscope_out_open(path, err))) {
        free(p);
        return -1;
    }
    p->path = path;
    p->source = source;
    p->cpath = cpath;
    *o = (opscope_output){.name = cpath ? "--critical-path-trace" : "--counters-trace", .path = path, .impl = p,
                          .kineto_series = !cpath, .cpath_marks = cpath, .finish = ktrace_finish,
                          .commit = ktrace_commit, .release = ktrace_release};
    return 0;
}

int opscope_output_counters_trace(opscope_output *o, const char *path, const char *source, opscope_error *err) {
    return make_output(o, path, source, false, err);
}

int opscope_output_cpath_trace(opscope_output *o, const char *path, const char *source, opscope_error *err) {
    return make_output(o, path, source, true, err);
}

void opscope_output_cpath_trace_only_critical(opscope_output *o) {
    ((ktrace_output *)o->impl)->only_critical = true;
}
