/*
 * opscope_py.h - the entry points of the Python package (python/opscope) into libopscope.so.
 *
 * One call reads an input the way `opscope report` does (one pass, the report's session and
 * analyses) and hands back a result: the JSON summary `report --json` writes (a string; the
 * events are not in it) and tables as columns, which the package wraps in pandas DataFrames
 * with numpy.frombuffer. Columns are int64, double, or strings as int32 codes (-1: none) into
 * a dictionary given as one block of NUL-terminated strings in code order. Times are ns,
 * sizes bytes (docs/python.md lists each table's columns).
 *
 * Ownership: a result owns every pointer it hands out, valid until opscope_py_free of it.
 * NULL handling: the accessors take a result from opscope_py_load; an index out of range
 * gives 0 or NULL. Thread safety: a result belongs to one thread at a time; loads on
 * different threads are independent.
 */
#ifndef OPSCOPE_PY_H
#define OPSCOPE_PY_H

#include "opscope.h"

#include <stddef.h>
#include <stdint.h>

/* The layout version of these entry points; the package refuses a library of another one. */
#define OPSCOPE_PY_ABI 4
OPSCOPE_API int opscope_py_abi(void);

typedef struct opscope_py opscope_py_t;

/* Reads PATH (a ggml profile, a record log, a Kineto or Chrome trace, '.gz' too: anything
 * `opscope report PATH` reads) and returns its result, or NULL with ERR filled (file, line,
 * column and byte offset of bad input; OPSCOPE_ERROR_NOMEM when out of memory). */
OPSCOPE_API opscope_py_t *opscope_py_load(const char *path, opscope_error *err);

/* What a load keeps beyond the report's figures. SIZE is sizeof(opscope_py_options) as the
 * caller was built with: fields past it read as 0, so an older caller keeps working when
 * fields are added at the end. */
typedef struct opscope_py_options {
    size_t size;
    /* 1: keep a trace's queue length and memory bandwidth series (the tables "queue_series"
     * and "membw_series"; 8 bytes per queue change, 24 per bandwidth change); 0: those tables
     * have no rows. */
    int series;
    /* 1: each GPU activity's launching call as the table "launches"; 0: that table has no
     * rows. */
    int launches;
    /* Not NULL: the trace written back into this file with counter tracks (`report
     * --counters-trace`; export/kineto/ktrace_out.h), resp. with its critical path overlaid
     * (`report --critical-path-trace`); the file appears only when the load succeeds. */
    const char *counters_trace;
    const char *cpath_trace;
    /* Not NULL: the critical path's windows are every instance of this annotation (its whole
     * name) instead of the profiler steps (`report --critical-path-annotation`). */
    const char *cpath_annotation;
    /* 1 + the one instance of cpath_annotation to keep, or without it the one profiler step
     * (1: the first by start; `--critical-path-instance`), 0: every one. */
    int64_t cpath_instance1;
    /* 1: the table "cpu_ops" has no rows (its columns stay): the largest table of a trace, one
     * row per CPU op record, left out of a load that does not need it. */
    int no_cpu_ops;
    /* With cpath_trace: 1 writes only what HTA's only_show_critical_events keeps (the X
     * slices off the path left out; ktrace_out.h), 0 every event. */
    int cpath_only_critical;
    /* A trace read through HTA's profiler-step filter, as HTA loads it (`report --hta-steps`;
     * docs/kineto.md): 0 every event, 1 HTA's include_last_profiler_step=False (the events
     * before the last step), 2 its True (through the last step's end). Two reads of the file. */
    int hta_steps;
    /* 1: the tables "kernel_seqs" and "aten_kernels" have no rows and the summary's
     * kernel_sequences and aten_op_kernels lists are empty (not computed: a load that reads
     * them again only when they are asked for). */
    int no_sequences;
} opscope_py_options;

/* opscope_py_load with OPTS (NULL: every field 0). */
OPSCOPE_API opscope_py_t *opscope_py_load_opts(const char *path, const opscope_py_options *opts,
                                               opscope_error *err);

/* Reads the distributed job of INPUTS[0..N) (a folder of traces, traces, job summaries: what
 * `opscope report DIR` or `report A B C` reads, THREADS at once, 0: one per core) and returns
 * its result: the summary `{"summary":{"job":{...}}}` that `report DIR --json` writes, and the
 * tables "ranks", "stragglers", "collectives". NULL with ERR filled (the first input that
 * failed; nothing is printed). */
OPSCOPE_API opscope_py_t *opscope_py_job(const char *const *inputs, int n, int threads, opscope_error *err);

/* opscope_py_job, each trace of the job also loaded as opscope_py_load_opts(path, RANK_OPTS)
 * loads it, in the same read (each trace is read once): the result's parts (opscope_py_part),
 * one per rank in the "ranks" table's order. RANK_OPTS NULL: no parts, as opscope_py_job. */
