/*
 * job_iv.h - half-open time intervals [s, e) in ns and the set arithmetic the job's figures
 * are made of (internal): union, length, intersection, difference, length inside a window.
 * "Merged" means sorted by start, disjoint and not touching (what opscope_job_iv_merge leaves).
 *
 * Ownership: every array is the caller's. Thread safety: pure functions.
 */
#ifndef OPSCOPE_JOB_IV_H
#define OPSCOPE_JOB_IV_H

#include <stddef.h>
#include <stdint.h>

typedef struct opscope_job_iv {
    int64_t s, e;
} opscope_job_iv;

/* Sorts V[0..N) by start (skipped when already sorted) and merges it in place into the union of
 * its intervals; empty ones (e <= s) are dropped. Returns the merged count. */
size_t opscope_job_iv_merge(opscope_job_iv *v, size_t n);

/* Total length of merged V. */
int64_t opscope_job_iv_len(const opscope_job_iv *v, size_t n);

/* Length of merged V inside [S, E). */
int64_t opscope_job_iv_len_in(const opscope_job_iv *v, size_t n, int64_t s, int64_t e);

/* Length of merged A intersected with merged B. */
int64_t opscope_job_iv_inter_len(const opscope_job_iv *a, size_t na, const opscope_job_iv *b,
                                 size_t nb);

/* Length of (merged A intersected with merged B) inside [S, E). */
int64_t opscope_job_iv_inter_len_in(const opscope_job_iv *a, size_t na, const opscope_job_iv *b,
                                    size_t nb, int64_t s, int64_t e);

/* Merged A minus merged B, written to OUT (room for NA + NB intervals), merged. Returns the
 * count written. */
size_t opscope_job_iv_sub(const opscope_job_iv *a, size_t na, const opscope_job_iv *b, size_t nb,
                          opscope_job_iv *out);

#endif /* OPSCOPE_JOB_IV_H */
