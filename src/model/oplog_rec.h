/*
 * oplog_rec.h - records in the record log's RECORDS chunks (docs/formats.md, "The record
 * log"): a template is everything of an opscope_record that repeats from one compute to the
 * next (name, shapes, strides, params, backend, split, thread, node, fused name, kernels); an
 * instance is one record: its template's number, its times and its graph id. The capture
 * writes them (capture/store/cap_log.c), the reader reads them (read/oplog_read.c); this file
 * is the one definition of their bytes.
 *
 * Ownership: strings a decode hands out point into the payload. NULL handling: none. Thread
 * safety: pure functions; a state per chunk.
 */
#ifndef OPSCOPE_MODEL_OPLOG_REC_H
#define OPSCOPE_MODEL_OPLOG_REC_H

#include "opscope.h"
#include "util/oplog.h"

/* Appends R's template fields to B. Returns 0, or -1 when out of memory. */
int opscope_oplog_put_tmpl(opscope_oplog_buf *b, const opscope_record *r);
/* Decodes a template into R (initialised first; strings point into the payload). Returns 0,
 * or -1 when the bytes are damaged. */
int opscope_oplog_get_tmpl(opscope_oplog_cur *c, opscope_record *r);

/* One record: its template, the order key (the start the capture sorted by: a host start in
 * ns, also for device-timed records, whose own start is the device's) and its times. */
typedef struct opscope_oplog_inst {
    uint32_t tmpl;
    uint64_t key, key_end;
    int64_t graph;            /* when the template has OPSCOPE_HAS_GRAPH */
    uint64_t start_ns, duration_ns, host_start_ns, host_end_ns;
    /* when the template has OPSCOPE_HAS_THREADS: N_THREADS work and wait pairs; written from
     * THREADS, read as THR_AT (where they start in the payload: opscope_oplog_get_threads) */
    const uint32_t *threads;
    int32_t n_threads;
    const int32_t *thread_cpus; /* NULL: unknown */
    const unsigned char *thr_at;
} opscope_oplog_inst;

/* Deltas run from one instance to the next within a chunk. */
typedef struct opscope_oplog_state {
    uint64_t key;
    int64_t graph;
} opscope_oplog_state;

/* Appends I (HAS_GRAPH: the template's OPSCOPE_HAS_GRAPH). 0, or -1 when out of memory. */
int opscope_oplog_put_inst(opscope_oplog_buf *b, opscope_oplog_state *st, const opscope_oplog_inst *i,
                           bool has_graph);
/* Appends I's per-thread times (after the instance, when its template has OPSCOPE_HAS_THREADS):
 * the count, each thread's work and wait, then each thread's CPU + 1 (0: unknown). 0, or -1
 * when out of memory. */
int opscope_oplog_put_threads(opscope_oplog_buf *b, const opscope_oplog_inst *i);
/* Decodes the per-thread times at AT (an instance's thr_at; END: its payload's end) into OUT
 * (room for 2 * OPSCOPE_MAX_THREADS) and CPUS (room for OPSCOPE_MAX_THREADS). Returns the
 * threads, or -1 when the bytes are damaged. */
int opscope_oplog_get_threads(const unsigned char *at, const unsigned char *end, uint32_t *out, int32_t *cpus);

/* The fields of an instance after its key and end, as flags. */
enum {
    OPSCOPE_OPLOG_INST_EXT = 1 << 0,   /* its own start, duration and host times (else the key's) */
    OPSCOPE_OPLOG_INST_GRAPH = 1 << 1, /* a graph id: its template has OPSCOPE_HAS_GRAPH */
    OPSCOPE_OPLOG_INST_THREADS = 1 << 2, /* per-thread times: its template has OPSCOPE_HAS_THREADS */
};

/* Reads an instance's template number (the first field) and sets *PARTS to
 * OPSCOPE_OPLOG_INST_EXT or 0: the caller adds OPSCOPE_OPLOG_INST_GRAPH when the template has
 * OPSCOPE_HAS_GRAPH, then calls opscope_oplog_get_inst_rest with them. */
uint32_t opscope_oplog_get_inst_tmpl(opscope_oplog_cur *c, unsigned *parts);
/* Decodes the rest of the instance into I (all but its template number), the fields PARTS
 * (OPSCOPE_OPLOG_INST_*) names, advancing ST. A damaged field sets C's bad flag. */
void opscope_oplog_get_inst_rest(opscope_oplog_cur *c, opscope_oplog_state *st, unsigned parts,
                                 opscope_oplog_inst *i);

#endif /* OPSCOPE_MODEL_OPLOG_REC_H */
