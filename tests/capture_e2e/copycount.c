/*
 * copycount.c - an independent ground truth for the capture's COPY records (not part of
 * opscope). A minimal LD_PRELOAD shim that logs to the file named by OPSCOPE_TEST_COPYCOUNT:
 *   S backend tensor size          ggml_backend_tensor_set_async
 *   C src|dst bytes                ggml_backend_tensor_copy
 *   G backend n_nodes op0 name0    ggml_backend_graph_compute_async (op0/name0: first node)
 *   M backend node src0 tokens     each MUL_MAT_ID node of that graph (tokens: src1->ne[2])
 *   I backend input bytes          each input copy a split graph reads ("BACKEND#NAME#N"
 *                                  sources of its nodes: the scheduler's copies of its inputs)
 *   B                              ggml_backend_sched_graph_compute_async begins
 *   A backend host src|dst bytes ok  the backend's cpy_tensor_async vtable entry (host: the
 *                                  source is in host memory; ok: 1 when it
 *                                  copied, 0 when it declined and the scheduler fell back to
 *                                  ggml_backend_tensor_copy)
 * The vtable entry is wrapped in place in every backend of a scheduler that computes, after checking
 * the layout of ggml 0.27's struct ggml_backend (guid pointer, then the interface: get_name,
 * free, set/get_tensor_async, set/get_tensor_2d_async, cpy_tensor_async, ...): its get_name
 * entry must be the function ggml_backend_name calls. A test-only shim may rely on ggml's
 * private layout; the capture library never does.
 * Chained before the capture library (LD_PRELOAD=copycount.so:libopscope-ggml.so).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdbool.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ggml-backend.h>
#include <ggml.h>

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *g_out;

static FILE *out(void) {
    if (!g_out) {
        const char *p = getenv("OPSCOPE_TEST_COPYCOUNT");
        g_out = fopen(p ? p : "/dev/null", "w");
    }
    return g_out;
}

void ggml_backend_tensor_set_async(ggml_backend_t backend, struct ggml_tensor *t, const void *data, size_t off,
                                   size_t size) {
    static void (*real)(ggml_backend_t, struct ggml_tensor *, const void *, size_t, size_t);
    if (!real) real = (void (*)(ggml_backend_t, struct ggml_tensor *, const void *, size_t, size_t))
                          dlsym(RTLD_NEXT, "ggml_backend_tensor_set_async");
    pthread_mutex_lock(&g_lock);
    if (out()) fprintf(g_out, "S %s %s %zu\n", ggml_backend_name(backend), t->name, size);
    pthread_mutex_unlock(&g_lock);
    real(backend, t, data, off, size);
}

void ggml_backend_tensor_copy(const struct ggml_tensor *src, struct ggml_tensor *dst) {
    static void (*real)(const struct ggml_tensor *, struct ggml_tensor *);
    if (!real) real = (void (*)(const struct ggml_tensor *, struct ggml_tensor *))dlsym(RTLD_NEXT, "ggml_backend_tensor_copy");
    pthread_mutex_lock(&g_lock);
    if (out()) fprintf(g_out, "C %s|%s %zu\n", src->name, dst->name, ggml_nbytes(src));
    pthread_mutex_unlock(&g_lock);
    real(src, dst);
}

/* Whether T is a scheduler copy of an input for backend BE: named "BE#...#N". */
static int is_input_copy(const struct ggml_tensor *t, const char *be) {
    size_t n = strlen(be);
    if (strncmp(t->name, be, n) != 0 || t->name[n] != '#') return 0;
    const char *h = strrchr(t->name, '#');
    return h > t->name + n && h[1] >= '0' && h[1] <= '9';
}

typedef bool (*cpy_fn)(ggml_backend_t, ggml_backend_t, const struct ggml_tensor *, struct ggml_tensor *);
enum { SLOT_GET_NAME = 1, SLOT_CPY = 7 }; /* in void* units from the start of struct ggml_backend */
#define MAX_HOOKED 16
static struct { ggml_backend_t backend; cpy_fn real; } g_hooked[MAX_HOOKED];
static int g_n_hooked;

