/*
 * cap_write.h - the profile files and the console summary (internal). Thread safety: any
 * thread; callers serialise writes of one destination (cap_life.c).
 */
#ifndef OPSCOPE_CAP_WRITE_H
#define OPSCOPE_CAP_WRITE_H

#include "capture/life/cap_config.h"

#include <stdint.h>
#include <stdio.h>

/* How long a write to a stream output (FIFO, pipe, socket, /dev/stdout: util/out.h) waits
 * for a reader that takes nothing, in ms, before it fails. */
#define OPSCOPE_CAP_STREAM_WAIT_MS 5000

/* Writes what DEST asks (console summary / text / JSON) for SCHED (-2 = all) to PATH
 * (temporary file + rename; a stream written through, bounded as above) or, when PATH is
 * NULL, to FP (not closed).
 * Returns 0 or -1 with one line on stderr. */
int opscope_cap_write(opscope_cap_dest dest, const char *path, FILE *fp, int sched);

/* What opscope_cap_write_info did: records written, or why nothing was. */
typedef struct opscope_cap_written {
    uint64_t records;
    char error[320]; /* "" on success; else the reason, e.g. "cannot create output file: No such file or directory" */
} opscope_cap_written;

/* opscope_cap_write that reports into INFO instead of stderr (INFO NULL: stderr). */
int opscope_cap_write_info(opscope_cap_dest dest, const char *path, FILE *fp, int sched,
                           opscope_cap_written *info);

/* Writes one TSV line per backend graph compute (graph_id, split_id, backend_id, sched_id,
 * n_nodes, n_steps, start_ns, end_ns, capture_ns = the capture's own work after the compute,
 * attribution) to PATH. Returns 0 or -1. */
int opscope_cap_write_graphs(const char *path);

#endif
