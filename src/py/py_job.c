/*
 * py_job.c - the Python package's job: loaded as `opscope report DIR` loads it
 * (analyze/job/job_load.h), its JSON summary written by the report's writer into memory, and
 * its ranks, stragglers and collectives per type copied as columns (see opscope_py.h).
 */
#include "analyze/job/job_load.h"
#include "export/job/job_report.h"
#include "py/py_result.h"

#include <stdlib.h>
#include <string.h>

/* The rank summary of row I of the job SRC. */
static const void *rank_row(const void *src, size_t i, void *scratch) {
    (void)scratch;
    return ((const opscope_job *)src)->rows[i].s;
}

#define RW(m, k, c) OPSCOPE_PY_FIELD(opscope_job_row, m, k, c)
static const opscope_py_field row_fields[] = {
    RW(path, OPSCOPE_PY_CSTR, "trace"), RW(busy_pct, OPSCOPE_PY_F64, "busy_pct"), RW(idle_pct, OPSCOPE_PY_F64, "idle_pct"),
    RW(compute_pct, OPSCOPE_PY_F64, "compute_pct"), RW(non_compute_pct, OPSCOPE_PY_F64, "non_compute_pct"),
    RW(comm_pct, OPSCOPE_PY_F64, "comm_pct"), RW(memory_pct, OPSCOPE_PY_F64, "memory_pct"),
    RW(input_pct, OPSCOPE_PY_F64, "input_pct"), RW(overlap_pct, OPSCOPE_PY_F64, "overlap_pct"),
    RW(step_dev_pct, OPSCOPE_PY_F64, "step_dev_pct"),
};

#define RS(m, k, c) OPSCOPE_PY_FIELD(opscope_job_rank_summary, m, k, c)
static const opscope_py_field rank_fields[] = {
    RS(rank, OPSCOPE_PY_I64, "rank"), RS(world_size, OPSCOPE_PY_I64, "world_size"),
    RS(backend, OPSCOPE_PY_CHARS, "backend"), RS(gpu, OPSCOPE_PY_BOOL, "gpu"),
    RS(gpu_activities, OPSCOPE_PY_U64, "gpu_activities"), RS(cpu_ops, OPSCOPE_PY_U64, "cpu_ops"),
    /* the rank's times (docs/job.md) */
    RS(span_ns, OPSCOPE_PY_I64, "span_ns"), RS(busy_ns, OPSCOPE_PY_I64, "busy_ns"), RS(idle_ns, OPSCOPE_PY_I64, "idle_ns"),
    RS(compute_ns, OPSCOPE_PY_I64, "compute_ns"), RS(comm_ns, OPSCOPE_PY_I64, "comm_ns"),
    RS(memory_ns, OPSCOPE_PY_I64, "memory_ns"), RS(input_ns, OPSCOPE_PY_I64, "input_ns"),
    RS(overlap_ns, OPSCOPE_PY_I64, "overlap_ns"),
    /* its streams' idle split, summed */
    RS(host_wait_ns, OPSCOPE_PY_I64, "host_wait_ns"), RS(kernel_wait_ns, OPSCOPE_PY_I64, "kernel_wait_ns"),
    RS(other_wait_ns, OPSCOPE_PY_I64, "other_wait_ns"),
    RS(n_steps, OPSCOPE_PY_U64, "steps"), RS(step_median_ns, OPSCOPE_PY_I64, "step_median_ns"),
};

static const char *cause_name(int c) { return opscope_job_cause_name((opscope_job_cause)c); }

#define SG(m, k, c) OPSCOPE_PY_FIELD(opscope_job_straggler, m, k, c)
static const opscope_py_field straggler_fields[] = {
    SG(rank, OPSCOPE_PY_I64, "rank"), OPSCOPE_PY_LABELED(opscope_job_straggler, cause, cause_name, "cause"),
    SG(wait_ns, OPSCOPE_PY_I64, "wait_ns"), SG(excess_ns, OPSCOPE_PY_I64, "excess_ns"),
};

#define CT(m, k, c) OPSCOPE_PY_FIELD(opscope_job_coll_type, m, k, c)
static const opscope_py_field coll_fields[] = {
    CT(tot.type, OPSCOPE_PY_CHARS, "type"), CT(tot.count, OPSCOPE_PY_U64, "count"), CT(tot.bytes, OPSCOPE_PY_U64, "bytes"),
    CT(tot.bus_bytes, OPSCOPE_PY_U64, "bus_bytes"), CT(tot.time_ns, OPSCOPE_PY_I64, "time_ns"),
    CT(algbw_gbps, OPSCOPE_PY_F64, "algbw_gbps"), CT(busbw_gbps, OPSCOPE_PY_F64, "busbw_gbps"),
    CT(busbw_min_gbps, OPSCOPE_PY_F64, "busbw_min_gbps"), CT(busbw_median_gbps, OPSCOPE_PY_F64, "busbw_median_gbps"),
    CT(busbw_max_gbps, OPSCOPE_PY_F64, "busbw_max_gbps"), CT(skew_pct, OPSCOPE_PY_F64, "skew_pct"),
    CT(slowest_rank, OPSCOPE_PY_I64, "slowest_rank"), CT(late_rank, OPSCOPE_PY_I64, "late_rank"),
    CT(median_time_ns, OPSCOPE_PY_I64, "median_time_ns"), CT(late_wait_ns, OPSCOPE_PY_I64, "late_wait_ns"),
    CT(time_min_ns, OPSCOPE_PY_I64, "time_min_ns"), CT(time_max_ns, OPSCOPE_PY_I64, "time_max_ns"),
    CT(time_skew_pct, OPSCOPE_PY_F64, "time_skew_pct"),
};

