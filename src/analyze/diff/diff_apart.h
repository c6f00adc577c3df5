/*
 * diff_apart.h - warm-up apart by a first pass (docs/diff.md, "Warm-up apart"): an input of
 * `opscope diff` read once to find its warm-up and outlier graph computes (graphs.h), kept as
 * the short list that the second pass's steady-state filter (graph_filter.h) leaves out
 * (internal to analyze/diff).
 *
 * The one-read way (warm_defer.h) stands for this pass when nothing else is selected; this
 * pass comes first when --batch or --graphs choose graphs too. The command reads: it hands
 * the pass its reader (its progress line, its warnings). Thread safety: none (one pass at a
 * time per list).
 */
#ifndef OPSCOPE_DIFF_APART_H
#define OPSCOPE_DIFF_APART_H

#include "analyze/ggml/graph_filter.h"
#include "analyze/ggml/warm_apart.h"
#include "opscope.h"
#include "read/readers.h"

/* Reads PATH in FORMAT into SINK as opscope_read_file_opts does (RO may be NULL). Returns 0,
 * or -1 with ERR filled (OPSCOPE_ERROR_ABORTED when SINK stopped the read). */
typedef int (*opscope_diff_read_fn)(const char *path, opscope_format format, const opscope_sink *sink,
                                    opscope_read_options *ro, opscope_error *err);

/* The first pass over PATH with READ: its warm-up and outlier graphs into *OUT (zeroed first;
 * OUT owns its arrays, opscope_warm_apart_free), and of its steady graphs how many F's graph
 * ids, batch and phase choose (chosen_steady; F is borrowed, its STEADY and INDEX not
 * consulted). A trace (Kineto, Chrome: by its format, its meta or its first record's kernel
 * category) has no graph computes: *OUT all zeros, read no further than that. Returns 0, or
 * -1 with ERR filled (the reader's error, or out of memory). */
int opscope_diff_apart_find(const char *path, const opscope_graph_filter *f, opscope_diff_read_fn read,
                            opscope_warm_apart *out, opscope_error *err);

#endif /* OPSCOPE_DIFF_APART_H */
