/*
 * mem_timeline_out.h - PyTorch's memory timeline (read/mem_timeline.h) in `opscope report`:
 * the console summary (the peak of the total and its time, the categories at it, each
 * category's own peak, the end) and the JSON `{"summary":{"memory_timeline":{...}}}` (keys:
 * docs/kineto.md, "Memory timeline").
 *
 * W is borrowed; nothing is committed here. Thread safety: none needed (reads M only).
 */
#ifndef OPSCOPE_MEM_TIMELINE_OUT_H
#define OPSCOPE_MEM_TIMELINE_OUT_H

#include "read/mem_timeline.h"
#include "util/out.h"

/* The console summary of M read from SOURCE. */
void opscope_mem_timeline_write_text(opscope_out_t *w, const opscope_mem_timeline *m, const char *source);

/* The JSON document of M read from SOURCE. */
void opscope_mem_timeline_write_json(opscope_out_t *w, const opscope_mem_timeline *m, const char *source);

/* `opscope report` of the timeline INPUT: read whole first (bad input leaves no file), then
 * JSON (JSON non-NULL: written to a temporary file renamed at the end; "-": stdout) and the
 * console summary on stdout unless QUIET or JSON is "-". 0, or -1 with ERR filled. */
int opscope_mem_timeline_report(const char *input, const char *json, bool quiet, opscope_error *err);

#endif /* OPSCOPE_MEM_TIMELINE_OUT_H */
