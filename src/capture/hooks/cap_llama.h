/*
 * cap_llama.h - what the libllama hooks share (cap_llama.c, cap_decode.c): the real function
 * after ours, and libllama's getters. Thread safety: any thread.
 */
#ifndef OPSCOPE_CAP_LLAMA_H
#define OPSCOPE_CAP_LLAMA_H

#include "capture/store/cap_decodes.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct llama_context;

/* llama.h's llama_batch (0.7.0; since October 2024), member for member (cap_decode_abi.c
 * checks it against the installed llama.h). */
typedef struct opscope_llama_batch {
    int32_t n_tokens;
    int32_t *token;
    float *embd;
    int32_t *pos;
    int32_t *n_seq_id;
    int32_t **seq_id;
    int8_t *logits;
} opscope_llama_batch;

/* What llama_decode's hook takes and forwards: the batch and room for members a later llama.h
 * may add (cap_decode.c). */
typedef struct opscope_llama_batch_arg {
    opscope_llama_batch b;
    unsigned char room[72];
} opscope_llama_batch_arg;

/* NAME's definition after OURS (the next in the global scope, else any loaded object's), or
 * NULL: libllama is not loaded. */
void *opscope_cap_llama_real(const char *name, const void *ours);
/* libllama's function NAME (called, never interposed), or NULL. */
void *opscope_cap_llama_getter(const char *name);

/* A decode of CTX with batch B (cap_decode.c, cap_batch_ext.c): noted with the context's
 * memory (llama_get_memory) as its key. */
void opscope_cap_llama_note(struct llama_context *ctx, const opscope_cap_batch *b, uint64_t t0,
                            uint64_t t1, int64_t g0, int64_t g1, int32_t ret);
/* True when this thread is in no other decode hook (then it is until leave). */
bool opscope_cap_llama_enter(void);
void opscope_cap_llama_leave(void);

/* Declares fn_, the real NAME of TYPE, found once (kept in VAR). */
#define OPSCOPE_CAP_LLAMA_REAL(var, type, name, ours)                                       \
    static _Atomic(type) var;                                                               \
    type fn_ = atomic_load_explicit(&var, memory_order_acquire);                            \
    if (!fn_) {                                                                             \
        *(void **)&fn_ = opscope_cap_llama_real(name, (const void *)(ours));               \
        atomic_store_explicit(&var, fn_, memory_order_release);                             \
    }

#endif /* OPSCOPE_CAP_LLAMA_H */
