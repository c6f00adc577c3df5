/*
 * cap_copy.c - COPY records: the interposed ggml_backend_tensor_copy/_set/_get/_set_async/
 * _get_async and, where ggml has them, the strided _set_2d/_get_2d[_async]; and the
 * scheduler's cpy_tensor_async input copies inferred from the split graphs (cap_copy.h). The
 * direction comes from ggml_backend_buffer_is_host of both sides.
 */
#include "capture/hooks/cap_copy.h"
#include "util/hash.h"

#include "capture/store/cap_buf.h"
#include "capture/store/cap_clock.h"
#include "capture/store/cap_counters.h"
#include "capture/resolve/cap_devices.h"
#include "capture/gpu/cap_gpu.h"
#include "capture/resolve/cap_resolve.h"
#include "capture/store/cap_tables.h"
#include "capture/hooks/cap_tls.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* A COPY record of T, made from T0 to T1 in the context AT (its backend, scheduler, graph id
 * and split), or with AS_DESC its description for a device-timed record (cap_gpu.c; not a
 * record of the profile itself, so not counted as one when lost). */
static opscope_cap_rec *emit_copy_at(opscope_cap_copy_api api, int dir, const opscope_cap_compute *at,
                                     const struct ggml_tensor *t, uint64_t bytes, uint64_t t0, uint64_t t1,
                                     bool as_desc) {
    /* a description is pointed at by device-timed records: the kept chain */
    opscope_cap_rec *r = as_desc ? opscope_cap_buf_keep_rec(1) : opscope_cap_buf_alloc(1);
    if (!r) {
        if (!as_desc) {
            opscope_cap_buf_note_dropped(1);
        }
        return NULL;
    }
    r->kind = as_desc ? OPSCOPE_CAP_KIND_DESC : OPSCOPE_CAP_KIND_COPY;
    r->op = (int16_t)dir;
    r->sub_kind = 0;
    r->sub_op = 0;
    r->api = (int16_t)api;
    r->n_fused = 1;
    r->flags = 0;
    r->backend = (int16_t)at->bi;
    r->sched = (int16_t)at->sched;
    r->thread = (int16_t)opscope_cap_buf_thread_id();
    r->split = at->split;
    r->node = -1;
    r->graph = at->gid;
    r->t0 = t0;
    r->t1 = t1;
    r->bytes = bytes;
    r->out_type = (int32_t)t->type;
    memcpy(r->ne, t->ne, sizeof r->ne);
    memset(r->op_params, 0, sizeof r->op_params);
    memcpy(r->name, t->name, OPSCOPE_CAP_NAME);
    r->name[OPSCOPE_CAP_NAME - 1] = '\0';
    memcpy(r->src[0].ne, t->ne, sizeof r->src[0].ne);
    memcpy(r->src[0].nb, t->nb, sizeof r->src[0].nb);
    r->src[0].type = (int32_t)t->type;
    r->src[0].pad_ = 0;
    if (as_desc) {
        opscope_cap_buf_keep_commit(r->size);
    } else {
        opscope_cap_buf_commit(r);
    }
    if (!as_desc) {
        atomic_fetch_add_explicit(&opscope_cap_stats.records, 1, memory_order_relaxed);
    }
    return r;
}

static void note_dst(const struct ggml_tensor *dst);

static void emit_copy(opscope_cap_copy_api api, int dir, int bi, const struct ggml_tensor *t, uint64_t bytes,
                      uint64_t t0, uint64_t t1, uint64_t scope) {
    bool in = opscope_cap_thread.in_sched;
    if (in) {
        note_dst(t); /* a scheduler input copy made through an interposed call */
    }
    opscope_cap_compute at = {.bi = bi,
                              .sched = in ? opscope_cap_thread.sched_id : -1,
                              .split = in ? opscope_cap_thread.split : -1,
                              .gid = in ? opscope_cap_thread.graph_id : -1};
    /* device transfers recorded by the call (a GPU source saw them): the record waits for
     * their device times (cap_gpu.c); the description is written now, while T is valid */
    uint64_t n_dev = scope ? opscope_cap_gpu_end(scope) : 0;
    if (n_dev) {
        opscope_cap_rec *desc = emit_copy_at(api, dir, &at, t, bytes, t0, t1, true);
        if (desc && opscope_cap_gpu_copy(scope, n_dev, desc, t0, t1)) {
            return;
        }
    }
    emit_copy_at(api, dir, &at, t, bytes, t0, t1, false);
}

