/* py_series_tables.c - a trace's queue length and memory bandwidth over time as columns (the
 * changes the analyses kept: analyze/kineto/kqueue.h, kmembw.h, one row each, in their order)
 * and its kernel sequences per CPU op and per aten op (kseq.h, katen.h), see py_tables.h. */
#include "py/py_tables.h"

#include "analyze/kineto/kmembw.h"
#include "analyze/kineto/kqueue.h"
#include "analyze/kineto/kseq.h"
#include "analyze/kineto/kstats.h"
#include "util/strbuf.h"

/* "queue_series": per stream (by device, then stream), the queue's length after each change,
 * counted out at the activity's start, the times as HTA reads them (HTA's series). */
static int queue_table(opscope_py_table *t, const opscope_kqueue_t *q) {
    size_t nq = 0, rows = 0;
    const opscope_kqueue_stream *st = q ? opscope_kqueue_streams(q, &nq) : NULL;
    for (size_t i = 0; i < nq; i++) rows += st[i].keys[OPSCOPE_KQUEUE_OUT_START_HTA] ? st[i].n_keys[OPSCOPE_KQUEUE_OUT_START_HTA] : 0;
    opscope_py_table_init(t, "queue_series", rows);
    int64_t *dev = opscope_py_table_i64(t, "device"), *sid = opscope_py_table_i64(t, "stream");
    int64_t *ts = opscope_py_table_i64(t, "ts_ns"), *len = opscope_py_table_i64(t, "queue_length");
    for (size_t i = 0, r = 0; len && i < nq; i++) {
        const int64_t *keys = st[i].keys[OPSCOPE_KQUEUE_OUT_START_HTA];
        int64_t v = 0;
        for (size_t j = 0; keys && j < st[i].n_keys[OPSCOPE_KQUEUE_OUT_START_HTA]; j++, r++) {
            v += opscope_kqueue_key_up(keys[j]) ? 1 : -1;
            dev[r] = st[i].device, sid[r] = st[i].stream;
            ts[r] = opscope_kqueue_key_time(keys[j]), len[r] = v;
        }
    }
    return opscope_py_table_seal(t);
}

/* "membw_series": per kind of copy (by name), the bandwidth summed over its activities after
 * each change (HTA's series), with the device of the activity that made it. */
static int membw_table(opscope_py_table *t, const opscope_kmembw_t *m) {
    size_t nm = 0, rows = 0;
    const opscope_kmembw_kind *kd = m ? opscope_kmembw_kinds(m, &nm) : NULL;
    for (size_t i = 0; i < nm; i++) rows += kd[i].pts ? kd[i].n_pts : 0;
    opscope_py_table_init(t, "membw_series", rows);
    int name = opscope_py_table_str(t, "name");
    int64_t *dev = opscope_py_table_i64(t, "device"), *ts = opscope_py_table_i64(t, "ts_ns");
    double *bw = opscope_py_table_f64(t, "memory_bw_gbps");
    for (size_t i = 0, r = 0; bw && i < nm; i++)
        for (size_t p = 0; kd[i].pts && p < kd[i].n_pts; p++, r++) {
            opscope_py_table_str_set(t, name, r, kd[i].name);
            dev[r] = kd[i].pts[p].device, ts[r] = kd[i].pts[p].ts_ns, bw[r] = kd[i].pts[p].gbps;
        }
    return opscope_py_table_seal(t);
}

/* "launches": per GPU activity, in the kernels table's order, its launching runtime call
 * (opscope_kineto_gpu_launch): correlation, call (its name), call_start_ns, call_dur_ns (-1 and
 * no name for none), hta_delay_ns (HTA's launch delay, not clipped; 0 for none). Rows only
 * when WANTED. */
