/* cap_decodes.c - the llama_decode calls (see cap_decodes.h). */
#include "capture/store/cap_decodes.h"
#include "capture/store/cap_window.h"
#include "model/oplog_dec.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The table's bounds: it starts at FIRST_CALLS calls (and twice as many parts) and doubles
 * up to MAX_CALLS / MAX_PARTS when calls are noted faster than the record log takes them (or
 * when no log takes them). */
enum { MAX_CALLS = 65536, MAX_PARTS = 131072, MAX_CTX = 8, FIRST_CALLS = 1024 };

typedef struct call {
    uint64_t start_ns, end_ns;
    int64_t graph;
    uint32_t n_graphs, n_tokens, n_outputs, part0, n_parts;
    int32_t context, ret;
    bool wiped;
} call;

/* A sequence's state: its current request, the position of its prompt's last token so far,
 * whether the request has had an output (then it generates), whether it was seen. */
typedef struct seq_state {
    uint32_t request;
    int32_t prompt_pos;
    bool generating, seen;
} seq_state;

typedef struct ctx_state {
    const void *ctx, *mem;
    int32_t number; /* the context's number in the profile: first seen order */
    bool wiped;     /* its memory was cleared with its data since its last call */
    seq_state seqs[OPSCOPE_CAP_MAX_SEQ];
} ctx_state;

/* A call's sequence while it is read: its part, and the first pass's findings. */
typedef struct seq_scan {
    int32_t min_pos;
    bool present, asks_none, new_request;
} seq_scan;

/* Threading contract: everything under `lock`. The calls held are those from number `base`
 * on (every call noted has a number: its order); the ones before were written to the record
 * log and released (opscope_cap_decodes_release). The tables grow under the lock, on the
 * noting thread; the contexts and scratch are allocated once, at the first call. */
static struct {
    pthread_mutex_t lock;
    call *calls;
    opscope_run_seq *parts;
    uint32_t cap_calls, cap_parts;
    ctx_state *ctxs;
    seq_scan *scan;   /* all clear between calls */
    int16_t *part_of; /* a sequence's part in the current call, -1: none yet */
    int16_t *present; /* the current call's sequences, in order of first sight */
    int n_present;
    uint64_t base; /* the number of the first call held */
    uint32_t n_calls, n_parts, n_ctx_numbers, next_request;
    uint64_t lost;
    bool failed;
} g_dec = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void free_tables(void) {
    free(g_dec.calls);
    free(g_dec.parts);
    free(g_dec.ctxs);
    free(g_dec.scan);
    free(g_dec.part_of);
    free(g_dec.present);
    g_dec.calls = NULL;
    g_dec.parts = NULL;
    g_dec.ctxs = NULL;
    g_dec.scan = NULL;
    g_dec.part_of = g_dec.present = NULL;
    g_dec.cap_calls = g_dec.cap_parts = 0;
}

static bool tables(void) {
    if (g_dec.calls) return true;
    if (g_dec.failed) return false;
    g_dec.calls = calloc(FIRST_CALLS, sizeof *g_dec.calls);
    g_dec.parts = calloc(2 * FIRST_CALLS, sizeof *g_dec.parts);
    g_dec.ctxs = calloc(MAX_CTX, sizeof *g_dec.ctxs);
    g_dec.scan = calloc(OPSCOPE_CAP_MAX_SEQ, sizeof *g_dec.scan);
    g_dec.part_of = malloc(OPSCOPE_CAP_MAX_SEQ * sizeof *g_dec.part_of);
    g_dec.present = malloc(OPSCOPE_CAP_MAX_SEQ * sizeof *g_dec.present);
    if (g_dec.calls && g_dec.parts && g_dec.ctxs && g_dec.scan && g_dec.part_of && g_dec.present) {
        g_dec.cap_calls = FIRST_CALLS;
        g_dec.cap_parts = 2 * FIRST_CALLS;
        return true;
    }
    free_tables();
    g_dec.failed = true;
    return false;
}

/* Room for one more element of SIZE bytes in *TABLE (N held of *CAP), doubling the table up
 * to MAX elements. Locked. */
static bool room(void **table, uint32_t n, uint32_t *cap, uint32_t max, size_t size) {
    if (n < *cap) return true;
    if (*cap >= max) return false;
    uint32_t nc = *cap * 2 < max ? *cap * 2 : max;
    void *p = realloc(*table, nc * size);
    if (!p) return false;
    *table = p;
    *cap = nc;
    return true;
}

static bool room_for_call(void) {
    return room((void **)&g_dec.calls, g_dec.n_calls, &g_dec.cap_calls, MAX_CALLS, sizeof *g_dec.calls);
}

