/* text.c - the plain-text report and the tables it shares with the console summary. */
#include "export/console/text.h"
#include "export/sections/sections.h"

#include "analyze/ggml/graphs.h"
#include "export/sections/threads_out.h"
#include "export/sections/win_out.h"
#include "export/fmt/name_labels.h"
#include "analyze/record/shape_fmt.h"
#include "model/run_end.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define RULE "==============================================================================" \
             "=================="

const char *opscope_device_type_name(opscope_device_type t) {
    switch (t) {
    case OPSCOPE_DEVICE_CPU: return "CPU";
    case OPSCOPE_DEVICE_GPU: return "GPU";
    case OPSCOPE_DEVICE_ACCEL: return "ACCEL";
    default: return "other";
    }
}

static const char *type_word(opscope_record_type t) {
    return t == OPSCOPE_RECORD_COPY ? "COPY" : "OP";
}

static double pct(uint64_t a, uint64_t b) { return b ? 100.0 * (double)a / (double)b : 0.0; }

/* Columns a UTF-8 string takes: one per character ("…" is one column, three bytes). */
static size_t cols(const char *s, size_t len) {
    size_t n = 0;
    for (size_t i = 0; i < len; i++) n += ((unsigned char)s[i] & 0xC0) != 0x80;
    return n;
}

/* Byte offset of column C of S (LEN bytes), at a character boundary. */
static size_t col_offset(const char *s, size_t len, size_t c) {
    size_t i = 0;
    for (size_t k = 0; i < len; i++) {
        if (((unsigned char)s[i] & 0xC0) != 0x80 && k++ == c) break;
    }
    return i;
}

/* A table label: the display of a group or record with its name replaced by the name's
 * label (short form of a long kernel name). Fits BUF, or is allocated (*HEAP, freed by the
 * caller) when longer; on allocation failure BUF holds the start of it. */
static const char *label(char *buf, size_t size, char **heap, opscope_name_labels_t *labels,
                         opscope_record_type type, const char *name, const char *sub_op,
                         const char *extra) {
    const char *nm = opscope_name_labels_get(labels, name ? name : "");
    size_t n = opscope_op_display(buf, size, type, nm, sub_op, extra);
    *heap = NULL;
    if (n >= size && (*heap = malloc(n + 1)) != NULL) {
        opscope_op_display(*heap, n + 1, type, nm, sub_op, extra);
        return *heap;
    }
    return buf;
}

/* The label of group G (its `extra` or `call` is what the display shows). */
static const char *group_label(char *buf, size_t size, char **heap, opscope_name_labels_t *l,
                               const opscope_op_stats *g) {
    return label(buf, size, heap, l, g->type, g->name, g->sub_op,
                 g->type == OPSCOPE_RECORD_COPY ? g->call : g->extra);
}

/* Writes S left-aligned in WIDTH columns; when CUT and S is wider, its middle gives way to
 * "…" (the ends of kernel names tell them apart: tile sizes, alignment, "#2"). */
static void put_col(opscope_out_t *w, const char *s, size_t width, bool cut) {
    size_t len = strlen(s), c = cols(s, len);
    if (cut && c > width && width >= 8) {
        size_t head = (width - 1) * 2 / 3, tail = width - 1 - head;
        opscope_out_write(w, s, col_offset(s, len, head));
        opscope_out_str(w, "\xe2\x80\xa6");
        size_t t = col_offset(s, len, c - tail);
        opscope_out_write(w, s + t, len - t);
        return;
    }
    opscope_out_write(w, s, len);
    for (; c < width; c++) opscope_out_char(w, ' ');
}

/* A backend as the tables show it: its name ("Vulkan0"), with its id when another backend
 * has that name too ("CPU#2"), "all" for groups over every backend, "bk N" when undescribed. */
static void backend_label(char *buf, size_t size, const opscope_stats_t *s, int32_t id) {
    const opscope_backend_stats *b = id >= 0 ? opscope_stats_backend_by_id(s, id) : NULL;
    if (id < 0) {
        snprintf(buf, size, "all");
        return;
    }
    if (!b || !b->name || !b->name[0]) {
        snprintf(buf, size, "bk %d", (int)id);
        return;
    }
    bool shared = false;
    for (size_t i = 0; i < opscope_stats_n_backends(s) && !shared; i++) {
        const opscope_backend_stats *o = opscope_stats_backend(s, i);
        shared = o->backend_id != id && o->name && !strcmp(o->name, b->name);
    }
    if (shared) snprintf(buf, size, "%s#%d", b->name, (int)id);
    else snprintf(buf, size, "%s", b->name);
}

