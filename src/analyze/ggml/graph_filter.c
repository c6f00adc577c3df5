/* graph_filter.c - records of chosen graph computes only (graph_filter.h). */
#include "analyze/ggml/graph_filter.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

/* A decimal number >= 0 at *S, moving *S past it. */
static bool number(const char **s, int64_t *out) {
    const char *p = *s;
    if (*p < '0' || *p > '9') return false;
    errno = 0;
    char *end;
    long long v = strtoll(p, &end, 10);
    if (errno || v < 0) return false;
    *s = end;
    *out = v;
    return true;
}

bool opscope_range_parse(const char *s, opscope_range *out) {
    if (!s) return false;
    opscope_range r;
    if (!number(&s, &r.lo)) return false;
    r.hi = r.lo;
    if (*s == '-') {
        s++;
        if (!*s) {
            r.hi = INT64_MAX;
        } else if (!number(&s, &r.hi) || r.hi < r.lo) {
            return false;
        }
    }
    if (*s) return false;
    *out = r;
    return true;
}

static bool in(const opscope_range *r, int64_t v) {
    return v >= r->lo && v <= r->hi;
}

bool opscope_graph_filter_chooses(const opscope_graph_filter *f, const opscope_graph_stats *g) {
    return (!f->by_graph || in(&f->graphs, g->id)) && (!f->by_batch || in(&f->batch, g->batch)) &&
           (!f->by_phase || g->phase == f->phase);
}

static bool graph_ok(opscope_graph_filter *f, int64_t id) {
    f->last_warm = OPSCOPE_GRAPH_STEADY;
    if (f->by_graph && !in(&f->graphs, id)) return false;
    if (f->by_batch || f->by_phase) {
        const opscope_graph_stats *g = f->index ? opscope_graphs_find(f->index, id) : NULL;
        if (!g || !opscope_graph_filter_chooses(f, g)) return false;
    }
    if (f->steady) f->last_warm = f->warm_of ? f->warm_of(f->warm_ctx, id) : opscope_warm_apart_find(f->apart, id);
    return true;
}

static bool keeps(opscope_graph_filter *f, const opscope_record *r) {
    if (!(r->has & OPSCOPE_HAS_GRAPH)) {
        if (f->by_graph || f->by_batch || f->by_phase || !f->steady) return false;
        if (f->seen_graph) return true;
        f->apart_n[OPSCOPE_GRAPH_STEADY]++; /* load: before the first graph compute */
        f->apart_ns[OPSCOPE_GRAPH_STEADY] += r->duration_ns;
        return false;
    }
    f->seen_graph = true;
    if (!f->have_last || f->last_id != r->graph_id) { /* records of a graph come in runs */
        f->last_ok = graph_ok(f, r->graph_id);
        f->last_id = r->graph_id;
        f->have_last = true;
    }
    if (f->last_ok && f->last_warm != OPSCOPE_GRAPH_STEADY) {
        f->apart_n[f->last_warm]++;
        f->apart_ns[f->last_warm] += r->duration_ns;
        return false;
    }
    return f->last_ok;
}

static int on_meta(void *ud, const opscope_meta *m) {
    opscope_graph_filter *f = ud;
    if (!f->next.on_meta) return 0;
    opscope_meta kept = *m;
    kept.total_records = 0;
    kept.total_ns = 0;
    return f->next.on_meta(f->next.ud, &kept);
}

static int on_backend(void *ud, const opscope_backend *b) {
    opscope_graph_filter *f = ud;
    return f->next.on_backend ? f->next.on_backend(f->next.ud, b) : 0;
}

static int on_record(void *ud, const opscope_record *r) {
    opscope_graph_filter *f = ud;
    if (!keeps(f, r)) {
        f->dropped++;
        return 0;
    }
    f->kept++;
    return f->next.on_record ? f->next.on_record(f->next.ud, r) : 0;
}

static int on_end(void *ud) {
    opscope_graph_filter *f = ud;
    return f->next.on_end ? f->next.on_end(f->next.ud) : 0;
}

opscope_sink opscope_graph_filter_sink(opscope_graph_filter *f) {
    opscope_sink s = {f, on_meta, on_backend, on_record, on_end};
    return s;
}
