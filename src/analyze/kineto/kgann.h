/*
 * kgann.h - a Kineto trace's GPU-side user annotations (gpu_user_annotation events: the span a
 * user annotation took on its device and stream) and the GPU activities each one holds, by
 * Holistic Trace Analysis' (HTA) definitions (internal; docs/kineto.md, "GPU-side user
 * annotations"):
 *   - every annotation as the trace gives it (name, device, stream, start, duration), and per
 *     annotation name its count, sum, min, max, mean and sample standard deviation (n - 1) of
 *     the durations (kstats.h's per-name rows);
 *   - per GPU activity, the innermost annotation it overlaps on its own device and stream:
 *     of those with a.start < act.end and act.start < a.end (half-open spans), the shortest
 *     (a tie: the later start, then the later in the trace).
 *
 * The annotations are kept as they stream in (40 bytes each); the activities are matched once
 * at the finish, by a sweep over both sorted by device, stream and start (memory: one index
 * per activity and per annotation).
 *
 * Ownership: a handle owns its rows (opscope_kgann_free; NULL is fine). Thread safety: one
 * handle per thread.
 */
#ifndef OPSCOPE_KGANN_H
#define OPSCOPE_KGANN_H

#include "analyze/kineto/kstats.h"
#include "util/strbuf.h"

#include <stddef.h>
#include <stdint.h>

typedef struct opscope_kgann opscope_kgann_t;

/* A new handle; NULL when out of memory. */
opscope_kgann_t *opscope_kgann_new(void);
void opscope_kgann_free(opscope_kgann_t *g);

/* One gpu_user_annotation event: name id NAME on DEVICE (its pid) and STREAM (its tid), from
 * START_NS for DUR_NS (negative: 0). 0, or -1 out of memory. */
int opscope_kgann_add(opscope_kgann_t *g, uint32_t name, int64_t device, int64_t stream, int64_t start_ns,
                      int64_t dur_ns);

/* One GPU activity at the finish. */
typedef struct opscope_kgann_act {
    int64_t start, end, device, stream;
} opscope_kgann_act;

/* Matches the activities A[0..N) (not changed; not read, and may be NULL, when there are no
 * annotations) with the annotations and makes the per-name rows. Call once, after the last
 * add. 0, or -1 out of memory. */
int opscope_kgann_finish(opscope_kgann_t *g, const opscope_kgann_act *a, size_t n);

/* ---- results (after the finish; valid until free) ---- */

typedef struct opscope_kgann_row {
    uint32_t name;
    int64_t device, stream, start_ns, dur_ns;
} opscope_kgann_row;

/* The annotations in the trace's order. */
const opscope_kgann_row *opscope_kgann_rows(const opscope_kgann_t *g, size_t *n);
/* Per activity of the finish (its order): the index into the rows of its innermost
 * annotation, UINT32_MAX when it overlaps none; *N the activities' count. NULL and 0 when the
 * trace has no GPU annotations (nothing is kept per activity then). */
const uint32_t *opscope_kgann_of(const opscope_kgann_t *g, size_t *n);
/* Per annotation name: count, sum, min, max, mean and std of the durations (the rows' kind is
 * 0), largest sum first. */
const opscope_kstats_kernel *opscope_kgann_names(const opscope_kgann_t *g, size_t *n);

/* NAME shortened by HTA's rule for kernel and annotation names, into OUT (reset first): a
 * memory activity's name (Memcpy, Memset, their hip forms, dma) is kept; else, with every
 * "->" left out, each ">" drops the text back to its "<" and each ")" back to its "(" (the
 * whole text when there is none), and the last space-separated word is kept. NULL gives "".
 * 0, or -1 out of memory. Thread safe. */
int opscope_kgann_short_name(const char *name, opscope_strbuf *out);

#endif /* OPSCOPE_KGANN_H */
