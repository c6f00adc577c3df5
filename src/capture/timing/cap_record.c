/*
 * cap_record.c - building capture records from ggml tensors: the shared description of an
 * op (written once while its fields stay the same), the 80-byte event of each timed step,
 * the record of a split without per-op timing, and the GRAPH record of each compute.
 */
#include "capture/timing/cap_record.h"

#include "capture/store/cap_buf.h"
#include "capture/store/cap_clock.h"
#include "capture/store/cap_counters.h"
#include "capture/resolve/cap_resolve.h"
#include "opscope.h"
#include "util/hash.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static int count_src(const struct ggml_tensor *t) {
    int n = 0;
    for (int s = 0; s < GGML_MAX_SRC && s < OPSCOPE_MAX_SRC; s++) {
        if (t->src[s]) {
            n = s + 1;
        }
    }
    return n;
}

static void fill_op(opscope_cap_rec *r, const struct ggml_tensor *t) {
    r->kind = OPSCOPE_CAP_KIND_OP;
    r->op = (int16_t)t->op;
    r->sub_kind = OPSCOPE_CAP_SUB_NONE;
    r->sub_op = 0;
    if (t->op == GGML_OP_UNARY) {
        r->sub_kind = OPSCOPE_CAP_SUB_UNARY;
        r->sub_op = (int16_t)t->op_params[0];
    } else if (t->op == GGML_OP_GLU) {
        r->sub_kind = OPSCOPE_CAP_SUB_GLU;
        r->sub_op = (int16_t)t->op_params[0];
    }
    r->api = -1;
    r->out_type = (int32_t)t->type;
    memcpy(r->ne, t->ne, sizeof r->ne);
    memcpy(r->op_params, t->op_params, sizeof r->op_params);
    memcpy(r->name, t->name, OPSCOPE_CAP_NAME);
    r->name[OPSCOPE_CAP_NAME - 1] = '\0';
    for (int s = 0; s < r->n_src; s++) {
        const struct ggml_tensor *x = t->src[s];
        if (x) {
            memcpy(r->src[s].ne, x->ne, sizeof r->src[s].ne);
            memcpy(r->src[s].nb, x->nb, sizeof r->src[s].nb);
            r->src[s].type = (int32_t)x->type;
        } else {
            memset(&r->src[s], 0, sizeof r->src[s]);
            r->src[s].type = -1;
        }
        r->src[s].pad_ = 0;
    }
}

/* ---- shared descriptions ---- */

/* Per-thread direct-mapped cache: (tensor, its shapes) -> the DESC record written for it. A
 * hit needs every described field to be unchanged. The shapes are in the key so a tensor
 * whose shapes alternate (a server's batches of 1, 2, 3... tokens) finds each shape's
 * description again instead of writing a new one at every change: descriptions are kept for
 * the whole run (cap_buf.h), so they must stop growing once the program's shapes are seen. */
#define DESC_SLOTS 16384
typedef struct desc_slot {
    const struct ggml_tensor *t;
    const opscope_cap_rec *d;
} desc_slot;
static _Thread_local desc_slot *t_desc;
static _Thread_local unsigned t_desc_gen;

static bool desc_matches(const opscope_cap_rec *d, const struct ggml_tensor *t, int n_src) {
    if (d->op != (int16_t)t->op || d->out_type != (int32_t)t->type || d->n_src != n_src ||
        memcmp(d->ne, t->ne, sizeof d->ne) != 0 ||
        memcmp(d->op_params, t->op_params, sizeof d->op_params) != 0 ||
        strncmp(d->name, t->name, OPSCOPE_CAP_NAME - 1) != 0) {
        return false;
    }
    for (int s = 0; s < n_src; s++) {
        const struct ggml_tensor *x = t->src[s];
        if (!x) {
            if (d->src[s].type != -1) return false;
            continue;
        }
        if (d->src[s].type != (int32_t)x->type || memcmp(d->src[s].ne, x->ne, sizeof x->ne) != 0 ||
            memcmp(d->src[s].nb, x->nb, sizeof x->nb) != 0) {
            return false;
        }
    }
    return true;
}

