/*
 * cap_batch_ext.c - llama.cpp's extended batch API (llama.h: llama_batch_ext, built token by
 * token, run by llama_process; Debian's llama.cpp 0.7.0 llama-server and libllama-common use
 * it instead of llama_decode). The batch is opaque, so the hooks keep a shadow of each batch
 * from the calls that fill it (add, add_token, add_seq, set_pos, set_output_*, clear, free:
 * pointers and scalars only, forwarded untouched) and, at llama_process with
 * LLAMA_PROCESS_TYPE_DECODE, note it as a decode (store/cap_decodes.h), with the graph ids
 * computed inside the call. Tokens added otherwise (add_embd: images, audio) count in the
 * call, in no sequence.
 * Memory: at most 8 batches shadowed at once, each up to 65536 tokens of 4 sequences (grown
 * as used); a batch past that is not noted. Thread safety: one mutex around the table (a
 * batch is filled and run by one thread at a time, as libllama requires).
 */
#include "capture/hooks/cap_hooks.h"
#include "capture/hooks/cap_llama.h"
#include "capture/resolve/cap_resolve.h"
#include "capture/store/cap_clock.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct llama_batch_ext;

OPSCOPE_EXPORT int32_t llama_batch_ext_add(struct llama_batch_ext *batch, int32_t seq_id);
OPSCOPE_EXPORT int32_t llama_batch_ext_add_token(struct llama_batch_ext *batch, int32_t seq_id, int32_t id);
OPSCOPE_EXPORT bool llama_batch_ext_add_seq(struct llama_batch_ext *batch, int32_t idx, int32_t seq_id);
OPSCOPE_EXPORT bool llama_batch_ext_set_output_logits(struct llama_batch_ext *batch, int32_t idx, bool value);
OPSCOPE_EXPORT bool llama_batch_ext_set_output_embd(struct llama_batch_ext *batch, int32_t idx, bool value);
OPSCOPE_EXPORT bool llama_batch_ext_set_pos(struct llama_batch_ext *batch, int32_t idx, const int32_t *pos);
OPSCOPE_EXPORT void llama_batch_ext_clear(struct llama_batch_ext *batch);
OPSCOPE_EXPORT void llama_batch_ext_free(struct llama_batch_ext *batch);
OPSCOPE_EXPORT int32_t llama_process(struct llama_context *ctx, int type, struct llama_batch_ext *batch);

enum { MAX_BATCHES = 8, MAX_TOKENS = 65536, SEQS = 4, TYPE_DECODE = 1 /* LLAMA_PROCESS_TYPE_DECODE */ };

typedef struct shadow {
    const struct llama_batch_ext *batch; /* NULL: free */
    int32_t n;                           /* tokens: one past the highest index seen */
    int32_t cap;
    bool overflow;                       /* a token past MAX_TOKENS or a 5th sequence: not noted */
    int32_t *seqs;                       /* SEQS per token */
    int32_t *n_seq, *pos;
    int8_t *out;
    int32_t **seq_ptr;                   /* built at llama_process */
} shadow;

/* Threading contract: the table and every shadow under `lock`. */
static struct {
    pthread_mutex_t lock;
    shadow s[MAX_BATCHES];
} g_ext = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void shadow_release(shadow *s) {
    free(s->seqs);
    free(s->n_seq);
    free(s->pos);
    free(s->out);
    free(s->seq_ptr);
    memset(s, 0, sizeof *s);
}

/* BATCH's shadow (made when MAKE and there is room), or NULL. Locked. */
static shadow *shadow_of(const struct llama_batch_ext *batch, bool make) {
    shadow *spare = NULL;
    for (int i = 0; i < MAX_BATCHES; i++) {
        if (g_ext.s[i].batch == batch) return &g_ext.s[i];
        if (!g_ext.s[i].batch && !spare) spare = &g_ext.s[i];
    }
    if (!make || !spare) return NULL;
    spare->batch = batch;
    return spare;
}