static bool room_for_part(void) {
    return room((void **)&g_dec.parts, g_dec.n_parts, &g_dec.cap_parts, MAX_PARTS, sizeof *g_dec.parts);
}

/* CTX's state (made on first sight; NULL when MAX_CTX live contexts are tracked). Locked. */
static ctx_state *ctx_of(const void *ctx, const void *mem) {
    ctx_state *free_slot = NULL;
    for (int i = 0; i < MAX_CTX; i++) {
        ctx_state *c = &g_dec.ctxs[i];
        if (c->ctx == ctx) {
            c->mem = mem;
            return c;
        }
        if (!c->ctx && !free_slot) free_slot = c;
    }
    if (!free_slot) return NULL;
    memset(free_slot, 0, sizeof *free_slot);
    free_slot->ctx = ctx;
    free_slot->mem = mem;
    free_slot->number = (int32_t)g_dec.n_ctx_numbers++;
    return free_slot;
}

static int32_t seq_at(const opscope_cap_batch *b, int32_t i, int32_t j) {
    return b->seq_id ? b->seq_id[i][j] : 0;
}

static int32_t n_seq_at(const opscope_cap_batch *b, int32_t i) {
    return b->n_seq_id ? b->n_seq_id[i] : 1;
}

static bool output_at(const opscope_cap_batch *b, int32_t i) {
    return b->logits ? b->logits[i] != 0 : i == b->n_tokens - 1;
}

/* First pass: which sequences the batch has, their lowest position, whether a token asks no
 * output; then which start a new request. Only the batch's sequences are visited (a
 * generation step of a few slots costs a few entries, not the 256). */
static void scan_batch(const ctx_state *c, const opscope_cap_batch *b) {
    g_dec.n_present = 0;
    for (int32_t i = 0; i < b->n_tokens; i++) {
        for (int32_t j = 0, n = n_seq_at(b, i); j < n && j < OPSCOPE_CAP_MAX_SEQ; j++) {
            int32_t s = seq_at(b, i, j);
            if (s < 0 || s >= OPSCOPE_CAP_MAX_SEQ) continue;
            seq_scan *q = &g_dec.scan[s];
            int32_t p = b->pos ? b->pos[i] : INT32_MAX;
            if (!q->present || p < q->min_pos) q->min_pos = p;
            if (!q->present) g_dec.present[g_dec.n_present++] = (int16_t)s;
            q->present = true;
            if (!output_at(b, i)) q->asks_none = true;
        }
    }
    for (int k = 0; k < g_dec.n_present; k++) {
        int s = g_dec.present[k];
        seq_scan *q = &g_dec.scan[s];
        const seq_state *st = &c->seqs[s];
        g_dec.part_of[s] = -1;
        q->new_request = !st->seen || (b->pos && q->min_pos <= st->prompt_pos) ||
                         (st->generating && q->asks_none);
    }
}

/* Adds sequence S's token at position POS (OUT: it asks an output) to the call's parts.
 * Returns false when the parts table is full. */
static bool count_token(ctx_state *c, call *k, int32_t s, int32_t pos, bool out) {
    if (g_dec.part_of[s] < 0) {
        if (!room_for_part()) return false;
        seq_state *st = &c->seqs[s];
        if (g_dec.scan[s].new_request) {
            st->request = g_dec.next_request++;
            st->prompt_pos = -1;
            st->generating = false;
            st->seen = true;
        }
        g_dec.part_of[s] = (int16_t)k->n_parts++;
        g_dec.parts[g_dec.n_parts++] = (opscope_run_seq){.seq = s, .request = st->request};
    }
    opscope_run_seq *q = &g_dec.parts[k->part0 + (uint32_t)g_dec.part_of[s]];
    seq_state *st = &c->seqs[s];
    q->n_tokens++;
    if (!st->generating) {
        q->n_prompt++;
        if (pos > st->prompt_pos) st->prompt_pos = pos;
    }
    if (out) {
        q->n_outputs++;
        st->generating = true;
    }
    return true;
}

/* Second pass: the call's parts, in order of each sequence's first token. Returns false when
 * the parts table filled up (the call's parts are then taken back). */
static bool count_batch(ctx_state *c, call *k, const opscope_cap_batch *b) {
    for (int32_t i = 0; i < b->n_tokens; i++) {
        bool out = output_at(b, i);
        k->n_outputs += out;
        /* llama's own default position: the sequence's next; a prompt position stays unknown */
        int32_t pos = b->pos ? b->pos[i] : INT32_MIN;
        for (int32_t j = 0, n = n_seq_at(b, i); j < n && j < OPSCOPE_CAP_MAX_SEQ; j++) {
            int32_t s = seq_at(b, i, j);
            if (s < 0 || s >= OPSCOPE_CAP_MAX_SEQ) continue;
            if (!count_token(c, k, s, pos, out)) {
                g_dec.n_parts = k->part0;
                k->n_parts = 0;
                return false;
            }
        }
    }
    return true;
}

