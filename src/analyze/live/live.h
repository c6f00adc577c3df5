/*
 * live.h - the figures of a running capture, kept as its records arrive (opscope top): per op
 * group (type, backend, display name, as the report's op table groups) and per backend the
 * time and calls since the start and in a window of the last seconds, libllama's tokens
 * (prompt and generated) and the requests in flight. The window is a ring of per-second
 * buckets in each group, so memory is bounded by the distinct groups, backends and llama
 * sequences, never by the run's length. Records may come in any order (a record log's chunks
 * are each sorted, not merged); one that starts before the window is counted in the totals
 * only. Time is the capture's clock: "now" is the latest end seen, so a finished or killed
 * run's log shows its last seconds.
 *
 * Ownership: the live state owns its groups and names (opscope_live_free); views point into
 * it until the next add or free. NULL handling: _free(NULL) is a no-op. Thread safety: none.
 */
#ifndef OPSCOPE_ANALYZE_LIVE_H
#define OPSCOPE_ANALYZE_LIVE_H

#include "opscope.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The longest window, in seconds. */
#define OPSCOPE_LIVE_MAX_WINDOW 60u

/* "No template": a record read without one (a JSON profile). */
#define OPSCOPE_LIVE_NO_TMPL UINT32_MAX

typedef struct opscope_live opscope_live_t;

/* One group's figures: since the start and in the window. */
typedef struct opscope_live_row {
    const char *display;        /* the report's display name: "MUL_MAT", "GLU(SWIGLU)" */
    opscope_record_type type;
    int32_t backend_id;
    uint64_t total_ns, total_calls, total_bytes;
    uint64_t win_ns, win_calls, win_bytes;
} opscope_live_row;

/* One backend's figures (its records' summed time: busy when its ops run one at a time). */
typedef struct opscope_live_backend {
    int32_t id;
    const char *name, *device;
    uint64_t total_ns, win_ns;
} opscope_live_backend;

/* A snapshot at the latest time seen. */
typedef struct opscope_live_view {
    uint64_t first_ns, now_ns;  /* the earliest start and the latest end seen (0: none) */
    uint64_t span_ns, win_span_ns; /* now - first; the window's part of it */
    uint64_t records, total_ns, win_ns; /* every group's */
    uint64_t copies, copy_ns, copy_bytes, win_copies, win_copy_ns, win_copy_bytes;
    uint64_t decodes, prompt_tokens, gen_tokens, win_prompt, win_gen;
    uint32_t requests, in_flight; /* requests seen (warm-ups not); with a batch in the last 2 s */
    uint64_t idle_ns;           /* the clock set by opscope_live_set_now past now_ns */
    size_t n_rows;
    const opscope_live_row *rows; /* in the order first seen */
    size_t n_backends;
    const opscope_live_backend *backends;
} opscope_live_view;

/* A live state with a window of WINDOW_S seconds (1..OPSCOPE_LIVE_MAX_WINDOW, clamped). NULL
 * when out of memory. */
opscope_live_t *opscope_live_new(unsigned window_s);

/* The window's length in seconds. */
unsigned opscope_live_window(const opscope_live_t *l);

/* Notes backend B (its names copied). 0, or -1 when out of memory. */
int opscope_live_add_backend(opscope_live_t *l, const opscope_backend *b);

/* Counts REC. TMPL: its record log template (records of one template share a group), or
 * OPSCOPE_LIVE_NO_TMPL. 0, or -1 when out of memory (the record is not counted). */
int opscope_live_add_record(opscope_live_t *l, const opscope_record *rec, uint32_t tmpl);

/* Counts one libllama batch D (a call that failed, ret != 0, decoded nothing: left out). A
 * call marked wiped takes back its context's requests that ended with the call before it and
 * generated nothing: llama.cpp's warm-ups, which report's requests table leaves out too. Calls
 * come in call order. 0, or -1 when out of memory. */
int opscope_live_add_decode(opscope_live_t *l, const opscope_run_decode *d);

/* Tells L the capture's clock now (NOW_NS, on the records' clock): a run that went idle keeps
 * its window at its last records, but its requests stop being in flight and the view says for
 * how long nothing came (idle_ns). Earlier than the latest time seen: ignored. */
void opscope_live_set_now(opscope_live_t *l, uint64_t now_ns);

/* The figures now, the window summed over its buckets (pointers valid until the next add,
 * get or free). */
void opscope_live_get(opscope_live_t *l, opscope_live_view *v);

/* A sink that counts every backend, record and (from its meta) libllama batch into L: for a
 * whole profile read at once. */
opscope_sink opscope_live_sink(opscope_live_t *l);

void opscope_live_free(opscope_live_t *l);

#endif /* OPSCOPE_ANALYZE_LIVE_H */
