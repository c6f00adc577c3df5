/*
 * mem_timeline.h - PyTorch's memory timeline as torch.profiler's export_memory_timeline
 * writes it to a `.raw.json.gz` path (what Holistic Trace Analysis' memory analysis reads):
 * one JSON array of [time_ns, action, bytes, category] entries, time -1 for memory that
 * existed before the profile, bytes negative for a free (or the old version of a tensor whose
 * version was incremented), category an index into torch's categories (below). Plain or
 * gzip. Read once, in one pass, into the peaks below; nothing is kept per entry.
 *
 * The timeline's points follow HTA (MemoryAnalysis._process_raw_events): a new point at each
 * entry whose time differs from the previous entry's, each point the bytes per category after
 * its entries; the pre-existing entries' point takes the first positive time (HTA's t_min).
 *
 * Thread safety: independent calls may run concurrently.
 */
#ifndef OPSCOPE_READ_MEM_TIMELINE_H
#define OPSCOPE_READ_MEM_TIMELINE_H

#include "opscope.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* torch.profiler._memory_profiler's categories, in its index order. */
#define OPSCOPE_MEM_CATEGORIES 8

typedef struct opscope_mem_timeline {
    uint64_t entries, points;     /* entries read, timeline points */
    uint64_t preexisting;         /* entries at time -1 */
    uint64_t actions[5];          /* entries per action: 1 pre-existing, 2 create, 3 version
                                     increment, 4 destroy; 0 any other value */
    int64_t first_ns, last_ns;    /* the first positive time (t_min), the largest time */
    int64_t peak_ns;              /* the point of the largest total (the first of equals) */
    int64_t peak_total;           /* that total, bytes */
    int64_t at_peak[OPSCOPE_MEM_CATEGORIES];  /* each category at that point */
    int64_t cat_peak[OPSCOPE_MEM_CATEGORIES]; /* each category's own largest point */
    int64_t cat_peak_ns[OPSCOPE_MEM_CATEGORIES];
    int64_t final[OPSCOPE_MEM_CATEGORIES];    /* after the last entry */
} opscope_mem_timeline;

/* The category names ("Parameter", "Optimizer state", "Input", "Temporary", "Activation",
 * "Gradient", "Autograd detail", "Unknown"); I < OPSCOPE_MEM_CATEGORIES. */
const char *opscope_mem_category_name(int i);

/* Whether PATH (a regular file: stdin, FIFOs and devices are never peeked) starts as a memory timeline: '[' then '['
 * then a number, after whitespace (a trace's event array holds objects). */
bool opscope_mem_timeline_is(const char *path);

/* Reads PATH into OUT. 0, or -1 with ERR filled (file, byte offset, what is wrong): not an
 * array, an entry that is not four integers, a category outside 0..7, a time below -1, bytes
 * or sums beyond 2^62. */
int opscope_mem_timeline_read(const char *path, opscope_mem_timeline *out, opscope_error *err);

/* Called once per timeline point, in order, as it closes: its time T (-1 for the
 * pre-existing point, which HTA puts at the first positive time, first_ns after the read) and
 * the bytes per category after its entries (BYTES[OPSCOPE_MEM_CATEGORIES], valid during the
 * call). Returns 0, or non-zero to stop the read (it then fails with OPSCOPE_ERROR_NOMEM). */
typedef int (*opscope_mem_point_fn)(void *ud, int64_t t, const int64_t *bytes);

/* opscope_mem_timeline_read that also hands each point to FN(UD, ...) (FN NULL: none). */
int opscope_mem_timeline_read_points(const char *path, opscope_mem_timeline *out, opscope_mem_point_fn fn, void *ud,
                                     opscope_error *err);

#endif /* OPSCOPE_READ_MEM_TIMELINE_H */
