/*
 * tee.h - one record stream into several sinks (internal).
 *
 * Calls each sink's callback in the order the sinks were added; the first non-zero return
 * stops the stream. Ownership: the tee stores copies of the opscope_sink structs (their ud
 * pointers stay owned by the caller). Thread safety: none.
 */
#ifndef OPSCOPE_TEE_H
#define OPSCOPE_TEE_H

#include "opscope.h"

#define OPSCOPE_TEE_MAX 12

typedef struct opscope_tee {
    opscope_sink sinks[OPSCOPE_TEE_MAX];
    int n;
} opscope_tee;

void opscope_tee_init(opscope_tee *t);
/* Returns 0, or -1 when OPSCOPE_TEE_MAX sinks are already there. */
int opscope_tee_add(opscope_tee *t, opscope_sink s);
/* The combined sink; T must outlive it. */
opscope_sink opscope_tee_sink(opscope_tee *t);

#endif /* OPSCOPE_TEE_H */
