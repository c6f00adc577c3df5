/*
 * py_load.c - the Python package's load: the session `opscope report PATH --json` runs (the
 * same analyses, the critical path among them), with one output, the JSON summary into
 * memory, then the tables copied from the finished analyses (see opscope_py.h).
 */
#include "py/opscope_py.h"

#include "analyze/job/job_rank.h"
#include "export/kineto/ktrace_out.h"
#include "export/outputs/summary_json.h"
#include "py/py_mem.h"
#include "py/py_result.h"
#include "py/py_tables.h"
#include "read/kineto_filter.h"
#include "read/mem_timeline.h"
#include "read/readers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PY_SERIES_AT (OPSCOPE_PY_GGML_TABLES + OPSCOPE_PY_KINETO_TABLES)
#define PY_SEQ_AT (PY_SERIES_AT + OPSCOPE_PY_SERIES_TABLES)
#define PY_ANNOT_AT (PY_SEQ_AT + OPSCOPE_PY_SEQ_TABLES + OPSCOPE_PY_CUPTI_TABLES)
#define PY_STRAG_AT (PY_ANNOT_AT + OPSCOPE_PY_ANNOT_TABLES)
#define PY_TABLES (PY_STRAG_AT + OPSCOPE_PY_STRAG_TABLES)
_Static_assert(PY_TABLES <= OPSCOPE_PY_MAX_TABLES, "a load's tables fit a result");

FILE *opscope_py_summary_stream(opscope_py_t *r) { return open_memstream(&r->summary, &r->summary_len); }

int opscope_py_abi(void) { return OPSCOPE_PY_ABI; }

static int nomem(opscope_error *err) {
    *err = (opscope_error){.code = OPSCOPE_ERROR_NOMEM, .msg = "out of memory"};
    return -1;
}

/* Every table of R from S's finished analyses. Returns 0, or -1 when out of memory. */
static int fill_tables(opscope_py_t *r, const opscope_session_t *s, const opscope_py_options *o) {
    int rc = opscope_py_ggml_tables(r->tables, opscope_session_stats(s), opscope_session_graphs(s));
    rc |= opscope_py_kineto_tables(r->tables + OPSCOPE_PY_GGML_TABLES, opscope_session_kineto(s), !o->no_cpu_ops);
    rc |= opscope_py_series_tables(r->tables + PY_SERIES_AT, opscope_session_kineto(s), o->launches != 0);
    rc |= opscope_py_seq_tables(r->tables + PY_SEQ_AT, opscope_session_kineto(s));
    rc |= opscope_py_cupti_tables(r->tables + PY_SEQ_AT + OPSCOPE_PY_SEQ_TABLES, opscope_session_kineto(s));
    rc |= opscope_py_annot_tables(r->tables + PY_ANNOT_AT, opscope_session_kineto(s));
    rc |= opscope_py_strag_tables(r->tables + PY_STRAG_AT, opscope_session_kineto(s));
    r->n_tables = PY_TABLES; /* each initialised, on failure too */
    return rc ? -1 : 0;
}

/* read_finish's answer when a read tried once through HTA's keep-last filter must be read again
 * filtered (readers.h, hta_steps_once). */
enum { READ_AGAIN = 4 };

/* Reads PATH into S (its one output writing the summary to FP) and finishes; with JR the rank's
 * figures see the same events (opscope_job_rank_tee) and are computed into SUM before S's names
 * go; ONCE: HTA's keep-last filter tried in one read. Returns 0, READ_AGAIN, or the job
 * reader's status (job_load.h: 1 bad input, 2 out of memory, 3 no trace events) with ERR
 * filled. */
