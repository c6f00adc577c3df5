/*
 * py_diff.c - the Python package's diff: both sides read and compared as `opscope diff`
 * reads them (analyze/diff/diff_load.h), the diff's JSON written by its writer into memory,
 * and its groups, fusions, trace ops and CPU threads copied as columns (see opscope_py.h).
 */
#include "analyze/diff/diff_load.h"
#include "export/diff/diff_report.h"
#include "export/diff/diff_view.h"
#include "py/py_result.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The columns: a member of the diff's rows, groups, fusions and trace op pairs. */
#define RW(m, k, c) OPSCOPE_PY_FIELD(opscope_diff_row, m, k, c)
#define GK(m, c) OPSCOPE_PY_FIELD(opscope_diff_group, m, OPSCOPE_PY_CSTR, c)
#define GS(m, c) OPSCOPE_PY_FIELD(opscope_diff_group, m, OPSCOPE_PY_U64, c)
#define FU(m, k, c) OPSCOPE_PY_FIELD(opscope_diff_fusion, m, k, c)
#define TP(m, k, c) OPSCOPE_PY_FIELD(opscope_trace_op_pair, m, k, c)

/* The load's refusal, where ERR's message points (valid until this thread's next diff). */
static _Thread_local char refusal[8192];

static const char *status_name(int s) {
    return s == OPSCOPE_DIFF_BOTH ? "both" : s == OPSCOPE_DIFF_ONLY_BASE ? "only_base" : "only_new";
}

static const char *fusion_kind(int k) { return k == OPSCOPE_DIFF_FUSION_GGML ? "ggml" : "cpu_op"; }

/* Fusion I of the diff SRC. */
static const void *fusion_row(const void *src, size_t i, void *scratch) {
    (void)scratch;
    return opscope_diff_fusion_get(src, i);
}

/* Row I of the diff SRC. */
static const void *diff_row(const void *src, size_t i, void *scratch) {
    (void)scratch;
    return opscope_diff_row_get(src, i);
}

/* The group of row I on one side (a zeroed group where that side lacks it). */
static const void *row_group(const opscope_diff_t *d, size_t i, void *scratch, bool newer) {
    const opscope_diff_row *r = opscope_diff_row_get(d, i);
    const opscope_diff_group *g = newer ? r->newg : r->base;
    if (g) return g;
    memset(scratch, 0, sizeof *g);
    return scratch;
}
static const void *base_group(const void *src, size_t i, void *scratch) { return row_group(src, i, scratch, false); }
static const void *new_group(const void *src, size_t i, void *scratch) { return row_group(src, i, scratch, true); }
/* The key's parts: the new side's group, else the base's (as the JSON's "key"). */
static const void *key_group(const void *src, size_t i, void *scratch) {
    const opscope_diff_row *r = opscope_diff_row_get(src, i);
    return r->newg ? (const void *)r->newg : row_group(src, i, scratch, false);
}

static const opscope_py_field row_fields[] = {
    RW(name, OPSCOPE_PY_CSTR, "name"), OPSCOPE_PY_LABELED(opscope_diff_row, status, status_name, "status"),
    RW(base_ns, OPSCOPE_PY_F64, "base_norm_ns"), RW(new_ns, OPSCOPE_PY_F64, "new_norm_ns"),
    RW(delta_ns, OPSCOPE_PY_F64, "delta_ns"), RW(ratio, OPSCOPE_PY_F64, "ratio"),
    RW(base_share, OPSCOPE_PY_F64, "base_share_pct"), RW(new_share, OPSCOPE_PY_F64, "new_share_pct"),
    RW(p_value, OPSCOPE_PY_F64, "p_value"), RW(significant, OPSCOPE_PY_BOOL, "significant"),
    RW(shown, OPSCOPE_PY_BOOL, "shown"), RW(regression, OPSCOPE_PY_BOOL, "regression"),
};

static const opscope_py_field key_fields[] = {
    GK(op, "op"), GK(backend, "backend"), GK(shape, "shape"), GK(category, "category"),
    GK(cpu_op, "cpu_op"), GK(layer, "layer"), GK(phase, "phase"),
};