void opscope_text_op_table(opscope_out_t *w, const opscope_stats_t *s, size_t n,
                           const opscope_op_stats *(*get)(const opscope_stats_t *, size_t),
                           size_t limit, bool with_sources, opscope_name_labels_t *labels) {
    opscope_text_op_table_peak(w, s, n, get, limit, with_sources, labels, NULL);
}

/* Traffic rate, arithmetic intensity and (with PEAK) the roofline cells of group G. A
 * traffic that is an upper bound ends in '*'. Returns whether it was. */
static bool roof_cells(const opscope_stats_t *s, const opscope_op_stats *g,
                       const opscope_peak *peak, char *tr, size_t ntr, char *ai, size_t nai,
                       char *bound, size_t nb, char *pc, size_t npc) {
    opscope_roof r;
    opscope_roofline_of(peak, g, opscope_stats_backend_by_id(s, g->backend_id), &r);
    tr[0] = ai[0] = bound[0] = pc[0] = '\0';
    bool upper = g->n_traffic_upper > 0;
    if (g->traffic_bytes && g->total_ns) {
        size_t k = opscope_fmt_bandwidth(tr, ntr, g->traffic_bytes, g->total_ns);
        if (upper && k + 1 < ntr) tr[k] = '*', tr[k + 1] = '\0';
        /* no FLOPs counted (a copy-like op): an intensity of 0 would mean nothing */
        if (g->type == OPSCOPE_RECORD_OP) snprintf(ai, nai, g->flops ? "%.2f" : "-", r.intensity);
    }
    if (r.bound != OPSCOPE_BOUND_UNKNOWN) {
        snprintf(bound, nb, "%s", r.bound == OPSCOPE_BOUND_COMPUTE ? "compute"
                                  : r.cache ? "mem(L2)" : "memory");
        snprintf(pc, npc, "%.0f%%", r.pct);
    }
    return upper;
}

/* The rows a table of N shows under LIMIT (0: all). */
static size_t rows_shown(size_t n, size_t limit) { return limit && limit < n ? limit : n; }

/* WIDTH, widened to the columns of the widest label of the groups GET(S, 0..ROWS). */
static size_t labels_width(size_t width, const opscope_stats_t *s, size_t rows,
                           const opscope_op_stats *(*get)(const opscope_stats_t *, size_t),
                           opscope_name_labels_t *labels) {
    char buf[512], *heap;
    for (size_t i = 0; i < rows; i++) {
        const char *lb = group_label(buf, sizeof buf, &heap, labels, get(s, i));
        size_t c = cols(lb, strlen(lb));
        if (c > width) width = c;
        free(heap);
    }
    return width;
}

