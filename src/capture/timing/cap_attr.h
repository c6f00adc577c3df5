/*
 * cap_attr.h - which graph nodes each CPU abort-callback timestamp closes (internal).
 *
 * ggml's CPU backend calls the abort callback on thread 0 after each computed step, with no
 * node index. A step is one node, or several when ggml_cpu_try_fuse_ops fused them; empty
 * ops and nodes without the COMPUTE flag take no step. The ggml-facing code describes each
 * node (skip, and how many nodes a fusion starting there would consume); this file turns
 * that into steps and pairs steps with the recorded timestamps:
 *   step k runs from ts[k-1] (or the graph's start for k = 0) to ts[k].
 * If the number of timestamps does not match the prediction with fusion, the prediction
 * without fusion is tried (ggml may have fusion disabled: GGML_CPU_DISABLE_FUSION, use_ref);
 * if neither matches, steps are paired in order and marked inexact.
 * Thread safety: pure functions.
 */
#ifndef OPSCOPE_CAP_ATTR_H
#define OPSCOPE_CAP_ATTR_H

#include <stdbool.h>
#include <stdint.h>

typedef struct opscope_cap_node {
    uint8_t skip;  /* empty op or not flagged COMPUTE: no step */
    uint8_t fuse;  /* nodes a fused step starting here consumes (0 or 1: no fusion) */
} opscope_cap_node;

typedef struct opscope_cap_step {
    int32_t first;  /* node index of the step's first node */
    int32_t n;      /* nodes covered (>= 1) */
    uint64_t t0, t1;
} opscope_cap_step;

enum {
    OPSCOPE_CAP_ATTR_EXACT = 0,     /* timestamps matched the prediction with fusion */
    OPSCOPE_CAP_ATTR_NOFUSION = 1,  /* matched the prediction without fusion */
    OPSCOPE_CAP_ATTR_ABORTED = 2,   /* fewer timestamps: the graph was aborted early */
    OPSCOPE_CAP_ATTR_INEXACT = 3,   /* matched neither; paired in order */
};

/* Steps of NODES[0..N) in compute order, into STEPS (room for N). FUSION false ignores
 * the fuse hints. Returns the number of steps. */
int opscope_cap_steps(const opscope_cap_node *nodes, int n, bool fusion, opscope_cap_step *steps);

/*
 * Builds STEPS (room for N) from NODES and the N_TS timestamps TS taken after each step,
 * T_START taken before the compute. ABORTED: the compute reported an abort.
 * Stores the number of timed steps in *N_STEPS and returns an OPSCOPE_CAP_ATTR_* value.
 */
int opscope_cap_attribute(const opscope_cap_node *nodes, int n, const uint64_t *ts, int n_ts,
                          uint64_t t_start, bool aborted, opscope_cap_step *steps, int *n_steps);


/*
 * Extends the last step to T_END (when the compute returned) if every step was matched:
 * thread 0 reports a step before the barrier where the other threads finish their share of
 * it, so the final barrier belongs to the last node. Earlier barriers fall into the next
 * step's interval the same way, which keeps the steps tiling the whole compute.
 * The fallback of opscope_cap_close_steps when no barrier exits were seen.
 */
void opscope_cap_close_last(opscope_cap_step *steps, int n_steps, int attr, uint64_t t_end);

/*
 * Moves step ends from thread 0's callbacks to the exits of the thread barriers that follow
 * them, so that a step ends when every thread has finished it. ggml's CPU loop on thread 0 is
 * "compute its share of node k, call the callback, barrier", and the last node's barrier is the
 * final one; BAR[k] (k < N_BAR) is the tick at which thread 0 left the first barrier after
 * callback k, 0 when none was seen (one thread: ggml skips its barriers; a ggml whose barriers
 * the caller cannot observe). For each step with a plausible BAR[k] (not before the step's
 * callback, not after the next step's callback or T_END), step k ends and step k + 1 starts
 * there: a step then holds all threads' work on its node(s) and its own load imbalance
 * instead of its predecessor's. The last step then runs on to T_END as opscope_cap_close_last
 * does, so the steps always tile the compute (op sums equal the compute's wall time).
 * Nothing changes unless ATTR is EXACT or NOFUSION. BAR may be NULL (N_BAR 0).
 * Returns the compute's tail: how much of the last step lies after its final barrier exit
 * (OpenMP join and return, 0 when no barrier exit was seen), for the graph log.
 */
uint64_t opscope_cap_close_steps(opscope_cap_step *steps, int n_steps, int attr, const uint64_t *bar,
                                 int n_bar, uint64_t t_end);

/*
 * For backends timed by their library calls (BLAS: each MUL_MAT node makes ne12*ne13
 * cblas_sgemm calls, each OUT_PROD one): CALLS[i] is the number of calls node i makes (0: no
 * step) and TS the end tick of every call in order. Step k ends at the end of its last call
 * and starts where the previous step ended (T_START for the first), so a node's own set-up
 * (dequantising src0 to f32) is inside its step. Returns EXACT, or INEXACT (no steps) when
 * N_TS differs from the sum of CALLS.
 */
int opscope_cap_attribute_calls(const int32_t *calls, int n, const uint64_t *ts, int n_ts,
                                uint64_t t_start, opscope_cap_step *steps, int *n_steps);
#endif
