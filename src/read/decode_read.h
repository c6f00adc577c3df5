/*
 * decode_read.h - the "decodes" member of a profile's capture object (docs/formats.md,
 * "decodes": the llama_decode calls the capture saw) read into an opscope_run_t (internal).
 * Thread safety: none.
 */
#ifndef OPSCOPE_DECODE_READ_H
#define OPSCOPE_DECODE_READ_H

#include "model/run_info.h"
#include "read/json.h"

/* Reads the array that begins with OPEN into R. Returns 0, or -1 on an error (set on J, with
 * its byte offset: a malformed call, a number out of range, out of memory). */
int opscope_read_run_decodes(opscope_json_t *j, const opscope_json_token *open, opscope_run_t *r);

#endif /* OPSCOPE_DECODE_READ_H */
