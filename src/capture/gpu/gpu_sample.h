/*
 * gpu_sample.h - which graph computes get per-op device timing (internal; pure C: no ggml, no
 * clock, no locks; backend-neutral, so every GPU source shares it).
 *
 * Device timestamps cost the device time (about 3.5-4 us per node on an H100), so by default
 * a compute is timed the way graphics profilers capture frames: per graph topology (a hash of
 * the graph's nodes the caller computes), its first occurrences are timed, then one compute in
 * N. N adapts so that the measured cost of timing stays within a budget (5% by default): the
 * cost of a compute is the time from its start to the start of the next compute on the same
 * table (so a backend that returns before the device is done is still charged its device
 * time). Costs are compared in pairs of consecutive computes of one topology, one timed and
 * one not (the computes beside each timed one), never across time: a machine that gets busier
 * or quieter moves both sides of a pair alike, whereas the last timed costs against the last
 * untimed ones compared different moments (a load that rose made timing look free). Per
 * topology, the median of the last 8 ratios timed / untimed, once 3 are in (N is n_init
 * before), gives N: the smallest interval with (ratio - 1) / N <= budget. At N = 1 one
 * compute in 16 stays untimed, so pairs keep being measured (a cost measured once under
 * noise does not hold for good).
 *
 * Each timed compute carries a weight: itself plus the untimed computes of its topology since
 * the previous timed one. Summing timed values times weights estimates the whole run (the
 * untimed computes after the last timed one of a topology are not represented: at most N - 1
 * per topology).
 *
 * Thread safety: none; the caller serialises (cap_gpu.c holds one mutex per decision).
 * Memory: one fixed table (OPSCOPE_GPU_SAMPLE_SLOTS topologies); past it, new topologies
 * share one overflow entry.
 */
#ifndef OPSCOPE_GPU_SAMPLE_H
#define OPSCOPE_GPU_SAMPLE_H

#include <stdbool.h>
#include <stdint.h>

#define OPSCOPE_GPU_SAMPLE_SLOTS 512
#define OPSCOPE_GPU_SAMPLE_RING 8

typedef enum opscope_gpu_timing {
    OPSCOPE_GPU_TIMING_SAMPLED = 0, /* the default: first occurrences, then one in N */
    OPSCOPE_GPU_TIMING_ALL = 1,     /* every compute (the behaviour before sampling) */
} opscope_gpu_timing;

typedef struct opscope_gpu_sample_config {
    opscope_gpu_timing mode;
    double budget;   /* the fraction of compute time timing may add (0.05); <= 0: the default */
    uint32_t warmup; /* first occurrences of a topology that are always timed (3); 0: default */
    uint32_t n_init; /* the interval before any cost is measured (4); 0: default */
    uint32_t n_max;  /* the longest interval (64), so every topology keeps being sampled */
} opscope_gpu_sample_config;

typedef struct opscope_gpu_sample_topo {
    uint64_t key;         /* the topology hash (0: free slot) */
    uint64_t seen;        /* computes of it so far */
    uint64_t timed;       /* of which timed */
    uint64_t next_timed;  /* the occurrence (1-based) to time next */
    uint64_t last_timed;  /* the occurrence last timed */
    uint32_t untimed_run; /* untimed computes since the last timed one */
    uint32_t n;           /* the interval in force */
    uint64_t last_cost[2]; /* [timed] the cost of the last compute of each kind, ns */
    uint64_t last_seq[2];  /* [timed] which occurrence that was (0: none) */
    uint64_t ratio[OPSCOPE_GPU_SAMPLE_RING]; /* timed / untimed cost of pairs, x 65536 */
    uint32_t n_ratio;     /* how many pairs were ever added */
} opscope_gpu_sample_topo;

typedef struct opscope_gpu_sample {
    opscope_gpu_sample_config cfg;
    opscope_gpu_sample_topo slots[OPSCOPE_GPU_SAMPLE_SLOTS];
    opscope_gpu_sample_topo overflow;
    int prev;             /* slot of the compute running since prev_ns (-1 none; -2 overflow) */
    bool prev_timed;
    bool prev_first;      /* its first occurrence: one-time costs, not measured */
    uint64_t prev_seq;    /* its occurrence (1-based) */
    uint64_t prev_ns;
} opscope_gpu_sample;

/* What to do with one compute. */
typedef struct opscope_gpu_sample_decision {
    bool timed;
    uint32_t weight;      /* timed: the computes it stands for (>= 1); untimed: 0 */
} opscope_gpu_sample_decision;

/* Sets S up (CFG NULL: the defaults). S is caller-owned (about 70 KiB: keep it static). */
void opscope_gpu_sample_init(opscope_gpu_sample *s, const opscope_gpu_sample_config *cfg);

/* A compute of topology KEY starts at NOW_NS (any monotonic clock): closes the previous
 * compute's cost and decides this one. */
opscope_gpu_sample_decision opscope_gpu_sample_begin(opscope_gpu_sample *s, uint64_t key, uint64_t now_ns);

/* Forgets the running compute (a long pause follows: the program is idle, not computing). */
void opscope_gpu_sample_pause(opscope_gpu_sample *s);

/* The interval in force for KEY (0 when unknown): for tests and the log. */
uint32_t opscope_gpu_sample_interval(const opscope_gpu_sample *s, uint64_t key);

/* The mode of a setting ("all", "sampled"); false for anything else (*MODE untouched). */
bool opscope_gpu_timing_parse(const char *text, opscope_gpu_timing *mode);

#endif
