/*
 * oplog_backend.h - a BACKEND chunk of the record log (docs/formats.md, "The record log"): id,
 * name, device, device type. The one decoding of it for the log's readers (read/oplog_read.c,
 * the whole log; read/oplog_tail.c, the log as it grows).
 *
 * Ownership: the names point into the payload. NULL handling: none. Thread safety: pure.
 */
#ifndef OPSCOPE_MODEL_OPLOG_BACKEND_H
#define OPSCOPE_MODEL_OPLOG_BACKEND_H

#include "opscope.h"
#include "util/oplog.h"

/* Decodes the backend at C into B. Returns 0, or -1 on damage (values past the payload, an id
 * over INT32_MAX, no name). */
int opscope_oplog_get_backend(opscope_oplog_cur *c, opscope_backend *b);

#endif /* OPSCOPE_MODEL_OPLOG_BACKEND_H */