void opscope_text_op_table_peak(opscope_out_t *w, const opscope_stats_t *s, size_t n,
                                const opscope_op_stats *(*get)(const opscope_stats_t *, size_t),
                                size_t limit, bool with_sources, opscope_name_labels_t *labels,
                                const opscope_peak *peak) {
    const opscope_totals *t = opscope_stats_totals(s);
    size_t rows = rows_shown(n, limit);
    size_t width = labels_width(9, s, rows, get, labels);
    char buf[512], *heap;
    /* The console keeps its columns: wider names lose their middle ("…"). The text report
     * (with sources) prints them whole. */
    if (!with_sources && width > 60) width = 60;
    opscope_out_printf(w, " %-4s %-9s ", "TYPE", "Backend");
    put_col(w, "Operation", width, false);
    opscope_out_printf(w, " %7s %8s %11s %10s %10s %10s %12s %9s %13s %7s", "%Time", "Count",
                       "Total(ms)", "Avg(us)", "Min(us)", "Max(us)", "Out/s", "GFLOP/s",
                       "Mem/s", "FLOP/B");
    if (peak) opscope_out_printf(w, " %-8s %6s", "Bound", "%Roof");
    opscope_out_printf(w, "  %s\n", with_sources ? "Sources (longest call)" : "Shape (longest call)");
    bool any_upper = false;
    for (size_t i = 0; i < rows; i++) {
        const opscope_op_stats *g = get(s, i);
        char bw[32], gf[32], shape[1024];
        opscope_fmt_bandwidth(bw, sizeof bw, g->bytes, g->total_ns);
        if (g->flops && g->total_ns)
            snprintf(gf, sizeof gf, "%.1f", (double)g->flops / (double)g->total_ns);
        else
            gf[0] = '\0';
        if (with_sources)
            opscope_fmt_sources(shape, sizeof shape, &g->shape);
        else
            opscope_fmt_src_shapes(shape, sizeof shape, &g->shape);
        double avg = g->count ? (double)g->total_ns / (double)g->count / 1e3 : 0.0;
        char bk[64];
        backend_label(bk, sizeof bk, s, g->backend_id);
        opscope_out_printf(w, " %-4s ", type_word(g->type));
        put_col(w, bk, 9, true);
        opscope_out_char(w, ' ');
        const char *lb = group_label(buf, sizeof buf, &heap, labels, g);
        put_col(w, lb, width, !with_sources);
        free(heap);
        char tr[40], ai[32], bd[16], pc[16];
        any_upper |= roof_cells(s, g, peak, tr, sizeof tr, ai, sizeof ai, bd, sizeof bd, pc,
                                sizeof pc);
        opscope_out_printf(w, " %6.1f%% %8llu %11.3f %10.2f %10.2f %10.2f %12s %9s %13s %7s",
                           pct(g->total_ns - g->rpc_covered_ns, opscope_totals_counted_ns(t)),
                           (unsigned long long)g->count,
                           (double)g->total_ns / 1e6, avg, (double)g->min_ns / 1e3,
                           (double)g->max_ns / 1e3, bw, gf, tr, ai);
        if (peak) opscope_out_printf(w, " %-8s %6s", bd, pc);
        opscope_out_printf(w, "  %s\n", shape);
    }
    opscope_out_str(w, " Out/s: output bytes per second of the op's time; Mem/s: bytes read "
                       "and written (sources and output) per second; FLOP/B: FLOPs per byte "
                       "of that traffic ('-': no FLOPs counted)\n");
    if (any_upper)
        opscope_out_str(w, " * traffic is an upper bound (MUL_MAT_ID: the expert ids are not "
                           "recorded, every expert the tokens could use is counted)\n");
    if (rows < n)
        opscope_out_printf(w, " ... %zu more rows (--top-ops N shows more; --text FILE lists all)\n",
                           n - rows);
}

void opscope_text_roofline_note(opscope_out_t *w, const opscope_stats_t *s,
                                const opscope_peak *p) {
    if (!p) return;
    opscope_out_printf(w, " Roofline: peaks of %s (%s, %d threads): memory %.1f GB/s, L2 %.1f "
                          "GB/s, f32 FMA %.1f GFLOP/s; ridge %.2f FLOP/byte. %%Roof: achieved "
                          "traffic / bandwidth when memory-bound (mem(L2): above the memory "
                          "peak, so against L2), FLOP rate / peak when compute-bound.\n",
                       p->host[0] ? p->host : "?", p->cpu[0] ? p->cpu : "?", (int)p->n_threads,
                       p->mem_gbps_all, p->cache_gbps_all, p->gflops_all,
                       p->gflops_all / p->mem_gbps_all);
    for (size_t i = 0; i < opscope_stats_n_backends(s); i++) {
        const opscope_backend_stats *b = opscope_stats_backend(s, i);
        if (!b->n_ops || opscope_roofline_applies(b)) continue;
        opscope_out_printf(w, " No roofline for backend %d (%s%s%s): only this CPU's peaks are "
                              "measured.\n",
                           (int)b->backend_id, b->name[0] ? b->name : "not described",
                           b->device[0] ? ", " : "", b->device);
    }
}