static int read_finish(opscope_session_t *s, const char *path, opscope_job_rank_t *jr,
                       opscope_job_rank_summary *sum, int once, opscope_error *err) {
    opscope_sink sink = opscope_session_sink(s);
    opscope_read_status status;
    memset(&status, 0, sizeof status);
    opscope_read_options ro = {.status = &status};
    opscope_session_read_options(s, &ro);
    ro.hta_steps_once = once;
    if (jr && !(ro.kineto = opscope_job_rank_tee(jr, ro.kineto))) return nomem(err), 2;
    if (opscope_read_file_opts(path, OPSCOPE_FORMAT_AUTO, &sink, &ro, err)) {
        if (err->code == OPSCOPE_ERROR_ABORTED) opscope_session_stopped(s, err);
        if (!err->file[0]) snprintf(err->file, sizeof err->file, "%s", path);
        return 1;
    }
    if (status.hta_reread) return READ_AGAIN; /* nothing committed: the outputs are dropped */
    if (jr && !opscope_job_rank_events(jr)) {
        *err = (opscope_error){.code = OPSCOPE_ERROR_FORMAT, .msg = "no trace events"};
        snprintf(err->file, sizeof err->file, "%s", path);
        return 3;
    }
    if (opscope_session_finish(s, err)) return 1;
    if (opscope_session_commit(s, NULL, NULL)) return nomem(err), 2;
    return jr && opscope_job_rank_finish(jr, sum) ? (nomem(err), 2) : 0;
}

/* The summary's writer: a memory stream (*FP, its buffer in R) as the session's one output,
 * asking for what OPTS keeps (the series; the launching calls' names). */
static int add_summary(opscope_session_t *s, opscope_py_t *r, const opscope_py_options *opts, FILE **fp,
                       opscope_error *err) {
    *fp = opscope_py_summary_stream(r);
    if (!*fp) return nomem(err);
    opscope_out_t *w = opscope_out_from_file(*fp, err);
    opscope_output o;
    if (!w || opscope_output_summary_json(&o, w, err)) return -1;
    o.kineto_series = opts->series != 0;
    o.kineto_links = opts->launches != 0; /* the reader then keeps the runtime calls' names */
    return opscope_session_add(s, &o) ? nomem(err) : 0;
}

/* The trace written back, with counter tracks or its critical path, where O asks for them. */
static int add_traces(opscope_session_t *s, const char *path, const opscope_py_options *o, opscope_error *err) {
    opscope_output out;
    if (o->counters_trace &&
        (opscope_output_counters_trace(&out, o->counters_trace, path, err) || opscope_session_add(s, &out)))
        return -1;
    if (o->cpath_trace && opscope_output_cpath_trace(&out, o->cpath_trace, path, err)) return -1;
    if (o->cpath_trace && o->cpath_only_critical) opscope_output_cpath_trace_only_critical(&out);
    if (o->cpath_trace && opscope_session_add(s, &out)) return -1;
    return 0;
}

opscope_py_t *opscope_py_load(const char *path, opscope_error *err) { return opscope_py_load_opts(path, NULL, err); }

/* opscope_py_read's one read of PATH with O (ONCE as read_finish's). */
static int read_with(const char *path, const opscope_py_options *o, opscope_job_rank_summary *sum, int once,
                     opscope_py_t **out, opscope_error *err) {
    opscope_py_t *r = calloc(1, sizeof *r);
    /* report's session: its defaults (five top records), every analysis of a single input */
    opscope_session_opts so = {.stats = {.top_kernels = 5}, .graphs = true, .rpc = true,
                               .kineto = true, .critical_path = true, .cpath_annotation = o->cpath_annotation,
                               .cpath_instance1 = o->cpath_instance1, .hta_steps = o->hta_steps,
                               .no_sequences = o->no_sequences != 0};
    opscope_session_t *s = r ? opscope_session_new(&so) : NULL;
    opscope_job_rank_t *jr = sum ? opscope_job_rank_new(NULL) : NULL;
    FILE *fp = NULL;
    int rc = !s || (sum && !jr) ? (nomem(err), 2) : add_summary(s, r, o, &fp, err) ? 2 : 0;
    if (!rc && add_traces(s, path, o, err)) rc = 1;
    if (!rc) rc = read_finish(s, path, jr, sum, once, err);
    if (!rc && fill_tables(r, s, o)) rc = (nomem(err), 2);
    opscope_job_rank_free(jr);
    opscope_session_free(s); /* aborts the summary's writer when it was not committed */
    if (fp && fclose(fp) && !rc) rc = (nomem(err), 2);
    if (!rc && !r->summary) rc = (nomem(err), 2);
    if (rc) {
        opscope_py_free(r);
        return rc;
    }
    *out = r;
    return 0;
}

