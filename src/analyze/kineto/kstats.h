/*
 * kstats.h - a Kineto trace's kernels and launches measured by Holistic Trace Analysis' (HTA)
 * definitions beside opscope's own (internal; definitions in docs/kineto.md, "Kernel and
 * launch statistics"):
 *   - per kernel name: count, sum, min, max, mean and the sample standard deviation (n - 1);
 *   - launches made by cudaLaunchKernel, cudaLaunchKernelExC, cudaMemcpyAsync,
 *     cudaMemsetAsync (MTIA's runFunction; HTA leaves cuLaunchKernel out): the launch delay from the call's end (clipped at 0)
 *     and from its start, the call's duration, the activities shorter than their call;
 *   - per stream: the queue of launched activities counted out at their start (HTA) and at
 *     their end (opscope), the time at or over a full queue, and the idle split (host wait,
 *     kernel wait, other) by HTA's rule.
 *
 * The per-name statistics are kept as the activities stream in (memory per distinct name);
 * the launch and stream figures are computed once at the finish over the activities the Kineto
 * analysis keeps anyway (analyze/kineto/kineto.c), with a sorted scratch copy freed before it
 * returns.
 *
 * Ownership: a handle owns its rows (opscope_kstats_free; NULL is fine). Thread safety: one
 * handle per thread.
 */
#ifndef OPSCOPE_KSTATS_H
#define OPSCOPE_KSTATS_H