#define NF(a) (sizeof a / sizeof *a)

/* R's summary (the job report's JSON) and tables from JOB. Returns 0, or -1 when out of memory. */
static int fill_job(opscope_py_t *r, const opscope_job *job, int threads, double wall_s) {
    FILE *fp = opscope_py_summary_stream(r);
    opscope_error err;
    opscope_out_t *w = fp ? opscope_out_from_file(fp, &err) : NULL;
    int rc = w ? 0 : -1;
    if (w) {
        opscope_job_read_info ri = {.threads = threads, .wall_s = wall_s};
        opscope_job_report_json(w, job, &ri);
        rc = opscope_out_commit(w, &err);
    }
    if (fp && fclose(fp)) rc = -1;
    opscope_py_table *t = r->tables;
    r->n_tables = 3;
    opscope_py_rows rows = {.src = job->rows, .n = job->n, .stride = sizeof *job->rows};
    rc |= opscope_py_table_build(&t[0], "ranks", &rows, row_fields, NF(row_fields));
    opscope_py_rows sums = {.src = job, .n = job->n, .get = rank_row};
    rc |= opscope_py_table_add(&t[0], &sums, rank_fields, NF(rank_fields));
    opscope_py_rows sg = {.src = job->stragglers, .n = job->n_stragglers, .stride = sizeof *job->stragglers};
    rc |= opscope_py_table_build(&t[1], "stragglers", &sg, straggler_fields, NF(straggler_fields));
    opscope_py_rows ct = {.src = job->colls.types, .n = job->colls.n_types, .stride = sizeof *job->colls.types};
    rc |= opscope_py_table_build(&t[2], "collectives", &ct, coll_fields, NF(coll_fields));
    for (int i = 0; i < 3; i++) rc |= opscope_py_table_seal(&t[i]);
    return rc || !r->summary ? -1 : 0;
}

/* The job reader of opscope_py_job_opts: each trace read by the package's own load (UD: its
 * options), the rank's figures teed into the same read; the rank's result is left in *USER. */
static int read_rank(void *ud, const char *path, opscope_job_rank_summary *sum, void **user, opscope_error *err) {
    opscope_py_t *r = NULL;
    int rc = opscope_py_read(path, ud, sum, &r, err);
    *user = r;
    return rc;
}

static void drop_rank(void *user) { opscope_py_free(user); }

/* Hands each row's load (left by read_rank) from SET to R, in the rows' order. Returns 0, or -1
 * when out of memory. */
static int take_parts(opscope_py_t *r, opscope_job_set_t *set, const opscope_job *job) {
    if (!job->n) return 0;
    if (!(r->parts = calloc(job->n, sizeof *r->parts))) return -1;
    r->n_parts = job->n;
    for (size_t i = 0; i < job->n; i++) r->parts[i] = opscope_job_set_row_take(set, &job->rows[i]);
    return 0;
}

opscope_py_t *opscope_py_job(const char *const *inputs, int n, int threads, opscope_error *err) {
    return opscope_py_job_opts(inputs, n, threads, NULL, err);
}

opscope_py_t *opscope_py_job_opts(const char *const *inputs, int n, int threads, const opscope_py_options *rank_opts,
                                  opscope_error *err) {
    opscope_py_options ro = {0};
    if (rank_opts) memcpy(&ro, rank_opts, rank_opts->size < sizeof ro ? rank_opts->size : sizeof ro);
    opscope_job_reader rd = {.read = read_rank, .drop = drop_rank, .ud = &ro};
    opscope_job_load_opts o = {.threads = threads, .rd = rank_opts ? &rd : NULL};
    opscope_job_set_t *set = NULL;
    if (opscope_job_load(inputs, n, &o, &set, err)) return NULL;
    opscope_py_t *r = calloc(1, sizeof *r);
    int th = 0;
    double wall = 0;
    const opscope_job *job = opscope_job_set_job(set, &th, &wall);
    if (!r || fill_job(r, job, th, wall) || (rank_opts && take_parts(r, set, job))) {
        *err = (opscope_error){.code = OPSCOPE_ERROR_NOMEM, .msg = "out of memory"};
        opscope_py_free(r);
        r = NULL;
    }
    opscope_job_set_free(set);
    return r;
}
