/*
 * html_threads.h - every CPU thread's work and wait at ggml's barriers for the HTML viewer
 * (internal, used by html.c and html_data.c): for each kept record with per-thread times
 * (opscope_record.threads), its start, its signature and each thread's work and wait, written
 * as the page data's "threads" member (docs/viewer.md, "Data format") and drawn as one lane
 * per thread. A profile without per-thread times writes no member: its page is unchanged.
 *
 * Ownership: the sink owns it (opscope_html_threads_free). Thread safety: none.
 */
#ifndef OPSCOPE_HTML_THREADS_H
#define OPSCOPE_HTML_THREADS_H

#include "opscope.h"
#include "util/out.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct opscope_html_threads opscope_html_threads_t;

/* NULL when out of memory. */
opscope_html_threads_t *opscope_html_threads_new(void);
/* NULL is a no-op. */
void opscope_html_threads_free(opscope_html_threads_t *t);

/* Keeps REC's per-thread times (copied; nothing when it has none) as the kept record of
 * stream index IDX with signature SIG. Returns 0, or -1 when out of memory. */
int opscope_html_threads_add(opscope_html_threads_t *t, const opscope_record *rec, uint32_t sig, uint64_t idx);

/* Drops the records whose stream index is no multiple of STRIDE, as the sink's decimation. */
void opscope_html_threads_decimate(opscope_html_threads_t *t, uint64_t stride);

/* Writes the "threads" member (a comma first) with times after T0, when T (NULL: none) has
 * records; nothing otherwise. Returns 0, or -1 when out of memory (nothing written). */
int opscope_html_threads_write(opscope_out_t *w, const opscope_html_threads_t *t, uint64_t t0);

#endif /* OPSCOPE_HTML_THREADS_H */
