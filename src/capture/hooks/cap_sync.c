/*
 * cap_sync.c - the interposed ggml_backend_synchronize, for backends that run elsewhere
 * (ggml's RPC backend): their graph compute only sends the graph, and the client waits for
 * the remote compute in the synchronize that follows (ggml-rpc makes it a round trip). Each
 * such wait becomes one SYNCHRONIZE record on the backend's lane, so the client's profile
 * shows where its time went and opscope merge can bound the server's compute by it. Other
 * backends pass straight through (no record, no timestamp).
 */
#include "capture/store/cap_buf.h"
#include "capture/store/cap_clock.h"
#include "capture/store/cap_counters.h"
#include "capture/resolve/cap_devices.h"
#include "capture/resolve/cap_resolve.h"
#include "capture/store/cap_tables.h"
#include "capture/hooks/cap_tls.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <string.h>

/* Always the real one, whatever state the capture is in (never a silent no-op). */
static void real_sync(ggml_backend_t backend) {
    void (*fn)(ggml_backend_t) = opscope_cap_ggml.synchronize;
    if (!fn) {
        *(void **)&fn = dlsym(RTLD_NEXT, "ggml_backend_synchronize");
    }
    if (fn) {
        fn(backend);
    }
}

static void emit_wait(int bi, uint64_t t0, uint64_t t1) {
    opscope_cap_rec *r = opscope_cap_buf_alloc(0);
    if (!r) {
        opscope_cap_buf_note_dropped(1);
        return;
    }
    r->kind = OPSCOPE_CAP_KIND_OP;
    r->op = 0; /* GGML_OP_NONE: the name comes from the flags */
    r->sub_kind = 0;
    r->sub_op = 0;
    r->api = 0;
    memset(r->fused, 0, sizeof r->fused);
    r->n_fused = 1;
    r->flags = OPSCOPE_CAP_F_SPLIT_ONLY | OPSCOPE_CAP_F_SYNC;
    r->backend = (int16_t)bi;
    r->sched = -1;
    r->thread = (int16_t)opscope_cap_buf_thread_id();
    r->split = -1;
    r->node = -1;
    r->out_type = -1;
    r->graph = -1;
    r->t0 = t0;
    r->t1 = t1;
    r->bytes = 0;
    memset(r->ne, 0, sizeof r->ne);
    memset(r->op_params, 0, sizeof r->op_params);
    r->name[0] = '\0';
    opscope_cap_buf_commit(r);
    atomic_fetch_add_explicit(&opscope_cap_stats.records, 1, memory_order_relaxed);
}

OPSCOPE_EXPORT void ggml_backend_synchronize(ggml_backend_t backend) {
    if (!opscope_cap_ggml_ready()) {
        real_sync(backend);
        return;
    }
    int sched = opscope_cap_thread.in_sched ? opscope_cap_thread.sched_id : -1;
    if (!backend || opscope_cap_thread.depth || !opscope_cap_should_record(sched)) {
        real_sync(backend);
        return;
    }
    int bi = opscope_cap_backend_of(backend);
    const opscope_cap_backend *be = bi >= 0 ? opscope_cap_backend_at(bi) : NULL;
    if (!be || strncmp(be->name, "RPC", 3) != 0) {
        real_sync(backend);
        return;
    }
    opscope_cap_thread.depth++;
    uint64_t t0 = opscope_cap_now();
    real_sync(backend);
    uint64_t t1 = opscope_cap_now();
    emit_wait(bi, t0, t1);
    opscope_cap_thread.depth--;
}
