/* py_kineto_tables.c - a trace's activities, CPU ops, steps, streams and collectives as
 * columns (see py_tables.h). */
#include "py/py_tables.h"

#include "analyze/kineto/collectives.h"
#include "analyze/kineto/cpu_ops.h"
#include "analyze/kineto/kstats.h"
#include "read/kernel_rules.h"

static const char *gpu_kind(int kind) {
    static const char *const kinds[] = {"kernel", "memcpy", "memset"};
    return kind >= 0 && kind <= OPSCOPE_KINETO_MEMSET ? kinds[kind] : NULL;
}

static const char *kernel_category(int c) { return opscope_kernel_category_name((opscope_kernel_category)c); }

/* GPU activity I of the analysis SRC, copied into SCRATCH. */
static const void *gpu_row(const void *src, size_t i, void *scratch) {
    opscope_kineto_gpu_get(src, i, scratch);
    return scratch;
}

#define GPU(m, k, c) OPSCOPE_PY_FIELD(opscope_kineto_gpu_info, m, k, c)
static const opscope_py_field kernel_fields[] = {
    GPU(name_id, OPSCOPE_PY_NAME, "name"), OPSCOPE_PY_LABELED(opscope_kineto_gpu_info, kind, gpu_kind, "kind"),
    OPSCOPE_PY_LABELED(opscope_kineto_gpu_info, kcat, kernel_category, "category"), GPU(cpu_op, OPSCOPE_PY_NAME, "cpu_op"),
    GPU(cpu_dims, OPSCOPE_PY_NAME, "cpu_dims"), OPSCOPE_PY_LABELED(opscope_kineto_gpu_info, phase, opscope_kineto_phase_name, "phase"),
    GPU(device, OPSCOPE_PY_I64, "device"), GPU(stream, OPSCOPE_PY_I64, "stream"), GPU(start_ns, OPSCOPE_PY_I64, "start_ns"),
    GPU(dur_ns, OPSCOPE_PY_I64, "dur_ns"), GPU(cpu_call, OPSCOPE_PY_ID, "cpu_call"), GPU(layer, OPSCOPE_PY_ID, "layer"),
};

#define CPU(m, k, c) OPSCOPE_PY_FIELD(opscope_cpu_op_rec, m, k, c)
static const opscope_py_field cpu_fields[] = {
    CPU(name, OPSCOPE_PY_NAME, "name"), OPSCOPE_PY_LABELED(opscope_cpu_op_rec, kind, opscope_cpu_kind_name, "kind"),
    OPSCOPE_PY_LABELED(opscope_cpu_op_rec, phase, opscope_cpu_phase_name, "phase"), CPU(dims, OPSCOPE_PY_NAME, "input_dims"),
    CPU(types, OPSCOPE_PY_NAME, "input_types"), CPU(start_ns, OPSCOPE_PY_I64, "start_ns"), CPU(end_ns, OPSCOPE_PY_I64, "end_ns"),
    CPU(self_ns, OPSCOPE_PY_U64, "self_ns"), CPU(depth, OPSCOPE_PY_U16, "depth"), CPU(parent, OPSCOPE_PY_ID, "parent"),
    CPU(step, OPSCOPE_PY_ID, "step"),
};

static const opscope_py_field step_fields[] = {
    OPSCOPE_PY_FIELD(opscope_kineto_step, number, OPSCOPE_PY_I64, "step"),
    OPSCOPE_PY_FIELD(opscope_kineto_step, start_ns, OPSCOPE_PY_U64, "start_ns"),
    OPSCOPE_PY_FIELD(opscope_kineto_step, dur_ns, OPSCOPE_PY_U64, "dur_ns"),
};

#define ST(m, k, c) OPSCOPE_PY_FIELD(opscope_kineto_stream, m, k, c)
static const opscope_py_field stream_fields[] = {
    ST(device, OPSCOPE_PY_I64, "device"), ST(stream, OPSCOPE_PY_I64, "stream"), ST(n, OPSCOPE_PY_U64, "activities"),
    ST(first_ns, OPSCOPE_PY_U64, "first_ns"), ST(last_ns, OPSCOPE_PY_U64, "last_ns"), ST(busy_ns, OPSCOPE_PY_U64, "busy_ns"),
    ST(compute_ns, OPSCOPE_PY_U64, "compute_ns"), ST(comm_ns, OPSCOPE_PY_U64, "comm_ns"),
    ST(memory_ns, OPSCOPE_PY_U64, "memory_ns"), ST(idle_ns, OPSCOPE_PY_U64, "idle_ns"), ST(overlapped, OPSCOPE_PY_U64, "overlapped"),
};

#define CO(m, k, c) OPSCOPE_PY_FIELD(opscope_job_coll, m, k, c)
static const opscope_py_field coll_fields[] = {
    CO(type, OPSCOPE_PY_CHARS, "type"), CO(bucket, OPSCOPE_PY_I64, "size_log2"), CO(group_size, OPSCOPE_PY_I64, "group_size"),
    CO(count, OPSCOPE_PY_U64, "count"), CO(bytes, OPSCOPE_PY_U64, "bytes"), CO(bus_bytes, OPSCOPE_PY_U64, "bus_bytes"),
    CO(time_ns, OPSCOPE_PY_I64, "time_ns"),
};

#define KS(m, k, c) OPSCOPE_PY_FIELD(opscope_kstats_kernel, m, k, c)
static const opscope_py_field kstat_fields[] = {
    KS(name, OPSCOPE_PY_NAME, "name"), OPSCOPE_PY_LABELED(opscope_kstats_kernel, kind, gpu_kind, "kind"),
    KS(count, OPSCOPE_PY_U64, "count"), KS(sum_ns, OPSCOPE_PY_U64, "sum_ns"),
    KS(min_ns, OPSCOPE_PY_U64, "min_ns"), KS(max_ns, OPSCOPE_PY_U64, "max_ns"),
    /* HTA's mean and its standard deviation: the sample's (n - 1) */
    KS(mean_ns, OPSCOPE_PY_F64, "mean_ns"), KS(std_ns, OPSCOPE_PY_F64, "std_ns"),
};

