/*
 * kmembw.h - the memory bandwidth of a trace's copies and sets over time (internal), by
 * Holistic Trace Analysis' (HTA) definitions (get_memory_bw_time_series, get_memory_bw_summary;
 * docs/kineto.md, "Queue length and memory bandwidth over time"):
 *   - the memory activities are the GPU activities named Memcpy..., Memset..., hipMemcpy...,
 *     hipMemset... or dma...; each is of a kind: "Memset", the first 11 characters of a
 *     "Memcpy..." name ("Memcpy HtoD", "Memcpy DtoH", "Memcpy DtoD"...), else "Memcpy
 *     Unknown" (so is every kind past the 64th: no real trace has that many);
 *   - an activity adds its args["memory bandwidth (GB/s)"] (the profiler's bytes / duration,
 *     0 when absent) at its start and takes it off at its end (a 0 us activity lasts 1 us);
 *   - per kind, over every device, the series is the running sum of those changes in time
 *     order (at one instant: starts before ends, each in input order), one point per change;
 *     the summary is describe() of the points above 0.
 *
 * Kept during the read: 40 bytes per memory activity (most traces have few); the series (24
 * bytes per point, 2 per activity) after the finish only when asked for (the counter tracks).
 *
 * Ownership: a handle owns what it keeps (opscope_kmembw_free; NULL is fine); NAMES is
 * borrowed. Thread safety: one handle per thread.
 */
#ifndef OPSCOPE_KMEMBW_H
#define OPSCOPE_KMEMBW_H

#include "analyze/kineto/kqueue.h"
#include "model/strtab.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct opscope_kmembw opscope_kmembw_t;

/* A new handle over the read's name table NAMES; NULL when out of memory. */
opscope_kmembw_t *opscope_kmembw_new(const opscope_strtab_t *names);
void opscope_kmembw_free(opscope_kmembw_t *m);
/* Keeps the series after the finish (opscope_kmembw_kinds' points); call before it. */
void opscope_kmembw_keep_series(opscope_kmembw_t *m);

/* One GPU activity (kernel, memcpy or memset) of name NAME on DEVICE: kept when it is a memory
 * activity. Returns 0, or -1 when out of memory. */
int opscope_kmembw_add(opscope_kmembw_t *m, uint32_t name, int64_t device, int64_t start_ns, int64_t dur_ns,
                       double bw_gbps);

/* Makes the series and summaries; call once, after the read. 0, or -1 when out of memory. */
int opscope_kmembw_finish(opscope_kmembw_t *m);

/* One change of a kind's bandwidth: the sum after it, at TS_NS, made by an activity of DEVICE. */
typedef struct opscope_kmembw_point {
    int64_t ts_ns, device;
    double gbps;
} opscope_kmembw_point;

typedef struct opscope_kmembw_kind {
    char name[16];                    /* "Memcpy HtoD", "Memset"... */
    uint64_t activities;
    opscope_kdescribe bw;             /* describe() of the points above 0 (GB/s) */
    const opscope_kmembw_point *pts;  /* the series in time order; NULL unless kept */
    size_t n_pts;
} opscope_kmembw_kind;

/* The kinds by name, after the finish; valid until free. */
const opscope_kmembw_kind *opscope_kmembw_kinds(const opscope_kmembw_t *m, size_t *n);

#endif /* OPSCOPE_KMEMBW_H */
