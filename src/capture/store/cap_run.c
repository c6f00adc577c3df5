/* cap_run.c - what ran (see cap_run.h). */
#include "capture/store/cap_run.h"
#include "capture/store/cap_clock.h"
#include "capture/store/cap_decodes.h"
#include "capture/store/cap_gguf.h"
#include "model/run_info.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { MAX_MODELS = 16, MAX_CONTEXTS = 256, MAX_REPS = 4096, MAX_MODEL_PTRS = 16 };

typedef struct run_model {
    char path[1024];
    bool read;            /* its header was read (once, by the exporting thread) */
    opscope_cap_gguf head;
} run_model;

typedef struct run_ctx {
    int32_t model;
    uint32_t n_ctx, n_batch, n_ubatch, n_threads;
    uint64_t end_ns;
    uint32_t rep0, n_reps; /* into reps */
} run_ctx;

/* Threading contract: the tables are written by the note functions under `lock` (any thread);
 * get reads them under the same lock, taken with trylock, and owns `built` and the argv copy
 * (exporting thread only). */
static struct {
    pthread_mutex_t lock;
    run_model models[MAX_MODELS];
    uint32_t n_models, lost_models;
    struct {
        const void *ptr;
        int32_t model;
    } ptrs[MAX_MODEL_PTRS]; /* llama_model pointers to the model file they were loaded from */
    uint32_t n_ptrs;
    run_ctx contexts[MAX_CONTEXTS];
    uint32_t n_contexts, lost_contexts;
    uint64_t reps[MAX_REPS];
    uint32_t n_reps, reps_open; /* reps_open: the first rep of the context not yet freed */
    opscope_run_t *built;
    uint64_t gen;       /* bumped by every note: the tables changed */
    uint64_t built_gen; /* the gen `built` was made at (base only), 0: none */
    char cmdline[65536];
    size_t cmdline_len;
    bool cmdline_read;
} g_run = {.lock = PTHREAD_MUTEX_INITIALIZER};

void opscope_cap_run_model_opened(const char *path) {
    if (!path) return;
    pthread_mutex_lock(&g_run.lock);
    bool seen = false;
    for (uint32_t i = 0; i < g_run.n_models && !seen; i++)
        seen = strncmp(g_run.models[i].path, path, sizeof g_run.models[i].path - 1) == 0;
    if (!seen && g_run.n_models < MAX_MODELS) {
        run_model *m = &g_run.models[g_run.n_models++];
        strncpy(m->path, path, sizeof m->path - 1);
        m->path[sizeof m->path - 1] = 0;
    } else if (!seen) {
        g_run.lost_models++;
    }
    g_run.gen++;
    pthread_mutex_unlock(&g_run.lock);
}

void opscope_cap_run_clear(void) {
    uint64_t now = opscope_cap_mono_ns();
    pthread_mutex_lock(&g_run.lock);
    if (g_run.n_reps < MAX_REPS) g_run.reps[g_run.n_reps++] = now;
    g_run.gen++;
    pthread_mutex_unlock(&g_run.lock);
}

/* The model file MODEL was loaded from: the one its pointer was first seen with, else the
 * file opened last (a llama model is loaded from the file opened just before). Locked. */
static int32_t model_of(const void *model) {
    for (uint32_t i = 0; i < g_run.n_ptrs; i++)
        if (g_run.ptrs[i].ptr == model) return g_run.ptrs[i].model;
    int32_t m = (int32_t)g_run.n_models - 1;
    if (g_run.n_ptrs < MAX_MODEL_PTRS) {
        g_run.ptrs[g_run.n_ptrs].ptr = model;
        g_run.ptrs[g_run.n_ptrs++].model = m;
    }
    return m;
}

void opscope_cap_run_context_freed(const void *model, uint32_t n_ctx, uint32_t n_batch,
                                   uint32_t n_ubatch, uint32_t n_threads) {
    uint64_t now = opscope_cap_mono_ns();
    pthread_mutex_lock(&g_run.lock);
    if (g_run.n_contexts < MAX_CONTEXTS) {
        run_ctx *c = &g_run.contexts[g_run.n_contexts++];
        c->model = model ? model_of(model) : -1;
        c->n_ctx = n_ctx;
        c->n_batch = n_batch;
        c->n_ubatch = n_ubatch;
        c->n_threads = n_threads;
        c->end_ns = now;
        c->rep0 = g_run.reps_open;
        c->n_reps = g_run.n_reps - g_run.reps_open;
    } else {
        g_run.lost_contexts++;
    }
    g_run.reps_open = g_run.n_reps;
    g_run.gen++;
    pthread_mutex_unlock(&g_run.lock);
}

void opscope_cap_run_model_freed(const void *model) {
    pthread_mutex_lock(&g_run.lock);
    for (uint32_t i = 0; i < g_run.n_ptrs; i++)
        if (g_run.ptrs[i].ptr == model) g_run.ptrs[i] = g_run.ptrs[--g_run.n_ptrs];
    g_run.gen++;
    pthread_mutex_unlock(&g_run.lock);
}

/* ---- gathered when a profile is written ---- */

static void read_cmdline(void) {
    if (g_run.cmdline_read) return;
    g_run.cmdline_read = true;
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    size_t n = 0;
    for (;;) {
        ssize_t r = read(fd, g_run.cmdline + n, sizeof g_run.cmdline - 1 - n);
        if (r <= 0) break;
        n += (size_t)r;
        if (n == sizeof g_run.cmdline - 1) break;
    }
    close(fd);
    g_run.cmdline_len = n;
}

typedef struct blas_seen {
    const char *name;
    char path[PATH_MAX];
    int rank; /* a named library (OpenBLAS, BLIS, MKL) wins over the libblas.so.3 that wraps it */
} blas_seen;