void opscope_text_backends(opscope_out_t *w, const opscope_stats_t *s) {
    const opscope_totals *t = opscope_stats_totals(s);
    bool merged = false;
    /* one entry per device: its backend ids together (stats.h, opscope_device_stats) */
    for (size_t i = 0; i < opscope_stats_n_devices(s); i++) {
        const opscope_device_stats *dv = opscope_stats_device(s, i);
        const opscope_backend_stats *b = &dv->sum;
        char bw[32], cbw[32], cb[32];
        opscope_out_str(w, dv->n_ids > 1 ? " Backends " : " Backend ");
        for (size_t k = 0; k < dv->n_ids; k++)
            opscope_out_printf(w, k ? ", %d" : "%d", (int)dv->ids[k]);
        merged |= dv->n_ids > 1;
        if (b->described)
            opscope_out_printf(w, ": %s [%s, %s]%s%s\n", b->name[0] ? b->name : "?",
                               b->device[0] ? b->device : "?",
                               opscope_device_type_name(b->device_type), b->process ? " in " : "",
                               b->process ? b->process : "");
        else
            opscope_out_char(w, '\n');
        uint64_t ns = b->op_ns + b->copy_ns;
        opscope_out_printf(w, "   total  %12.3f ms (%5.1f%%)  %llu records\n", (double)ns / 1e6,
                           pct(ns - b->rpc_covered_ns, opscope_totals_counted_ns(t)),
                           (unsigned long long)(b->n_ops + b->n_copies));
        opscope_fmt_bandwidth(bw, sizeof bw, b->op_bytes, b->op_ns);
        opscope_out_printf(w, "   ops    %12.3f ms  %10llu calls  %s%s", (double)b->op_ns / 1e6,
                           (unsigned long long)b->n_ops, bw[0] ? "output " : "", bw);
        if (b->op_flops && b->op_ns)
            opscope_out_printf(w, "  %.1f GFLOP/s", (double)b->op_flops / (double)b->op_ns);
        if (b->op_traffic && b->op_ns)
            opscope_out_printf(w, "  traffic %.2f GB/s", (double)b->op_traffic / (double)b->op_ns);
        opscope_out_char(w, '\n');
        if (b->overlap_ns)
            /* concurrent kernels: the op sum counts their common time twice, busy once */
            opscope_out_printf(w, "   busy   %12.3f ms  (ops overlapped for %.3f ms: %.1f%% of op time)\n",
                               (double)b->busy_ns / 1e6, (double)b->overlap_ns / 1e6, pct(b->overlap_ns, b->op_ns));
        if (b->n_copies) {
            opscope_fmt_bandwidth(cbw, sizeof cbw, b->copy_bytes, b->copy_ns);
            opscope_fmt_bytes(cb, sizeof cb, b->copy_bytes);
            opscope_out_printf(w, "   copies %12.3f ms  %10llu calls  %s moved, %s\n",
                               (double)b->copy_ns / 1e6, (unsigned long long)b->n_copies, cb,
                               cbw[0] ? cbw : "-");
        }
    }
    if (merged)
        opscope_out_str(w, " (Several ids, one device: the program made a ggml backend for it more\n"
                           "  than once, e.g. per context; the operation tables keep each id.)\n");
}

static void copy_row(opscope_out_t *w, const char *name, size_t width,
                     const opscope_op_stats *g) {
    char bw[32], b[32];
    opscope_fmt_bandwidth(bw, sizeof bw, g->bytes, g->total_ns);
    opscope_fmt_bytes(b, sizeof b, g->bytes);
    opscope_out_char(w, ' ');
    put_col(w, name, width, false);
    opscope_out_printf(w, " %8llu calls %12.3f ms %12s %14s\n", (unsigned long long)g->count,
                       (double)g->total_ns / 1e6, b, bw[0] ? bw : "-");
}

/* One row per direction, then, when the records named the ggml call that copied, one
 * indented row per call ("  via tensor_set"). */
void opscope_text_copies(opscope_out_t *w, const opscope_stats_t *s,
                         opscope_name_labels_t *labels) {
    size_t n = opscope_stats_n_copy_dirs(s), nc = opscope_stats_n_copy_calls(s);
    size_t width = labels_width(28, s, n, opscope_stats_copy_dir, labels);
    char buf[512], *heap;
    for (size_t i = 0; i < n; i++) {
        const opscope_op_stats *d = opscope_stats_copy_dir(s, i);
        copy_row(w, group_label(buf, sizeof buf, &heap, labels, d), width, d);
        free(heap);
        bool named = false;
        for (size_t k = 0; k < nc; k++) {
            const opscope_op_stats *c = opscope_stats_copy_call(s, k);
            named |= c->name == d->name && c->sub_op == d->sub_op && c->call;
        }
        if (!named) continue;
        for (size_t k = 0; k < nc; k++) {
            const opscope_op_stats *c = opscope_stats_copy_call(s, k);
            if (c->name != d->name || c->sub_op != d->sub_op) continue;
            char via[160];
            snprintf(via, sizeof via, "   via %s", c->call ? c->call : "(no call named)");
            copy_row(w, via, width, c);
        }
    }
}

