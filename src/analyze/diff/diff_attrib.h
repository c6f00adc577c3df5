/*
 * diff_attrib.h - a Kineto trace's GPU activities attributed to the groups of one side of
 * `opscope diff` at finish (internal to analyze/diff).
 *
 * While a trace is read, the sink (diff_side.c) keeps per GPU activity only the index of its
 * partial key (the key without the parts the trace analysis gives); once the analysis is
 * finished, each activity's CPU op, layer, phase and launching work complete the key here.
 * Thread safety: none (one side per thread).
 */
#ifndef OPSCOPE_DIFF_ATTRIB_H
#define OPSCOPE_DIFF_ATTRIB_H

#include "analyze/diff/diff.h"

/* Adds every GPU activity of S's finished Kineto collector (S must have one, with
 * activities) to its group, counts distinct CPU op calls per group, and fills S's CPU op
 * summary (opscope_diff_side_cpu_op: kernels, calls, time and kernels by name, the names in
 * S's strings; S owns it). Returns 0, or -1 when out of memory. */
int opscope_diff_attrib_kineto(opscope_diff_side_t *s);

#endif /* OPSCOPE_DIFF_ATTRIB_H */
