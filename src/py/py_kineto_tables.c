/* py_kineto_tables.c - a trace's activities, CPU ops, steps, streams and collectives as
 * columns (see py_tables.h). */
#include "py/py_tables.h"

#include "analyze/kineto/collectives.h"
#include "analyze/kineto/cpu_ops.h"
#include "read/kernel_rules.h"

/* A name id of the trace's string table, NULL for none (UINT32_MAX). */
static const char *name_of(const opscope_strtab_t *names, uint32_t id) {
    return id == UINT32_MAX ? NULL : opscope_strtab_get(names, id);
}

/* -1 for an id that is none (UINT32_MAX), else the id. */
static int64_t id_or_none(uint32_t id) { return id == UINT32_MAX ? -1 : (int64_t)id; }

int opscope_py_kernels(opscope_py_table *t, const opscope_kineto_t *k) {
    static const char *const kinds[] = {"kernel", "memcpy", "memset"};
    size_t n = k ? opscope_kineto_n_gpu(k) : 0;
    const opscope_strtab_t *names = k ? opscope_kineto_names(k) : NULL;
    opscope_py_table_init(t, "kernels", n);
    int name = opscope_py_table_str(t, "name"), kind = opscope_py_table_str(t, "kind");
    int cat = opscope_py_table_str(t, "category"), cpu = opscope_py_table_str(t, "cpu_op");
    int dims = opscope_py_table_str(t, "cpu_dims"), phase = opscope_py_table_str(t, "phase");
    int64_t *dev = opscope_py_table_i64(t, "device"), *stream = opscope_py_table_i64(t, "stream");
    int64_t *start = opscope_py_table_i64(t, "start_ns"), *dur = opscope_py_table_i64(t, "dur_ns");
    int64_t *call = opscope_py_table_i64(t, "cpu_call"), *layer = opscope_py_table_i64(t, "layer");
    for (size_t i = 0; i < n && !opscope_py_table_failed(t); i++) {
        opscope_kineto_gpu_info g;
        opscope_kineto_gpu_get(k, i, &g);
        opscope_py_table_str_set(t, name, i, name_of(names, g.name_id));
        opscope_py_table_str_set(t, kind, i, g.kind <= OPSCOPE_KINETO_MEMSET ? kinds[g.kind] : NULL);
        opscope_py_table_str_set(t, cat, i, g.kind == OPSCOPE_KINETO_KERNEL ? opscope_kernel_category_name(g.kcat) : NULL);
        opscope_py_table_str_set(t, cpu, i, name_of(names, g.cpu_op));
        opscope_py_table_str_set(t, dims, i, name_of(names, g.cpu_dims));
        opscope_py_table_str_set(t, phase, i, opscope_kineto_phase_name(g.phase));
        dev[i] = g.device;
        stream[i] = g.stream;
        start[i] = g.start_ns;
        dur[i] = g.dur_ns;
        call[i] = id_or_none(g.cpu_call);
        layer[i] = id_or_none(g.layer);
    }
    return opscope_py_table_seal(t);
}

int opscope_py_cpu_ops(opscope_py_table *t, const opscope_kineto_t *k) {
    const opscope_cpu_ops_t *c = k ? opscope_kineto_cpu_ops(k) : NULL;
    const opscope_cpu_ops_results *r = c ? opscope_cpu_ops_results_get(c) : NULL;
    const opscope_strtab_t *names = k ? opscope_kineto_names(k) : NULL;
    size_t n = r ? r->n_recs : 0;
    opscope_py_table_init(t, "cpu_ops", n);
    int name = opscope_py_table_str(t, "name"), kind = opscope_py_table_str(t, "kind");
    int phase = opscope_py_table_str(t, "phase"), dims = opscope_py_table_str(t, "input_dims");
    int types = opscope_py_table_str(t, "input_types");
    int64_t *pid = opscope_py_table_i64(t, "pid"), *tid = opscope_py_table_i64(t, "tid");
    int64_t *start = opscope_py_table_i64(t, "start_ns"), *end = opscope_py_table_i64(t, "end_ns");
    int64_t *self = opscope_py_table_i64(t, "self_ns"), *depth = opscope_py_table_i64(t, "depth");
    int64_t *parent = opscope_py_table_i64(t, "parent"), *step = opscope_py_table_i64(t, "step");
    for (size_t i = 0; i < n && !opscope_py_table_failed(t); i++) {
        const opscope_cpu_op_rec *o = &r->recs[i];
        const opscope_cpu_thread *th = o->thread < r->n_threads ? &r->threads[o->thread] : NULL;
        opscope_py_table_str_set(t, name, i, name_of(names, o->name));
        opscope_py_table_str_set(t, kind, i, opscope_cpu_kind_name(o->kind));
        opscope_py_table_str_set(t, phase, i, opscope_cpu_phase_name(o->phase));
        opscope_py_table_str_set(t, dims, i, name_of(names, o->dims));
        opscope_py_table_str_set(t, types, i, name_of(names, o->types));
        pid[i] = th ? th->pid : -1;
        tid[i] = th ? th->tid : -1;
        start[i] = o->start_ns;
        end[i] = o->end_ns;
        self[i] = (int64_t)o->self_ns;
        depth[i] = o->depth;
        parent[i] = id_or_none(o->parent);
        step[i] = id_or_none(o->step);
    }
    return opscope_py_table_seal(t);
}

