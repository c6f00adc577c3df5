/*
 * merge_json.h - the "merge" member of `opscope merge`'s JSON summary (docs/formats.md): one
 * entry per merged process with its renumbering and clock offset (internal). The command
 * computes; this writes. Plug it in with opscope_json_export_set_top_extra(x,
 * opscope_merge_write_member, &list). Every pointer is borrowed until the export finishes.
 * Thread safety: none beyond the output's.
 */
#ifndef OPSCOPE_MERGE_JSON_H
#define OPSCOPE_MERGE_JSON_H

#include "analyze/rpc/clock_align.h"
#include "opscope.h"
#include "util/out.h"

typedef struct opscope_merge_process {
    const char *label, *path;
    int server;                          /* 0: the client (the first input) */
    int32_t id_base;                     /* added to its backend ids */
    int64_t graph_base;                  /* added to its graph ids */
    const opscope_capture_info *capture; /* NULL: none */
    int64_t offset_ns;                   /* server - client */
    const char *method;                  /* "client", "same clock", "given", "estimated" */
    const char *endpoint;                /* with ESTIMATE */
    const opscope_align_result *estimate; /* NULL: no matched requests to show */
} opscope_merge_process;

typedef struct opscope_merge_processes {
    const opscope_merge_process *v;
    size_t n;
} opscope_merge_processes;

/* Writes `,"merge":{"processes":[...]}`; UD is an opscope_merge_processes. */
void opscope_merge_write_member(opscope_out_t *w, void *ud);

#endif /* OPSCOPE_MERGE_JSON_H */