/* Each side's raw figures of the group (before any normalisation). */
static const opscope_py_field base_fields[] = {
    GS(count, "base_count"), GS(calls, "base_calls"), GS(total_ns, "base_total_ns"),
    GS(min_ns, "base_min_ns"), GS(max_ns, "base_max_ns"),
};
static const opscope_py_field new_fields[] = {
    GS(count, "new_count"), GS(calls, "new_calls"), GS(total_ns, "new_total_ns"),
    GS(min_ns, "new_min_ns"), GS(max_ns, "new_max_ns"),
};

static const opscope_py_field fusion_fields[] = {
    OPSCOPE_PY_LABELED(opscope_diff_fusion, kind, fusion_kind, "kind"), FU(name, OPSCOPE_PY_CSTR, "name"),
    FU(base_calls, OPSCOPE_PY_U64, "base_calls"), FU(base_kernels, OPSCOPE_PY_U64, "base_kernels"),
    FU(base_ns, OPSCOPE_PY_F64, "base_ns"), FU(new_calls, OPSCOPE_PY_U64, "new_calls"),
    FU(new_kernels, OPSCOPE_PY_U64, "new_kernels"), FU(new_ns, OPSCOPE_PY_F64, "new_ns"),
    FU(delta_ns, OPSCOPE_PY_F64, "delta_ns"), FU(kernel, OPSCOPE_PY_CSTR, "kernel"),
};

static const opscope_py_field pair_fields[] = {
    TP(name, OPSCOPE_PY_CSTR, "name"), TP(count[0], OPSCOPE_PY_U64, "base_count"),
    TP(ns[0], OPSCOPE_PY_U64, "base_ns"), TP(count[1], OPSCOPE_PY_U64, "new_count"),
    TP(ns[1], OPSCOPE_PY_U64, "new_ns"),
};

/* A group's CPU threads compared (diff.h's opscope_diff_thread_cmp): unknown figures NaN. */
typedef struct thread_row {
    const char *name;
    opscope_diff_threads base, newer;
    double speedup, efficiency, base_imbalance, new_imbalance, base_wait_share, new_wait_share;
} thread_row;

static double known(double v) { return v >= 0 ? v : NAN; }

static const void *threads_row(const void *src, size_t i, void *scratch) {
    const opscope_diff_row *r = opscope_diff_row_get(src, i);
    thread_row *t = scratch;
    opscope_diff_thread_cmp c;
    opscope_diff_thread_cmp_get(src, r, &c);
    memset(t, 0, sizeof *t);
    t->name = r->name;
    if (r->base) t->base = r->base->threads;
    if (r->newg) t->newer = r->newg->threads;
    t->speedup = known(c.speedup);
    t->efficiency = known(c.efficiency);
    t->base_imbalance = known(c.base_imbalance);
    t->new_imbalance = known(c.new_imbalance);
    t->base_wait_share = known(c.base_wait_share);
    t->new_wait_share = known(c.new_wait_share);
    return t;
}

#define TH(m, k, c) OPSCOPE_PY_FIELD(thread_row, m, k, c)
static const opscope_py_field thread_fields[] = {
    TH(name, OPSCOPE_PY_CSTR, "name"),
    TH(base.n, OPSCOPE_PY_U64, "base_n"), TH(base.work_ns, OPSCOPE_PY_U64, "base_work_ns"),
    TH(base.work_mean_ns, OPSCOPE_PY_U64, "base_work_mean_ns"), TH(base.work_max_ns, OPSCOPE_PY_U64, "base_work_max_ns"),
    TH(base.wait_ns, OPSCOPE_PY_U64, "base_wait_ns"),
    TH(newer.n, OPSCOPE_PY_U64, "new_n"), TH(newer.work_ns, OPSCOPE_PY_U64, "new_work_ns"),
    TH(newer.work_mean_ns, OPSCOPE_PY_U64, "new_work_mean_ns"), TH(newer.work_max_ns, OPSCOPE_PY_U64, "new_work_max_ns"),
    TH(newer.wait_ns, OPSCOPE_PY_U64, "new_wait_ns"),
    TH(speedup, OPSCOPE_PY_F64, "speedup"), TH(efficiency, OPSCOPE_PY_F64, "efficiency"),
    TH(base_imbalance, OPSCOPE_PY_F64, "base_imbalance"), TH(new_imbalance, OPSCOPE_PY_F64, "new_imbalance"),
    TH(base_wait_share, OPSCOPE_PY_F64, "base_wait_share"), TH(new_wait_share, OPSCOPE_PY_F64, "new_wait_share"),
};

