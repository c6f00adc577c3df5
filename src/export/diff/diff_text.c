/* diff_text.c - the console summary and the plain-text report of `opscope diff`. */
#include "export/diff/diff_report.h"
#include "analyze/record/kernel_name.h"
#include "export/fmt/name_labels.h"
#include "util/sort.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CONSOLE_TOP 30
#define CONSOLE_NAME_COLS 100

static size_t utf8_cols(const char *s) {
    size_t n = 0;
    for (; *s; s++) n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

/* S in at most WIDTH columns: a longer string loses its middle to "…". */
static void put_cut(opscope_out_t *w, const char *s, size_t width) {
    size_t c = utf8_cols(s), len = strlen(s);
    if (c <= width) {
        opscope_out_write(w, s, len);
        return;
    }
    size_t head = (width - 1) * 2 / 3, tail = width - 1 - head, i = 0, k = 0;
    for (; i < len; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80 && k++ == head) break;
    opscope_out_write(w, s, i);
    opscope_out_str(w, "\xe2\x80\xa6");
    size_t j = len, t = 0;
    while (j > 0 && t < tail) {
        j--;
        if (((unsigned char)s[j] & 0xC0) != 0x80) t++;
    }
    opscope_out_write(w, s + j, len - j);
}

static const opscope_diff_group *row_group(const opscope_diff_row *r) {
    return r->newg ? r->newg : r->base;
}

/* The row's label: its name, with a long kernel name in its short form (SHORT). */
static char *row_label(const opscope_diff_row *r, bool shorten) {
    const opscope_diff_group *g = row_group(r);
    if (!shorten || !g->op || strlen(g->op) <= 48) return strdup(r->name);
    size_t n = opscope_kernel_name_short(NULL, 0, g->op);
    char *sh = malloc(n + 1);
    if (!sh) return strdup(r->name);
    opscope_kernel_name_short(sh, n + 1, g->op);
    /* the name is "prefix · OP @backend shape": replace OP */
    const char *at = strstr(r->name, g->op);
    size_t pre = at ? (size_t)(at - r->name) : 0, oplen = strlen(g->op);
    size_t total = strlen(r->name) - (at ? oplen : 0) + n + 1;
    char *out = malloc(total);
    if (!out) {
        free(sh);
        return strdup(r->name);
    }
    if (at)
        snprintf(out, total, "%.*s%s%s", (int)pre, r->name, sh, at + oplen);
    else
        snprintf(out, total, "%s", sh);
    free(sh);
    return out;
}

typedef struct label_ix {
    const char *label;
    size_t row;
} label_ix;

static int label_ix_cmp(const void *pa, const void *pb) {
    const label_ix *a = pa, *b = pb;
    int c = strcmp(a->label, b->label);
    return c ? c : (a->row > b->row) - (a->row < b->row);
}

/* Every row's label (NULL when out of memory), row I at index I. Rows of different kernels
 * that share a short form get their kernel's tag (export/fmt/name_labels.h: the report's label of
 * the same kernel, whatever either table's order). */
static char **row_labels(const opscope_diff_t *d, bool console) {
    size_t nr = opscope_diff_n_rows(d);
    char **labels = calloc(nr ? nr : 1, sizeof *labels);
    label_ix *ix = malloc((nr ? nr : 1) * sizeof *ix);
    if (!labels || !ix) {
        free(ix);
        free(labels);
        return NULL;
    }
    size_t m = 0;
    for (size_t i = 0; i < nr; i++) {
        const opscope_diff_row *r = opscope_diff_row_get(d, i);
        labels[i] = row_label(r, console);
        if (labels[i] && strcmp(labels[i], r->name)) ix[m++] = (label_ix){labels[i], i};
    }
    opscope_sort(ix, m, sizeof *ix, label_ix_cmp);
    bool *tag = calloc(nr ? nr : 1, sizeof *tag);
    for (size_t i = 0; tag && i + 1 < m; i++)
        if (!strcmp(ix[i].label, ix[i + 1].label)) tag[ix[i].row] = tag[ix[i + 1].row] = true;
    for (size_t i = 0; tag && i < nr; i++) {
        if (!tag[i]) continue;
        const opscope_diff_row *r = opscope_diff_row_get(d, i);
        const opscope_diff_group *g = row_group(r);
        char t[16];
        opscope_name_tag(t, sizeof t, g->op ? g->op : r->name, 0);
        size_t len = strlen(labels[i]) + sizeof t;
        char *nl = malloc(len);
        if (!nl) continue;
        snprintf(nl, len, "%s%s", labels[i], t);
        free(labels[i]);
        labels[i] = nl;
    }
    free(tag);
    free(ix);
    return labels;
}

/* The one line that says what the noise test measured. */
static void noise_line(opscope_out_t *w, const opscope_diff_t *d) {
    const opscope_diff_opts *op = opscope_diff_get_opts(d);
    uint64_t rb = opscope_diff_side_totals(opscope_diff_base(d))->inputs;
    uint64_t rn = opscope_diff_side_totals(opscope_diff_newer(d))->inputs;
    switch (opscope_diff_noise_used(d)) {
    case OPSCOPE_DIFF_NOISE_RUNS:
        opscope_out_printf(w, "  Noise: ~ marks a delta within the spread of the runs (Welch's "
                              "t-test on the per-run totals of %" PRIu64 " BASE and %" PRIu64
                              " NEW runs, p >= %g; docs/diff.md).\n", rb, rn, op->alpha);
        break;
    case OPSCOPE_DIFF_NOISE_GRAPHS:
        opscope_out_printf(w, "  Noise: ~ marks a delta within the spread inside the runs (Welch's "
                              "t-test on each op's per-graph times, or per-call where those "
                              "vary more, p >= %g). Run-to-run variation is not measured with "
                              "one run a side: give several (BASE1 BASE2 -- NEW1 NEW2).\n",
                           op->alpha);
        break;
    default:
        opscope_out_printf(w, "  Noise: ~ marks a delta within the spread of the calls (Welch's "
                              "t-test on each op's per-call durations, p >= %g). Run-to-run "
                              "variation is not measured with one run a side: give several "
                              "(BASE1 BASE2 -- NEW1 NEW2).\n", op->alpha);
    }
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Traces: the CPU side of each run (docs/kineto.md): median step, GPU idle, top-level CPU
 * time, and which run is CPU-bound (the answer to "why is the step only a little faster"). */
static void cpu_side_rows(opscope_out_t *w, const opscope_diff_t *d) {
    const opscope_kineto_results *r[2];
    for (int i = 0; i < 2; i++) {
        const opscope_diff_side_t *s = i ? opscope_diff_newer(d) : opscope_diff_base(d);
        const opscope_kineto_t *k = opscope_diff_side_kineto(s);
        r[i] = k && opscope_diff_side_totals(s)->trace ? opscope_kineto_get_results(k) : NULL;
        if (!r[i] || !r[i]->window_ns) return;
    }
    double v[3][2];
    for (int i = 0; i < 2; i++) {
        uint64_t busy = 0;
        for (size_t j = 0; j < r[i]->n_devices; j++)
            if (r[i]->devices[j].busy_ns > busy) busy = r[i]->devices[j].busy_ns;
        double step = 0;
        if (r[i]->n_steps) { /* median step */
            uint64_t *t = malloc(r[i]->n_steps * sizeof *t);
            if (t) {
                for (size_t j = 0; j < r[i]->n_steps; j++) t[j] = r[i]->steps[j].dur_ns;
                opscope_sort(t, r[i]->n_steps, sizeof *t, cmp_u64);
                step = (double)t[r[i]->n_steps / 2];
                free(t);
            }
        }
        v[0][i] = step;
        v[1][i] = 100.0 * (double)(r[i]->window_ns - busy) / (double)r[i]->window_ns;
        v[2][i] = 100.0 * (double)r[i]->cpu_top_ns / (double)r[i]->window_ns;
    }
    char a[32], b[32], c[32];
    if (v[0][0] > 0 && v[0][1] > 0) {
        opscope_fmt_time(a, sizeof a, v[0][0], false);
        opscope_fmt_time(b, sizeof b, v[0][1], false);
        opscope_fmt_time(c, sizeof c, v[0][1] - v[0][0], true);
        opscope_out_printf(w, "  %-12s %14s %14s %14s %8.3fx\n", "Step (median)", a, b, c, v[0][1] / v[0][0]);
    }
    bool gpu = r[0]->n_devices || r[1]->n_devices;
    if (gpu) /* a CPU-only run has no GPU to idle */
        opscope_out_printf(w, "  %-12s %13.1f%% %13.1f%% %+13.1f%%\n", "GPU idle", v[1][0], v[1][1], v[1][1] - v[1][0]);
    opscope_out_printf(w, "  %-12s %13.1f%% %13.1f%% %+13.1f%%  (top-level CPU op time of the window)\n",
                       "CPU ops", v[2][0], v[2][1], v[2][1] - v[2][0]);
    if (!gpu)
        opscope_out_str(w, "  Both runs are CPU-only (no GPU activity): the groups are their CPU ops, by self time.\n");
    else if (r[0]->cpu_bound || r[1]->cpu_bound)
        opscope_out_printf(w, "  %s CPU-bound: its GPU idles over half the time while the CPU runs ops.\n",
                           r[0]->cpu_bound && r[1]->cpu_bound ? "Both runs are" : r[0]->cpu_bound ? "BASE is" : "NEW is");
}

/* The side's capture windows, inside its line's parentheses: "; 2 windows, 12.40 s recorded". */
static void side_windows(opscope_out_t *w, const opscope_diff_totals *t) {
    if (!t->windowed) return;
    if (!t->windows) opscope_out_str(w, "; recorded in windows: none opened");
    else opscope_out_printf(w, "; %" PRIu64 " capture window%s, %.2f s recorded", t->windows,
                            t->windows == 1 ? "" : "s", (double)t->window_ns / 1e9);
}

/* A side recorded in windows set against one recorded whole: a part of a run against a whole. */
static void windows_warning(opscope_out_t *w, const opscope_diff_totals *b, const opscope_diff_totals *n) {
    if (b->windowed == n->windowed) return;
    opscope_out_printf(w, "  Warning: only %s was recorded in capture windows (%s whole): its totals are "
                          "the windows' part of a run, compared with a whole run.\n",
                       b->windowed ? "BASE" : "NEW", b->windowed ? "NEW" : "BASE");
}

static void header(opscope_out_t *w, const opscope_diff_t *d, const opscope_diff_report_opts *o) {
    const opscope_diff_side_t *sides[2] = {opscope_diff_base(d), opscope_diff_newer(d)};
    const char *paths[2] = {o->base_path, o->new_path};
    opscope_out_str(w, "opscope diff\n");
    for (int s = 0; s < 2; s++) {
        const opscope_diff_totals *t = opscope_diff_side_totals(sides[s]);
        const char *prof = t->profiler && t->profiler[0] ? t->profiler : NULL;
        opscope_out_printf(w, "  %-4s ", s ? "NEW" : "BASE");
        if (o->paths[s] && o->n_paths[s] > 1) {
            opscope_out_printf(w, "%zu runs:", o->n_paths[s]);
            for (size_t r = 0; r < o->n_paths[s]; r++)
                opscope_out_printf(w, " %s", o->paths[s][r]);
        } else {
            opscope_out_str(w, paths[s] ? paths[s] : "-");
        }
        if (t->trace)
            opscope_out_printf(w, "  (%s trace", prof ? prof : "GPU");
        else
            opscope_out_printf(w, "  (%s profile", prof ? prof : "ggml");
        if (t->version) opscope_out_printf(w, " v%d", (int)t->version);
        opscope_out_printf(w, ": %" PRIu64 " records", t->n_records);
        if (t->graphs)
            opscope_out_printf(w, ", %" PRIu64 " graphs (%" PRIu64 " prefill, %" PRIu64
                                  " decode), %" PRIu64 " tokens",
                               t->graphs, t->prefill_graphs, t->decode_graphs, t->tokens);
        if (t->iterations) opscope_out_printf(w, ", %" PRIu64 " profiler steps", t->iterations);
        if (t->inputs > 1) opscope_out_str(w, " in all");
        side_windows(w, t);
        opscope_out_str(w, ")\n");
    }
    windows_warning(w, opscope_diff_side_totals(sides[0]), opscope_diff_side_totals(sides[1]));
    if (o->filter)
        opscope_out_printf(w, "  Filter: %s (BASE %" PRIu64 " of %" PRIu64 " records kept, NEW %" PRIu64
                              " of %" PRIu64 ")\n", o->filter, o->filter_kept[0], o->filter_records[0],
                           o->filter_kept[1], o->filter_records[1]);
    if (!opscope_diff_side_totals(opscope_diff_base(d))->trace) opscope_diff_apart_write_text(w, &o->apart);
    const opscope_diff_opts *op = opscope_diff_get_opts(d);
    char keys[128];
    opscope_diff_keys_name(op->keys, keys, sizeof keys);
    if (op->by) snprintf(keys, sizeof keys, "%s", op->by); /* in the order asked */
    bool op_keys = op->keys & (OPSCOPE_DIFF_KEY_OP | OPSCOPE_DIFF_KEY_KERNEL | OPSCOPE_DIFF_KEY_SHAPE);
    opscope_out_printf(w, "  Aligned by %s%s.", keys,
                       !op_keys ? "" : opscope_diff_merged_backends(d) ? " (over all backends)"
                                                                       : " (per backend)");
    opscope_diff_norm n = opscope_diff_norm_used(d);
    if (n == OPSCOPE_DIFF_NORM_NONE &&
        (opscope_diff_units(d, 0) > 1 || opscope_diff_units(d, 1) > 1)) {
        opscope_out_printf(w, " Compared per run (the mean of BASE's %.0f, NEW's %.0f): times "
                              "below are per run, counts and per-call times are not.\n",
                           opscope_diff_units(d, 0), opscope_diff_units(d, 1));
    } else if (n == OPSCOPE_DIFF_NORM_NONE) {
        opscope_out_str(w, " Totals compared as they are");
        const opscope_diff_totals *tb = opscope_diff_side_totals(sides[0]);
        const opscope_diff_totals *tn = opscope_diff_side_totals(sides[1]);
        if (tb->tokens && tb->tokens == tn->tokens)
            opscope_out_printf(w, " (both runs: %" PRIu64 " tokens)", tb->tokens);
        else if (tb->iterations && tb->iterations == tn->iterations)
            opscope_out_printf(w, " (both runs: %" PRIu64 " profiler steps)", tb->iterations);
        else if (tb->graphs && tb->graphs == tn->graphs)
            opscope_out_printf(w, " (both runs: %" PRIu64 " graphs)", tb->graphs);
        opscope_out_str(w, ".\n");
    } else {
        const char *u = opscope_diff_norm_name(n);
        opscope_out_printf(w, " Compared per %s (BASE %.0f %ss, NEW %.0f %ss): times below are per "
                              "%s, counts and per-call times are not.\n",
                           u, opscope_diff_units(d, 0), u, opscope_diff_units(d, 1), u, u);
    }
    noise_line(w, d);
    const opscope_diff_summary *sm = opscope_diff_get_summary(d);
    opscope_out_printf(w, "\n  %-12s %14s %14s %14s %9s\n", "", "BASE", "NEW", "Delta", "Ratio");
    struct {
        const char *label;
        double b, n;
    } rows[] = {{"Wall span", sm->base_wall, sm->new_wall},
                {"Op time", sm->base_op, sm->new_op},
                {"Copy time", sm->base_copy, sm->new_copy},
                {"Total time", sm->base_total, sm->new_total}};
    for (size_t i = 0; i < 4; i++) {
        char a[32], b[32], c[32], r[32];
        opscope_fmt_time(a, sizeof a, rows[i].b, false);
        opscope_fmt_time(b, sizeof b, rows[i].n, false);
        opscope_fmt_time(c, sizeof c, rows[i].n - rows[i].b, true);
        if (rows[i].b > 0) snprintf(r, sizeof r, "%.3fx", rows[i].n / rows[i].b);
        else snprintf(r, sizeof r, "-");
        opscope_out_printf(w, "  %-12s %14s %14s %14s %9s\n", rows[i].label, a, b, c, r);
    }
    cpu_side_rows(w, d);
    opscope_out_printf(w, "\n  Groups: %zu in both, %zu only in BASE, %zu only in NEW; %zu within "
                          "noise (~)",
                       sm->n_both, sm->n_only_base, sm->n_only_new, sm->n_not_significant);
    if (sm->n_hidden) {
        char c[32];
        opscope_fmt_time(c, sizeof c, sm->hidden_delta_ns, true);
        opscope_out_printf(w, "; %zu below %g%% of the time not listed (their delta: %s)",
                           sm->n_hidden, op->min_share, c);
    }
    opscope_out_str(w, ".\n\n");
}

/* A percentage in at most 8 columns (the Delta% column): +31797.5% is +31798%. */
static void fmt_pct(char *buf, size_t size, double pct) {
    if (fabs(pct) < 1000) snprintf(buf, size, "%+.1f%%", pct);
    else if (fabs(pct) < 1e6) snprintf(buf, size, "%+.0f%%", pct);
    else snprintf(buf, size, "%s", pct > 0 ? ">+1e6%" : "<-1e6%");
}

static size_t kernels_of(const opscope_diff_side_t *s, const opscope_diff_group *g,
                         const opscope_diff_kernel **ks) {
    return g ? opscope_diff_side_group_kernels(s, (size_t)(g - opscope_diff_side_group(s, 0)), ks) : 0;
}

static bool kernel_listed(const opscope_diff_kernel *ks, size_t n, const char *name) {
    for (size_t i = 0; i < n; i++)
        if (!strcmp(ks[i].name, name)) return true;
    return false;
}

/* A work pair (traces, --by op) whose sides ran different kernels: one line per side under
 * its row with the kernels it used, longest first (a short form with its full name's tag, as
 * in the reports), and their share of the side's time. */
static void pair_kernels(opscope_out_t *w, const opscope_diff_t *d, const opscope_diff_row *r,
                         bool console) {
    const opscope_diff_kernel *kb, *kn;
    size_t nb = kernels_of(opscope_diff_base(d), r->base, &kb);
    size_t nn = kernels_of(opscope_diff_newer(d), r->newg, &kn);
    if (!nb || !nn) return;
    bool same = nb == nn;
    for (size_t i = 0; i < nb && same; i++) same = kernel_listed(kn, nn, kb[i].name);
    if (same) return;
    const opscope_diff_kernel *ks[2] = {kb, kn};
    const size_t n[2] = {nb, nn};
    const uint64_t tot[2] = {r->base->total_ns, r->newg->total_ns};
    for (int sd = 0; sd < 2; sd++) {
        opscope_out_printf(w, "%*s%s kernels:", 16, "", sd ? "NEW " : "BASE");
        size_t show = console && n[sd] > 3 ? 3 : n[sd];
        for (size_t i = 0; i < show; i++) {
            size_t len = strlen(ks[sd][i].name) + 32;
            char *sh = malloc(len);
            size_t sl = sh ? opscope_kernel_name_short(sh, len, ks[sd][i].name) : len;
            if (sl >= len - 16) {
                free(sh);
                sh = NULL;
            } else if (strcmp(sh, ks[sd][i].name)) { /* a short form may stand for several */
                opscope_name_tag(sh + sl, len - sl, ks[sd][i].name, 0);
            }
            opscope_out_str(w, i ? ", " : " ");
            if (console) put_cut(w, sh ? sh : ks[sd][i].name, 48);
            else opscope_out_str(w, sh ? sh : ks[sd][i].name);
            free(sh);
            opscope_out_printf(w, " x%" PRIu64 " %.0f%%", ks[sd][i].count,
                               tot[sd] ? 100.0 * (double)ks[sd][i].total_ns / (double)tot[sd] : 0.0);
        }
        if (show < n[sd]) opscope_out_printf(w, ", %zu more", n[sd] - show);
        opscope_out_char(w, '\n');
    }
}

/* How table() writes the groups: TABLE_ALL_ROWS every row, not only those the console shows
 * (opscope_diff_row.shown); TABLE_CONSOLE the console's form, long names cut (CONSOLE_NAME_COLS). */
enum { TABLE_ALL_ROWS = 1 << 0, TABLE_CONSOLE = 1 << 1 };

/* The groups' table, at most LIMIT rows (0: no limit), as FLAGS (TABLE_*) say. */
static void table(opscope_out_t *w, const opscope_diff_t *d, size_t limit, unsigned flags) {
    bool all = flags & TABLE_ALL_ROWS, console = flags & TABLE_CONSOLE;
    opscope_diff_norm n = opscope_diff_norm_used(d);
    const char *per = n == OPSCOPE_DIFF_NORM_NONE ? "" : n == OPSCOPE_DIFF_NORM_TOKEN ? "/tok"
                      : n == OPSCOPE_DIFF_NORM_GRAPH ? "/graph" : "/iter";
    char hb[32], hn[32];
    snprintf(hb, sizeof hb, "BASE total%s", per);
    snprintf(hn, sizeof hn, "NEW total%s", per);
    opscope_out_printf(w, "  %-13s %8s %8s %9s %14s %11s %9s %14s %11s  %s\n", "Delta", "Delta%",
                       "Ratio", "BASE n", hb, "BASE/call", "NEW n", hn, "NEW/call", "Group");
    size_t shown = 0, nr = opscope_diff_n_rows(d);
    const opscope_diff_row **rows = malloc((nr ? nr : 1) * sizeof *rows);
    char **labels = row_labels(d, console);
    if (!rows || !labels) {
        free(rows);
        free(labels);
        return;
    }
    for (size_t i = 0; i < nr && (!limit || shown < limit); i++) {
        const opscope_diff_row *r = opscope_diff_row_get(d, i);
        if (!all && !r->shown) { /* its slot may take a later row's label */
            free(labels[i]);
            labels[i] = NULL;
            continue;
        }
        char *lb = labels[i];
        labels[i] = NULL;
        rows[shown] = r;
        labels[shown++] = lb;
    }
    for (size_t i = shown; i < nr; i++) free(labels[i]);
    for (size_t i = 0; i < shown; i++) {
        const opscope_diff_row *r = rows[i];
        char dl[32], pc[16], ra[16], bn[24], bt[32], bc[32], nn[24], nt[32], nc[32];
        opscope_fmt_time(dl, sizeof dl - 1, r->delta_ns, true);
        if (!r->significant) strcat(dl, "~");
        if (r->status == OPSCOPE_DIFF_ONLY_NEW) snprintf(pc, sizeof pc, "new");
        else if (r->status == OPSCOPE_DIFF_ONLY_BASE) snprintf(pc, sizeof pc, "gone");
        else if (r->base_ns > 0) fmt_pct(pc, sizeof pc, 100.0 * r->delta_ns / r->base_ns);
        else snprintf(pc, sizeof pc, "-");
        if (isfinite(r->ratio) && r->status == OPSCOPE_DIFF_BOTH)
            snprintf(ra, sizeof ra, r->ratio < 100 ? "%.3fx" : r->ratio < 1e6 ? "%.0fx" : ">1e6x",
                     r->ratio);
        else snprintf(ra, sizeof ra, "-");
        const opscope_diff_group *gb = r->base, *gn = r->newg;
        snprintf(bn, sizeof bn, "%" PRIu64, gb ? gb->count : 0);
        snprintf(nn, sizeof nn, "%" PRIu64, gn ? gn->count : 0);
        if (gb) {
            opscope_fmt_time(bt, sizeof bt, r->base_ns, false);
            opscope_fmt_time(bc, sizeof bc, (double)gb->total_ns / (double)gb->count, false);
        } else {
            snprintf(bt, sizeof bt, "-");
            snprintf(bc, sizeof bc, "-");
        }
        if (gn) {
            opscope_fmt_time(nt, sizeof nt, r->new_ns, false);
            opscope_fmt_time(nc, sizeof nc, (double)gn->total_ns / (double)gn->count, false);
        } else {
            snprintf(nt, sizeof nt, "-");
            snprintf(nc, sizeof nc, "-");
        }
        opscope_out_printf(w, "  %-13s %8s %8s %9s %14s %11s %9s %14s %11s  ", dl, pc, ra, bn, bt,
                           bc, nn, nt, nc);
        const char *lb = labels[i] ? labels[i] : r->name;
        if (console) put_cut(w, lb, CONSOLE_NAME_COLS);
        else opscope_out_str(w, lb);
        if (r->status == OPSCOPE_DIFF_ONLY_BASE) opscope_out_str(w, "  [only in BASE]");
        if (r->status == OPSCOPE_DIFF_ONLY_NEW) opscope_out_str(w, "  [only in NEW]");
        if (!r->shown) opscope_out_str(w, "  [below --min-share]");
        if (r->regression) opscope_out_str(w, "  REGRESSION");
        if (opscope_diff_row_sampled(r)) opscope_out_str(w, "  [sampled: see estimates]");
        opscope_out_char(w, '\n');
        pair_kernels(w, d, r, console);
    }
    size_t listed_max = 0;
    for (size_t i = 0; i < nr; i++) listed_max += all || opscope_diff_row_get(d, i)->shown;
    if (shown < listed_max)
        opscope_out_printf(w, "  ... %zu more rows (--top N, or --text FILE for all)\n",
                           listed_max - shown);
    for (size_t i = 0; i < shown; i++) free(labels[i]);
    free(labels);
    free(rows);
}

static void fusions(opscope_out_t *w, const opscope_diff_t *d, size_t limit, bool console) {
    size_t nf = opscope_diff_n_fusions(d);
    if (!nf) return;
    opscope_out_str(w, "\n  Fusion differences (a ggml node group or a CPU op run as a different "
                       "number of kernels; a CPU op's delta is its extra kernels' own time):\n");
    opscope_out_printf(w, "  %-13s %-34s %-34s %s\n", "Delta", "BASE", "NEW", "Fused group / CPU op");
    size_t rows = limit && limit < nf ? limit : nf;
    for (size_t i = 0; i < rows; i++) {
        const opscope_diff_fusion *f = opscope_diff_fusion_get(d, i);
        char dl[32], sb[64], sn[64], tb[32], tn[32];
        opscope_fmt_time(dl, sizeof dl, f->delta_ns, true);
        opscope_fmt_time(tb, sizeof tb, f->base_ns, false);
        opscope_fmt_time(tn, sizeof tn, f->new_ns, false);
        const uint64_t calls[2] = {f->base_calls, f->new_calls};
        const uint64_t kern[2] = {f->base_kernels, f->new_kernels};
        char *out[2] = {sb, sn};
        const char *tt[2] = {tb, tn};
        for (int s = 0; s < 2; s++) {
            if (!calls[s])
                snprintf(out[s], 64, "%s", f->kind == OPSCOPE_DIFF_FUSION_GGML
                                               ? "no run of these ops" : "no calls");
            else
                snprintf(out[s], 64, "%.3g kernel%s/call x %" PRIu64 " = %s",
                         (double)kern[s] / (double)calls[s], kern[s] == calls[s] ? "" : "s",
                         calls[s], tt[s]);
        }
        opscope_out_printf(w, "  %-13s %-34s %-34s ", dl, sb, sn);
        if (console) put_cut(w, f->name, CONSOLE_NAME_COLS);
        else opscope_out_str(w, f->name);
        if (f->kind == OPSCOPE_DIFF_FUSION_GGML) {
            opscope_out_str(w, "  (fused ggml nodes)\n");
            continue;
        }
        /* the delta is the extra kernels' own time: say which kernel it mostly is */
        opscope_out_str(w, "  (CPU op");
        if (f->kernel) {
            opscope_out_str(w, f->delta_ns < 0 ? "; gone: " : "; added: ");
            if (console) put_cut(w, f->kernel, 60);
            else opscope_out_str(w, f->kernel);
        }
        opscope_out_str(w, ")\n");
    }
    if (rows < nf) opscope_out_printf(w, "  ... %zu more\n", nf - rows);
}

static void regressions(opscope_out_t *w, const opscope_diff_t *d) {
    const opscope_diff_opts *op = opscope_diff_get_opts(d);
    if (op->fail_pct < 0) return;
    const opscope_diff_summary *sm = opscope_diff_get_summary(d);
    bool runs = opscope_diff_total_tested(d);
    opscope_out_printf(w, "\n  Regression check (--fail-on-regression %g%%: slower by more than "
                          "%g%%%s beyond the noise, one-sided p < %.2g each (--alpha %g over the "
                          "checks); %sgroups of at least %g%% of the time): %s\n",
                       op->fail_pct, op->fail_pct, runs ? "" : " and than the rest of the run",
                       opscope_diff_alpha_check(d), op->alpha, runs ? "the total and " : "",
                       op->min_share, opscope_diff_failed(d) ? "FAILED" : "passed");
    if (!runs)
        opscope_out_str(w, "    the total is not checked: with one run a side a busier machine "
                           "cannot be told from slower code (give several runs a side)\n");
    if (sm->total_regression)
        opscope_out_printf(w, "    total time %+.1f%%\n",
                           100.0 * (sm->new_total - sm->base_total) / sm->base_total);
    for (size_t i = 0; i < opscope_diff_n_rows(d); i++) {
        const opscope_diff_row *r = opscope_diff_row_get(d, i);
        if (!r->regression) continue;
        opscope_out_printf(w, "    %+.1f%%  ", 100.0 * r->delta_ns / r->base_ns);
        put_cut(w, r->name, CONSOLE_NAME_COLS);
        opscope_out_char(w, '\n');
    }
}

void opscope_diff_write_console(opscope_out_t *w, const opscope_diff_t *d,
                                const opscope_diff_report_opts *o) {
    header(w, d, o);
    opscope_diff_tests_write_text(w, o);
    opscope_diff_requests_write_text(w, o);
    if (o->tests_only || o->requests_only) return;
    table(w, d, o->top ? o->top : CONSOLE_TOP, TABLE_CONSOLE);
    opscope_diff_write_sampled(w, d, o->top ? o->top : CONSOLE_TOP, false);
    opscope_diff_threads_write_text(w, d, o->top ? o->top : CONSOLE_TOP, false);
    opscope_diff_trace_ops_write_text(w, o, true);
    fusions(w, d, 10, true);
    regressions(w, d);
}

void opscope_diff_write_text(opscope_out_t *w, const opscope_diff_t *d,
                             const opscope_diff_report_opts *o) {
    header(w, d, o);
    opscope_diff_tests_write_text(w, o);
    opscope_diff_requests_write_text(w, o);
    if (o->tests_only || o->requests_only) return;
    table(w, d, 0, TABLE_ALL_ROWS);
    opscope_diff_write_sampled(w, d, 0, true);
    opscope_diff_threads_write_text(w, d, 0, true);
    opscope_diff_trace_ops_write_text(w, o, false);
    fusions(w, d, 0, false);
    regressions(w, d);
}
