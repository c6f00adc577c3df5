/*
 * chrome_threads.c - one Chrome track per CPU thread (see chrome_state.h): a CPU node with
 * per-thread times (opscope_record.threads) becomes, on each thread's track of its backend's
 * process, a "work" slice from the node's start for the thread's work, then a "wait" slice for
 * its wait at the node's barriers. The capture knows the two sums, not where inside the node
 * a MUL_MAT's inner barrier fell, so a node's slices are drawn as one work then one wait;
 * their sum is the node's span on thread 0 within the clocks' agreement.
 */
#include "export/chrome/chrome_state.h"
#include "export/fmt/json_fmt.h"

/* A thread's track id: past any lane's (chrome_lanes.c numbers them from 1). */
#define THREAD_TID_BASE 1000000u

static void slice(opscope_chrome_t *c, long pi, int i, const char *cat, const char *name, uint64_t ts,
                  uint64_t dur) {
    json_fmt f;
    jf_init(&f, c->out);
    if (c->n_events++) jf_char(&f, ',');
    jf_lit(&f, "\n{\"ph\":\"X\",\"cat\":");
    jf_str(&f, cat);
    jf_key(&f, "name");
    jf_str(&f, name);
    jf_key(&f, "pid");
    jf_u64(&f, (uint64_t)pi);
    jf_key(&f, "tid");
    jf_u64(&f, THREAD_TID_BASE + (uint64_t)i);
    jf_key(&f, "ts");
    jf_ns_as_us(&f, ts);
    jf_key(&f, "dur");
    jf_ns_as_us(&f, dur);
    jf_lit(&f, "}");
    jf_flush(&f);
}

void opscope_chrome_add_threads(opscope_chrome_t *c, const opscope_record *r, long pi, const char *name) {
    if (!(r->has & OPSCOPE_HAS_THREADS) || !r->threads || r->n_threads <= 0) return;
    chrome_proc *p = &c->procs[pi];
    int nt = r->n_threads > OPSCOPE_MAX_THREADS ? OPSCOPE_MAX_THREADS : r->n_threads;
    if (nt > p->n_threads) p->n_threads = nt;
    for (int i = 0; i < nt; i++) {
        uint64_t work = r->threads[2 * i], wait = r->threads[2 * i + 1];
        if (r->thread_cpus && r->thread_cpus[i] >= 0) p->thread_cpu[i] = r->thread_cpus[i] + 1;
        if (work) slice(c, pi, i, "thread_work", name, r->start_ns, work);
        if (wait) slice(c, pi, i, "thread_wait", "wait", r->start_ns + work, wait);
    }
}

void opscope_chrome_write_thread_tracks(opscope_chrome_t *c) {
    opscope_out_t *w = c->out;
    for (size_t pi = 0; pi < c->n_procs; pi++) {
        const chrome_proc *p = &c->procs[pi];
        for (int i = 0; i < p->n_threads; i++) {
            opscope_chrome_meta_event(c, "thread_name", (long)pi, (long)(THREAD_TID_BASE + (unsigned)i));
            if (p->thread_cpu[i] > 0)
                opscope_out_printf(w, "\"name\":\"CPU thread %d (CPU %d)\"}}", i, (int)p->thread_cpu[i] - 1);
            else
                opscope_out_printf(w, "\"name\":\"CPU thread %d\"}}", i);
            opscope_chrome_meta_event(c, "thread_sort_index", (long)pi, (long)(THREAD_TID_BASE + (unsigned)i));
            opscope_out_printf(w, "\"sort_index\":%lld}}", (long long)(((int64_t)1 << 41) + i)); /* below the copies */
        }
    }
}
