/*
 * record.h - values derived from an opscope_record's own fields that every layer reads the
 * same way (the record itself is include/opscope.h's). Pure; thread-safe; header-only.
 */
#ifndef OPSCOPE_MODEL_RECORD_H
#define OPSCOPE_MODEL_RECORD_H

#include "opscope.h"

/* R's sources that hold values: n_src clamped to 0..OPSCOPE_MAX_SRC (a reader keeps what the
 * file says; the arrays hold OPSCOPE_MAX_SRC). R must not be NULL. */
static inline int opscope_record_n_src(const opscope_record *r) {
    return r->n_src < 0 ? 0 : r->n_src > OPSCOPE_MAX_SRC ? OPSCOPE_MAX_SRC : r->n_src;
}

#endif /* OPSCOPE_MODEL_RECORD_H */