/* Room for token IDX (the arrays grown by doubling). Locked. */
static bool room(shadow *s, int32_t idx) {
    if (idx < s->cap) return true;
    if (idx >= MAX_TOKENS) {
        s->overflow = true;
        return false;
    }
    int32_t cap = s->cap ? s->cap : 512;
    while (cap <= idx) cap *= 2;
    if (cap > MAX_TOKENS) cap = MAX_TOKENS;
    int32_t *seqs = realloc(s->seqs, (size_t)cap * SEQS * sizeof *seqs);
    if (seqs) s->seqs = seqs;
    int32_t *n_seq = realloc(s->n_seq, (size_t)cap * sizeof *n_seq);
    if (n_seq) s->n_seq = n_seq;
    int32_t *pos = realloc(s->pos, (size_t)cap * sizeof *pos);
    if (pos) s->pos = pos;
    int8_t *out = realloc(s->out, (size_t)cap * sizeof *out);
    if (out) s->out = out;
    int32_t **ptr = realloc(s->seq_ptr, (size_t)cap * sizeof *ptr);
    if (ptr) s->seq_ptr = ptr;
    if (!seqs || !n_seq || !pos || !out || !ptr) {
        s->overflow = true;
        return false;
    }
    s->cap = cap;
    return true;
}

/* Token IDX of SEQ was added (tokens skipped before it, added by unshadowed calls, have no
 * sequence). */
static void note_add(const struct llama_batch_ext *batch, int32_t idx, int32_t seq) {
    if (idx < 0) return;
    pthread_mutex_lock(&g_ext.lock);
    shadow *s = shadow_of(batch, true);
    if (s && room(s, idx)) {
        for (int32_t i = s->n; i <= idx; i++) {
            s->n_seq[i] = 0;
            s->pos[i] = -1;
            s->out[i] = 0;
        }
        if (idx >= s->n) s->n = idx + 1;
        s->seqs[(size_t)idx * SEQS] = seq;
        s->n_seq[idx] = 1;
    }
    pthread_mutex_unlock(&g_ext.lock);
}

/* KIND 0: another sequence; 1: output; 2: position, for token IDX. */
static void note_set(const struct llama_batch_ext *batch, int32_t idx, int kind, int32_t v) {
    pthread_mutex_lock(&g_ext.lock);
    shadow *s = shadow_of(batch, false);
    if (s && idx >= 0 && idx < s->n) {
        if (kind == 1) s->out[idx] = (int8_t)(v != 0);
        else if (kind == 2) s->pos[idx] = v;
        else if (s->n_seq[idx] < SEQS) s->seqs[(size_t)idx * SEQS + s->n_seq[idx]++] = v;
        else s->overflow = true;
    }
    pthread_mutex_unlock(&g_ext.lock);
}

typedef int32_t (*add_fn)(struct llama_batch_ext *, int32_t);
typedef int32_t (*add_token_fn)(struct llama_batch_ext *, int32_t, int32_t);
typedef bool (*set_bool_fn)(struct llama_batch_ext *, int32_t, bool);
typedef bool (*add_seq_fn)(struct llama_batch_ext *, int32_t, int32_t);
typedef bool (*set_pos_fn)(struct llama_batch_ext *, int32_t, const int32_t *);
typedef void (*batch_fn)(struct llama_batch_ext *);
typedef int32_t (*process_fn)(struct llama_context *, int, struct llama_batch_ext *);

int32_t llama_batch_ext_add(struct llama_batch_ext *batch, int32_t seq_id) {
    OPSCOPE_CAP_LLAMA_REAL(g_add, add_fn, "llama_batch_ext_add", llama_batch_ext_add)
    int32_t r = fn_ ? fn_(batch, seq_id) : -1;
    note_add(batch, r, seq_id);
    return r;
}

int32_t llama_batch_ext_add_token(struct llama_batch_ext *batch, int32_t seq_id, int32_t id) {
    OPSCOPE_CAP_LLAMA_REAL(g_add_token, add_token_fn, "llama_batch_ext_add_token", llama_batch_ext_add_token)
    int32_t r = fn_ ? fn_(batch, seq_id, id) : -1;
    note_add(batch, r, seq_id);
    return r;
}

bool llama_batch_ext_add_seq(struct llama_batch_ext *batch, int32_t idx, int32_t seq_id) {
    OPSCOPE_CAP_LLAMA_REAL(g_add_seq, add_seq_fn, "llama_batch_ext_add_seq", llama_batch_ext_add_seq)
    bool r = fn_ ? fn_(batch, idx, seq_id) : false;
    if (r) note_set(batch, idx, 0, seq_id);
    return r;
}

