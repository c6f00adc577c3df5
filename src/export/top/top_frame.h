/*
 * top_frame.h - one frame of `opscope top` as text: the run's line, libllama's tokens/s and
 * requests in flight, each backend's busy share, copies, then the op groups of the last
 * seconds and since the start (time, share, calls), sorted by a chosen column, as many rows
 * as asked. Plain text; the caller adds any terminal control. Pure; thread safe.
 */
#ifndef OPSCOPE_EXPORT_TOP_FRAME_H
#define OPSCOPE_EXPORT_TOP_FRAME_H

#include "analyze/live/live.h"
#include "util/strbuf.h"

#include <stdbool.h>
#include <stddef.h>

/* The column the op rows are sorted by (descending; the name ascending). */
typedef enum opscope_top_sort {
    OPSCOPE_TOP_SORT_WINDOW = 0, /* time in the last seconds */
    OPSCOPE_TOP_SORT_TOTAL,      /* time since the start */
    OPSCOPE_TOP_SORT_CALLS,      /* calls since the start */
    OPSCOPE_TOP_SORT_NAME,
    OPSCOPE_TOP_SORT_COUNT
} opscope_top_sort;

/* The sort column's name as the frame says it ("window", "total", "calls", "name"). */
const char *opscope_top_sort_name(opscope_top_sort s);

/* What the frame says about its source. */
typedef struct opscope_top_frame_opts {
    const char *source;   /* the file shown */
    const char *program;  /* the program recorded, NULL: unknown */
    long pid;             /* its pid, 0: unknown */
    const char *state;    /* "running", "ended (exit)", "killed or still running", ... */
    unsigned window_s;
    opscope_top_sort sort;
    size_t max_rows;      /* op rows at most (0: all) */
    bool paused;          /* the view is paused: said in the first line */
    double idle_s;        /* seconds since the latest record (a running run), 0: none; said from 3 s */
} opscope_top_frame_opts;

/* Appends the frame of V to OUT. 0, or -1 when out of memory (OUT then holds a prefix). */
int opscope_top_frame(opscope_strbuf *out, const opscope_live_view *v, const opscope_top_frame_opts *o);

#endif /* OPSCOPE_EXPORT_TOP_FRAME_H */
