/*
 * derived.h - a record's derived values, computed once for every consumer (internal).
 *
 * What analyses and outputs derive from a record (its ggml op, sub-op, FLOPs, memory traffic,
 * fused name in the report's vocabulary, display name) is made once per record: the session's
 * tee (tee.h) starts one opscope_derived per record and hands it to every analysis and output
 * that takes one (opscope_derived_fn); each value is computed on its first use and kept, so a
 * run that asks for none computes none. A sink fed without a session (view's HTML, diff's
 * sides) starts its own per record with opscope_derived_init and reads the same accessors.
 *
 * Ownership: D borrows REC for one record's callbacks; strings returned are REC's, static,
 * D's own buffer, or (display) the stats' string table: valid while D and REC are.
 * NULL: D and its record must not be NULL. Thread safety: none; one D per record in flight.
 */
#ifndef OPSCOPE_DERIVED_H
#define OPSCOPE_DERIVED_H

#include "analyze/record/fused_name.h"
#include "model/op_cost.h"
#include "model/ggml_vocab.h"
#include "opscope.h"

#include <stdbool.h>

enum {
    OPSCOPE_DERIVED_OP = 1u << 0,
    OPSCOPE_DERIVED_SUB_OP = 1u << 1,
    OPSCOPE_DERIVED_FLOPS = 1u << 2,
    OPSCOPE_DERIVED_TRAFFIC = 1u << 3,
    OPSCOPE_DERIVED_FUSED = 1u << 4,
};

typedef struct opscope_derived {
    const opscope_record *rec;
    unsigned have;           /* OPSCOPE_DERIVED_* bits: the values computed so far */
    int op;                  /* ggml op value of rec->name, -1: none */
    int32_t sub_value;       /* -1: none */
    const char *sub_op;
    const char *fused;
    const char *display;     /* the stats' group display, NULL until they set it */
    uint64_t flops, traffic_bytes;
    opscope_traffic traffic;
    char fused_buf[256];
} opscope_derived;

/* The fill inlined, so that a constant set of values leaves only their own work. */
#if defined(__GNUC__)
#define OPSCOPE_DERIVED_INLINE static inline __attribute__((always_inline))
#else
#define OPSCOPE_DERIVED_INLINE static inline
#endif

/* A record's derived values, with the record they were made from. Returns non-zero to stop
 * the read, as opscope_sink's on_record. */
typedef int (*opscope_derived_fn)(void *ud, const opscope_record *rec, opscope_derived *d);

static inline void opscope_derived_init(opscope_derived *d, const opscope_record *rec) {
    d->rec = rec;
    d->have = 0;
    d->display = NULL;
}

/* REC's derived values, made here, handed to FN with UD: the on_record of an output's own
 * sink (in a session, the tee makes them once for every output). Returns FN's result. */
static inline int opscope_derived_pass(opscope_derived_fn fn, void *ud, const opscope_record *rec) {
    opscope_derived d;
    opscope_derived_init(&d, rec);
    return fn(ud, rec, &d);
}

/* Defines NAME, a static opscope_sink on_record that hands each record to FN through
 * opscope_derived_pass. */
#define OPSCOPE_DERIVED_ON_RECORD(name, fn) \
    static int name(void *ud, const opscope_record *rec) { return opscope_derived_pass((fn), ud, rec); }

/* For a consumer that knows the op without a lookup (the stats keep it per group). */
static inline void opscope_derived_set_op(opscope_derived *d, int op) {
    d->op = op;
    d->have |= OPSCOPE_DERIVED_OP;
}

/* Whether one of WHAT's values depends on R's op (else -1 stands for it). */
static inline bool opscope_derived_needs_op_(const opscope_record *r, unsigned what) {
    if (what & OPSCOPE_DERIVED_OP) return true;
    if ((what & OPSCOPE_DERIVED_SUB_OP) && opscope_record_sub_op_needs_op(r)) return true;
    if (r->type != OPSCOPE_RECORD_OP) return false; /* a copy's FLOPs and traffic need none */
    return (what & OPSCOPE_DERIVED_TRAFFIC) ||
           ((what & OPSCOPE_DERIVED_FLOPS) && !(r->has & OPSCOPE_HAS_FLOPS));
}

