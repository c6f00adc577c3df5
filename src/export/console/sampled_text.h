/*
 * sampled_text.h - the console and text reports' section on sampled device timing (internal).
 * W is an open output owned by the caller; S is only read. Thread safety: none beyond W's.
 */
#ifndef OPSCOPE_SAMPLED_TEXT_H
#define OPSCOPE_SAMPLED_TEXT_H

#include "analyze/ggml/stats.h"
#include "util/out.h"

#include <stddef.h>

/* Per op group, computes timed of all and the estimated totals, LIMIT rows (0: 25). Writes
 * nothing when every compute was timed. */
void opscope_text_sampled(opscope_out_t *w, const opscope_stats_t *s, size_t limit);

#endif /* OPSCOPE_SAMPLED_TEXT_H */
