/*
 * kseq.h - the GPU activity sequences of a Kineto trace's CPU op calls (internal; docs/kineto.md,
 * "Kernel sequences per operator"): for every call of a CPU op, the names of the kernels,
 * memcpys and memsets launched inside it (by runtime calls on its thread that start within
 * the call, nested ops included; the runtime's cuda_sync events on a stream are handed over as
 * activities of the call they come from, as HTA's sequences hold them), in the order they
 * started on the GPU; calls with the same op name and the same sequence are one pattern,
 * counted with their GPU and CPU time (HTA's get_frequent_cuda_kernel_sequences, for every op
 * name at once).
 *
 * Ownership: a handle owns its patterns (opscope_kseq_free; NULL is fine). Thread safety: one
 * handle per thread.
 */
#ifndef OPSCOPE_KSEQ_H
#define OPSCOPE_KSEQ_H

#include <stddef.h>
#include <stdint.h>

typedef struct opscope_kseq opscope_kseq_t;

/* A GPU activity with its launching call (its thread and start) and its own start, duration
 * and name id. */
typedef struct opscope_kseq_launch {
    uint32_t thread, name;
    int64_t call, start, dur;
} opscope_kseq_launch;

/* A handle over the launches L[0..N) (sorted here by thread and call; borrowed until
 * opscope_kseq_finish). NULL when out of memory. */
opscope_kseq_t *opscope_kseq_new(opscope_kseq_launch *l, size_t n);
void opscope_kseq_free(opscope_kseq_t *s);

/* Counts one call of the CPU op NAME on THREAD over [START, END]: the activities whose call
 * started in it on that thread. 0, or -1 out of memory. */
int opscope_kseq_call(opscope_kseq_t *s, uint32_t thread, uint32_t name, int64_t start, int64_t end);

/* Counts one call of op NAME id OP with the sequence NAMES[0..M) and the two sums' shares
 * GPU_NS and CPU_NS, starting at START, straight into its pattern: what opscope_kseq_call does
 * once it found a call's activities; other groupings (analyze/kineto/katen.c: an aten op's
 * kernels and delays) use it with their own sums. 0, or -1 out of memory. */
int opscope_kseq_add(opscope_kseq_t *s, uint32_t op, const uint32_t *names, size_t m, uint64_t gpu_ns,
                     uint64_t cpu_ns, int64_t start);

/* Orders the patterns after the last call and lets go of the launches. 0, or -1 out of memory. */
int opscope_kseq_finish(opscope_kseq_t *s);

/* One pattern: op name id, its sequence of NAMES[0..LEN) (valid until free), calls, the sum
 * of their activities' durations and of the calls' durations, the first call's start. */
typedef struct opscope_kseq_pattern {
    uint32_t op;
    const uint32_t *names;
    size_t len;
    uint64_t count, gpu_ns, cpu_ns;
    int64_t first_ns;
} opscope_kseq_pattern;

/* The patterns, most calls first, then the op name id, then the first call's start (a NULL
 * S has none). */
const opscope_kseq_pattern *opscope_kseq_patterns(const opscope_kseq_t *s, size_t *n);

#endif /* OPSCOPE_KSEQ_H */