int opscope_py_read(const char *path, const opscope_py_options *opts, opscope_job_rank_summary *sum,
                    opscope_py_t **out, opscope_error *err) {
    memset(err, 0, sizeof *err);
    *out = NULL;
    if (!sum && opscope_mem_timeline_is(path)) { /* as `report` tells it apart */
        *out = opscope_py_mem_load(path, err);
        return *out ? 0 : err->code == OPSCOPE_ERROR_NOMEM ? 2 : 1;
    }
    /* the caller's struct up to its size; later fields 0 */
    opscope_py_options o = {0};
    if (opts) memcpy(&o, opts, opts->size < sizeof o ? opts->size : sizeof o);
    /* HTA's keep-last filter drops nothing from most traces: one read, checked, first */
    int rc = read_with(path, &o, sum, o.hta_steps == OPSCOPE_KINETO_STEPS_KEEP_LAST, out, err);
    if (rc == READ_AGAIN) {
        if (sum) opscope_job_rank_summary_free(sum);
        memset(err, 0, sizeof *err);
        rc = read_with(path, &o, sum, 0, out, err);
    }
    return rc;
}

opscope_py_t *opscope_py_load_opts(const char *path, const opscope_py_options *opts, opscope_error *err) {
    opscope_py_t *r = NULL;
    opscope_py_read(path, opts, NULL, &r, err);
    return r;
}

void opscope_py_free(opscope_py_t *r) {
    if (!r) return;
    for (size_t i = 0; i < r->n_parts; i++) opscope_py_free(r->parts[i]);
    free(r->parts);
    for (size_t i = 0; i < r->n_tables; i++) opscope_py_table_free(&r->tables[i]);
    free(r->summary);
    free(r);
}

const char *opscope_py_summary(const opscope_py_t *r, size_t *len) {
    if (len) *len = r->summary_len;
    return r->summary;
}

size_t opscope_py_n_tables(const opscope_py_t *r) { return r->n_tables; }

size_t opscope_py_n_parts(const opscope_py_t *r) { return r->n_parts; }
const opscope_py_t *opscope_py_part(const opscope_py_t *r, size_t i) { return i < r->n_parts ? r->parts[i] : NULL; }

static const opscope_py_table *table(const opscope_py_t *r, size_t t) {
    return t < r->n_tables ? &r->tables[t] : NULL;
}

static const opscope_py_col *col(const opscope_py_t *r, size_t t, size_t c) {
    const opscope_py_table *tb = table(r, t);
    return tb && c < tb->n_cols ? &tb->cols[c] : NULL;
}

const char *opscope_py_table_name(const opscope_py_t *r, size_t t) {
    return table(r, t) ? table(r, t)->name : NULL;
}
size_t opscope_py_table_rows(const opscope_py_t *r, size_t t) { return table(r, t) ? table(r, t)->n_rows : 0; }
size_t opscope_py_table_cols(const opscope_py_t *r, size_t t) { return table(r, t) ? table(r, t)->n_cols : 0; }
const char *opscope_py_col_name(const opscope_py_t *r, size_t t, size_t c) {
    return col(r, t, c) ? col(r, t, c)->name : NULL;
}
int opscope_py_col_type(const opscope_py_t *r, size_t t, size_t c) { return col(r, t, c) ? (int)col(r, t, c)->type : -1; }
const void *opscope_py_col_data(const opscope_py_t *r, size_t t, size_t c) {
    return col(r, t, c) ? col(r, t, c)->data : NULL;
}
const char *opscope_py_col_dict(const opscope_py_t *r, size_t t, size_t c, size_t *len) {
    const opscope_py_col *cl = col(r, t, c);
    if (len) *len = cl ? cl->blob_len : 0;
    return cl ? cl->blob : NULL;
}