static bool is_host(ggml_backend_buffer_t b) {
    return !b || opscope_cap_ggml.buffer_is_host(b);
}

/* The direction of a copy from buffer SRC to buffer DST: each is on the host when it is a host
 * buffer or NULL (the program's own memory, as tensor_set's source). */
static int direction(ggml_backend_buffer_t src, ggml_backend_buffer_t dst) {
    if (is_host(src)) {
        return is_host(dst) ? OPSCOPE_CAP_COPY_H2H : OPSCOPE_CAP_COPY_H2D;
    }
    return is_host(dst) ? OPSCOPE_CAP_COPY_D2H : OPSCOPE_CAP_COPY_D2D;
}

static bool copy_on(void) {
    return opscope_cap_ggml_ready() && !opscope_cap_thread.depth && opscope_cap_should_record(opscope_cap_thread.in_sched ? opscope_cap_thread.sched_id : -1);
}

OPSCOPE_EXPORT void ggml_backend_tensor_copy(const struct ggml_tensor *src, struct ggml_tensor *dst) {
    if (!copy_on() || !src || !dst) {
        if (opscope_cap_ggml.tensor_copy) opscope_cap_ggml.tensor_copy(src, dst);
        return;
    }
    opscope_cap_thread.depth++;
    uint64_t sc_prev = opscope_cap_gpu_current(), sc = opscope_cap_gpu_open();
    uint64_t t0 = opscope_cap_now();
    opscope_cap_ggml.tensor_copy(src, dst);
    uint64_t t1 = opscope_cap_now();
    if (sc) {
        opscope_cap_gpu_close(sc_prev);
    }
    int dir = direction(src->buffer, dst->buffer);
    /* the device's side: the destination's, unless only the source is on a device */
    int bi = opscope_cap_backend_of_buffer(dir == OPSCOPE_CAP_COPY_D2H ? src->buffer : dst->buffer);
    emit_copy(OPSCOPE_CAP_API_TENSOR_COPY, dir, bi, dst, opscope_cap_ggml.nbytes(src), t0, t1, sc);
    opscope_cap_thread.depth--;
}

OPSCOPE_EXPORT void ggml_backend_tensor_set(struct ggml_tensor *t, const void *data, size_t offset, size_t size) {
    if (!copy_on() || !t) {
        if (opscope_cap_ggml.tensor_set) opscope_cap_ggml.tensor_set(t, data, offset, size);
        return;
    }
    opscope_cap_thread.depth++;
    uint64_t sc_prev = opscope_cap_gpu_current(), sc = opscope_cap_gpu_open();
    uint64_t t0 = opscope_cap_now();
    opscope_cap_ggml.tensor_set(t, data, offset, size);
    uint64_t t1 = opscope_cap_now();
    if (sc) {
        opscope_cap_gpu_close(sc_prev);
    }
    emit_copy(OPSCOPE_CAP_API_SET, direction(NULL, t->buffer), opscope_cap_backend_of_buffer(t->buffer), t, size, t0, t1, sc);
    opscope_cap_thread.depth--;
}

OPSCOPE_EXPORT void ggml_backend_tensor_get(const struct ggml_tensor *t, void *data, size_t offset, size_t size) {
    if (!copy_on() || !t) {
        if (opscope_cap_ggml.tensor_get) opscope_cap_ggml.tensor_get(t, data, offset, size);
        return;
    }
    opscope_cap_thread.depth++;
    uint64_t sc_prev = opscope_cap_gpu_current(), sc = opscope_cap_gpu_open();
    uint64_t t0 = opscope_cap_now();
    opscope_cap_ggml.tensor_get(t, data, offset, size);
    uint64_t t1 = opscope_cap_now();
    if (sc) {
        opscope_cap_gpu_close(sc_prev);
    }
    emit_copy(OPSCOPE_CAP_API_GET, direction(t->buffer, NULL), opscope_cap_backend_of_buffer(t->buffer), t, size, t0, t1, sc);
    opscope_cap_thread.depth--;
}

