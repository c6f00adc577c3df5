/*
 * ktrace_scan.h - a trace copied to an output with events added at the end of its event
 * array and, when asked, each event handed over whole to be written as is or changed
 * (internal; the outputs of ktrace_out.h). The trace is read again from its file (gzip
 * decompressed by zlib, plain files as they are) through a byte scanner that knows strings,
 * nesting and the top object's "traceEvents" (or a bare top array), so nothing of the trace
 * is held but a read buffer and, with EVENT, one event at a time.
 *
 * Thread safety: one copy per thread.
 */
#ifndef OPSCOPE_KTRACE_SCAN_H
#define OPSCOPE_KTRACE_SCAN_H

#include "opscope.h"
#include "util/out.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* An event's top-level members as written (scalars; NUL-terminated, cut at 63 bytes). */
typedef struct opscope_ktrace_members {
    char ph[8], pid[64], tid[64], ts[64], dur[64], cat[64]; /* cat: a string's, else "" */
    bool pid_str, tid_str, ts_str, dur_str; /* the value was a JSON string */
    long args_at;     /* offset of the '{' of its "args" object in the event's text, -1 none */
    bool args_empty;  /* that object is {} */
    int n_members;
} opscope_ktrace_members;

typedef struct opscope_ktrace_copy {
    opscope_out_t *w;
    /* At the end of the event array: writes the events to add, each after ",\n" (or "\n"
     * first when EMPTY: the array had none). */
    void (*tail)(void *ud, opscope_out_t *w, bool empty);
    /* NULL, or called with every object of the array (TEXT[0..LEN), its members M) to write
     * it to W, as is or changed. */
    void (*event)(void *ud, opscope_out_t *w, const char *text, size_t len, const opscope_ktrace_members *m);
    /* With EVENT: NULL (every event is written), or whether the event M is written at all;
     * the array's separators are then the copy's own (",\n" between the events written). */
    bool (*keep)(void *ud, const opscope_ktrace_members *m);
    void *ud;
    const char *opt;  /* the option, for messages ("--counters-trace") */
} opscope_ktrace_copy;

/* Fills ERR: CODE, the static MSG, FILE (NULL: none) and the byte POS. */
void opscope_ktrace_error(opscope_error *err, opscope_error_code code, const char *msg, const char *file, uint64_t pos);

/* Copies the trace file SOURCE to C->w as above. Returns 0, or -1 with ERR filled (the file
 * could not be read again; no complete event array: the byte where the input ended). */
int opscope_ktrace_copy_run(const char *source, const opscope_ktrace_copy *c, opscope_error *err);

#endif /* OPSCOPE_KTRACE_SCAN_H */
