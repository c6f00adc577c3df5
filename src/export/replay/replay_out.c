/* replay_out.c - `opscope replay`'s console table and JSON (see replay_out.h). */
#include "export/replay/replay_out.h"
#include "export/fmt/json_fmt.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>


int opscope_replay_backend_index(const opscope_replay_table *r, const char *name) {
    for (int b = 0; b < r->n_b; b++)
        if (!strcmp(r->backends[b], name)) return b;
    return -1;
}

static double model_avg_ns(const opscope_replay_row *w) {
    return w->u->count ? (double)w->u->total_ns / (double)w->u->count : 0.0;
}

/* In-model (the median call: a few calls a loaded machine stalled must not decide it) over
 * isolated time per call on the row's own backend, 0 when not replayed. */
static double fidelity(const opscope_replay_table *r, const opscope_replay_row *w) {
    int b = opscope_replay_backend_index(r, w->u->backend);
    if (b < 0 || r->res[b][w->line].status != OPSCOPE_REPLAY_OK || r->res[b][w->line].time_us <= 0)
        return 0.0;
    return (double)w->u->median_ns / (r->res[b][w->line].time_us * 1e3);
}

static bool flagged(const opscope_replay_table *r, const opscope_replay_row *w) {
    double f = fidelity(r, w);
    return f > 0 && (f > r->flag || f < 1.0 / r->flag);
}

static void op_label(const opscope_replay_row *w, char *buf, size_t size) {
    const opscope_ops_line *l = w->l;
    int n = snprintf(buf, size, "%s", l->op);
    if (l->sub_op && n >= 0 && (size_t)n < size) n += snprintf(buf + n, size - (size_t)n, "(%s)", l->sub_op);
    if (w->u->fused && n >= 0 && (size_t)n < size)
        snprintf(buf + n, size - (size_t)n, " [fused: %s]", w->u->fused);
}

/* Sums of one replay backend over every row. */
typedef struct projection {
    double projected_ns;      /* count x isolated per call, rows with a time */
    uint64_t model_ns;        /* in-model time of those same rows */
    size_t rows_timed, lines_timed, lines_unsupported, lines_failed;
} projection;

static projection project(const opscope_replay_table *r, int b) {
    projection p = {0};
    for (size_t i = 0; i < r->n_rows; i++) {
        const opscope_replay_result *s = &r->res[b][r->rows[i].line];
        if (s->status != OPSCOPE_REPLAY_OK) continue;
        p.projected_ns += (double)r->rows[i].u->count * s->time_us * 1e3;
        p.model_ns += r->rows[i].u->total_ns;
        p.rows_timed++;
    }
    size_t n = opscope_ops_export_n_lines(r->x);
    for (size_t i = 0; i < n; i++) {
        opscope_replay_status st = r->res[b][i].status;
        p.lines_timed += st == OPSCOPE_REPLAY_OK;
        p.lines_unsupported += st == OPSCOPE_REPLAY_UNSUPPORTED;
        p.lines_failed += st == OPSCOPE_REPLAY_FAILED || st == OPSCOPE_REPLAY_MISMATCH || st == OPSCOPE_REPLAY_NONE;
    }
    return p;
}

static void print_us(FILE *f, double ns, int width) {
    if (ns <= 0) fprintf(f, " %*s", width, "-");
    else fprintf(f, " %*.2f", width, ns / 1e3);
}