/* The BLAS a resolved library path is (NULL: none). */
static const char *blas_kind(const char *real, int *rank) {
    const char *base = strrchr(real, '/');
    base = base ? base + 1 : real;
    *rank = 2;
    if (strstr(base, "libopenblas")) return "OpenBLAS";
    if (strstr(base, "libblis")) return "BLIS";
    if (strstr(base, "libmkl_rt") || strstr(base, "libmkl_core")) return "MKL";
    *rank = 1;
    if (strncmp(base, "libblas.so", 10) != 0 && strncmp(base, "libcblas.so", 11) != 0) return NULL;
    /* Debian's alternatives: .../blas/ (netlib reference), .../openblas-pthread/, .../blis-.../ */
    if (strstr(real, "openblas")) return "OpenBLAS";
    if (strstr(real, "blis")) return "BLIS";
    if (strstr(real, "mkl")) return "MKL";
    if (strstr(real, "atlas")) return "ATLAS";
    if (strstr(real, "/blas/")) return "reference";
    return "other";
}

static int on_object(struct dl_phdr_info *info, size_t size, void *ud) {
    (void)size;
    blas_seen *b = ud;
    const char *name = info->dlpi_name;
    if (!name || !name[0] || (!strstr(name, "blas") && !strstr(name, "blis") && !strstr(name, "mkl")))
        return 0;
    char real[PATH_MAX];
    if (!realpath(name, real)) snprintf(real, sizeof real, "%s", name);
    int rank = 0;
    const char *kind = blas_kind(real, &rank);
    if (kind && rank > b->rank) {
        b->name = kind;
        b->rank = rank;
        snprintf(b->path, sizeof b->path, "%s", real);
    }
    return 0;
}

/* The threads of the BLAS at PATH (loaded already: RTLD_NOLOAD), 0 when it does not say. */
static int32_t blas_threads(const blas_seen *b) {
    if (!strcmp(b->name, "reference") || !strcmp(b->name, "ATLAS")) return 1;
    void *h = dlopen(b->path, RTLD_LAZY | RTLD_NOLOAD);
    if (!h) return 0;
    const char *fn = !strcmp(b->name, "OpenBLAS") ? "openblas_get_num_threads"
                   : !strcmp(b->name, "BLIS")     ? "bli_thread_get_num_threads"
                   : !strcmp(b->name, "MKL")      ? "mkl_get_max_threads" : NULL;
    int32_t n = 0;
    void *p = fn ? dlsym(h, fn) : NULL;
    if (p) {
        int (*get)(void);
        *(void **)&get = p;
        n = get();
    }
    dlclose(h);
    return n > 0 ? n : 0;
}

static int add_models(opscope_run_t *r) {
    for (uint32_t i = 0; i < g_run.n_models; i++) {
        run_model *m = &g_run.models[i];
        if (!m->read) {
            m->read = true;
            opscope_cap_gguf_read(m->path, &m->head);
        }
        opscope_run_model o = {.path = m->path, .size_bytes = m->head.size,
                               .architecture = m->head.arch[0] ? m->head.arch : NULL,
                               .name = m->head.name[0] ? m->head.name : NULL,
                               .n_params = m->head.n_params, .file_type = m->head.file_type};
        if (opscope_run_add_model(r, &o)) return -1;
    }
    return 0;
}

static int add_contexts(opscope_run_t *r) {
    for (uint32_t i = 0; i < g_run.n_contexts; i++) {
        const run_ctx *c = &g_run.contexts[i];
        opscope_run_context o = {.model = c->model, .n_ctx = c->n_ctx, .n_batch = c->n_batch,
                                 .n_ubatch = c->n_ubatch, .n_threads = c->n_threads,
                                 .end_ns = c->end_ns, .n_reps = c->n_reps,
                                 .reps_ns = g_run.reps + c->rep0};
        if (opscope_run_add_context(r, &o)) return -1;
    }
    return 0;
}

static int build(opscope_run_t *r, bool decodes) {
    read_cmdline();
    for (size_t at = 0; at < g_run.cmdline_len;) {
        size_t len = strnlen(g_run.cmdline + at, g_run.cmdline_len - at);
        if (opscope_run_add_arg(r, g_run.cmdline + at, len)) return -1;
        at += len + 1;
    }
    if (add_models(r) || add_contexts(r) || (decodes && opscope_cap_decodes_add(r))) return -1;
    blas_seen b = {0};
    dl_iterate_phdr(on_object, &b);
    if (b.name && opscope_run_set_blas(r, b.name, b.path, blas_threads(&b))) return -1;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    opscope_run_set_cores(r, cores > 0 && cores < INT32_MAX ? (int32_t)cores : 0);
    return 0;
}

static const opscope_run_info *get(bool decodes) {
    if (pthread_mutex_trylock(&g_run.lock) != 0) return NULL;
    if (!decodes && g_run.built && g_run.built_gen == g_run.gen + 1) {
        /* unchanged since the last build: a checkpoint makes no heap call for it */
        pthread_mutex_unlock(&g_run.lock);
        return opscope_run_view(g_run.built);
    }
    opscope_run_free(g_run.built);
    g_run.built = opscope_run_new();
    if (g_run.built && build(g_run.built, decodes)) {
        opscope_run_free(g_run.built);
        g_run.built = NULL;
    }
    g_run.built_gen = g_run.built && !decodes ? g_run.gen + 1 : 0;
    pthread_mutex_unlock(&g_run.lock);
    return opscope_run_view(g_run.built);
}

const opscope_run_info *opscope_cap_run_get(void) {
    return get(true);
}

const opscope_run_info *opscope_cap_run_get_base(void) {
    return get(false);
}
