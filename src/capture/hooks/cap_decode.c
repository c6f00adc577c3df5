/*
 * cap_decode.c - llama_decode, where libllama is loaded: the batch the program hands it (its
 * tokens' sequences, positions and outputs) and the graph ids computed inside the call, noted
 * in store/cap_decodes.h after the real call returns (docs/capture.md, "Requests").
 *
 * The batch comes by value. Its layout is llama.h's since October 2024 (n_tokens, token,
 * embd, pos, n_seq_id, seq_id, logits; cap_decode_abi.c checks it against the installed
 * llama.h where one is found at build time). So that a libllama whose llama_batch grew is never handed a cut copy,
 * the hook takes the argument as that prefix plus spare room and forwards the whole of it:
 * the real function reads its own size and nothing more (on x86-64 and AArch64 a struct this
 * size travels in memory, and the room past the caller's copy is the caller's own stack).
 * The fields are read only when the library is one whose layout is known (it has
 * llama_memory_clear: mid-2025 and later) and the batch looks like one (a token count in
 * range, token or embd given, seq_id only with n_seq_id); otherwise one warning on stderr and
 * the hook only forwards from then on.
 */
#include "capture/hooks/cap_hooks.h"
#include "capture/hooks/cap_llama.h"
#include "capture/resolve/cap_resolve.h"
#include "capture/store/cap_clock.h"
#include "capture/store/cap_decodes.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct llama_context;

struct llama_memory_i;

OPSCOPE_EXPORT int32_t llama_decode(struct llama_context *ctx, opscope_llama_batch_arg batch);
OPSCOPE_EXPORT void llama_memory_clear(struct llama_memory_i *mem, bool data); /* cap_llama.c's */

typedef int32_t (*decode_fn)(struct llama_context *, opscope_llama_batch_arg);
typedef void *(*get_memory_fn)(const struct llama_context *);

/* 0: not judged yet, 1: read batches, -1: forward only. */
static _Atomic int g_state;

/* The most tokens one call may carry here (llama's n_batch is far below). */
enum { MAX_TOKENS = 1 << 24 };

static bool disable(const char *why) {
    int expect = 1;
    if (atomic_compare_exchange_strong(&g_state, &expect, -1))
        fprintf(stderr, "opscope: llama_decode: %s; requests are not recorded\n", why);
    return false;
}

/* Whether this libllama's batches can be read (judged once). */
static bool readable(void) {
    int s = atomic_load(&g_state);
    if (s) return s > 0;
    /* libllama's own llama_memory_clear: a plain look-up would find ours (cap_llama.c) */
    int next = opscope_cap_llama_real("llama_memory_clear", (const void *)llama_memory_clear) ? 1 : -1;
    int expect = 0;
    if (atomic_compare_exchange_strong(&g_state, &expect, next) && next < 0)
        fprintf(stderr, "opscope: llama_decode: libllama predates llama_memory_clear, its llama_batch "
                        "layout is not known here; requests are not recorded\n");
    return atomic_load(&g_state) > 0;
}

static bool plausible(const opscope_llama_batch *b) {
    if (b->n_tokens < 0 || b->n_tokens > MAX_TOKENS) return disable("a batch's token count is out of range");
    if (b->n_tokens > 0 && !b->token == !b->embd) return disable("a batch has neither or both of token and embd");
    if (b->seq_id && !b->n_seq_id) return disable("a batch has seq_id without n_seq_id");
    return true;
}

/* Set while a call is inside one of the hooks: a libllama that reached llama_process from its
 * own llama_decode through the PLT is not counted twice. */
static _Thread_local bool t_inside;

void opscope_cap_llama_note(struct llama_context *ctx, const opscope_cap_batch *b, uint64_t t0,
                            uint64_t t1, int64_t g0, int64_t g1, int32_t ret) {
    static _Atomic(get_memory_fn) g_mem;
    get_memory_fn get_memory = atomic_load(&g_mem);
    if (!get_memory) {
        *(void **)&get_memory = opscope_cap_llama_getter("llama_get_memory");
        atomic_store(&g_mem, get_memory);
    }
    opscope_cap_decode_note(ctx, get_memory ? get_memory(ctx) : NULL, b, t0, t1, g0, g1, ret);
}

bool opscope_cap_llama_enter(void) {
    if (t_inside) return false;
    t_inside = true;
    return true;
}

void opscope_cap_llama_leave(void) {
    t_inside = false;
}

int32_t llama_decode(struct llama_context *ctx, opscope_llama_batch_arg batch) {
    OPSCOPE_CAP_LLAMA_REAL(g_decode, decode_fn, "llama_decode", llama_decode)
    if (!fn_) return -1; /* cannot happen: only libllama's callers reach here */
    if (!readable() || !opscope_cap_llama_enter()) return fn_(ctx, batch);
    int64_t g0 = opscope_cap_hooks_graph_next();
    uint64_t t0 = opscope_cap_mono_ns();
    int32_t ret = fn_(ctx, batch);
    uint64_t t1 = opscope_cap_mono_ns();
    int64_t g1 = opscope_cap_hooks_graph_next();
    opscope_cap_llama_leave();
    const opscope_llama_batch *b = &batch.b;
    if (!plausible(b)) return ret;
    opscope_cap_batch cb = {.n_tokens = b->n_tokens, .pos = b->pos, .n_seq_id = b->n_seq_id,
                            .seq_id = b->seq_id, .logits = b->logits};
    opscope_cap_llama_note(ctx, &cb, t0, t1, g0, g1, ret);
    return ret;
}