OPSCOPE_API opscope_py_t *opscope_py_job_opts(const char *const *inputs, int n, int threads,
                                              const opscope_py_options *rank_opts, opscope_error *err);

/* A job's parts: how many (0: not a job of opscope_py_job_opts), and part I, owned by R (freed
 * with it; never passed to opscope_py_free), or NULL when I is out of range or its rank came
 * from a job summary rather than a trace. */
OPSCOPE_API size_t opscope_py_n_parts(const opscope_py_t *r);
OPSCOPE_API const opscope_py_t *opscope_py_part(const opscope_py_t *r, size_t i);

/* A diff's options, as `opscope diff`'s of the same names (NULL strings: the default):
 * --by, --per, --batch, --graphs, --steps; --min-share (percent; the CLI's default 0.5),
 * --alpha (0.05), --fail-on-regression (percent; < 0: not asked), --merge-backends,
 * --include-warmup. */
typedef struct opscope_py_diff_opts {
    const char *by, *per, *batch, *graphs, *steps;
    double min_share, alpha, fail_pct;
    int merge_backends, include_warmup;
} opscope_py_diff_opts;

/* Compares the runs PATHS[0..N_BASE) with PATHS[N_BASE..N_BASE+N_NEW) as `opscope diff BASE
 * NEW` (several runs a side: BASE1 BASE2 -- NEW1 NEW2) with O's options, and returns its
 * result: the document `diff --json` writes as the summary, and the tables "groups",
 * "fusions", "trace_cpu_ops", "trace_gpu_ops", "threads". NULL with ERR filled: bad input naming its
 * file; OPSCOPE_ERROR_USAGE for a bad option or inputs that cannot be compared as asked (the
 * message, valid until this thread's next diff, is the one the CLI prints). Nothing is
 * printed. */
OPSCOPE_API opscope_py_t *opscope_py_diff(const char *const *paths, size_t n_base, size_t n_new,
                                          const opscope_py_diff_opts *o, opscope_error *err);

/* HTA's straggler rule (analyze/job/job_hta.h) over the chosen steps of a job's ranks, from
 * their "step_spans" and "comm_kernels" tables: SPANS[0..4 * N_SPANS) rows of (rank, step,
 * start_ns, end_ns), COMMS[0..6 * N_COMMS) rows of (rank, step, stream, name code, start_ns,
 * dur_ns), ranks as the caller's indexes and one name code per name over the ranks. Writes
 * up to NUM ranks, most often stragglers first, into OUT (*N_OUT of them). Returns 0; 1 when
 * no NCCL kernel qualifies as the metric's; -1 out of memory. Thread safe. */
OPSCOPE_API int opscope_py_hta_stragglers(const int64_t *spans, size_t n_spans, const int64_t *comms, size_t n_comms,
                                          int num, int64_t *out, size_t *n_out);

/* Frees R and everything it handed out. NULL is a no-op. */
OPSCOPE_API void opscope_py_free(opscope_py_t *r);

/* The summary: a NUL-terminated JSON object `{"opscope_summary":1,"summary":{...}}`, *LEN
 * (may be NULL) its length. */
OPSCOPE_API const char *opscope_py_summary(const opscope_py_t *r, size_t *len);

/* The tables, in a fixed order ("ops", "requests", "tests", "kernels", "cpu_ops", "steps",
 * "streams", "collectives", "kernel_stats", "stream_stats", "queue_series", "membw_series",
 * "launches", "kernel_seqs", "aten_kernels", "cupti_kernels", "cupti_values";
 * a job's: "ranks", "stragglers", "collectives"): each present, with 0 rows where
 * the input has none. */
OPSCOPE_API size_t opscope_py_n_tables(const opscope_py_t *r);
OPSCOPE_API const char *opscope_py_table_name(const opscope_py_t *r, size_t t);
OPSCOPE_API size_t opscope_py_table_rows(const opscope_py_t *r, size_t t);
OPSCOPE_API size_t opscope_py_table_cols(const opscope_py_t *r, size_t t);

/* Column C of table T: its name, type (0 int64, 1 double, 2 string codes: int32), its rows'
 * values (never NULL for a valid column), and for a string column the dictionary block and
 * its size in bytes (*LEN; may be NULL). */
OPSCOPE_API const char *opscope_py_col_name(const opscope_py_t *r, size_t t, size_t c);
OPSCOPE_API int opscope_py_col_type(const opscope_py_t *r, size_t t, size_t c);
OPSCOPE_API const void *opscope_py_col_data(const opscope_py_t *r, size_t t, size_t c);
OPSCOPE_API const char *opscope_py_col_dict(const opscope_py_t *r, size_t t, size_t c, size_t *len);

#endif /* OPSCOPE_PY_H */
