/*
 * record.h - values derived from an opscope_record's own fields that every layer reads the
 * same way (the record itself is include/opscope.h's), and the sink of a consumer of records.
 * Pure; thread-safe; header-only.
 */
#ifndef OPSCOPE_MODEL_RECORD_H
#define OPSCOPE_MODEL_RECORD_H

#include "opscope.h"

/* R's sources that hold values: n_src clamped to 0..OPSCOPE_MAX_SRC (a reader keeps what the
 * file says; the arrays hold OPSCOPE_MAX_SRC). R must not be NULL. */
static inline int opscope_record_n_src(const opscope_record *r) {
    return r->n_src < 0 ? 0 : r->n_src > OPSCOPE_MAX_SRC ? OPSCOPE_MAX_SRC : r->n_src;
}

/* The sink that hands UD's meta, backends and records to ON_META, ON_BACKEND and ON_RECORD
 * (each may be NULL: not called), with no on_end. UD stays the caller's. */
static inline opscope_sink opscope_record_sink(void *ud, int (*on_meta)(void *, const opscope_meta *),
                                               int (*on_backend)(void *, const opscope_backend *),
                                               int (*on_record)(void *, const opscope_record *)) {
    opscope_sink s = {0};
    s.ud = ud;
    s.on_meta = on_meta;
    s.on_backend = on_backend;
    s.on_record = on_record;
    return s;
}

#endif /* OPSCOPE_MODEL_RECORD_H */
