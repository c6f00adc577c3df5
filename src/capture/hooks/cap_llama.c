/*
 * cap_llama.c - what ran, from the program's own calls (store/cap_run.h): the model files ggml
 * opens (gguf_init_from_file and its FILE* form, from libllama's loader or any other), and,
 * where libllama is loaded, its contexts (llama_free: their parameters, read with libllama's
 * own getters before the real free), their repetitions (llama_memory_clear: llama-bench
 * clears before each) and the models freed (llama_model_free). Each definition forwards to
 * the real one, found once among the loaded objects (libllama is often in a launcher's local
 * scope, out of RTLD_NEXT's reach); every argument goes through untouched, and only pointers
 * and scalars cross (no struct of libllama's is read or copied; llama_decode's batch is read
 * in cap_decode.c).
 */
#include "capture/hooks/cap_llama.h"
#include "capture/resolve/cap_resolve.h"
#include "capture/resolve/cap_sym.h"
#include "capture/store/cap_decodes.h"
#include "capture/store/cap_run.h"

#include <dlfcn.h>
#include <gguf.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

struct llama_context;
struct llama_model;
struct llama_memory_i;

OPSCOPE_EXPORT struct gguf_context *gguf_init_from_file(const char *fname, struct gguf_init_params params);
OPSCOPE_EXPORT struct gguf_context *gguf_init_from_file_ptr(FILE *file, struct gguf_init_params params);
OPSCOPE_EXPORT void llama_free(struct llama_context *ctx);
OPSCOPE_EXPORT void llama_model_free(struct llama_model *model);
OPSCOPE_EXPORT void llama_memory_clear(struct llama_memory_i *mem, bool data);

/* NAME's definition after ours: the next in the global scope, else any loaded object's. */
void *opscope_cap_llama_real(const char *name, const void *ours) {
    void *p = dlsym(RTLD_NEXT, name);
    if (!p || p == ours) p = opscope_cap_sym_loaded(name, ours);
    return p == ours ? NULL : p;
}

typedef struct gguf_context *(*gguf_file_fn)(const char *, struct gguf_init_params);
typedef struct gguf_context *(*gguf_ptr_fn)(FILE *, struct gguf_init_params);

struct gguf_context *gguf_init_from_file(const char *fname, struct gguf_init_params params) {
    OPSCOPE_CAP_LLAMA_REAL(g_file, gguf_file_fn, "gguf_init_from_file", gguf_init_from_file)
    struct gguf_context *r = fn_ ? fn_(fname, params) : NULL;
    if (r) opscope_cap_run_model_opened(fname);
    return r;
}

struct gguf_context *gguf_init_from_file_ptr(FILE *file, struct gguf_init_params params) {
    OPSCOPE_CAP_LLAMA_REAL(g_ptr, gguf_ptr_fn, "gguf_init_from_file_ptr", gguf_init_from_file_ptr)
    struct gguf_context *r = fn_ ? fn_(file, params) : NULL;
    if (r && file) {
        /* the file's path, from its descriptor */
        char link[64], path[PATH_MAX];
        snprintf(link, sizeof link, "/proc/self/fd/%d", fileno(file));
        ssize_t n = readlink(link, path, sizeof path - 1);
        if (n > 0) {
            path[n] = 0;
            opscope_cap_run_model_opened(path);
        }
    }
    return r;
}

typedef uint32_t (*ctx_u32_fn)(const struct llama_context *);
typedef int32_t (*ctx_i32_fn)(struct llama_context *);
typedef const struct llama_model *(*ctx_model_fn)(const struct llama_context *);
typedef void (*free_fn)(struct llama_context *);

void *opscope_cap_llama_getter(const char *name) {
    void *p = dlsym(RTLD_DEFAULT, name);
    return p ? p : opscope_cap_sym_loaded(name, NULL);
}

void llama_free(struct llama_context *ctx) {
    OPSCOPE_CAP_LLAMA_REAL(g_free, free_fn, "llama_free", llama_free)
    if (ctx) {
        ctx_u32_fn n_ctx, n_batch, n_ubatch;
        ctx_i32_fn n_threads;
        ctx_model_fn get_model;
        *(void **)&n_ctx = opscope_cap_llama_getter("llama_n_ctx");
        *(void **)&n_batch = opscope_cap_llama_getter("llama_n_batch");
        *(void **)&n_ubatch = opscope_cap_llama_getter("llama_n_ubatch");
        *(void **)&n_threads = opscope_cap_llama_getter("llama_n_threads");
        *(void **)&get_model = opscope_cap_llama_getter("llama_get_model");
        int32_t t = n_threads ? n_threads(ctx) : 0;
        opscope_cap_decode_ctx_freed(ctx);
        opscope_cap_run_context_freed(get_model ? (const void *)get_model(ctx) : NULL,
                                      n_ctx ? n_ctx(ctx) : 0, n_batch ? n_batch(ctx) : 0,
                                      n_ubatch ? n_ubatch(ctx) : 0, t > 0 ? (uint32_t)t : 0);
    }
    if (fn_) fn_(ctx);
}

typedef void (*model_free_fn)(struct llama_model *);

void llama_model_free(struct llama_model *model) {
    OPSCOPE_CAP_LLAMA_REAL(g_mfree, model_free_fn, "llama_model_free", llama_model_free)
    if (model) opscope_cap_run_model_freed(model);
    if (fn_) fn_(model);
}

typedef void (*clear_fn)(struct llama_memory_i *, bool);

void llama_memory_clear(struct llama_memory_i *mem, bool data) {
    OPSCOPE_CAP_LLAMA_REAL(g_clear, clear_fn, "llama_memory_clear", llama_memory_clear)
    opscope_cap_run_clear();
    opscope_cap_decode_cleared(mem, data);
    if (fn_) fn_(mem, data);
}