OPSCOPE_EXPORT void ggml_backend_tensor_set_async(ggml_backend_t backend, struct ggml_tensor *t,
                                          const void *data, size_t offset, size_t size) {
    if (!copy_on() || !t || !backend) {
        if (opscope_cap_ggml.tensor_set_async) opscope_cap_ggml.tensor_set_async(backend, t, data, offset, size);
        return;
    }
    opscope_cap_thread.depth++;
    uint64_t sc_prev = opscope_cap_gpu_current(), sc = opscope_cap_gpu_open();
    uint64_t t0 = opscope_cap_now();
    opscope_cap_ggml.tensor_set_async(backend, t, data, offset, size);
    uint64_t t1 = opscope_cap_now();
    if (sc) {
        opscope_cap_gpu_close(sc_prev);
    }
    emit_copy(OPSCOPE_CAP_API_SET_ASYNC, direction(NULL, t->buffer), opscope_cap_backend_of(backend), t, size, t0, t1, sc);
    opscope_cap_thread.depth--;
}

OPSCOPE_EXPORT void ggml_backend_tensor_get_async(ggml_backend_t backend, const struct ggml_tensor *t,
                                          void *data, size_t offset, size_t size) {
    if (!copy_on() || !t || !backend) {
        if (opscope_cap_ggml.tensor_get_async) opscope_cap_ggml.tensor_get_async(backend, t, data, offset, size);
        return;
    }
    opscope_cap_thread.depth++;
    uint64_t sc_prev = opscope_cap_gpu_current(), sc = opscope_cap_gpu_open();
    uint64_t t0 = opscope_cap_now();
    opscope_cap_ggml.tensor_get_async(backend, t, data, offset, size);
    uint64_t t1 = opscope_cap_now();
    if (sc) {
        opscope_cap_gpu_close(sc_prev);
    }
    emit_copy(OPSCOPE_CAP_API_GET_ASYNC, direction(t->buffer, NULL), opscope_cap_backend_of(backend), t, size, t0, t1, sc);
    opscope_cap_thread.depth--;
}

/* ---- strided copies (ggml_backend_tensor_set_2d & co.): N_COPIES rows of SIZE bytes ----
 *
 * Defined whatever the ggml; a ggml that lacks them never calls them, and a caller that finds
 * ours anyway (dlsym) gets what ggml's own version does for a buffer without 2d copies: one
 * plain copy per row. Inside, ggml may make that same fallback through the interposed
 * per-row calls; the depth guard keeps them out of the profile (the 2d call is the record). */

static void set_2d(struct ggml_tensor *t, const void *data, size_t off, size_t size, size_t n,
                   size_t st, size_t sd) {
    if (opscope_cap_ggml.tensor_set_2d) {
        opscope_cap_ggml.tensor_set_2d(t, data, off, size, n, st, sd);
        return;
    }
    for (size_t i = 0; i < n && opscope_cap_ggml.tensor_set; i++) {
        opscope_cap_ggml.tensor_set(t, (const char *)data + i * sd, off + i * st, size);
    }
}

static void get_2d(const struct ggml_tensor *t, void *data, size_t off, size_t size, size_t n, size_t st,
                   size_t sd) {
    if (opscope_cap_ggml.tensor_get_2d) {
        opscope_cap_ggml.tensor_get_2d(t, data, off, size, n, st, sd);
        return;
    }
    for (size_t i = 0; i < n && opscope_cap_ggml.tensor_get; i++) {
        opscope_cap_ggml.tensor_get(t, (char *)data + i * sd, off + i * st, size);
    }
}

static void set_2d_async(ggml_backend_t b, struct ggml_tensor *t, const void *data, size_t off, size_t size,
                         size_t n, size_t st, size_t sd) {
    if (opscope_cap_ggml.tensor_set_2d_async) {
        opscope_cap_ggml.tensor_set_2d_async(b, t, data, off, size, n, st, sd);
        return;
    }
    for (size_t i = 0; i < n && opscope_cap_ggml.tensor_set_async; i++) {
        opscope_cap_ggml.tensor_set_async(b, t, (const char *)data + i * sd, off + i * st, size);
    }
}

