/*
 * collectives.h - NCCL (and gloo) collectives of a Kineto trace (internal): message sizes,
 * algorithm and bus bandwidth per collective type and message size bucket, from the args
 * PyTorch puts on record_param_comms ops and NCCL kernels (read/kineto_event.h's
 * opscope_kineto_comm). Definitions in docs/job.md, "NCCL collectives": nccl-tests'
 * PERFORMANCE.md (algbw = S / t; busbw = algbw x 2(n-1)/n for allreduce, (n-1)/n for allgather,
 * reducescatter and alltoall, 1 for broadcast, reduce and the rest).
 *
 * A trace's collectives are timed on their kernels when it has any kernel with the args (the
 * GPU's time), else on the record_param_comms CPU ops (gloo, CPU-only jobs).
 *
 * Ownership: opscope_colls_new's handle owns its rows (opscope_colls_free; NULL is fine).
 * Thread safety: one handle per thread.
 */
#ifndef OPSCOPE_COLLECTIVES_H
#define OPSCOPE_COLLECTIVES_H

#include "read/job_summary.h"
#include "read/kineto_event.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct opscope_colls opscope_colls_t;

opscope_colls_t *opscope_colls_new(void); /* NULL when out of memory */
void opscope_colls_free(opscope_colls_t *c);

/* Counts EV when it is a kernel or a CPU op with a collective's args (EV->comm), else nothing.
 * Returns 0, or -1 when out of memory. */
int opscope_colls_add(opscope_colls_t *c, const opscope_kineto_event *ev);

/* Counts a collective's own CPU annotation NAME ("gloo:all_reduce": gloo writes no sizes) of
 * DUR_NS as a row without size (bytes 0, bucket -1, group 0): its time only. Used when the trace
 * has no collective with args. Returns 0, or -1 when out of memory. */
int opscope_colls_add_span(opscope_colls_t *c, const char *name, int64_t dur_ns);

/* True when C's rows are annotations' (no collective with args was added); false for NULL. */
bool opscope_colls_unsized(const opscope_colls_t *c);

/* The rows (by type, then bucket; valid until the next add or free): the kernels' when any
 * kernel had the args (*ON_KERNELS true), else the CPU ops', else the annotations' (unsized). */
const opscope_job_coll *opscope_colls_rows(const opscope_colls_t *c, size_t *n, bool *on_kernels);

/* A malloc'd copy of the rows into *OUT (NULL when none), *UNSIZED as opscope_colls_unsized.
 * Returns 0, or -1 out of memory. */
int opscope_colls_copy(const opscope_colls_t *c, opscope_job_coll **out, size_t *n, bool *on_kernels, bool *unsized);

/* Adds ROW into the rows V[0..*N) (capacity CAP) by (type, bucket) when BY_BUCKET, else by
 * type alone (the bucket then -1); keeps V sorted. Returns 0, or -1 when V is full. */
int opscope_colls_merge(opscope_job_coll *v, size_t *n, size_t cap, const opscope_job_coll *row, bool by_bucket);

/* The collective type of a "Collective name" (allreduce, allgather, reducescatter, alltoall,
 * broadcast, reduce, barrier, else the name); written into OUT (SIZE bytes). */
void opscope_colls_type(const char *name, char *out, size_t size);

/* Bytes per element of a PyTorch dtype name ("Float", "BFloat16"...); 0 when unknown. */
int opscope_colls_dtype_size(const char *dtype);

/* S x the bus factor of TYPE for a group of N ranks, rounded down. */
uint64_t opscope_colls_bus_bytes(const char *type, uint64_t s, int64_t n);

/* Bytes per ns, i.e. GB/s (1e9 bytes per second); 0 when NS <= 0. */
double opscope_colls_gbps(uint64_t bytes, int64_t ns);

#endif /* OPSCOPE_COLLECTIVES_H */
