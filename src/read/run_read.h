/*
 * run_read.h - the run members of a profile's "capture" object (argv, models, contexts, blas,
 * cpu_cores, decodes, decodes_lost; docs/formats.md) read into an opscope_run_t (internal). Thread safety: none.
 */
#ifndef OPSCOPE_RUN_READ_H
#define OPSCOPE_RUN_READ_H

#include "model/run_info.h"
#include "read/json.h"

/* The run member KEY[0..LEN) of "capture" names (> 0), or 0 for another key. Taken before the
 * value is read: a key's string dies at the next token. */
int opscope_read_run_key(const char *key, size_t len);

/* Reads the value of run member KEY (opscope_read_run_key's), which begins with VAL, into *RUN
 * (made on first use; the caller frees it). Returns 1 when read, 0 when KEY is none (nothing
 * read), -1 on an error (set on J, with its byte offset). */
int opscope_read_run_member(opscope_json_t *j, int key, const opscope_json_token *val,
                            opscope_run_t **run);

#endif /* OPSCOPE_RUN_READ_H */