void opscope_replay_write_console(FILE *f, const opscope_replay_table *r) {
    size_t n_lines = opscope_ops_export_n_lines(r->x);
    uint64_t total = 0;
    for (size_t i = 0; i < r->n_rows; i++) total += r->rows[i].u->total_ns;
    fprintf(f, "Replay of %s: %zu unique ops (%" PRIu64 " of %" PRIu64 " op records), "
               "test-backend-ops %s on",
            r->input, n_lines, opscope_ops_export_records_exported(r->x),
            opscope_ops_export_records(r->x), r->mode);
    for (int b = 0; b < r->n_b; b++) fprintf(f, " %s", r->backends[b]);
    /* whose time each column is: the profile's calls, or test-backend-ops's runs */
    fprintf(f, "\n  model mean us, model median us: the op's calls in the profile; BACKEND us: "
               "test-backend-ops's time per run in isolation\n");
    fprintf(f, "\n  %4s %-34s %-9s %7s %11s %11s", "line", "op", "ran on", "count", "model mean",
            "model med");
    for (int b = 0; b < r->n_b; b++) {
        char h[40];
        snprintf(h, sizeof h, "%s us", r->backends[b]);
        fprintf(f, " %11s", h);
    }
    fprintf(f, " %9s  shape\n", "model/iso");
    for (size_t i = 0; i < r->n_rows; i++) {
        const opscope_replay_row *w = &r->rows[i];
        char label[160];
        op_label(w, label, sizeof label);
        fprintf(f, "  %4zu %-34.34s %-9.9s %7" PRIu64, w->line + 1, label, w->u->backend,
                w->u->count);
        print_us(f, model_avg_ns(w), 11);
        print_us(f, (double)w->u->median_ns, 11);
        for (int b = 0; b < r->n_b; b++) {
            const opscope_replay_result *s = &r->res[b][w->line];
            if (s->status == OPSCOPE_REPLAY_OK) print_us(f, s->time_us * 1e3, 11);
            else fprintf(f, " %11s", s->status == OPSCOPE_REPLAY_UNSUPPORTED ? "unsupported"
                                     : r->failed[b]                 ? "-"
                                                                    : "failed");
        }
        double fi = fidelity(r, w);
        if (fi > 0) fprintf(f, " %8.2fx%s", fi, flagged(r, w) ? "!" : " ");
        else fprintf(f, " %9s ", "-");
        fprintf(f, " %s\n", w->l->shape);
    }

    fprintf(f, "\nThis model on each backend (count x isolated time per call, summed over the "
               "rows; in-model op time of the same rows %.3f ms):\n",
            (double)total / 1e6);
    for (int b = 0; b < r->n_b; b++) {
        if (r->failed[b]) {
            fprintf(f, "  %-10s no result (test-backend-ops ran nothing there)\n", r->backends[b]);
            continue;
        }
        projection p = project(r, b);
        fprintf(f, "  %-10s %10.3f ms projected, %zu/%zu ops timed", r->backends[b],
                p.projected_ns / 1e6, p.lines_timed, n_lines);
        if (p.lines_unsupported) fprintf(f, ", %zu not supported", p.lines_unsupported);
        if (p.lines_failed) fprintf(f, ", %zu failed", p.lines_failed);
        if (p.model_ns && p.rows_timed < r->n_rows)
            fprintf(f, " (those rows took %.3f ms in the model)", (double)p.model_ns / 1e6);
        fputc('\n', f);
    }

    size_t n_flag = 0;
    for (size_t i = 0; i < r->n_rows; i++) n_flag += flagged(r, &r->rows[i]);
    if (n_flag) {
        fprintf(f, "\nFidelity: %zu row%s whose median in-model call is more than %gx away from "
                   "the isolated time per call on the same backend (marked '!'; see "
                   "docs/replay.md: cache state, dispatch, thread wake-up, fused groups, memory "
                   "placement):\n",
                n_flag, n_flag == 1 ? "" : "s", r->flag);
        for (size_t i = 0; i < r->n_rows; i++) {
            const opscope_replay_row *w = &r->rows[i];
            if (!flagged(r, w)) continue;
            char label[160];
            op_label(w, label, sizeof label);
            double fi = fidelity(r, w);
            fprintf(f, "  line %zu %s on %s: %.2fx %s in the model (%s)\n", w->line + 1, label,
                    w->u->backend, fi >= 1 ? fi : 1 / fi, fi >= 1 ? "slower" : "faster", w->l->shape);
        }
    }
    /* lines without a time and why, once per line and backend */
    bool header = false;
    for (int b = 0; b < r->n_b; b++) {
        if (r->failed[b]) continue;
        for (size_t i = 0; i < n_lines; i++) {
            const opscope_replay_result *s = &r->res[b][i];
            if (s->status == OPSCOPE_REPLAY_OK || s->status == OPSCOPE_REPLAY_UNSUPPORTED) continue;
            if (!header) fprintf(f, "\nOps without a result:\n");
            header = true;
            const opscope_ops_line *l = opscope_ops_export_line(r->x, i);
            fprintf(f, "  line %zu %s on %s: %s\n", i + 1, l->op, r->backends[b], s->note);
        }
    }
}

static void json_num(opscope_out_t *w, double v) {
    if (v > 0 && isfinite(v)) opscope_out_fixed(w, v, 1);
    else opscope_out_str(w, "null");
}

static const char *status_name(opscope_replay_status s) {
    switch (s) {
    case OPSCOPE_REPLAY_OK: return "ok";
    case OPSCOPE_REPLAY_UNSUPPORTED: return "not supported";
    case OPSCOPE_REPLAY_FAILED: return "failed";
    case OPSCOPE_REPLAY_MISMATCH: return "op mismatch";
    case OPSCOPE_REPLAY_NONE: break;
    }
    return "no result";
}

/* The member KEY: an object of each backend of R, VALUE(w, r, rw, backend) its value. */
static void per_backend(opscope_jw *j, const char *key, const opscope_replay_table *r, const opscope_replay_row *rw,
                        void (*value)(opscope_out_t *, const opscope_replay_table *,
                                      const opscope_replay_row *, int)) {
    opscope_jw_obj(j, key);
    for (int b = 0; b < r->n_b; b++) {
        opscope_jw_key_json(j, r->backends[b]);
        value(j->out, r, rw, b);
    }
    opscope_jw_end_obj(j);
}

static void isolated_ns(opscope_out_t *w, const opscope_replay_table *r, const opscope_replay_row *rw,
                        int b) {
    const opscope_replay_result *s = &r->res[b][rw->line];
    json_num(w, s->status == OPSCOPE_REPLAY_OK ? s->time_us * 1e3 : 0);
}

