/*
 * cap_decodes.h - the llama_decode calls of a llama.cpp program, for capture.run.decodes
 * (internal; docs/capture.md, "Requests"): per call its times on the capture's clock, the
 * graph ids computed inside it, and per sequence its tokens, the prompt's among them and its
 * outputs, each sequence's tokens numbered into requests. The hook (hooks/cap_decode.c) reads
 * libllama's batch into an opscope_cap_batch; nothing here knows libllama's structs.
 *
 * Requests: a sequence of a context starts a new request when the context's memory is
 * cleared, when a token's position goes back to or before the current request's last prompt
 * position (a new prompt, with or without a cached prefix), or when a sequence that has
 * produced an output gets a token that asks for none (a new prompt after a kept
 * conversation). A request's tokens up to and including its first output are its prompt;
 * those after it were generated (sampled from its outputs).
 *
 * Memory: the table holds the calls not yet written to the record log (all of them when no
 * log is written): it starts at 1024 calls (2048 sequence parts) and doubles up to 65536
 * calls (131072 parts); a call past that is counted (lost), never allocated. Each flush of
 * the log writes the calls noted since the last as a DECODES chunk and then releases them
 * (opscope_cap_decodes_release), so with the log the table holds one checkpoint's calls
 * however long the run. The per-context state that numbers requests (8 contexts of 256 sequences) is kept
 * to the end. Thread safety: every function takes one mutex (decodes are milliseconds apart,
 * never inside a compute); the exporting thread's functions only try it (a write from a signal
 * that interrupted a note leaves the calls for the next one); opscope_cap_decodes_add runs
 * under opscope_cap_run_get, on the exporting thread.
 */
#ifndef OPSCOPE_CAP_DECODES_H
#define OPSCOPE_CAP_DECODES_H

#include "model/run_info.h"
#include "util/oplog.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* llama's batch as the hook read it (llama.h's llama_batch: the arrays are the caller's, read
 * during the note only). NULL arrays mean llama's defaults: positions from the memory, one
 * sequence (0) per token, an output for the last token only. */
typedef struct opscope_cap_batch {
    int32_t n_tokens;
    const int32_t *pos;
    const int32_t *n_seq_id;
    int32_t *const *seq_id;
    const int8_t *logits;
} opscope_cap_batch;

/* The most sequence ids a batch may name (llama.h's LLAMA_MAX_SEQ in 0.7.0); tokens of other
 * ids are counted in the call but in no sequence. */
#define OPSCOPE_CAP_MAX_SEQ 256

/* A llama_decode call on context CTX (whose memory is MEM; both keys only) with batch B ran
 * from START_NS to END_NS, started graph ids [GRAPH0, GRAPH1), and returned RET (0: decoded;
 * otherwise its tokens start no request and move no sequence on). */
void opscope_cap_decode_note(const void *ctx, const void *mem, const opscope_cap_batch *b,
                             uint64_t start_ns, uint64_t end_ns, int64_t graph0, int64_t graph1,
                             int32_t ret);
/* llama_memory_clear(MEM, DATA): its context's sequences start new requests; with DATA the
 * context's next call is marked wiped (opscope_run_decode). */
void opscope_cap_decode_cleared(const void *mem, bool data);
/* llama_free(CTX): its state is forgotten (the pointer may come back as another context). */
void opscope_cap_decode_ctx_freed(const void *ctx);

/* Adds the calls noted so far, and the count of those lost, to R. Returns 0 or -1 (out of
 * memory). */
int opscope_cap_decodes_add(opscope_run_t *r);

/* Where the record log's DECODES chunks stand: the number of the first call not in one yet
 * (calls are numbered in the order noted, from 0), and the lost count the last one said. */
typedef struct opscope_cap_decodes_cursor {
    uint64_t next, lost;
} opscope_cap_decodes_cursor;

/* The calls from number CUR->next on, appended to B as a DECODES chunk's payload
 * (model/oplog_dec.h), also with none when the lost count changed (a table that could never
 * be allocated); *CUR then points past them. Returns how many calls (0 also for a chunk of
 * the lost count alone: B's length says whether there is one), 0 with B untouched when
 * nothing is new or the table is busy (a note interrupted: they wait for the next chunk), -1
 * when out of memory (*CUR unchanged). Calls released before CUR->next are skipped. */
int opscope_cap_decodes_put(opscope_oplog_buf *b, opscope_cap_decodes_cursor *cur);

/* The calls numbered before UPTO reached the record log's file: they leave the table (their
 * requests' numbering goes on from the per-sequence state). Does nothing when the table is
 * busy (the next flush releases them). Exporting thread. */
void opscope_cap_decodes_release(uint64_t upto);

/* Calls counted but not kept so far (0 when the table is busy). */
uint64_t opscope_cap_decodes_lost(void);

/* The line said once on stderr at exit when calls were lost (no newline), into BUF (SIZE
 * bytes, cut to fit); LOG: the record log was on (then only its checkpoints falling behind
 * lose calls). Returns its length, 0 when none were lost (BUF untouched). */
size_t opscope_cap_decodes_lost_line(char *buf, size_t size, bool log);

/* What the table holds now (tests and benchmarks; waits for the mutex). */
typedef struct opscope_cap_decodes_held {
    uint32_t calls, parts;         /* held: not yet released */
    uint32_t cap_calls, cap_parts; /* allocated */
    uint64_t noted, lost;          /* calls noted since the reset (kept or released), lost */
    uint64_t bytes;                /* the two tables' bytes */
} opscope_cap_decodes_held;
void opscope_cap_decodes_usage(opscope_cap_decodes_held *h);

/* Forgets everything and frees the tables (tests). */
void opscope_cap_decodes_reset(void);

#endif /* OPSCOPE_CAP_DECODES_H */