/* Computes the values of WHAT (OPSCOPE_DERIVED_* bits) not computed yet. */
OPSCOPE_DERIVED_INLINE void opscope_derived_fill(opscope_derived *d, unsigned what) {
    const opscope_record *r = d->rec;
    what &= ~d->have;
    if (!(d->have & OPSCOPE_DERIVED_OP) && opscope_derived_needs_op_(r, what))
        opscope_derived_set_op(d, opscope_ggml_op_value(r->name));
    int op = (d->have & OPSCOPE_DERIVED_OP) ? d->op : -1;
    if (what & OPSCOPE_DERIVED_SUB_OP) {
        if (r->sub_op || (r->has & (OPSCOPE_HAS_SUB_OP | OPSCOPE_HAS_OP_PARAMS))) {
            d->sub_op = opscope_record_sub_op_as(r, op, &d->sub_value);
        } else { /* none: most records of most profiles */
            d->sub_op = NULL;
            d->sub_value = -1;
        }
    }
    if (what & OPSCOPE_DERIVED_FLOPS) d->flops = opscope_op_flops(r, op);
    if (what & OPSCOPE_DERIVED_TRAFFIC) d->traffic_bytes = opscope_op_traffic(r, op, &d->traffic);
    if (what & OPSCOPE_DERIVED_FUSED)
        d->fused = r->type == OPSCOPE_RECORD_OP && r->extra
                       ? opscope_fused_name_canonical(r->extra, r->n_fused, d->fused_buf, sizeof d->fused_buf)
                       : r->extra;
    d->have |= what;
}

/* The ggml op value of the record's name (opscope_ggml_op_value), -1 when it is none. */
static inline int opscope_derived_op(opscope_derived *d) {
    if (!(d->have & OPSCOPE_DERIVED_OP)) opscope_derived_fill(d, OPSCOPE_DERIVED_OP);
    return d->op;
}

/* The values of WHAT, for a consumer that reads several at once (the accessors below each
 * check and fill their own). */
OPSCOPE_DERIVED_INLINE void opscope_derived_need(opscope_derived *d, unsigned what) {
    if ((d->have & what) != what) opscope_derived_fill(d, what);
}

/* The sub-op's name (opscope_record_sub_op) and, when VALUE is not NULL, its value. */
static inline const char *opscope_derived_sub_op(opscope_derived *d, int32_t *value) {
    if (!(d->have & OPSCOPE_DERIVED_SUB_OP)) opscope_derived_fill(d, OPSCOPE_DERIVED_SUB_OP);
    if (value) *value = d->sub_value;
    return d->sub_op;
}

/* FLOPs (opscope_record_flops). */
static inline uint64_t opscope_derived_flops(opscope_derived *d) {
    if (!(d->have & OPSCOPE_DERIVED_FLOPS)) opscope_derived_fill(d, OPSCOPE_DERIVED_FLOPS);
    return d->flops;
}

/* Memory traffic and its split (opscope_record_traffic); *BYTES (may be NULL) its total. */
static inline const opscope_traffic *opscope_derived_traffic(opscope_derived *d, uint64_t *bytes) {
    if (!(d->have & OPSCOPE_DERIVED_TRAFFIC)) opscope_derived_fill(d, OPSCOPE_DERIVED_TRAFFIC);
    if (bytes) *bytes = d->traffic_bytes;
    return &d->traffic;
}

/* The record's extra as the report names it: an OP's fused name in diff's one vocabulary
 * (opscope_fused_name_canonical: RMS_NORM_MUL is RMS_NORM+MUL), a COPY's ggml call as it is;
 * NULL when the record has none. */
static inline const char *opscope_derived_fused(opscope_derived *d) {
    if (!(d->have & OPSCOPE_DERIVED_FUSED)) opscope_derived_fill(d, OPSCOPE_DERIVED_FUSED);
    return d->fused;
}

/* The record's display name (opscope_op_display of name, sub-op and fused name), at most
 * SIZE - 1 bytes: the stats' own string when they saw the record first and it fits, else
 * written into BUF. */
const char *opscope_derived_display(opscope_derived *d, char *buf, size_t size);

#endif /* OPSCOPE_DERIVED_H */
