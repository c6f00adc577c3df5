/*
 * tee.h - one record stream into several sinks (internal).
 *
 * Calls each sink's callback in the order the sinks were added; the first non-zero return
 * stops the stream. A sink added with opscope_tee_add_derived gets the record's derived
 * values (derived.h), one opscope_derived per record for all of them. Ownership: the tee stores copies of the opscope_sink structs (their ud
 * pointers stay owned by the caller). Thread safety: none.
 */
#ifndef OPSCOPE_TEE_H
#define OPSCOPE_TEE_H

#include "analyze/record/derived.h"
#include "opscope.h"

#define OPSCOPE_TEE_MAX 14

typedef struct opscope_tee {
    opscope_sink sinks[OPSCOPE_TEE_MAX];
    opscope_derived_fn derived[OPSCOPE_TEE_MAX]; /* per sink: replaces its on_record, or NULL */
    int n, n_derived;
} opscope_tee;

void opscope_tee_init(opscope_tee *t);
/* Returns 0, or -1 when OPSCOPE_TEE_MAX sinks are already there. */
int opscope_tee_add(opscope_tee *t, opscope_sink s);
/* The same, with ON_DERIVED (may be NULL) called instead of S's on_record: each record's
 * derived values (derived.h) are made once, shared by every sink that takes them. */
int opscope_tee_add_derived(opscope_tee *t, opscope_sink s, opscope_derived_fn on_derived);
/* The combined sink; T must outlive it. */
opscope_sink opscope_tee_sink(opscope_tee *t);

#endif /* OPSCOPE_TEE_H */
