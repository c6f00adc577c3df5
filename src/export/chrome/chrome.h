/*
 * chrome.h - Chrome Trace Event JSON export as an opscope_sink (internal).
 *
 * Streams one complete ("X") event per record, at its REAL start time: ts = start_ns / 1000
 * and dur = duration_ns / 1000 in microseconds, written exactly with 3 decimals. One process
 * per backend (named after its device, ordered by backend id) with one "compute" thread (a
 * ggml scheduler's splits collapsed: they take turns on the backend; one thread per split
 * with opscope_chrome_set_splits) or, for a GPU trace, one per stream; copies go to their own
 * "copies" thread with category "copy". An event that would overlap another on its thread
 * goes to an extra thread of the same track ("compute #2"); events are never shifted. Metadata events (names, sort order) are written
 * at the end, when every backend and track is known. Memory: per track, not per record.
 *
 * Ownership: the caller owns OUT (commits or aborts it after opscope_chrome_finish) and the
 * returned handle (opscope_chrome_free). Thread safety: none.
 */
#ifndef OPSCOPE_CHROME_H
#define OPSCOPE_CHROME_H

#include "opscope.h"
#include "analyze/record/derived.h"
#include "analyze/kineto/kineto.h"
#include "util/out.h"

#include <stdbool.h>

typedef struct opscope_chrome opscope_chrome_t;

/* A new exporter writing to OUT; NULL when out of memory. */
opscope_chrome_t *opscope_chrome_new(opscope_out_t *out);
void opscope_chrome_free(opscope_chrome_t *c);

opscope_sink opscope_chrome_sink(opscope_chrome_t *c);
/* Its on_record with the record's derived values (analyze/record/derived.h; UD is C), for a session. */
int opscope_chrome_sink_derived(void *ud, const opscope_record *rec, opscope_derived *d);

/* PER_SPLIT true: a thread per scheduler split of a ggml profile (false, the default: one
 * per backend). Call before the first record. */
void opscope_chrome_set_splits(opscope_chrome_t *c, bool per_split);

/* Puts C in front of a trace read's collector NEXT (the analysis): the returned collector
 * (owned by C, NULL for a NULL NEXT) passes every event on and keeps the runtime calls and
 * the GPU activities' correlation ids for opscope_chrome_add_kineto_cpu. Call before the
 * read; memory: 32 bytes per runtime call, 24 per correlated GPU activity, 8 per record. */
opscope_kineto_collector *opscope_chrome_kineto_tee(opscope_chrome_t *c,
                                                    opscope_kineto_collector *next);

/* A Kineto trace's CPU side from its finished analysis K: every cpu_op slice (one thread per
 * CPU thread of the trace, in a "CPU" process after the backends), the profiler steps (a
 * "steps" thread) and, when the read went through opscope_chrome_kineto_tee, every runtime
 * call (category "runtime", on its thread) and one flow ("ac2g") from the launching call to
 * each GPU activity it launched. Call before opscope_chrome_finish; K may be NULL. Returns
 * 0, or -1 when out of memory. */
int opscope_chrome_add_kineto_cpu(opscope_chrome_t *c, const opscope_kineto_t *k);

/* The critical path's hops between lanes (analyze/kineto/critical_path.h) as flows of category
 * "critical_path" (name "critical_path_<part>": launch, wait, queue...), after
 * opscope_chrome_add_kineto_cpu of a teed trace. CP may be NULL. Returns 0. */
typedef struct opscope_cpath opscope_cpath_t;
int opscope_chrome_add_critical_path(opscope_chrome_t *c, const opscope_cpath_t *cp);

/* Writes the metadata events and closes the JSON. Returns 0, or -1 when out of memory
 * (write errors surface in opscope_out_commit). */
int opscope_chrome_finish(opscope_chrome_t *c);

#endif /* OPSCOPE_CHROME_H */
