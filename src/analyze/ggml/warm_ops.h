/*
 * warm_ops.h - per op group of the report (display name, backend, type), the calls and time
 * spent in warm-up graph computes and in the load (graphs.h, docs/metrics.md "Warm-up"), for
 * the op table's marks (internal).
 *
 * Streamed: while a graph is open its records are summed per op group; a graph closes when it
 * leaves a ring of the last 64 graphs seen (pipelined computes interleave their records) or at
 * the end, and it is a warm-up when no graph closed before it had its topology (graphs.c's:
 * opscope_record_topo; in a run with weights, a graph with a GRAPH_SPLIT record never is).
 * The same graphs as graphs.c's when ids rise with time (the capture's). Records before the
 * first graph's are the load. Outliers are not counted: their median is known at the end only.
 *
 * Memory: per op group 40 bytes, per open graph 24 bytes per record (a record is only
 * looked up in the groups' table when its graph closes as a warm-up). Ownership: the object owns its
 * tables; group keys borrow DISPLAY strings, which must outlive it (the stats' own, set on the
 * derived values by the session's stats before this sees a record). Thread safety: none.
 */
#ifndef OPSCOPE_WARM_OPS_H
#define OPSCOPE_WARM_OPS_H

#include "analyze/record/derived.h"
#include "opscope.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct opscope_warm_ops opscope_warm_ops_t;

/* NULL when out of memory. */
opscope_warm_ops_t *opscope_warm_ops_new(void);
void opscope_warm_ops_free(opscope_warm_ops_t *w);

/* One record with its derived values (D's display must be set; without one the record is not
 * counted) and TOPO, its part of its graph's topology (opscope_record_topo; any value for a
 * copy). Returns 0, or -1 when out of memory. */
int opscope_warm_ops_add(opscope_warm_ops_t *w, const opscope_record *rec, const opscope_derived *d,
                         uint64_t topo);
/* Closes every open graph (after the read; records may come again after it). */
void opscope_warm_ops_finish(opscope_warm_ops_t *w);

/* The warm-up and load part of the group DISPLAY (the same pointer) on BACKEND of TYPE:
 * calls and summed durations. False (zeros) when it has none. W may be NULL. */
bool opscope_warm_ops_get(const opscope_warm_ops_t *w, const char *display, int32_t backend,
                          opscope_record_type type, uint64_t *count, uint64_t *ns);

#endif /* OPSCOPE_WARM_OPS_H */