/* HTA's per-stream figures (kstats.h): the queue of launched activities and the idle split */
#define QS(m, k, c) OPSCOPE_PY_FIELD(opscope_kstats_stream, m, k, c)
static const opscope_py_field sstat_fields[] = {
    QS(device, OPSCOPE_PY_I64, "device"), QS(stream, OPSCOPE_PY_I64, "stream"), QS(q_points, OPSCOPE_PY_U64, "queue_points"),
    QS(q_mean, OPSCOPE_PY_F64, "queue_mean"), QS(q_std, OPSCOPE_PY_F64, "queue_std"), QS(q_max, OPSCOPE_PY_I64, "queue_max"),
    QS(q_time_mean, OPSCOPE_PY_F64, "queue_time_mean"), QS(full_ns, OPSCOPE_PY_U64, "full_queue_ns"),
    QS(q_below_ns, OPSCOPE_PY_U64, "queue_below_ns"), QS(q_end_max, OPSCOPE_PY_I64, "queue_end_max"),
    QS(q_end_time_mean, OPSCOPE_PY_F64, "queue_end_time_mean"), QS(idle_host_ns, OPSCOPE_PY_I64, "idle_host_ns"),
    QS(idle_kernel_ns, OPSCOPE_PY_I64, "idle_kernel_ns"), QS(idle_other_ns, OPSCOPE_PY_I64, "idle_other_ns"),
    QS(idle_host_hta_us, OPSCOPE_PY_F64, "idle_host_hta_us"), QS(idle_kernel_hta_us, OPSCOPE_PY_F64, "idle_kernel_hta_us"),
    QS(idle_other_hta_us, OPSCOPE_PY_F64, "idle_other_hta_us"),
};

/* Adds the thread of each CPU op record as the trace names it: its (pid, tid). */
static void add_threads(opscope_py_table *t, const opscope_cpu_ops_results *r) {
    int64_t *pid = opscope_py_table_i64(t, "pid"), *tid = opscope_py_table_i64(t, "tid");
    for (size_t i = 0; r && pid && tid && i < r->n_recs; i++) {
        uint32_t th = r->recs[i].thread;
        pid[i] = th < r->n_threads ? r->threads[th].pid : -1;
        tid[i] = th < r->n_threads ? r->threads[th].tid : -1;
    }
}

#define NF(a) (sizeof a / sizeof *a)

int opscope_py_kineto_tables(opscope_py_table *t, const opscope_kineto_t *k, bool cpu_ops) {
    const opscope_kineto_results *r = k ? opscope_kineto_get_results(k) : NULL;
    const opscope_cpu_ops_t *c = k ? opscope_kineto_cpu_ops(k) : NULL;
    const opscope_cpu_ops_results *cr = c && cpu_ops ? opscope_cpu_ops_results_get(c) : NULL;
    const opscope_colls_t *colls = k ? opscope_kineto_colls(k) : NULL;
    size_t n_coll = 0;
    bool on_kernels = false;
    const opscope_job_coll *cv = colls ? opscope_colls_rows(colls, &n_coll, &on_kernels) : NULL;
    const opscope_strtab_t *names = k ? opscope_kineto_names(k) : NULL;
    const opscope_kstats_t *ks = k ? opscope_kineto_kstats(k) : NULL;
    size_t n_ks = 0, n_ss = 0;
    const opscope_kstats_kernel *kv = ks ? opscope_kstats_kernels(ks, &n_ks) : NULL;
    const opscope_kstats_stream *sv = ks ? opscope_kstats_streams(ks, &n_ss) : NULL;
    const struct {
        const char *name;
        opscope_py_rows rows;
        const opscope_py_field *f;
        size_t nf;
    } spec[OPSCOPE_PY_KINETO_TABLES] = {
        {"kernels", {k, k ? opscope_kineto_n_gpu(k) : 0, sizeof(opscope_kineto_gpu_info), gpu_row, names},
         kernel_fields, NF(kernel_fields)},
        {"cpu_ops", {cr ? cr->recs : NULL, cr ? cr->n_recs : 0, sizeof *cr->recs, NULL, names}, cpu_fields, NF(cpu_fields)},
        {"steps", {r ? r->steps : NULL, r ? r->n_steps : 0, sizeof *r->steps, NULL, NULL}, step_fields, NF(step_fields)},
        {"streams", {r ? r->streams : NULL, r ? r->n_streams : 0, sizeof *r->streams, NULL, NULL}, stream_fields,
         NF(stream_fields)},
        {"collectives", {cv, cv ? n_coll : 0, sizeof *cv, NULL, NULL}, coll_fields, NF(coll_fields)},
        {"kernel_stats", {kv, kv ? n_ks : 0, sizeof *kv, NULL, names}, kstat_fields, NF(kstat_fields)},
        {"stream_stats", {sv, sv ? n_ss : 0, sizeof *sv, NULL, NULL}, sstat_fields, NF(sstat_fields)},
    };
    int rc = 0;
    for (int i = 0; i < OPSCOPE_PY_KINETO_TABLES; i++) {
        rc |= opscope_py_table_build(&t[i], spec[i].name, &spec[i].rows, spec[i].f, spec[i].nf);
        if (i == 1) add_threads(&t[i], cr);
        rc |= opscope_py_table_seal(&t[i]);
    }
    return rc ? -1 : 0;
}