static bool cpy_hook(ggml_backend_t src_be, ggml_backend_t dst_be, const struct ggml_tensor *src, struct ggml_tensor *dst) {
    cpy_fn real = NULL;
    pthread_mutex_lock(&g_lock);
    for (int i = 0; i < g_n_hooked; i++) {
        if (g_hooked[i].backend == dst_be) real = g_hooked[i].real;
    }
    pthread_mutex_unlock(&g_lock);
    bool ok = real && real(src_be, dst_be, src, dst);
    pthread_mutex_lock(&g_lock);
    if (out()) fprintf(g_out, "A %s %d %s|%s %zu %d\n", ggml_backend_name(dst_be), src->buffer && ggml_backend_buffer_is_host(src->buffer),
                       src->name, dst->name, ggml_nbytes(src), ok);
    pthread_mutex_unlock(&g_lock);
    return ok;
}

/* Wraps BACKEND's cpy_tensor_async once (caller holds g_lock). */
static void hook(ggml_backend_t backend) {
    for (int i = 0; i < g_n_hooked; i++) {
        if (g_hooked[i].backend == backend) return;
    }
    void **slots = (void **)backend;
    const char *(*get_name)(ggml_backend_t) = (const char *(*)(ggml_backend_t))slots[SLOT_GET_NAME];
    if (g_n_hooked == MAX_HOOKED || !get_name || get_name(backend) != ggml_backend_name(backend)) {
        if (out()) fprintf(g_out, "X layout check failed for %s\n", ggml_backend_name(backend));
        return;
    }
    g_hooked[g_n_hooked].backend = backend;
    g_hooked[g_n_hooked].real = (cpy_fn)slots[SLOT_CPY];
    g_n_hooked++;
    if (slots[SLOT_CPY]) slots[SLOT_CPY] = (void *)cpy_hook;
}

enum ggml_status ggml_backend_graph_compute_async(ggml_backend_t backend, struct ggml_cgraph *g) {
    static enum ggml_status (*real)(ggml_backend_t, struct ggml_cgraph *);
    if (!real) real = (enum ggml_status (*)(ggml_backend_t, struct ggml_cgraph *))dlsym(RTLD_NEXT, "ggml_backend_graph_compute_async");
    const char *be = ggml_backend_name(backend);
    int n = ggml_graph_n_nodes(g);
    pthread_mutex_lock(&g_lock);
    hook(backend);
    if (out() && n > 0) {
        struct ggml_tensor *t0 = ggml_graph_node(g, 0);
        fprintf(g_out, "G %s %d %s %s\n", be, n, ggml_op_name(t0->op), t0->name);
        const struct ggml_tensor *seen[256];
        int n_seen = 0;
        for (int i = 0; i < n; i++) {
            struct ggml_tensor *t = ggml_graph_node(g, i);
            if (t->op == GGML_OP_MUL_MAT_ID) {
                fprintf(g_out, "M %s %s %s %lld\n", be, t->name, t->src[0]->name, (long long)t->src[1]->ne[2]);
            }
            for (int j = 0; j < GGML_MAX_SRC; j++) {
                const struct ggml_tensor *s = t->src[j];
                if (!s || !is_input_copy(s, be)) continue;
                int k = 0;
                while (k < n_seen && seen[k] != s) k++;
                if (k < n_seen) continue;
                if (n_seen < 256) seen[n_seen++] = s;
                fprintf(g_out, "I %s %s %zu\n", be, s->name, ggml_nbytes(s));
            }
        }
        fflush(g_out);
    }
    pthread_mutex_unlock(&g_lock);
    return real(backend, g);
}

enum ggml_status ggml_backend_sched_graph_compute_async(ggml_backend_sched_t sched, struct ggml_cgraph *g) {
    static enum ggml_status (*real)(ggml_backend_sched_t, struct ggml_cgraph *);
    if (!real) real = (enum ggml_status (*)(ggml_backend_sched_t, struct ggml_cgraph *))dlsym(RTLD_NEXT, "ggml_backend_sched_graph_compute_async");
    pthread_mutex_lock(&g_lock);
    if (out()) fprintf(g_out, "B\n");
    for (int i = 0; i < ggml_backend_sched_get_n_backends(sched); i++) {
        hook(ggml_backend_sched_get_backend(sched, i)); /* before the compute's first copy */
    }
    pthread_mutex_unlock(&g_lock);
    return real(sched, g);
}
