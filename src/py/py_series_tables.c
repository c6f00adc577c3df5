/* py_series_tables.c - a trace's queue length and memory bandwidth over time as columns (see
 * py_tables.h): the changes the analyses kept (analyze/kineto/kqueue.h, kmembw.h), one row
 * each, in their order. */
#include "py/py_tables.h"

#include "analyze/kineto/kmembw.h"
#include "analyze/kineto/kqueue.h"
#include "analyze/kineto/kstats.h"

/* "queue_series": per stream (by device, then stream), the queue's length after each change,
 * counted out at the activity's start (HTA's series). */
static int queue_table(opscope_py_table *t, const opscope_kqueue_t *q) {
    size_t nq = 0, rows = 0;
    const opscope_kqueue_stream *st = q ? opscope_kqueue_streams(q, &nq) : NULL;
    for (size_t i = 0; i < nq; i++) rows += st[i].keys[OPSCOPE_KQUEUE_OUT_START] ? st[i].n_keys[OPSCOPE_KQUEUE_OUT_START] : 0;
    opscope_py_table_init(t, "queue_series", rows);
    int64_t *dev = opscope_py_table_i64(t, "device"), *sid = opscope_py_table_i64(t, "stream");
    int64_t *ts = opscope_py_table_i64(t, "ts_ns"), *len = opscope_py_table_i64(t, "queue_length");
    for (size_t i = 0, r = 0; len && i < nq; i++) {
        const int64_t *keys = st[i].keys[OPSCOPE_KQUEUE_OUT_START];
        int64_t v = 0;
        for (size_t j = 0; keys && j < st[i].n_keys[OPSCOPE_KQUEUE_OUT_START]; j++, r++) {
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

int opscope_py_series_tables(opscope_py_table *t, const opscope_kineto_t *k) {
    const opscope_kstats_t *ks = k ? opscope_kineto_kstats(k) : NULL;
    int rc = queue_table(&t[0], ks ? opscope_kstats_queue(ks) : NULL);
    rc |= membw_table(&t[1], k ? opscope_kineto_kmembw(k) : NULL);
    return rc ? -1 : 0;
}
