/*
 * diff_view.h - what diff's outputs read (diff_report.h's opscope_diff_view) from a finished
 * load (analyze/diff/diff_load.h), for the CLI's outputs and the Python package's summary.
 *
 * Ownership: V borrows from L and O's paths, which must outlive it. Thread safety: none.
 */
#ifndef OPSCOPE_DIFF_VIEW_H
#define OPSCOPE_DIFF_VIEW_H

#include "analyze/diff/diff_load.h"
#include "export/diff/diff_report.h"

/* V's diff and report options from L (read with O) with TOP console rows; its timelines
 * (V->html) are left as they are. */
void opscope_diff_view_fill(opscope_diff_view *v, const opscope_diff_load_t *l, const opscope_diff_load_opts *o,
                            size_t top);

#endif /* OPSCOPE_DIFF_VIEW_H */