#include "model/strtab.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A queue at or over this many launched, unstarted activities counts as full by default
 * (CUDA's launch queue holds about 1024 entries). */
#define OPSCOPE_KSTATS_FULL_QUEUE 1024
/* HTA's default gap under which idle time between kernels is kernel wait: 30 (us, its unit). */
#define OPSCOPE_KSTATS_KERNEL_WAIT_NS 30000
/* HTA's cutoff of the short-kernel histogram: launch calls up to 50 us. */
#define OPSCOPE_KSTATS_SHORT_CALL_NS 50000

typedef struct opscope_kstats opscope_kstats_t;

/* A new handle with FULL_QUEUE (0: OPSCOPE_KSTATS_FULL_QUEUE); NULL when out of memory. */
opscope_kstats_t *opscope_kstats_new(int64_t full_queue);
void opscope_kstats_free(opscope_kstats_t *s);

/* Counts one GPU activity of name id NAME and duration DUR_NS into its name's row. KIND is the
 * activity's opscope_kineto_kind (kept from the name's first activity). 0, or -1 out of memory. */
int opscope_kstats_add(opscope_kstats_t *s, uint32_t name, int kind, int64_t dur_ns);

/* Which launch calls a runtime call's name is (opscope_kstats_call_kind). */
enum {
    OPSCOPE_KSTATS_CALL_STATS = 1, /* HTA's launch statistics: cudaLaunchKernel(ExC),
                                      cudaMemcpyAsync, cudaMemsetAsync, MTIA's runFunction */
    OPSCOPE_KSTATS_CALL_QUEUE = 2, /* HTA's queue: those, cuLaunchKernel(Ex) and HIP's */
    OPSCOPE_KSTATS_CALL_KERNEL = 4, /* HTA's kernel launches (aten op kernels): cuda...LaunchKernel...,
                                       cuLaunchKernel..., runFunction... */
};

/* One GPU activity at the finish, with its launching runtime call (CALL_START INT64_MIN when
 * none; CALL_KIND: opscope_kstats_call_kind of its name). HTA_START, HTA_CALL_START: the two
 * starts as HTA reads them (the JSON's microseconds as doubles, at today's epoch times a
 * quarter of a microsecond apart: opscope_kbreak_delta_ns from the trace's origin, plus it),
 * for HTA's figures beside the exact ones. SEQ: the activity's place in the file's order
 * among the N activities (0..N-1, each once); CALL_SEQ: its call's among the runtime calls
 * (HTA's rows come in the file's order, and its queue series sorts them with numpy, whose
 * sort leaves the changes of one instant where the rows' order puts them). */
typedef struct opscope_kstats_act {
    int64_t start, dur, device, stream;
    int64_t call_start, call_dur;
    int64_t hta_start, hta_call_start;
    int call_kind;
    uint32_t seq, call_seq;
} opscope_kstats_act;

/* Sets the trace's origin (its earliest event start, ns): HTA's times are microseconds from it.
 * Call before the finish (default 0). */
void opscope_kstats_set_origin(opscope_kstats_t *s, int64_t origin_ns);

/* Computes the launch and stream figures over A[0..N) (sorted in place by device, stream and
 * start). Call once, after the last opscope_kstats_add. 0, or -1 out of memory. */
int opscope_kstats_finish(opscope_kstats_t *s, opscope_kstats_act *a, size_t n);

/* ---- results (after the finish) ---- */

/* One kernel name (memcpys and memsets by their names too). Times in ns. */
typedef struct opscope_kstats_kernel {
    uint32_t name;
    int kind;
    uint64_t count, sum_ns, min_ns, max_ns;
    double mean_ns, std_ns; /* std: sample (n - 1), 0 for one activity */
} opscope_kstats_kernel;

/* Mean, sample standard deviation, sum and extremes of a series of ns values. */
typedef struct opscope_kstats_series {
    uint64_t n;
    int64_t sum_ns, min_ns, max_ns;
    double mean_ns, std_ns;
} opscope_kstats_series;

typedef struct opscope_kstats_launch {
    uint64_t launches;            /* activities with a launch call (see above) */
    opscope_kstats_series delay_end;   /* start - (call start + call dur), clipped at 0 (HTA) */
    opscope_kstats_series delay_end_hta; /* the same from the starts as HTA reads them */
    opscope_kstats_series delay_start; /* start - call start (opscope's launch delay) */
    opscope_kstats_series call;        /* the call's duration */
    uint64_t shorter_than_call;   /* activity's duration < its call's */
    uint64_t shorter_short_call;  /* the same with a call of at most 50 us (HTA's histogram) */
} opscope_kstats_launch;

typedef struct opscope_kstats_stream {
    int64_t device, stream;
    /* queue: +1 at a launch call's start, -1 at its activity's start (HTA) */
    uint64_t q_points;            /* changes of the queue (2 per launch) */
    double q_mean, q_std;         /* over the values after each change (HTA's summary) */
    int64_t q_max;
    double q_time_mean;           /* time-weighted, first change to last */
    uint64_t full_ns;             /* time with the queue at or over the full size */
    const uint64_t *q_at;         /* time at each queue length 0..q_max (q_n_at entries): the
                                     time blocked on a queue of any size N is the sum from N */
    size_t q_n_at;
    uint64_t q_below_ns;          /* time below 0 (a kernel starting before its call's start) */
    /* the same queue counted out at the activity's end (opscope's job analysis) */
    int64_t q_end_max;
    double q_end_time_mean;
    /* idle split by HTA's rule: the gap before each activity (its start - the previous one's
     * end, in start order) is host wait when its call started after that end, else kernel
     * wait when under 30 us, else other; the gaps' sum is the three's */
    int64_t idle_host_ns, idle_kernel_ns, idle_other_ns;
    /* the same split as HTA computes it (its own figures): in microseconds as doubles from the
     * trace's origin, from the starts as HTA reads them, each gap the difference of its
     * doubles, summed with pandas' compensated (Kahan) sum */
    double idle_host_hta_us, idle_kernel_hta_us, idle_other_hta_us;
} opscope_kstats_stream;

/* The rows by sum, largest first (then name id); valid until free. */
const opscope_kstats_kernel *opscope_kstats_kernels(const opscope_kstats_t *s, size_t *n);
const opscope_kstats_launch *opscope_kstats_launches(const opscope_kstats_t *s);
/* By device, then stream. */
const opscope_kstats_stream *opscope_kstats_streams(const opscope_kstats_t *s, size_t *n);
int64_t opscope_kstats_full_queue(const opscope_kstats_t *s);

/* Keeps every stream's queue changes (opscope_kstats_queue's keys: the counter tracks);
 * call before the finish. 0, or -1 out of memory (nothing changed). */
int opscope_kstats_keep_series(opscope_kstats_t *s);
/* Every stream's queue summary and, when kept, its changes (kqueue.h); after the finish. */
struct opscope_kqueue;
const struct opscope_kqueue *opscope_kstats_queue(const opscope_kstats_t *s);

/* OPSCOPE_KSTATS_CALL_* flags of runtime call NAME (0 for others and NULL). */
int opscope_kstats_call_kind(const char *name);

#endif /* OPSCOPE_KSTATS_H */