const opscope_cap_rec *opscope_cap_desc_for(const struct ggml_tensor *t) {
    desc_slot *cache = opscope_cap_buf_cache((void **)&t_desc, &t_desc_gen, DESC_SLOTS, sizeof *t_desc);
    if (!cache) {
        return NULL;
    }
    int n_src = count_src(t);
    uint64_t key = opscope_hash_word(OPSCOPE_FNV_BASIS, (uintptr_t)t);
    for (int d = 0; d < 4; d++) {
        key = opscope_hash_word(key, (uint64_t)t->ne[d]);
    }
    for (int s = 0; s < 2 && s < n_src; s++) {
        for (int d = 0; t->src[s] && d < 4; d++) {
            key = opscope_hash_word(key, (uint64_t)t->src[s]->ne[d]);
        }
    }
    desc_slot *slot = &cache[opscope_mix64(key) % DESC_SLOTS];
    if (slot->t == t && desc_matches(slot->d, t, n_src)) {
        return slot->d;
    }
    opscope_cap_rec *r = opscope_cap_buf_keep_rec((unsigned)n_src); /* events point at it */
    if (!r) {
        return NULL;
    }
    fill_op(r, t);
    r->kind = OPSCOPE_CAP_KIND_DESC;
    r->n_fused = 1;
    r->flags = 0;
    r->backend = -1;
    r->sched = -1;
    r->thread = 0;
    r->split = -1;
    r->node = -1;
    r->graph = -1;
    r->t0 = r->t1 = 0;
    r->bytes = opscope_cap_out_bytes(t); /* what a one-node step of it writes */
    opscope_cap_buf_keep_commit(r->size);
    atomic_fetch_add_explicit(&opscope_cap_stats.descs, 1, memory_order_relaxed);
    slot->t = t;
    slot->d = r;
    return r;
}

void opscope_cap_desc_free(void) {
    free(t_desc);
    t_desc = NULL;
}

size_t opscope_cap_out_bytes(const struct ggml_tensor *t) {
    size_t n = opscope_cap_ggml.nbytes(t);
    const struct ggml_tensor *rows = t->src[0];
    if (t->op != GGML_OP_SET_ROWS || !rows || t->ne[1] <= 0 || t->ne[2] <= 0 || t->ne[3] <= 0) {
        return n;
    }
    /* ggml_nbytes is one row plus (ne[i] - 1) * nb[i] per higher dim: take the row back out */
    size_t span = 0;
    for (int i = 1; i < GGML_MAX_DIMS; i++) {
        span += (size_t)(t->ne[i] - 1) * t->nb[i];
    }
    if (span >= n) {
        return n;
    }
    size_t row = n - span;
    size_t set = (size_t)(rows->ne[1] > 0 ? rows->ne[1] : 1) * (size_t)(rows->ne[2] > 0 ? rows->ne[2] : 1) *
                 (size_t)(rows->ne[3] > 0 ? rows->ne[3] : 1);
    return row * set < n ? row * set : n;
}

#define EVENT_BYTES ((sizeof(opscope_cap_event) + 7u) & ~(size_t)7u)
_Static_assert(EVENT_BYTES == sizeof(opscope_cap_event), "events are copied whole");
_Static_assert(sizeof(opscope_cap_graph) % 8 == 0, "records are 8-aligned");

/* The parts of a step's event that depend only on the graph (not on this compute). */
bool opscope_cap_event_make(struct ggml_tensor *const *nodes, const opscope_cap_step *s, opscope_cap_event *e) {
    const struct ggml_tensor *t = nodes[s->first];
    const opscope_cap_rec *d = opscope_cap_desc_for(t);
    if (!d) {
        return false;
    }
    memset(e, 0, sizeof *e);
    e->size = (uint16_t)EVENT_BYTES;
    e->kind = OPSCOPE_CAP_KIND_EVENT;
    e->n_fused = (uint8_t)s->n;
    e->fused[0] = (int16_t)t->op;
    for (int f = 1; f < OPSCOPE_CAP_MAX_FUSED && f < s->n; f++) {
        e->fused[f] = (int16_t)nodes[s->first + f]->op;
    }
    e->node = s->first;
    e->bytes = s->n > 1 ? opscope_cap_out_bytes(nodes[s->first + s->n - 1]) : d->bytes;
    e->desc = d;
    return true;
}