static void get_2d_async(ggml_backend_t b, const struct ggml_tensor *t, void *data, size_t off, size_t size,
                         size_t n, size_t st, size_t sd) {
    if (opscope_cap_ggml.tensor_get_2d_async) {
        opscope_cap_ggml.tensor_get_2d_async(b, t, data, off, size, n, st, sd);
        return;
    }
    for (size_t i = 0; i < n && opscope_cap_ggml.tensor_get_async; i++) {
        opscope_cap_ggml.tensor_get_async(b, t, (char *)data + i * sd, off + i * st, size);
    }
}

OPSCOPE_EXPORT void ggml_backend_tensor_set_2d(struct ggml_tensor *t, const void *data, size_t offset, size_t size,
                                               size_t n_copies, size_t stride_tensor, size_t stride_data) {
    if (!copy_on() || !t) {
        set_2d(t, data, offset, size, n_copies, stride_tensor, stride_data);
        return;
    }
    opscope_cap_thread.depth++;
    uint64_t sc_prev = opscope_cap_gpu_current(), sc = opscope_cap_gpu_open();
    uint64_t t0 = opscope_cap_now();
    set_2d(t, data, offset, size, n_copies, stride_tensor, stride_data);
    uint64_t t1 = opscope_cap_now();
    if (sc) {
        opscope_cap_gpu_close(sc_prev);
    }
    emit_copy(OPSCOPE_CAP_API_SET_2D, direction(NULL, t->buffer), opscope_cap_backend_of_buffer(t->buffer),
              t, size * n_copies, t0, t1, sc);
    opscope_cap_thread.depth--;
}

OPSCOPE_EXPORT void ggml_backend_tensor_get_2d(const struct ggml_tensor *t, void *data, size_t offset, size_t size,
                                               size_t n_copies, size_t stride_tensor, size_t stride_data) {
    if (!copy_on() || !t) {
        get_2d(t, data, offset, size, n_copies, stride_tensor, stride_data);
        return;
    }
    opscope_cap_thread.depth++;
    uint64_t sc_prev = opscope_cap_gpu_current(), sc = opscope_cap_gpu_open();
    uint64_t t0 = opscope_cap_now();
    get_2d(t, data, offset, size, n_copies, stride_tensor, stride_data);
    uint64_t t1 = opscope_cap_now();
    if (sc) {
        opscope_cap_gpu_close(sc_prev);
    }
    emit_copy(OPSCOPE_CAP_API_GET_2D, direction(t->buffer, NULL), opscope_cap_backend_of_buffer(t->buffer),
              t, size * n_copies, t0, t1, sc);
    opscope_cap_thread.depth--;
}

OPSCOPE_EXPORT void ggml_backend_tensor_set_2d_async(ggml_backend_t backend, struct ggml_tensor *t, const void *data,
                                                     size_t offset, size_t size, size_t n_copies,
                                                     size_t stride_tensor, size_t stride_data) {
    if (!copy_on() || !t || !backend) {
        set_2d_async(backend, t, data, offset, size, n_copies, stride_tensor, stride_data);
        return;
    }
    opscope_cap_thread.depth++;
    uint64_t sc_prev = opscope_cap_gpu_current(), sc = opscope_cap_gpu_open();
    uint64_t t0 = opscope_cap_now();
    set_2d_async(backend, t, data, offset, size, n_copies, stride_tensor, stride_data);
    uint64_t t1 = opscope_cap_now();
    if (sc) {
        opscope_cap_gpu_close(sc_prev);
    }
    emit_copy(OPSCOPE_CAP_API_SET_2D_ASYNC, direction(NULL, t->buffer), opscope_cap_backend_of(backend), t,
              size * n_copies, t0, t1, sc);
    opscope_cap_thread.depth--;
}