#define NF(a) (sizeof a / sizeof *a)

/* "groups": a row per group of the comparison, its key's parts and each side's raw figures. */
static int groups_table(opscope_py_table *t, const opscope_diff_t *d) {
    size_t n = opscope_diff_n_rows(d);
    opscope_py_rows rows = {.src = d, .n = n, .get = diff_row};
    int rc = opscope_py_table_build(t, "groups", &rows, row_fields, NF(row_fields));
    opscope_py_rows keys = {.src = d, .n = n, .stride = sizeof(opscope_diff_group), .get = key_group};
    rc |= opscope_py_table_add(t, &keys, key_fields, NF(key_fields));
    keys.get = base_group;
    rc |= opscope_py_table_add(t, &keys, base_fields, NF(base_fields));
    keys.get = new_group;
    rc |= opscope_py_table_add(t, &keys, new_fields, NF(new_fields));
    return rc;
}

/* R's summary (the diff's JSON, as `diff --json` writes it) and tables from the load L (O). */
static int fill_diff(opscope_py_t *r, const opscope_diff_load_t *l, const opscope_diff_load_opts *o) {
    opscope_diff_view v;
    memset(&v, 0, sizeof v);
    opscope_diff_view_fill(&v, l, o, 0);
    FILE *fp = opscope_py_summary_stream(r);
    opscope_error err;
    opscope_out_t *w = fp ? opscope_out_from_file(fp, &err) : NULL;
    int rc = w ? 0 : -1;
    if (w) {
        opscope_diff_write_json(w, v.d, &v.ro);
        rc = opscope_out_commit(w, &err);
    }
    if (fp && fclose(fp)) rc = -1;
    opscope_py_table *t = r->tables;
    r->n_tables = 5;
    rc |= groups_table(&t[0], v.d);
    opscope_py_rows fu = {.src = v.d, .n = opscope_diff_n_fusions(v.d), .get = fusion_row};
    rc |= opscope_py_table_build(&t[1], "fusions", &fu, fusion_fields, NF(fusion_fields));
    const opscope_trace_ops_cmp *c = v.ro.trace_ops;
    opscope_py_rows cpu = {.src = c ? c->cpu : NULL, .n = c ? c->n_cpu : 0, .stride = sizeof *c->cpu};
    rc |= opscope_py_table_build(&t[2], "trace_cpu_ops", &cpu, pair_fields, NF(pair_fields));
    opscope_py_rows gpu = {.src = c ? c->gpu : NULL, .n = c ? c->n_gpu : 0, .stride = sizeof *c->gpu};
    rc |= opscope_py_table_build(&t[3], "trace_gpu_ops", &gpu, pair_fields, NF(pair_fields));
    /* a row per group when a side has per-thread times, else none */
    opscope_py_rows th = {.src = v.d, .n = opscope_diff_threads_compared(v.d) ? opscope_diff_n_rows(v.d) : 0,
                          .stride = sizeof(thread_row), .get = threads_row};
    rc |= opscope_py_table_build(&t[4], "threads", &th, thread_fields, NF(thread_fields));
    for (int i = 0; i < 5; i++) rc |= opscope_py_table_seal(&t[i]);
    return rc || !r->summary ? -1 : 0;
}

static int usage(opscope_error *err, const char *msg) {
    *err = (opscope_error){.code = OPSCOPE_ERROR_USAGE, .msg = msg};
    return -1;
}