static int launch_table(opscope_py_table *t, const opscope_kineto_t *k, bool wanted) {
    size_t n = k && wanted ? opscope_kineto_n_gpu(k) : 0;
    const opscope_strtab_t *names = k ? opscope_kineto_names(k) : NULL;
    opscope_py_table_init(t, "launches", n);
    int64_t *corr = opscope_py_table_i64(t, "correlation");
    int call = opscope_py_table_str(t, "call");
    int64_t *start = opscope_py_table_i64(t, "call_start_ns"), *dur = opscope_py_table_i64(t, "call_dur_ns");
    int64_t *delay = opscope_py_table_i64(t, "hta_delay_ns");
    for (size_t i = 0; delay && i < n; i++) {
        opscope_kineto_launch_call c;
        if (opscope_kineto_gpu_launch(k, i, &c)) {
            corr[i] = start[i] = dur[i] = -1, delay[i] = 0;
            continue;
        }
        corr[i] = c.corr, start[i] = c.start_ns, dur[i] = c.dur_ns, delay[i] = c.hta_delay_ns;
        if (names && c.name < opscope_strtab_count(names))
            opscope_py_table_str_set(t, call, i, opscope_strtab_get(names, c.name));
    }
    return opscope_py_table_seal(t);
}

int opscope_py_series_tables(opscope_py_table *t, const opscope_kineto_t *k, bool launches) {
    const opscope_kstats_t *ks = k ? opscope_kineto_kstats(k) : NULL;
    int rc = queue_table(&t[0], ks ? opscope_kstats_queue(ks) : NULL);
    rc |= membw_table(&t[1], k ? opscope_kineto_kmembw(k) : NULL);
    rc |= launch_table(&t[2], k, launches);
    return rc ? -1 : 0;
}

/* The patterns P[0..N) as table NAME: op, kernels (the sequence's names joined by SEP),
 * n_kernels, count, gpu_ns, cpu_ns (the two sums of kseq.h's or katen.h's pattern), first_ns. */
static int pattern_table(opscope_py_table *t, const char *name, const opscope_kseq_pattern *p, size_t n,
                         const opscope_strtab_t *names, const char *sep) {
    opscope_py_table_init(t, name, n);
    int op = opscope_py_table_str(t, "op"), seq = opscope_py_table_str(t, "kernels");
    int64_t *len = opscope_py_table_i64(t, "n_kernels"), *count = opscope_py_table_i64(t, "count");
    int64_t *gpu = opscope_py_table_i64(t, "gpu_ns"), *cpu = opscope_py_table_i64(t, "cpu_ns");
    int64_t *first = opscope_py_table_i64(t, "first_ns");
    opscope_strbuf b = OPSCOPE_STRBUF_INIT;
    for (size_t i = 0; first && names && i < n; i++) {
        opscope_strbuf_reset(&b);
        for (size_t j = 0; j < p[i].len; j++) {
            if (j) opscope_strbuf_add_str(&b, sep);
            opscope_strbuf_add_str(&b, p[i].names[j] < opscope_strtab_count(names) ? opscope_strtab_get(names, p[i].names[j]) : "");
        }
        if (b.failed) t->failed = true;
        opscope_py_table_str_set(t, op, i, p[i].op < opscope_strtab_count(names) ? opscope_strtab_get(names, p[i].op) : NULL);
        opscope_py_table_str_set(t, seq, i, opscope_strbuf_cstr(&b));
        len[i] = (int64_t)p[i].len, count[i] = (int64_t)p[i].count;
        gpu[i] = (int64_t)p[i].gpu_ns, cpu[i] = (int64_t)p[i].cpu_ns, first[i] = p[i].first_ns;
    }
    opscope_strbuf_free(&b);
    return opscope_py_table_seal(t);
}

int opscope_py_seq_tables(opscope_py_table *t, const opscope_kineto_t *k) {
    const opscope_strtab_t *names = k ? opscope_kineto_names(k) : NULL;
    size_t ns = 0, na = 0;
    const opscope_kseq_pattern *s = k ? opscope_kseq_patterns(opscope_kineto_kseq(k), &ns) : NULL;
    const opscope_kseq_pattern *a = k ? opscope_kseq_patterns(opscope_kineto_katen(k), &na) : NULL;
    int rc = pattern_table(&t[0], "kernel_seqs", s, s ? ns : 0, names, "|");
    rc |= pattern_table(&t[1], "aten_kernels", a, a ? na : 0, names, " -> ");
    return rc ? -1 : 0;
}