OPSCOPE_EXPORT void ggml_backend_tensor_get_2d_async(ggml_backend_t backend, const struct ggml_tensor *t, void *data,
                                                     size_t offset, size_t size, size_t n_copies,
                                                     size_t stride_tensor, size_t stride_data) {
    if (!copy_on() || !t || !backend) {
        get_2d_async(backend, t, data, offset, size, n_copies, stride_tensor, stride_data);
        return;
    }
    opscope_cap_thread.depth++;
    uint64_t sc_prev = opscope_cap_gpu_current(), sc = opscope_cap_gpu_open();
    uint64_t t0 = opscope_cap_now();
    get_2d_async(backend, t, data, offset, size, n_copies, stride_tensor, stride_data);
    uint64_t t1 = opscope_cap_now();
    if (sc) {
        opscope_cap_gpu_close(sc_prev);
    }
    emit_copy(OPSCOPE_CAP_API_GET_2D_ASYNC, direction(t->buffer, NULL), opscope_cap_backend_of(backend), t,
              size * n_copies, t0, t1, sc);
    opscope_cap_thread.depth--;
}

/* ---- input copies made through cpy_tensor_async (opscope_cap_copy_infer) ----
 *
 * Per thread, per scheduler compute (graph id): the set of tensors that interposed copy
 * calls wrote or that were already inferred (open addressing on pointers; an entry counts
 * when its generation is the current one, so starting a compute clears nothing), and the
 * split graphs seen so far (to find a copy's source). */

#define SEEN_MAX (1u << 16)
#define SEEN_GRAPHS 256

/* Its own table, not util/hindex.h: emptied per graph compute by a generation bump (O(1)
 * inside the host's compute), which an index over a caller's array cannot do. */
typedef struct copy_seen {
    const void **key;
    uint32_t *gen;
    uint32_t cap, n, cur;
    bool full;              /* a copy could not be noted: inferring would be wrong */
    int64_t gid;
    struct ggml_cgraph **graphs; /* SEEN_GRAPHS, allocated at first use (thread-locals stay small:
                                  * the library's static TLS block is what a dlopen must find room for) */
    int n_graphs;
    bool registered;        /* the thread-exit destructor knows this thread's state */
} copy_seen;

static _Thread_local copy_seen t_seen = {.gid = -1};
static pthread_key_t g_seen_key;
static pthread_once_t g_seen_once = PTHREAD_ONCE_INIT;
static bool g_seen_key_ok;

static void seen_free(void *p) {
    copy_seen *c = p;
    free(c->key);
    free(c->gen);
    free(c->graphs);
    c->key = NULL;
    c->gen = NULL;
    c->graphs = NULL;
    c->n_graphs = 0;
    c->cap = c->n = 0;
}

static void seen_key_make(void) {
    g_seen_key_ok = pthread_key_create(&g_seen_key, seen_free) == 0;
}

static void seen_register(copy_seen *c) {
    if (!c->registered) {
        pthread_once(&g_seen_once, seen_key_make);
        if (g_seen_key_ok) {
            pthread_setspecific(g_seen_key, c);
        }
        c->registered = true;
    }
}

static void seen_begin(int64_t gid) {
    copy_seen *c = &t_seen;
    if (c->gid == gid) {
        return;
    }
    c->gid = gid;
    c->n = 0;
    c->full = false;
    c->n_graphs = 0;
    if (++c->cur == 0) { /* generations wrapped: clear for real */
        if (c->gen) {
            memset(c->gen, 0, c->cap * sizeof *c->gen);
        }
        c->cur = 1;
    }
}

static uint32_t seen_slot(const copy_seen *c, const void *p) {
    uint64_t h = opscope_mix64((uint64_t)(uintptr_t)p);
    uint32_t i = (uint32_t)(h >> 32) & (c->cap - 1);
    while (c->gen[i] == c->cur && c->key[i] != p) {
        i = (i + 1) & (c->cap - 1);
    }
    return i;
}

static bool seen_has(const void *p) {
    const copy_seen *c = &t_seen;
    return c->cap && c->gen[seen_slot(c, p)] == c->cur;
}

static bool seen_grow(copy_seen *c) {
    uint32_t cap = c->cap ? c->cap * 2 : 256;
    if (cap > SEEN_MAX) {
        return false;
    }
    const void **key = malloc(cap * sizeof *key);
    uint32_t *gen = calloc(cap, sizeof *gen);
    if (!key || !gen) {
        free(key);
        free(gen);
        return false;
    }
    seen_register(c);
    copy_seen old = *c;
    c->key = key;
    c->gen = gen;
    c->cap = cap;
    for (uint32_t i = 0; i < old.cap; i++) {
        if (old.gen[i] == old.cur) {
            uint32_t k = seen_slot(c, old.key[i]);
            c->key[k] = old.key[i];
            c->gen[k] = c->cur;
        }
    }
    free(old.key);
    free(old.gen);
    return true;
}