void opscope_text_inefficiency(opscope_out_t *w, const opscope_stats_t *s, size_t limit,
                               opscope_name_labels_t *labels) {
    size_t n = rows_shown(opscope_stats_n_inefficient(s), limit);
    for (size_t i = 0; i < n; i++) {
        const opscope_op_stats *g = opscope_stats_inefficient(s, i);
        char b[32], buf[512], *heap;
        opscope_fmt_bytes(b, sizeof b, g->bytes);
        opscope_out_char(w, ' ');
        put_col(w, group_label(buf, sizeof buf, &heap, labels, g), 36, false);
        free(heap);
        char bk[64];
        backend_label(bk, sizeof bk, s, g->backend_id);
        opscope_out_printf(w, " %-9s %10.4f ns/byte  (%llu calls, %s, %.3f ms)\n", bk,
                           (double)g->total_ns / (double)g->bytes, (unsigned long long)g->count,
                           b, (double)g->total_ns / 1e6);
    }
}

void opscope_text_top_kernels(opscope_out_t *w, const opscope_stats_t *s, size_t limit,
                              opscope_name_labels_t *labels) {
    size_t n = rows_shown(opscope_stats_n_top(s), limit);
    for (size_t i = 0; i < n; i++) {
        const opscope_record *r = opscope_stats_top(s, i);
        char buf[512], *heap, shape[1024];
        opscope_shape sh;
        opscope_shape_of_record(&sh, r);
        opscope_fmt_sources(shape, sizeof shape, &sh);
        opscope_out_printf(w, " %-4s ", type_word(r->type));
        put_col(w, label(buf, sizeof buf, &heap, labels, r->type, r->name, r->sub_op, r->extra),
                32, false);
        free(heap);
        opscope_out_printf(w, " %12.2f us  backend %d split %d", (double)r->duration_ns / 1e3,
                           (int)r->backend_id, (int)r->split_id);
        if (r->has & OPSCOPE_HAS_NODE) opscope_out_printf(w, " node %d", (int)r->node_index);
        if (r->tensor_name) opscope_out_printf(w, " '%s'", r->tensor_name);
        if (shape[0]) opscope_out_printf(w, "  %s", shape);
        opscope_out_char(w, '\n');
    }
}

void opscope_text_dropped(opscope_out_t *w, const opscope_meta *m, int indent) {
    if (!m || !m->dropped_records) return;
    opscope_out_printf(w, " %-*s%llu records", indent - 1, "Dropped:",
                       (unsigned long long)m->dropped_records);
    if (m->dropped_cause == OPSCOPE_DROP_CAP && m->capture_cap_mb)
        opscope_out_printf(w, ": the capture's memory cap was reached (OPSCOPE_MAX_MB=%llu)",
                           (unsigned long long)m->capture_cap_mb);
    else if (m->dropped_cause == OPSCOPE_DROP_CAP)
        opscope_out_str(w, ": the capture's memory cap was reached");
    else if (m->dropped_cause == OPSCOPE_DROP_OUT_OF_MEMORY)
        opscope_out_str(w, ": the capture ran out of memory");
    else if (m->dropped_cause == OPSCOPE_DROP_DEVICE)
        opscope_out_str(w, ": device work a GPU timing source could not time");
    else if (m->dropped_cause == OPSCOPE_DROP_LOG_CAP)
        opscope_out_printf(w, ": the record log's size cap on disk was reached (OPSCOPE_MAX_MB=%llu)",
                           (unsigned long long)m->capture_cap_mb);
    else
        opscope_out_str(w, " (capture memory cap)");
    opscope_out_char(w, '\n');
    if (m->dropped_graphs) {
        uint64_t span = (uint64_t)(m->dropped_last_graph - m->dropped_first_graph) + 1;
        if (m->dropped_graphs == 1)
            opscope_out_printf(w, "%*sgraph %lld lost records: its ops are incomplete\n", indent, "",
                               (long long)m->dropped_first_graph);
        else if (m->dropped_graphs == span)
            opscope_out_printf(w, "%*sgraphs %lld-%lld (%llu graphs) lost records: their ops are"
                               " incomplete or missing\n", indent, "",
                               (long long)m->dropped_first_graph, (long long)m->dropped_last_graph,
                               (unsigned long long)m->dropped_graphs);
        else
            opscope_out_printf(w, "%*s%llu graphs between ids %lld and %lld lost records: their ops"
                               " are incomplete or missing\n", indent, "",
                               (unsigned long long)m->dropped_graphs,
                               (long long)m->dropped_first_graph, (long long)m->dropped_last_graph);
    }
    if (m->dropped_cause == OPSCOPE_DROP_CAP || m->dropped_cause == OPSCOPE_DROP_UNKNOWN)
        opscope_out_printf(w, "%*sraise OPSCOPE_MAX_MB (MiB, default 512) to keep every record\n",
                           indent, "");
    else if (m->dropped_cause == OPSCOPE_DROP_LOG_CAP)
        opscope_out_printf(w, "%*sraise OPSCOPE_MAX_MB (MiB of disk, default 4096) to keep every record\n",
                           indent, "");
}

