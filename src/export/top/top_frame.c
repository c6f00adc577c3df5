/* top_frame.c - one frame of `opscope top` as text (see top_frame.h). */
#include "export/top/top_frame.h"

#include "analyze/record/shape_fmt.h"
#include "util/sort.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const k_sort_names[OPSCOPE_TOP_SORT_COUNT] = {"window", "total", "calls", "name"};

const char *opscope_top_sort_name(opscope_top_sort s) {
    return (unsigned)s < OPSCOPE_TOP_SORT_COUNT ? k_sort_names[s] : "?";
}

static double pct(uint64_t part, uint64_t whole) {
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static double per_s(uint64_t n, uint64_t span_ns) {
    return span_ns ? (double)n * 1e9 / (double)span_ns : 0.0;
}

/* The backend's label as the report's op table writes it: NAME#ID. */
static const char *backend_name(const opscope_live_view *v, int32_t id) {
    for (size_t i = 0; i < v->n_backends; i++)
        if (v->backends[i].id == id) return v->backends[i].name;
    return "?";
}

typedef struct sort_ctx {
    const opscope_live_view *v;
    opscope_top_sort by;
} sort_ctx;

static int cmp_u64_desc(uint64_t a, uint64_t b) {
    return a < b ? 1 : a > b ? -1 : 0;
}

static int row_cmp(const void *pa, const void *pb, void *ud) {
    const sort_ctx *c = ud;
    const opscope_live_row *a = &c->v->rows[*(const size_t *)pa], *b = &c->v->rows[*(const size_t *)pb];
    int r = 0;
    switch (c->by) {
    case OPSCOPE_TOP_SORT_WINDOW: r = cmp_u64_desc(a->win_ns, b->win_ns); break;
    case OPSCOPE_TOP_SORT_CALLS: r = cmp_u64_desc(a->total_calls, b->total_calls); break;
    case OPSCOPE_TOP_SORT_NAME: r = strcmp(a->display, b->display); break;
    default: break;
    }
    if (!r) r = cmp_u64_desc(a->total_ns, b->total_ns);
    if (!r) r = strcmp(a->display, b->display);
    if (!r) r = a->backend_id < b->backend_id ? -1 : a->backend_id > b->backend_id;
    return r;
}

static void head_lines(opscope_strbuf *out, const opscope_live_view *v, const opscope_top_frame_opts *o) {
    opscope_strbuf_printf(out, "opscope top - %s", o->source ? o->source : "");
    if (o->program) opscope_strbuf_printf(out, " (%s", o->program);
    if (o->program && o->pid > 0) opscope_strbuf_printf(out, ", pid %ld", o->pid);
    if (o->program) opscope_strbuf_add_char(out, ')');
    opscope_strbuf_printf(out, "  %s  %.1f s recorded  window %u s  sort: %s%s\n", o->state ? o->state : "",
                          (double)v->span_ns / 1e9, o->window_s, opscope_top_sort_name(o->sort),
                          o->paused ? "  [paused]" : "");
    /* records come a checkpoint (about 1 s) late: only a longer silence is said */
    if (o->idle_s >= 3.0) opscope_strbuf_printf(out, "no new record for %.0f s\n", o->idle_s);
    opscope_strbuf_printf(out, "tokens/s   prompt %.1f  generation %.1f (last %u s);  since start: %llu prompt, "
                          "%llu generated in %llu batches\n",
                          per_s(v->win_prompt, v->win_span_ns), per_s(v->win_gen, v->win_span_ns), o->window_s,
                          (unsigned long long)v->prompt_tokens, (unsigned long long)v->gen_tokens,
                          (unsigned long long)v->decodes);
    opscope_strbuf_printf(out, "requests   %u in flight, %u seen\n", v->in_flight, v->requests);
    opscope_strbuf_add_str(out, "busy      ");
    for (size_t i = 0; i < v->n_backends; i++) {
        const opscope_live_backend *b = &v->backends[i];
        if (!b->total_ns) continue; /* a backend that never ran a record */
        opscope_strbuf_printf(out, " %s#%d %.1f%% (%.1f%% all)", b->name, (int)b->id, pct(b->win_ns, v->win_span_ns),
                              pct(b->total_ns, v->span_ns));
    }
    char a[32], b[32];
    opscope_fmt_bytes(a, sizeof a, v->win_copy_bytes);
    opscope_fmt_bytes(b, sizeof b, v->copy_bytes);
    opscope_strbuf_printf(out, "\ncopies     %llu (%.3f ms, %s) last %u s;  %llu (%.3f ms, %s) since start\n",
                          (unsigned long long)v->win_copies, (double)v->win_copy_ns / 1e6, a, o->window_s,
                          (unsigned long long)v->copies, (double)v->copy_ns / 1e6, b);
}

int opscope_top_frame(opscope_strbuf *out, const opscope_live_view *v, const opscope_top_frame_opts *o) {
    head_lines(out, v, o);
    opscope_strbuf_printf(out, "\n TYPE Backend   %-34s %9s %6s %8s %12s %6s %9s\n", "Operation", "last(ms)", "share",
                          "calls", "Total(ms)", "share", "Count");
    size_t *idx = v->n_rows ? malloc(v->n_rows * sizeof *idx) : NULL;
    if (v->n_rows && !idx) return -1;
    for (size_t i = 0; i < v->n_rows; i++) idx[i] = i;
    sort_ctx c = {v, o->sort};
    opscope_sort_r(idx, v->n_rows, sizeof *idx, row_cmp, &c);
    size_t n = o->max_rows && o->max_rows < v->n_rows ? o->max_rows : v->n_rows;
    for (size_t k = 0; k < n; k++) {
        const opscope_live_row *r = &v->rows[idx[k]];
        char be[64];
        snprintf(be, sizeof be, "%s#%d", backend_name(v, r->backend_id), (int)r->backend_id);
        opscope_strbuf_printf(out, " %-4s %-9s %-34s %9.3f %5.1f%% %8llu %12.3f %5.1f%% %9llu\n",
                              r->type == OPSCOPE_RECORD_COPY ? "COPY" : "OP", be, r->display, (double)r->win_ns / 1e6,
                              pct(r->win_ns, v->win_ns), (unsigned long long)r->win_calls, (double)r->total_ns / 1e6,
                              pct(r->total_ns, v->total_ns), (unsigned long long)r->total_calls);
    }
    if (n < v->n_rows) opscope_strbuf_printf(out, " ... %zu more groups\n", v->n_rows - n);
    free(idx);
    return out->failed ? -1 : 0;
}