int opscope_cap_event_put_all(const opscope_cap_event *tmpl, const opscope_cap_step *steps, int n,
                              uint8_t flags, const opscope_cap_compute *c, int tid, const uint32_t *thr, int nt) {
    if (!thr || nt <= 0 || nt > OPSCOPE_MAX_THREADS) {
        thr = NULL;
        nt = 0;
    }
    const size_t each = EVENT_BYTES + (thr ? opscope_cap_event_threads_size(nt) : 0);
    const int batch = (int)(40960 / each) > 0 ? (int)(40960 / each) : 1; /* 40 KiB at a time */
    /* locals: the events written below could alias *c for all the compiler knows */
    const int16_t bi = (int16_t)c->bi, sched = (int16_t)c->sched;
    const int split = c->split;
    const int64_t gid = c->gid;
    int written = 0;
    for (int k = 0; k < n;) {
        int m = n - k < batch ? n - k : batch;
        unsigned char *b = opscope_cap_buf_alloc_bytes((size_t)m * each);
        if (!b) {
            opscope_cap_buf_note_dropped((uint64_t)m);
            k += m;
            continue;
        }
        for (int j = 0; j < m; j++, k++) {
            opscope_cap_event *e = (opscope_cap_event *)(void *)(b + (size_t)j * each);
            memcpy(e, &tmpl[k], sizeof *e);
            e->size = (uint16_t)each;
            e->flags = flags;
            e->backend = bi;
            e->sched = sched;
            e->thread = (int16_t)tid;
            e->split = split;
            e->graph = gid;
            e->t0 = steps[k].t0;
            e->t1 = steps[k].t1;
            e->n_threads = (uint8_t)nt;
            if (thr) { /* the step's pairs, then the compute's CPUs */
                uint32_t *dst = (uint32_t *)(void *)(e + 1);
                memcpy(dst, thr + (size_t)k * (size_t)nt * 2, (size_t)nt * 2 * sizeof *dst);
                memcpy(dst + 2 * (size_t)nt, thr + (size_t)n * (size_t)nt * 2, (size_t)nt * sizeof *dst);
            }
        }
        opscope_cap_buf_commit_bytes((size_t)m * each);
        written += m;
    }
    return written;
}

bool opscope_cap_emit_event(const opscope_cap_compute *c, const opscope_cap_step *s, uint8_t flags, int tid) {
    struct ggml_tensor *nodes[OPSCOPE_CAP_MAX_FUSED];
    for (int f = 0; f < s->n && f < OPSCOPE_CAP_MAX_FUSED; f++) {
        nodes[f] = opscope_cap_ggml.graph_node(c->g, s->first + f);
    }
    opscope_cap_step one = *s;
    one.first = 0;
    opscope_cap_event e;
    if (!opscope_cap_event_make(nodes, &one, &e)) {
        opscope_cap_buf_note_dropped(1); /* no room for its description */
        return false;
    }
    e.node = s->first;
    return opscope_cap_event_put_all(&e, s, 1, flags, c, tid, NULL, 0) == 1;
}

/* The GRAPH record of the current compute, written once the capture's own work is done so it
 * can say how long that took (t2). */
static _Thread_local struct {
    int steps, attr;
    bool set;
    uint64_t tail;
} t_pending;

void opscope_cap_graph_rec_add(int steps, int attr, uint64_t tail) {
    t_pending.tail = tail;
    t_pending.steps = steps;
    t_pending.attr = attr;
    t_pending.set = true;
}