void opscope_text_ended(opscope_out_t *w, const opscope_meta *m, int indent) {
    const opscope_capture_info *c = m ? m->capture : NULL;
    if (!opscope_run_end_partial(c) && !(c && c->end && !strcmp(c->end, "signal"))) return;
    char buf[512];
    opscope_run_end_text(c, buf, sizeof buf);
    opscope_out_printf(w, " %-*s%s\n", indent - 1, "Ended:", buf);
}

void opscope_text_rpc_covered(opscope_out_t *w, const opscope_totals *t, int indent) {
    if (t->rpc_cover_unsorted)
        opscope_out_printf(w, " %-*s records out of start order: the client's RPC time that the\n"
                              "%*sservers' records cover was not computed; %%Time counts it twice\n",
                           indent - 2, "RPC wait:", indent, "");
    if (!t->rpc_covered_ns) return;
    opscope_out_printf(w, " %-*s %.3f ms of the client's RPC records: waiting on RPC server "
                          "(covered by server records)\n"
                          "%*scounted once, as the server's: %%Time is of %.3f ms (each instant "
                          "once per machine)\n",
                       indent - 2, "RPC wait:", (double)t->rpc_covered_ns / 1e6, indent, "",
                       (double)opscope_totals_counted_ns(t) / 1e6);
}

