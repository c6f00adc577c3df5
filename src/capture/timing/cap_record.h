/*
 * cap_record.h - records of ggml nodes (internal): shared op descriptions, per-step events,
 * split and GRAPH records, written into this thread's record buffer (cap_buf.h).
 * Thread safety: per thread (the computing thread).
 */
#ifndef OPSCOPE_CAP_RECORD_H
#define OPSCOPE_CAP_RECORD_H

#include "capture/timing/cap_attr.h"
#include "capture/timing/cap_compute.h"
#include "capture/store/cap_buf.h"

#include "ggml.h"

#include <stdbool.h>
#include <stdint.h>

static inline bool opscope_cap_op_is_empty(enum ggml_op op) {
    return op == GGML_OP_NONE || op == GGML_OP_RESHAPE || op == GGML_OP_TRANSPOSE ||
           op == GGML_OP_VIEW || op == GGML_OP_PERMUTE;
}
/* The bytes node T writes: its size (ggml_nbytes), but for SET_ROWS the rows it sets, not
 * the destination it sets them in (a whole KV cache). */
size_t opscope_cap_out_bytes(const struct ggml_tensor *t);
/* The shared description of node T (written once while its fields stay the same); NULL
 * when the record buffer is full. */
const opscope_cap_rec *opscope_cap_desc_for(const struct ggml_tensor *t);
/* The parts of step S's event that depend only on the graph whose node pointers are NODES
 * (description, node, fused ops, bytes) into *E. False when the record buffer is full. */
bool opscope_cap_event_make(struct ggml_tensor *const *nodes, const opscope_cap_step *s, opscope_cap_event *e);
/* Appends the N events TMPL[k] of compute C (its backend, scheduler, graph id and split),
 * timed by STEPS[k], in one go; TID: this thread's id. THR (NULL: none): NT threads' work and
 * wait of each step k at THR[k * NT * 2], and after the N steps' pairs each thread's CPU;
 * each event then carries its step's. Returns how many were written. */
int opscope_cap_event_put_all(const opscope_cap_event *tmpl, const opscope_cap_step *steps, int n,
                              uint8_t flags, const opscope_cap_compute *c, int tid, const uint32_t *thr, int nt);
/* One timed step S of compute C's graph. Returns false when dropped. */
bool opscope_cap_emit_event(const opscope_cap_compute *c, const opscope_cap_step *s, uint8_t flags, int tid);
/* One record for the whole of compute C (backends without per-op timing; FLAGS:
 * OPSCOPE_CAP_F_SAMPLED_OUT for a compute that sampled device timing left untimed, else 0),
 * with the batch and attention queries of its computed nodes. */
void opscope_cap_emit_split(const opscope_cap_compute *c, uint8_t flags);
/* The GRAPH record of a compute: _add notes its outcome (TAIL: ticks after the last step that
 * are no node's), _write writes it once the capture's own work is done (T2), so it can say
 * how long that took. */
void opscope_cap_graph_rec_add(int steps, int attr, uint64_t tail);
void opscope_cap_graph_rec_write(const opscope_cap_compute *c, uint64_t t2);
/* Frees this thread's description cache. */
void opscope_cap_desc_free(void);

#endif
