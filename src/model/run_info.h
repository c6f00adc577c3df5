/*
 * run_info.h - an owned opscope_run_info (internal): what ran, built member by member by the
 * reader of a profile's "capture" or copied whole from another (the in-memory profile, the
 * JSON export, the stats). Strings and arrays are copied in; the view's pointers stay valid
 * until the next add or the free.
 * Thread safety: none. NULL handling: every function takes a NULL object and does nothing
 * (the view and the copy of NULL are NULL).
 */
#ifndef OPSCOPE_RUN_INFO_H
#define OPSCOPE_RUN_INFO_H

#include "opscope.h"

typedef struct opscope_run opscope_run_t;

/* NULL when out of memory. */
opscope_run_t *opscope_run_new(void);
void opscope_run_free(opscope_run_t *r);

/* Each returns 0, or -1 when out of memory (the object stays as it was). */
int opscope_run_add_arg(opscope_run_t *r, const char *s, size_t len);
int opscope_run_add_model(opscope_run_t *r, const opscope_run_model *m);
int opscope_run_add_context(opscope_run_t *r, const opscope_run_context *c);
int opscope_run_add_decode(opscope_run_t *r, const opscope_run_decode *d); /* its seqs copied */
int opscope_run_set_blas(opscope_run_t *r, const char *name, const char *path, int32_t threads);
void opscope_run_set_decodes_lost(opscope_run_t *r, uint64_t lost);
/* SRC's calls and their lost count go to DST (after its own calls), SRC keeping none: its
 * arrays change hands when DST has no calls (a long run's calls are not copied), else they
 * are copied. Returns 0, or -1 when out of memory (DST may then hold some of them). */
int opscope_run_move_decodes(opscope_run_t *dst, opscope_run_t *src);
/* Marks call I (an index into decodes; past them: nothing) wiped. */
void opscope_run_set_decode_wiped(opscope_run_t *r, size_t i);
void opscope_run_set_cores(opscope_run_t *r, int32_t cores);

/* The run as the public struct; NULL for a NULL object. */
const opscope_run_info *opscope_run_view(opscope_run_t *r);

/* A deep copy of SRC (NULL: NULL; out of memory: NULL and *FAILED set when FAILED given). */
opscope_run_t *opscope_run_copy(const opscope_run_info *src, int *failed);

#endif /* OPSCOPE_RUN_INFO_H */
