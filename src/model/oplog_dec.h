/*
 * oplog_dec.h - the record log's DECODES chunk (docs/formats.md, "The record log"): the
 * libllama batches a capture saw since its last chunk (opscope_run_decode), so a run killed
 * before its end keeps its requests up to its last checkpoint. Payload: the calls lost so far
 * (u), the number of calls (u), then per call start_ns, end_ns (u), graph (i), graphs, tokens,
 * outputs (u), context, ret (i), its sequences' count (u) and per sequence seq (i), request,
 * tokens, prompt, outputs (u); after the calls, the count of those marked wiped (u) and their
 * indices in the chunk (u each): a chunk that ends before them (written before the mark) has
 * none, and a reader that predates them ignores them. Thread safety: pure.
 */
#ifndef OPSCOPE_OPLOG_DEC_H
#define OPSCOPE_OPLOG_DEC_H

#include "opscope.h"
#include "util/oplog.h"

/* Appends call D to B. Returns 0, or -1 when out of memory. */
int opscope_oplog_put_decode(opscope_oplog_buf *b, const opscope_run_decode *d);

/* The most sequences one call may carry in a chunk (llama's LLAMA_MAX_SEQ). */
#define OPSCOPE_OPLOG_DEC_MAX_SEQS 256

/* Reads one call from C into D, its sequences into SEQS (room for OPSCOPE_OPLOG_DEC_MAX_SEQS;
 * D->seqs points there). Returns 0, or -1 on damage (values past the payload, out of range). */
int opscope_oplog_get_decode(opscope_oplog_cur *c, opscope_run_decode *d, opscope_run_seq *seqs);

#endif /* OPSCOPE_OPLOG_DEC_H */