int opscope_py_steps(opscope_py_table *t, const opscope_kineto_t *k) {
    const opscope_kineto_results *r = k ? opscope_kineto_get_results(k) : NULL;
    size_t n = r ? r->n_steps : 0;
    opscope_py_table_init(t, "steps", n);
    int64_t *num = opscope_py_table_i64(t, "step"), *start = opscope_py_table_i64(t, "start_ns");
    int64_t *dur = opscope_py_table_i64(t, "dur_ns");
    for (size_t i = 0; i < n && !opscope_py_table_failed(t); i++) {
        num[i] = r->steps[i].number;
        start[i] = (int64_t)r->steps[i].start_ns;
        dur[i] = (int64_t)r->steps[i].dur_ns;
    }
    return opscope_py_table_seal(t);
}

int opscope_py_streams(opscope_py_table *t, const opscope_kineto_t *k) {
    const opscope_kineto_results *r = k ? opscope_kineto_get_results(k) : NULL;
    size_t n = r ? r->n_streams : 0;
    opscope_py_table_init(t, "streams", n);
    int64_t *dev = opscope_py_table_i64(t, "device"), *stream = opscope_py_table_i64(t, "stream");
    int64_t *cnt = opscope_py_table_i64(t, "activities"), *first = opscope_py_table_i64(t, "first_ns");
    int64_t *last = opscope_py_table_i64(t, "last_ns"), *busy = opscope_py_table_i64(t, "busy_ns");
    int64_t *comp = opscope_py_table_i64(t, "compute_ns"), *comm = opscope_py_table_i64(t, "comm_ns");
    int64_t *mem = opscope_py_table_i64(t, "memory_ns"), *idle = opscope_py_table_i64(t, "idle_ns");
    int64_t *over = opscope_py_table_i64(t, "overlapped");
    for (size_t i = 0; i < n && !opscope_py_table_failed(t); i++) {
        const opscope_kineto_stream *s = &r->streams[i];
        dev[i] = s->device;
        stream[i] = s->stream;
        cnt[i] = (int64_t)s->n;
        first[i] = (int64_t)s->first_ns;
        last[i] = (int64_t)s->last_ns;
        busy[i] = (int64_t)s->busy_ns;
        comp[i] = (int64_t)s->compute_ns;
        comm[i] = (int64_t)s->comm_ns;
        mem[i] = (int64_t)s->memory_ns;
        idle[i] = (int64_t)s->idle_ns;
        over[i] = (int64_t)s->overlapped;
    }
    return opscope_py_table_seal(t);
}

int opscope_py_collectives(opscope_py_table *t, const opscope_kineto_t *k) {
    const opscope_colls_t *c = k ? opscope_kineto_colls(k) : NULL;
    size_t n = 0;
    bool on_kernels = false;
    const opscope_job_coll *rows = c ? opscope_colls_rows(c, &n, &on_kernels) : NULL;
    if (!rows) n = 0;
    opscope_py_table_init(t, "collectives", n);
    int type = opscope_py_table_str(t, "type");
    int64_t *bucket = opscope_py_table_i64(t, "size_log2"), *gs = opscope_py_table_i64(t, "group_size");
    int64_t *cnt = opscope_py_table_i64(t, "count"), *bytes = opscope_py_table_i64(t, "bytes");
    int64_t *bus = opscope_py_table_i64(t, "bus_bytes"), *time = opscope_py_table_i64(t, "time_ns");
    for (size_t i = 0; i < n && !opscope_py_table_failed(t); i++) {
        opscope_py_table_str_set(t, type, i, rows[i].type);
        bucket[i] = rows[i].bucket;
        gs[i] = rows[i].group_size;
        cnt[i] = (int64_t)rows[i].count;
        bytes[i] = (int64_t)rows[i].bytes;
        bus[i] = (int64_t)rows[i].bus_bytes;
        time[i] = rows[i].time_ns;
    }
    return opscope_py_table_seal(t);
}