void opscope_text_write(opscope_out_t *w, const opscope_stats_t *s,
                        const opscope_report_opts *o) {
    opscope_name_labels_t *labels = opscope_name_labels_new(s); /* NULL: full names */
    const opscope_totals *t = opscope_stats_totals(s);
    const opscope_meta *m = opscope_stats_meta(s);
    opscope_out_printf(w, "%s\n Profiling Summary%s%s\n%s\n", RULE, o && o->source ? ": " : "",
                       o && o->source ? o->source : "", RULE);
    bool sampled = opscope_totals_sampled(t);
    opscope_out_printf(w, " Total time:     %.3f ms (sum of record durations%s)\n",
                       (double)t->total_ns / 1e6, sampled ? ", measured: sampled device timing" : "");
    if (sampled)
        opscope_out_printf(w, " Estimated:      %.3f ms est. over all computes (ops %.3f ms, copies %.3f ms)\n",
                           (double)t->est_total_ns / 1e6, (double)t->est_op_ns / 1e6, (double)t->est_copy_ns / 1e6);
    opscope_out_printf(w, " Records:        %llu (%llu ops, %llu copies)\n",
                       (unsigned long long)t->n_records, (unsigned long long)t->n_ops,
                       (unsigned long long)t->n_copies);
    opscope_out_printf(w, " Unique ops:     %zu\n", opscope_stats_n_ops(s));
    if (o && o->filter)
        opscope_out_printf(w, " Filter:         %s: %llu of %llu records kept\n", o->filter,
                           (unsigned long long)o->filter_kept, (unsigned long long)o->filter_records);
    if (t->n_records)
        opscope_out_printf(w, " Wall span:      %.3f ms\n",
                           (double)(t->last_end_ns - t->first_start_ns) / 1e6);
    opscope_text_rpc_covered(w, t, 17);
    if (t->flops)
        opscope_out_printf(w, " FLOPs:          %.3f GFLOP (%.1f GFLOP/s over op time)\n",
                           (double)t->flops / 1e9,
                           t->op_ns ? (double)t->flops / (double)t->op_ns : 0.0);
    if (t->traffic_bytes) {
        char tb[32];
        opscope_fmt_bytes(tb, sizeof tb, t->traffic_bytes);
        opscope_out_printf(w, " Traffic:        %s read and written by ops (%.2f GB/s over op time",
                           tb, t->op_ns ? (double)t->traffic_bytes / (double)t->op_ns : 0.0);
        if (t->flops) opscope_out_printf(w, ", %.2f FLOP/byte", (double)t->flops / (double)t->traffic_bytes);
        opscope_out_str(w, ")\n");
    }
    if (m->profiler && m->profiler[0])
        opscope_out_printf(w, " Source format:  %s, version %d\n", m->profiler, (int)m->version);
    if (m->total_records && m->total_records != t->n_records)
        opscope_out_printf(w, " Note:           the file states %llu records, %llu were read\n",
                           (unsigned long long)m->total_records,
                           (unsigned long long)t->n_records);
    opscope_text_dropped(w, m, 17);
    opscope_text_ended(w, m, 17);
    opscope_win_write_head(w, m->capture, t->first_start_ns, t->last_end_ns, 17);
    if (opscope_win_any(m->capture)) {
        opscope_out_printf(w, "\n%s\n " OPSCOPE_WIN_TITLE "\n%s\n", RULE, RULE);
        opscope_win_write_text(w, m->capture, o ? o->graphs : NULL, t->first_start_ns, t->last_end_ns, SIZE_MAX);
    }

    opscope_out_printf(w, "\n%s\n Per-Backend Summary\n%s\n", RULE, RULE);
    opscope_text_backends(w, s);
    if (opscope_stats_n_copy_dirs(s)) {
        opscope_out_str(w, "\n Copies by direction:\n");
        opscope_text_copies(w, s, labels);
    }

    if (o && opscope_graphs_any(o->graphs)) {
        opscope_out_printf(w, "\n%s\n " OPSCOPE_GRAPHS_TITLE "\n%s\n", RULE, RULE);
        opscope_graphs_write_text(w, o->graphs, SIZE_MAX);
    }
    if (o && opscope_threads_n(o->threads) > 1) {
        opscope_out_printf(w, "\n%s\n CPU threads at ggml's barriers\n%s\n", RULE, RULE);
        opscope_threads_write_finding(w, o->threads, o->graphs);
        opscope_threads_write_text(w, o->threads, SIZE_MAX);
    }
    /* llama-server's requests: every one (the console shows the first 32) */
    if (opscope_req_write_text(w, s, o ? o->graphs : NULL, SIZE_MAX))
        opscope_out_str(w, " (requests: out of memory)\n");

    opscope_out_printf(w, "\n%s\n Operations\n%s\n", RULE, RULE);
    const opscope_peak *peak = o ? o->peak : NULL;
    opscope_text_op_table_peak(w, s, opscope_stats_n_ops(s), opscope_stats_op, 0, true, labels,
                               peak);
    opscope_text_roofline_note(w, s, peak);
    opscope_text_sampled(w, s, SIZE_MAX);

    if (o && o->by_shape) {
        opscope_out_printf(w, "\n%s\n Operations by shape\n%s\n", RULE, RULE);
        opscope_text_op_table_peak(w, s, opscope_stats_n_shapes(s), opscope_stats_shape, 0,
                                   true, labels, peak);
        if (t->shape_groups_dropped)
            opscope_out_printf(w, " (%llu records not grouped: too many distinct shapes)\n",
                               (unsigned long long)t->shape_groups_dropped);
    }
    opscope_out_printf(w, "\n%s\n Inefficiency ranking (time per output byte, ops only)\n%s\n",
                       RULE, RULE);
    opscope_text_inefficiency(w, s, 0, labels);
    opscope_out_printf(w, "\n%s\n Longest records\n%s\n", RULE, RULE);
    opscope_text_top_kernels(w, s, o ? o->top_kernels : 0, labels);
    if (opscope_name_labels_n(labels)) {
        opscope_out_printf(w, "\n%s\n Kernel names (the short form in the tables above, then the "
                              "full name)\n%s\n", RULE, RULE);
        for (size_t i = 0; i < opscope_name_labels_n(labels); i++)
            opscope_out_printf(w, " %s\n     %s\n", opscope_name_labels_label(labels, i),
                               opscope_name_labels_full(labels, i));
    }
    opscope_name_labels_free(labels);
}