static void projected_ns(opscope_out_t *w, const opscope_replay_table *r, const opscope_replay_row *rw,
                         int b) {
    const opscope_replay_result *s = &r->res[b][rw->line];
    json_num(w, s->status == OPSCOPE_REPLAY_OK ? (double)rw->u->count * s->time_us * 1e3 : 0);
}

static void status_of(opscope_out_t *w, const opscope_replay_table *r, const opscope_replay_row *rw,
                      int b) {
    opscope_out_json_str(w, r->failed[b] ? "no result" : status_name(r->res[b][rw->line].status));
}

/* One row as an item of the "rows" array. */
static void json_row(opscope_jw *j, const opscope_replay_table *r, const opscope_replay_row *rw) {
    char label[160];
    op_label(rw, label, sizeof label);
    opscope_jw_nl(j);
    opscope_jw_item_obj(j);
    opscope_jw_u64(j, "line", rw->line + 1);
    opscope_jw_str(j, "name", label);
    opscope_jw_str(j, "op", rw->l->op);
    /* as in the records and the report's JSON: ggml's enum value, its name beside it */
    opscope_jw_i64(j, "sub_op", rw->l->sub_op_value);
    opscope_jw_str(j, "sub_op_name", rw->l->sub_op);
    opscope_jw_str(j, "fused", rw->u->fused);
    opscope_jw_str(j, "tensor", rw->l->name);
    opscope_jw_str(j, "shape", rw->l->shape);
    opscope_jw_str(j, "backend", rw->u->backend);
    opscope_jw_u64(j, "count", rw->u->count);
    opscope_jw_u64(j, "model_total_ns", rw->u->total_ns);
    opscope_jw_key(j, "model_avg_ns");
    json_num(j->out, model_avg_ns(rw));
    opscope_jw_u64(j, "model_median_ns", rw->u->median_ns);
    opscope_jw_u64(j, "model_min_ns", rw->u->min_ns);
    opscope_jw_u64(j, "model_max_ns", rw->u->max_ns);
    per_backend(j, "isolated_avg_ns", r, rw, isolated_ns);
    per_backend(j, "projected_ns", r, rw, projected_ns);
    per_backend(j, "status", r, rw, status_of);
    double fi = fidelity(r, rw);
    if (fi > 0) opscope_jw_fixed(j, "model_over_isolated", fi, 4);
    else opscope_jw_null(j, "model_over_isolated");
    opscope_jw_bool(j, "flagged", flagged(r, rw));
    opscope_jw_end_obj(j);
}

/* The "summary" member: per backend the projection and what ran. */
static void summary_json(opscope_jw *j, const opscope_replay_table *r) {
    opscope_jw_obj(j, "summary");
    for (int b = 0; b < r->n_b; b++) {
        projection p = project(r, b);
        opscope_jw_key_json(j, r->backends[b]);
        opscope_jw_open_obj(j);
        opscope_jw_fixed(j, "projected_ns", p.projected_ns, 1);
        opscope_jw_u64(j, "model_ns_of_timed_rows", p.model_ns);
        opscope_jw_u64(j, "rows_timed", p.rows_timed);
        opscope_jw_u64(j, "ops_timed", p.lines_timed);
        opscope_jw_u64(j, "ops_not_supported", p.lines_unsupported);
        opscope_jw_u64(j, "ops_failed", p.lines_failed);
        opscope_jw_bool(j, "ran", !r->failed[b]);
        opscope_jw_end_obj(j);
    }
    opscope_jw_end_obj(j);
}

void opscope_replay_write_json(opscope_out_t *w, const opscope_replay_table *r, const char *tbo) {
    opscope_jw j = opscope_jw_object(w);
    opscope_jw_str(&j, "profile", r->input);
    opscope_jw_str(&j, "test_backend_ops", tbo);
    opscope_jw_str(&j, "mode", r->mode);
    opscope_jw_double(&j, "flag_factor", r->flag);
    opscope_jw_arr(&j, "backends");
    for (int b = 0; b < r->n_b; b++) opscope_jw_item_str(&j, r->backends[b]);
    opscope_jw_end_arr(&j);
    opscope_jw_nl(&j);
    opscope_jw_arr(&j, "rows");
    for (size_t i = 0; i < r->n_rows; i++) json_row(&j, r, &r->rows[i]);
    opscope_jw_end_arr(&j);
    opscope_jw_nl(&j);
    summary_json(&j, r);
    opscope_jw_nl(&j);
    opscope_jw_arr(&j, "skipped");
    for (size_t i = 0; i < opscope_ops_export_n_skipped(r->x); i++) {
        const opscope_ops_skip *s = opscope_ops_export_skipped(r->x, i);
        opscope_jw_item_obj(&j);
        opscope_jw_str(&j, "what", s->what);
        opscope_jw_u64(&j, "count", s->count);
        opscope_jw_u64(&j, "total_ns", s->total_ns);
        opscope_jw_str(&j, "reason", opscope_ops_skip_reason_text(s->reason));
        opscope_jw_end_obj(&j);
    }
    opscope_jw_end_arr(&j);
    opscope_jw_end_obj(&j);
    opscope_out_char(w, '\n');
}
