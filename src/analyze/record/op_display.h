/*
 * op_display.h - the name a report shows for a record or a group of records (internal):
 * its op, sub-op, and fused group or copying call. Pure; thread safe.
 */
#ifndef OPSCOPE_OP_DISPLAY_H
#define OPSCOPE_OP_DISPLAY_H

#include "opscope.h"

#include <stddef.h>

/* Display name of a record or group: "NAME", "NAME(SUB)", then for an OP with EXTRA (the
 * fused-op name) " [fused: EXTRA]", for a COPY with EXTRA (the ggml call) " (via EXTRA)".
 * Writes at most SIZE bytes including the NUL; returns the length it wanted. */
size_t opscope_op_display(char *buf, size_t size, opscope_record_type type, const char *name,
                          const char *sub_op, const char *extra);

#endif /* OPSCOPE_OP_DISPLAY_H */
