/*
 * kstrag.h - what Holistic Trace Analysis' (HTA) straggler rule reads of one rank's trace
 * (internal; the rule over the ranks: analyze/job/job_hta.h; docs/kineto.md, "HTA's
 * stragglers"):
 *   - per profiler step, its start and the end of its events: the latest end of the CPU
 *     records starting in it (s.start <= start < s.end; python frames left out, as HTA reads
 *     none) and of the GPU activities launched in it;
 *   - every GPU activity named "ncclKernel..." on a stream above 0 launched in a step: its
 *     step number, stream, name, start and duration.
 *
 * Made once at the Kineto analysis' finish from what it keeps anyway; memory: 24 bytes per
 * step, 40 per NCCL kernel. Ownership: a handle owns its rows (opscope_kstrag_free; NULL is
 * fine). Thread safety: one handle per thread.
 */
#ifndef OPSCOPE_KSTRAG_H
#define OPSCOPE_KSTRAG_H

#include <stddef.h>
#include <stdint.h>

typedef struct opscope_kstrag opscope_kstrag_t;

typedef struct opscope_kstrag_span {
    int64_t step, start_ns, end_ns; /* the step's number, start, and its events' latest end */
} opscope_kstrag_span;

typedef struct opscope_kstrag_comm {
    int64_t step, stream, start_ns, dur_ns;
    uint32_t name;
} opscope_kstrag_comm;

/* The inputs: the steps (by start) and their CPU-record and GPU-activity ends so far. */
opscope_kstrag_t *opscope_kstrag_new(const int64_t *numbers, const int64_t *starts, const int64_t *ends, size_t n_steps);
void opscope_kstrag_free(opscope_kstrag_t *s);

/* A CPU record from START to END (not a python frame): its step's end follows it. */
void opscope_kstrag_cpu(opscope_kstrag_t *s, int64_t start, int64_t end);
/* A GPU activity launched in step STEP (an index into the steps, UINT32_MAX none): its end
 * counts, and an NCCL kernel (COMM) on a stream above 0 is kept. 0, or -1 out of memory. */
int opscope_kstrag_gpu(opscope_kstrag_t *s, uint32_t step, int comm, uint32_t name, int64_t stream, int64_t start,
                       int64_t dur);

/* The rows, valid until free. */
const opscope_kstrag_span *opscope_kstrag_spans(const opscope_kstrag_t *s, size_t *n);
const opscope_kstrag_comm *opscope_kstrag_comms(const opscope_kstrag_t *s, size_t *n);

#endif /* OPSCOPE_KSTRAG_H */
