/* cap_drops.c - the drop ledger (see cap_drops.h). */
#include "capture/store/cap_drops.h"

#include "capture/store/cap_buf.h"
#include "capture/store/cap_counters.h"

#include <stdatomic.h>

static _Atomic uint64_t g_drop_graphs;
static _Atomic int64_t g_drop_first = INT64_MAX, g_drop_last = -1;
static uint64_t g_cap_mb; /* set at start-up when the cap is the record log's (cap_log.h) */

static _Atomic bool g_log_full; /* the record log's cap dropped records */

void opscope_cap_drops_set_cap_mb(uint64_t mb) {
    g_cap_mb = mb;
}

void opscope_cap_drops_log_full(int64_t first, int64_t last, uint64_t graphs) {
    atomic_store(&g_log_full, true);
    atomic_fetch_add_explicit(&g_drop_graphs, graphs, memory_order_relaxed);
    int64_t v = atomic_load_explicit(&g_drop_first, memory_order_relaxed);
    while (first < v && !atomic_compare_exchange_weak(&g_drop_first, &v, first)) {
    }
    v = atomic_load_explicit(&g_drop_last, memory_order_relaxed);
    while (last > v && !atomic_compare_exchange_weak(&g_drop_last, &v, last)) {
    }
}

void opscope_cap_drops_check(int64_t gid, uint64_t before) {
    if (gid < 0 || opscope_cap_buf_dropped_here() == before) {
        return;
    }
    atomic_fetch_add_explicit(&g_drop_graphs, 1, memory_order_relaxed);
    int64_t v = atomic_load_explicit(&g_drop_first, memory_order_relaxed);
    while (gid < v && !atomic_compare_exchange_weak(&g_drop_first, &v, gid)) {
    }
    v = atomic_load_explicit(&g_drop_last, memory_order_relaxed);
    while (gid > v && !atomic_compare_exchange_weak(&g_drop_last, &v, gid)) {
    }
}

void opscope_cap_drops_get(opscope_cap_drops *out) {
    out->graphs = atomic_load(&g_drop_graphs);
    int64_t first = atomic_load(&g_drop_first);
    out->first = out->graphs ? first : -1;
    out->last = out->graphs ? atomic_load(&g_drop_last) : -1;
}

void opscope_cap_drops_meta(opscope_meta *meta) {
    /* device work a GPU source could not time is missing from the profile too */
    uint64_t buf = opscope_cap_buf_dropped(), lost = atomic_load(&opscope_cap_stats.gpu_lost);
    meta->dropped_records = buf + lost;
    meta->capture_cap_mb = g_cap_mb ? g_cap_mb : opscope_cap_buf_limit() >> 20;
    if (!meta->dropped_records) {
        return;
    }
    opscope_cap_drops d;
    opscope_cap_drops_get(&d);
    meta->dropped_graphs = d.graphs;
    meta->dropped_first_graph = d.first;
    meta->dropped_last_graph = d.last;
    meta->dropped_cause = !buf ? OPSCOPE_DROP_DEVICE
                        : opscope_cap_buf_drop_oom() ? OPSCOPE_DROP_OUT_OF_MEMORY
                        : atomic_load(&g_log_full) ? OPSCOPE_DROP_LOG_CAP : OPSCOPE_DROP_CAP;
}