void opscope_cap_graph_rec_write(const opscope_cap_compute *c, uint64_t t2) {
    opscope_cap_buf_safe_point(); /* the compute's records are out (cap_buf.h) */
    if (!t_pending.set) {
        return;
    }
    t_pending.set = false;
    opscope_cap_graph *r = opscope_cap_buf_alloc_bytes(sizeof *r);
    if (!r) {
        return; /* the graph log misses a line; no record of the profile is lost */
    }
    memset(r, 0, sizeof *r);
    r->size = (uint16_t)sizeof *r;
    r->kind = OPSCOPE_CAP_KIND_GRAPH;
    r->attr = (uint8_t)t_pending.attr;
    r->backend = (int16_t)c->bi;
    r->sched = (int16_t)c->sched;
    r->thread = (int16_t)opscope_cap_buf_thread_id();
    r->split = c->split;
    r->n_nodes = c->n;
    r->n_steps = t_pending.steps;
    r->graph = c->gid;
    r->t0 = c->t0;
    r->t1 = c->t1;
    r->t_done = t2;
    r->tail = t_pending.tail;
    opscope_cap_buf_commit_bytes(sizeof *r);
}

static int32_t clamp32(int64_t v) {
    return v < 0 ? 0 : v > INT32_MAX ? INT32_MAX : (int32_t)v;
}

/* The batch and attention queries node T adds to its split's (analyze/ggml/graphs.h's rule, applied
 * on the host: the same whether or not the device work is timed). */
static void note_batch(const struct ggml_tensor *t, int32_t *batch, int32_t *queries) {
    int64_t b = 0, q = 0;
    if (t->op == GGML_OP_MUL_MAT && t->src[0] && t->src[1]) b = t->src[1]->ne[1];
    if (t->op == GGML_OP_MUL_MAT_ID && t->src[0] && t->src[1]) b = t->src[1]->ne[2];
    if (t->op == GGML_OP_FLASH_ATTN_EXT && t->src[0]) q = t->src[0]->ne[1];
    if (clamp32(b) > *batch) *batch = clamp32(b);
    if (clamp32(q) > *queries) *queries = clamp32(q);
}

/* A backend without per-op timing, or a compute sampled out of device timing (FLAGS:
 * OPSCOPE_CAP_F_SAMPLED_OUT): one record for the whole graph (split). */
void opscope_cap_emit_split(const opscope_cap_compute *c, uint8_t flags) {
    int computed = 0, first = -1;
    int32_t batch = 0, queries = 0;
    for (int i = 0; i < c->n; i++) {
        const struct ggml_tensor *t = opscope_cap_ggml.graph_node(c->g, i);
        if (!opscope_cap_op_is_empty(t->op) && (t->flags & GGML_TENSOR_FLAG_COMPUTE)) {
            computed++;
            if (first < 0) first = i;
            note_batch(t, &batch, &queries);
        }
    }
    if (first < 0) {
        return;
    }
    const struct ggml_tensor *t = opscope_cap_ggml.graph_node(c->g, first);
    opscope_cap_rec *r = opscope_cap_buf_alloc(0);
    if (r) {
        fill_op(r, t);
        r->n_fused = (uint8_t)(computed > 255 ? 255 : computed);
        r->flags = (uint8_t)(OPSCOPE_CAP_F_SPLIT_ONLY | flags);
        r->batch = batch;
        r->queries = queries;
        r->backend = (int16_t)c->bi;
        r->sched = (int16_t)c->sched;
        r->thread = (int16_t)opscope_cap_buf_thread_id();
        r->split = c->split;
        r->node = first;
        r->graph = c->gid;
        r->t0 = c->t0;
        r->t1 = c->t1;
        r->bytes = 0;
        opscope_cap_buf_commit(r);
        atomic_fetch_add_explicit(&opscope_cap_stats.records, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&opscope_cap_stats.op_ticks, c->t1 - c->t0, memory_order_relaxed);
    } else {
        opscope_cap_buf_note_dropped(1);
    }
    opscope_cap_graph_rec_add(1, OPSCOPE_CAP_ATTR_EXACT, 0);
    atomic_fetch_add_explicit(&opscope_cap_stats.split_only, 1, memory_order_relaxed);
}