bool llama_batch_ext_set_output_logits(struct llama_batch_ext *batch, int32_t idx, bool value) {
    OPSCOPE_CAP_LLAMA_REAL(g_out, set_bool_fn, "llama_batch_ext_set_output_logits", llama_batch_ext_set_output_logits)
    bool r = fn_ ? fn_(batch, idx, value) : false;
    if (r) note_set(batch, idx, 1, value);
    return r;
}

bool llama_batch_ext_set_output_embd(struct llama_batch_ext *batch, int32_t idx, bool value) {
    OPSCOPE_CAP_LLAMA_REAL(g_embd, set_bool_fn, "llama_batch_ext_set_output_embd", llama_batch_ext_set_output_embd)
    bool r = fn_ ? fn_(batch, idx, value) : false;
    if (r) note_set(batch, idx, 1, value);
    return r;
}

bool llama_batch_ext_set_pos(struct llama_batch_ext *batch, int32_t idx, const int32_t *pos) {
    OPSCOPE_CAP_LLAMA_REAL(g_pos, set_pos_fn, "llama_batch_ext_set_pos", llama_batch_ext_set_pos)
    bool r = fn_ ? fn_(batch, idx, pos) : false;
    if (r && pos) note_set(batch, idx, 2, pos[0]); /* the first is the cache position (M-RoPE too) */
    return r;
}

void llama_batch_ext_clear(struct llama_batch_ext *batch) {
    OPSCOPE_CAP_LLAMA_REAL(g_clear, batch_fn, "llama_batch_ext_clear", llama_batch_ext_clear)
    pthread_mutex_lock(&g_ext.lock);
    shadow *s = shadow_of(batch, false);
    if (s) {
        s->n = 0;
        s->overflow = false;
    }
    pthread_mutex_unlock(&g_ext.lock);
    if (fn_) fn_(batch);
}

void llama_batch_ext_free(struct llama_batch_ext *batch) {
    OPSCOPE_CAP_LLAMA_REAL(g_free, batch_fn, "llama_batch_ext_free", llama_batch_ext_free)
    pthread_mutex_lock(&g_ext.lock);
    shadow *s = shadow_of(batch, false);
    if (s) shadow_release(s);
    pthread_mutex_unlock(&g_ext.lock);
    if (fn_) fn_(batch);
}

/* BATCH's shadow as a batch (its arrays stay the shadow's while the lock is held). */
static bool as_batch(shadow *s, opscope_cap_batch *b) {
    if (s->overflow || s->n <= 0) return false;
    for (int32_t i = 0; i < s->n; i++) s->seq_ptr[i] = s->seqs + (size_t)i * SEQS;
    bool all_pos = true;
    for (int32_t i = 0; i < s->n && all_pos; i++) all_pos = s->pos[i] >= 0;
    *b = (opscope_cap_batch){.n_tokens = s->n, .pos = all_pos ? s->pos : NULL, .n_seq_id = s->n_seq,
                             .seq_id = s->seq_ptr, .logits = s->out};
    return true;
}

int32_t llama_process(struct llama_context *ctx, int type, struct llama_batch_ext *batch) {
    OPSCOPE_CAP_LLAMA_REAL(g_process, process_fn, "llama_process", llama_process)
    if (!fn_) return -1; /* cannot happen: only libllama's callers reach here */
    if (type != TYPE_DECODE || !opscope_cap_llama_enter()) return fn_(ctx, type, batch);
    int64_t g0 = opscope_cap_hooks_graph_next();
    uint64_t t0 = opscope_cap_mono_ns();
    int32_t ret = fn_(ctx, type, batch);
    uint64_t t1 = opscope_cap_mono_ns();
    int64_t g1 = opscope_cap_hooks_graph_next();
    opscope_cap_llama_leave();
    pthread_mutex_lock(&g_ext.lock);
    shadow *s = shadow_of(batch, false);
    opscope_cap_batch b;
    if (s && as_batch(s, &b)) opscope_cap_llama_note(ctx, &b, t0, t1, g0, g1, ret);
    pthread_mutex_unlock(&g_ext.lock);
    return ret;
}