void opscope_cap_decode_note(const void *ctx, const void *mem, const opscope_cap_batch *b,
                             uint64_t start_ns, uint64_t end_ns, int64_t graph0, int64_t graph1,
                             int32_t ret) {
    pthread_mutex_lock(&g_dec.lock);
    if (!tables() || !room_for_call()) {
        g_dec.lost++;
        pthread_mutex_unlock(&g_dec.lock);
        return;
    }
    ctx_state *c = ctx_of(ctx, mem);
    call *k = &g_dec.calls[g_dec.n_calls];
    *k = (call){.start_ns = start_ns, .end_ns = end_ns, .graph = graph0,
                .n_graphs = graph1 > graph0 && graph1 - graph0 <= UINT32_MAX ? (uint32_t)(graph1 - graph0) : 0,
                .n_tokens = b->n_tokens > 0 ? (uint32_t)b->n_tokens : 0, .part0 = g_dec.n_parts,
                .context = c ? c->number : -1, .ret = ret, .wiped = c && c->wiped};
    if (c) c->wiped = false;
    /* a call begun outside the capture's windows (cap_window.h) moves its sequences' requests
     * on (numbering stays right across a pause) but is not kept */
    bool keep = opscope_cap_window_holds(start_ns);
    if (c && ret == 0 && b->n_tokens > 0) {
        scan_batch(c, b);
        if (!count_batch(c, k, b) && keep) g_dec.lost++; /* kept without its parts */
        for (int i = 0; i < g_dec.n_present; i++) g_dec.scan[g_dec.present[i]] = (seq_scan){0};
    }
    if (keep) {
        g_dec.n_calls++;
    } else {
        g_dec.n_parts = k->part0;
    }
    pthread_mutex_unlock(&g_dec.lock);
}

void opscope_cap_decode_cleared(const void *mem, bool data) {
    pthread_mutex_lock(&g_dec.lock);
    for (int i = 0; g_dec.ctxs && mem && i < MAX_CTX; i++)
        if (g_dec.ctxs[i].ctx && g_dec.ctxs[i].mem == mem) {
            for (int s = 0; s < OPSCOPE_CAP_MAX_SEQ; s++) g_dec.ctxs[i].seqs[s].seen = false;
            if (data) g_dec.ctxs[i].wiped = true;
        }
    pthread_mutex_unlock(&g_dec.lock);
}

void opscope_cap_decode_ctx_freed(const void *ctx) {
    pthread_mutex_lock(&g_dec.lock);
    for (int i = 0; g_dec.ctxs && ctx && i < MAX_CTX; i++)
        if (g_dec.ctxs[i].ctx == ctx) g_dec.ctxs[i].ctx = NULL;
    pthread_mutex_unlock(&g_dec.lock);
}

/* Call K as the profile's (its parts in the table). Locked. */
static opscope_run_decode as_decode(const call *k) {
    return (opscope_run_decode){.start_ns = k->start_ns, .end_ns = k->end_ns, .graph = k->graph,
                                .n_graphs = k->n_graphs, .n_tokens = k->n_tokens,
                                .n_outputs = k->n_outputs, .context = k->context, .ret = k->ret,
                                .n_seqs = k->n_parts, .seqs = g_dec.parts + k->part0,
                                .wiped = k->wiped};
}

int opscope_cap_decodes_add(opscope_run_t *r) {
    if (pthread_mutex_trylock(&g_dec.lock) != 0) return 0; /* a note interrupted: left out */
    int rc = 0;
    for (uint32_t i = 0; g_dec.calls && i < g_dec.n_calls && !rc; i++) {
        opscope_run_decode d = as_decode(&g_dec.calls[i]);
        rc = opscope_run_add_decode(r, &d);
    }
    opscope_run_set_decodes_lost(r, g_dec.lost);
    pthread_mutex_unlock(&g_dec.lock);
    return rc;
}

