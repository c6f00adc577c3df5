/*
 * cap_write.h - the profile files and the console summary (internal). Thread safety: any
 * thread; callers serialise writes of one destination (cap_life.c).
 */
#ifndef OPSCOPE_CAP_WRITE_H
#define OPSCOPE_CAP_WRITE_H

#include "capture/cap_config.h"

#include <stdio.h>

/* Writes what DEST asks (console summary / text / JSON) for SCHED (-2 = all) to PATH
 * (temporary file + rename) or, when PATH is NULL, to FP (not closed).
 * Returns 0 or -1 with one line on stderr. */
int opscope_cap_write(opscope_cap_dest dest, const char *path, FILE *fp, int sched);

/* Writes one TSV line per backend graph compute (graph_id, split_id, backend_id, sched_id,
 * n_nodes, n_steps, start_ns, end_ns, capture_ns = the capture's own work after the compute,
 * attribution) to PATH. Returns 0 or -1. */
int opscope_cap_write_graphs(const char *path);

#endif
