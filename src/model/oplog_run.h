/*
 * oplog_run.h - what ran in the record log's RUN chunks (docs/formats.md, "The record log"):
 * the command line, the model files with their GGUF facts, the llama contexts with their
 * repetitions, the BLAS library and the CPUs online (opscope_run_info). The capture appends
 * one when what ran changed since the last (capture/store/cap_log.c); the reader keeps the
 * last one (read/oplog_read.c), so a killed run's log still says what ran. This file is the
 * one definition of the chunk's bytes.
 *
 * Ownership: the decoder copies every string into the opscope_run_t it fills. NULL handling:
 * a NULL run encodes as an empty one. Thread safety: pure functions.
 */
#ifndef OPSCOPE_MODEL_OPLOG_RUN_H
#define OPSCOPE_MODEL_OPLOG_RUN_H

#include "model/run_info.h"
#include "opscope.h"
#include "util/oplog.h"

/* Appends RUN's fields to B. Returns 0, or -1 when out of memory (B then holds a prefix). */
int opscope_oplog_put_run(opscope_oplog_buf *b, const opscope_run_info *run);
/* Decodes a RUN payload at C into OUT (an empty opscope_run_new()). Returns 0, -1 when the
 * bytes are damaged (C->bad set) or -2 when out of memory; OUT then holds a prefix. */
int opscope_oplog_get_run(opscope_oplog_cur *c, opscope_run_t *out);

#endif /* OPSCOPE_MODEL_OPLOG_RUN_H */