/* P's options into O, as the command line's parse them. Returns 0, or -1 with ERR filled. */
static int take_opts(const opscope_py_diff_opts *p, opscope_diff_load_opts *o, opscope_error *err) {
    const char *bad = NULL;
    o->by = p->by;
    if (p->by && !strcmp(p->by, "test")) o->tests_only = true;
    else if (p->by && !strcmp(p->by, "request")) o->requests_only = true;
    else if (p->by && opscope_diff_keys_parse(p->by, &o->keys, &bad))
        return usage(err, "by: unknown key (op, kernel, shape, category, cpu-op, layer, phase; or test or "
                          "request alone)");
    if (p->per && opscope_diff_norm_parse(p->per, &o->norm))
        return usage(err, "per: expected auto, none, graph, token or iteration");
    if (p->batch && opscope_graph_select_set(&o->select, true, p->batch))
        return usage(err, "batch: expected N, A-B or A- (integers >= 0), decode or prefill");
    if (p->graphs && opscope_graph_select_set(&o->select, false, p->graphs))
        return usage(err, "graphs: expected N, A-B or A- (graph ids >= 0)");
    opscope_range steps;
    if (p->steps && !opscope_range_parse(p->steps, &steps)) return usage(err, "steps: expected N, A-B or A-");
    if (p->steps) o->steps = (opscope_trace_steps){false, steps.lo, steps.hi};
    if (!(p->min_share >= 0 && p->min_share <= 100)) return usage(err, "min_share: expected a percentage in 0..100");
    if (!(p->alpha >= 1e-12 && p->alpha <= 0.5)) return usage(err, "alpha: expected a number in (0, 0.5]");
    o->min_share = p->min_share;
    o->alpha = p->alpha;
    o->fail_pct = p->fail_pct;
    o->merge_backends = p->merge_backends;
    o->include_warmup = p->include_warmup;
    return 0;
}

/* The reader of a load without progress: opscope_read_file_opts, naming PATH when it did not. */
static int read_quiet(const char *path, opscope_format format, const opscope_sink *sink, opscope_read_options *ro,
                      opscope_error *err) {
    opscope_read_options none = {0};
    int rc = opscope_read_file_opts(path, format, sink, ro ? ro : &none, err);
    if (rc && !err->file[0]) snprintf(err->file, sizeof err->file, "%s", path);
    return rc;
}

opscope_py_t *opscope_py_diff(const char *const *paths, size_t n_base, size_t n_new, const opscope_py_diff_opts *p,
                              opscope_error *err) {
    memset(err, 0, sizeof *err);
    opscope_diff_load_opts o;
    opscope_diff_load_opts_init(&o, read_quiet);
    o.paths[0] = paths;
    o.paths[1] = paths + n_base;
    o.n_in[0] = n_base;
    o.n_in[1] = n_new;
    size_t n_stdin = 0;
    for (size_t i = 0; i < n_base + n_new; i++) n_stdin += paths[i] && !strcmp(paths[i], "-");
    if (!n_base || !n_new || n_base > OPSCOPE_DIFF_MAX_INPUTS || n_new > OPSCOPE_DIFF_MAX_INPUTS) {
        usage(err, "diff: 1 to 64 runs a side");
        return NULL;
    }
    if (n_stdin > 1 || (n_stdin && p->batch)) {
        usage(err, "diff: at most one input from stdin, and none with batch (it reads each input twice)");
        return NULL;
    }
    if (take_opts(p, &o, err)) return NULL;
    opscope_diff_load_t *l = NULL;
    int rc = opscope_diff_load(&o, &l, err, refusal, sizeof refusal);
    if (rc > 0) usage(err, refusal);
    if (rc) return NULL;
    opscope_py_t *r = calloc(1, sizeof *r);
    if (!r || fill_diff(r, l, &o)) {
        *err = (opscope_error){.code = OPSCOPE_ERROR_NOMEM, .msg = "out of memory"};
        opscope_py_free(r);
        r = NULL;
    }
    opscope_diff_load_free(l);
    return r;
}