static void seen_add(const void *p) {
    copy_seen *c = &t_seen;
    if ((c->n + 1) * 2 > c->cap && !seen_grow(c)) {
        c->full = true;
        return;
    }
    uint32_t k = seen_slot(c, p);
    if (c->gen[k] != c->cur) {
        c->key[k] = p;
        c->gen[k] = c->cur;
        c->n++;
    }
}

static void note_dst(const struct ggml_tensor *dst) {
    seen_begin(opscope_cap_thread.graph_id);
    seen_add(dst);
}

/* Whether T is the scheduler's copy of an input for backend NAME ("NAME#X#N"); *X and *XLEN
 * get the source's name. */
static bool is_input_copy(const struct ggml_tensor *t, const char *name, size_t len, const char **x,
                          size_t *xlen) {
    if (t->name[0] != name[0] || strncmp(t->name, name, len) != 0 || t->name[len] != '#') {
        return false;
    }
    const char *h = strrchr(t->name + len + 1, '#');
    if (!h || h[1] < '0' || h[1] > '9' || strspn(h + 1, "0123456789") != strlen(h + 1)) {
        return false;
    }
    *x = t->name + len + 1;
    *xlen = (size_t)(h - *x);
    return true;
}

/* The node named X (XLEN bytes) in the split graphs before this one, latest first. */
static const struct ggml_tensor *find_source(const char *x, size_t xlen) {
    const copy_seen *c = &t_seen;
    for (int k = c->n_graphs - 1; k >= 0; k--) {
        struct ggml_cgraph *g = c->graphs[k];
        for (int i = opscope_cap_ggml.graph_n_nodes(g) - 1; i >= 0; i--) {
            const struct ggml_tensor *t = opscope_cap_ggml.graph_node(g, i);
            if (t->name[0] == x[0] && strncmp(t->name, x, xlen) == 0 && t->name[xlen] == '\0') {
                return t;
            }
        }
    }
    return NULL;
}

void opscope_cap_copy_infer(const opscope_cap_compute *at) {
    struct ggml_cgraph *g = at->g;
    const opscope_cap_backend *be = at->bi >= 0 ? opscope_cap_backend_at(at->bi) : NULL;
    if (!g || !be || at->gid < 0) {
        return;
    }
    seen_begin(at->gid);
    copy_seen *c = &t_seen;
    /* the split graphs outlive the call only without an eval callback (else: stack views) */
    bool keep = opscope_cap_thread.in_sched && !opscope_cap_thread.no_defer && !opscope_cap_thread.in_user_cb;
    if (be->device_type != OPSCOPE_DEVICE_CPU && be->device_type != OPSCOPE_DEVICE_ACCEL && !c->full) {
        size_t len = strlen(be->name);
        int n = opscope_cap_ggml.graph_n_nodes(g);
        for (int i = 0; i < n; i++) {
            const struct ggml_tensor *t = opscope_cap_ggml.graph_node(g, i);
            for (int j = 0; j < GGML_MAX_SRC; j++) {
                const struct ggml_tensor *s = t->src[j];
                const char *x;
                size_t xlen;
                if (!s || !is_input_copy(s, be->name, len, &x, &xlen) || seen_has(s)) {
                    continue;
                }
                seen_add(s);
                if (c->full) {
                    return; /* cannot tell copies apart any more */
                }
                const struct ggml_tensor *from = keep ? find_source(x, xlen) : NULL;
                int dir = from ? direction(from->buffer, s->buffer) : -1;
                emit_copy_at(OPSCOPE_CAP_API_CPY_TENSOR_ASYNC, dir, at, s, opscope_cap_ggml.nbytes(s), at->t0, at->t0,
                             false);
            }
        }
    }
    if (keep && !c->graphs) {
        seen_register(c);
        c->graphs = calloc(SEEN_GRAPHS, sizeof *c->graphs);
    }
    if (keep && c->graphs && c->n_graphs < SEEN_GRAPHS) {
        c->graphs[c->n_graphs++] = g;
    }
}