int opscope_cap_decodes_put(opscope_oplog_buf *b, opscope_cap_decodes_cursor *cur) {
    if (pthread_mutex_trylock(&g_dec.lock) != 0) return 0;
    int n = 0;
    uint64_t end = g_dec.base + g_dec.n_calls;
    /* a cursor before the table: those calls went in an earlier log (a log started again) */
    uint64_t from = cur->next > g_dec.base ? cur->next : g_dec.base;
    if (from < end || g_dec.lost != cur->lost) {
        n = from < end ? (int)(end - from) : 0;
        bool e = opscope_oplog_put_u(b, g_dec.lost) | opscope_oplog_put_u(b, (uint64_t)n);
        uint32_t first = (uint32_t)(from - g_dec.base);
        uint64_t wiped = 0;
        for (uint32_t i = first; i < g_dec.n_calls && !e; i++) {
            opscope_run_decode d = as_decode(&g_dec.calls[i]);
            e = opscope_oplog_put_decode(b, &d) != 0;
            wiped += d.wiped;
        }
        /* the calls after a wipe, at the chunk's end (model/oplog_dec.h) */
        e = e || opscope_oplog_put_u(b, wiped);
        for (uint32_t i = first; i < g_dec.n_calls && wiped && !e; i++)
            if (g_dec.calls[i].wiped) e = opscope_oplog_put_u(b, i - first) != 0;
        if (e) {
            n = -1;
        } else {
            cur->next = end > cur->next ? end : cur->next;
            cur->lost = g_dec.lost;
        }
    }
    pthread_mutex_unlock(&g_dec.lock);
    return n;
}

void opscope_cap_decodes_release(uint64_t upto) {
    if (pthread_mutex_trylock(&g_dec.lock) != 0) return; /* the next flush releases them */
    if (upto > g_dec.base) {
        uint32_t k = upto - g_dec.base < g_dec.n_calls ? (uint32_t)(upto - g_dec.base) : g_dec.n_calls;
        uint32_t keep = g_dec.n_calls - k;
        /* those noted since the chunk (few: a flush puts and releases together) move to the front */
        uint32_t p0 = keep ? g_dec.calls[k].part0 : g_dec.n_parts;
        if (keep) {
            memmove(g_dec.calls, g_dec.calls + k, keep * sizeof *g_dec.calls);
            for (uint32_t i = 0; i < keep; i++) g_dec.calls[i].part0 -= p0;
        }
        if (g_dec.n_parts > p0) {
            memmove(g_dec.parts, g_dec.parts + p0, (g_dec.n_parts - p0) * sizeof *g_dec.parts);
        }
        g_dec.n_parts -= p0;
        g_dec.n_calls = keep;
        g_dec.base += k;
    }
    pthread_mutex_unlock(&g_dec.lock);
}

uint64_t opscope_cap_decodes_lost(void) {
    if (pthread_mutex_trylock(&g_dec.lock) != 0) return 0; /* a note interrupted: said later */
    uint64_t n = g_dec.lost;
    pthread_mutex_unlock(&g_dec.lock);
    return n;
}

size_t opscope_cap_decodes_lost_line(char *buf, size_t size, bool log) {
    uint64_t lost = opscope_cap_decodes_lost();
    if (!lost || !size) return 0;
    int n = snprintf(buf, size,
                     "opscope: %llu llama_decode call%s not recorded whole: the capture's table (%d calls, %d "
                     "sequence parts) was full (%s); the requests they carried are incomplete in the profile",
                     (unsigned long long)lost, lost == 1 ? "" : "s", MAX_CALLS, MAX_PARTS,
                     log ? "the record log's checkpoints did not take them in time"
                         : "no record log takes them: a stream output, OPSCOPE_STREAM=0 or OPSCOPE_GRAPH_LOG");
    return n < 0 ? 0 : (size_t)n < size ? (size_t)n : size - 1;
}

void opscope_cap_decodes_usage(opscope_cap_decodes_held *h) {
    pthread_mutex_lock(&g_dec.lock);
    *h = (opscope_cap_decodes_held){.calls = g_dec.n_calls, .parts = g_dec.n_parts,
                                    .cap_calls = g_dec.cap_calls, .cap_parts = g_dec.cap_parts,
                                    .noted = g_dec.base + g_dec.n_calls, .lost = g_dec.lost,
                                    .bytes = (uint64_t)g_dec.cap_calls * sizeof(call) +
                                             (uint64_t)g_dec.cap_parts * sizeof(opscope_run_seq)};
    pthread_mutex_unlock(&g_dec.lock);
}

void opscope_cap_decodes_reset(void) {
    pthread_mutex_lock(&g_dec.lock);
    g_dec.n_calls = g_dec.n_parts = g_dec.n_ctx_numbers = g_dec.next_request = 0;
    g_dec.base = g_dec.lost = 0;
    free_tables(); /* the next call starts from the first size again */
    g_dec.failed = false;
    pthread_mutex_unlock(&g_dec.lock);
}
