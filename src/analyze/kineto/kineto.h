/*
 * kineto.h - Kineto (PyTorch profiler) trace analysis (internal).
 *
 * The Kineto reader (src/read/kineto_read.c) streams a trace once and hands this collector
 * one compact entry per event it needs: GPU activities (kernels, memcpy, memset), CPU ops,
 * runtime calls, python_function frames, user annotations and flow starts. Arguments, shapes
 * and the JSON text are never kept, so memory grows by a few tens of bytes per kept event
 * (well under a tenth of the trace's size) instead of by the size of the trace.
 * opscope_kineto_finish then computes:
 *   - links: kernel -> launching runtime call (args.correlation, or an ac2g flow start),
 *     -> innermost CPU op enclosing that call on its thread, else the CPU op whose
 *     External id equals the runtime's / kernel's, else the innermost python_function
 *     enclosing the call on its thread;
 *   - per-category, per-CPU-op, per-phase (prefill/decode) GPU time;
 *   - layers: correlation groups with >= 70 kernels including attention and a GEMM (one
 *     CUDA-graph launch per layer), else, for eager traces, the repeating pattern anchored at
 *     attention kernels: each attention kernel starts a layer that runs to the next one on
 *     its stream and counts when it contains a GEMM;
 *   - per-stream busy time by class (compute, communication, memory) and idle gaps.
 *
 * Ownership: the collector owns its arrays and results; NAMES (the string table giving
 * name ids) is borrowed and must outlive it. Thread safety: none (one collector per read).
 */
#ifndef OPSCOPE_KINETO_H
#define OPSCOPE_KINETO_H

#include "analyze/kineto/collectives.h"
#include "model/strtab.h"
#include "read/kernel_rules.h"
#include "read/kineto_event.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct opscope_kineto opscope_kineto_t;

/* A new collector over NAMES (borrowed). NULL when out of memory. */
opscope_kineto_t *opscope_kineto_new(opscope_strtab_t *names);
void opscope_kineto_free(opscope_kineto_t *k);

/* The info block the reader fills in place (never NULL for a live collector). */
opscope_kineto_info *opscope_kineto_info_mut(opscope_kineto_t *k);
const opscope_kineto_info *opscope_kineto_get_info(const opscope_kineto_t *k);

/* Keeps every kernel's links for opscope_kineto_links (the SQLite export); call before the
 * first event. Costs 8 bytes per GPU activity during the read and 40 per kernel after it. */
void opscope_kineto_keep_links(opscope_kineto_t *k);
/* Keeps the queue length and memory bandwidth series after the finish (the counter tracks of
 * `report --counters-trace`: 8 bytes per queue change, 24 per bandwidth change); call before
 * the finish. 0, or -1 when out of memory. */
int opscope_kineto_keep_series(opscope_kineto_t *k);
/* Keeps CPU ops' input dims (the diff's work pairs: opscope_kineto_gpu_info.cpu_dims); call
 * before the first event. The report does not need them and skips their parse. */
void opscope_kineto_keep_dims(opscope_kineto_t *k);
/* CPU-op records (opscope_kineto_cpu_ops) only for a trace without GPU activity: they are
 * dropped at its first GPU activity (the diff, which compares kernels when there are any).
 * Call before the first event. */
void opscope_kineto_cpu_ops_without_gpu_only(opscope_kineto_t *k);
/* No GPU activity sequences per CPU op call and per aten op (kseq.h, katen.h): the two are not
 * computed at the finish (opscope_kineto_kseq and opscope_kineto_katen stay NULL, their summary
 * lists empty), for a load that reads them again only when asked. Call before the finish. */
void opscope_kineto_skip_sequences(opscope_kineto_t *k);
/* Whether links are kept (the reader then also interns runtime call names). */
int opscope_kineto_wants_links(const opscope_kineto_t *k);

/* Keeps what EV's kind needs. Returns 0, or -1 when out of memory. */
int opscope_kineto_add(opscope_kineto_t *k, const opscope_kineto_event *ev);

/* K as the reader's collector (read/kineto_event.h), owned by K; NULL for a NULL K. */
opscope_kineto_collector *opscope_kineto_collector_of(opscope_kineto_t *k);

/* The trace's collectives (collectives.h), NULL when none had their args. */
const opscope_colls_t *opscope_kineto_colls(const opscope_kineto_t *k);

/* The kernels and launches by HTA's definitions beside opscope's (kstats.h); its results are
 * valid after the finish. Never NULL for a live collector. */
struct opscope_kstats;
const struct opscope_kstats *opscope_kineto_kstats(const opscope_kineto_t *k);
/* The GPU activity sequences of the CPU op calls (kseq.h), after the finish; NULL before. */
struct opscope_kseq;
const struct opscope_kseq *opscope_kineto_kseq(const opscope_kineto_t *k);
/* Each aten op call's kernels and delays (katen.h) as kseq patterns, after the finish; NULL before. */
const struct opscope_kseq *opscope_kineto_katen(const opscope_kineto_t *k);
/* The memory bandwidth over time (kmembw.h); its results are valid after the finish. Never
 * NULL for a live collector. */
struct opscope_kmembw;
const struct opscope_kmembw *opscope_kineto_kmembw(const opscope_kineto_t *k);
/* The GPU-side user annotations and the activity each holds (kgann.h, in the order of
 * opscope_kineto_gpu_get); its results are valid after the finish. Never NULL for a live
 * collector. */
struct opscope_kgann;
const struct opscope_kgann *opscope_kineto_kgann(const opscope_kineto_t *k);
/* What HTA's straggler rule reads of the trace (kstrag.h), after the finish; NULL before. */
struct opscope_kstrag;
const struct opscope_kstrag *opscope_kineto_kstrag(const opscope_kineto_t *k);

/* The GPU time by kernel type by HTA's definitions (kbreak.h); its results are valid after the
 * finish. Never NULL for a live collector. */
struct opscope_kbreak;
const struct opscope_kbreak *opscope_kineto_kbreak(const opscope_kineto_t *k);

/* Computes every result below; call once after the last event. 0, or -1 out of memory. */
int opscope_kineto_finish(opscope_kineto_t *k);

/* FN(UD, R) is called once by opscope_kineto_finish as soon as the steps and the window of R
 * are final, before the CPU-op records are made: what FN frees then is not alive with them
 * (the critical path's events: analyze/session/session.c). FN's non-zero return is its own failure,
 * the analysis goes on. Set before the finish; FN NULL: none. */
struct opscope_kineto_results;
typedef int (*opscope_kineto_steps_fn)(void *ud, const struct opscope_kineto_results *r);
void opscope_kineto_on_steps(opscope_kineto_t *k, opscope_kineto_steps_fn fn, void *ud);

/* ---- results (valid after finish, until free) ---- */

typedef struct opscope_kineto_agg {
    uint32_t name_id; /* UINT32_MAX for "(none)" */
    uint64_t count;
    uint64_t ns;
} opscope_kineto_agg;

typedef struct opscope_kineto_stream {
    int64_t device, stream;
    uint64_t n;                 /* activities */
    uint64_t first_ns, last_ns; /* span of the stream */
    uint64_t busy_ns;           /* union of all activity */
    uint64_t compute_ns, comm_ns, memory_ns; /* union per class */
    uint64_t idle_ns;           /* span - busy */
    uint64_t overlapped;        /* activities that overlapped an earlier one on the stream */
} opscope_kineto_stream;

/* One profiler step (a "ProfilerStep#N" user annotation). */
typedef struct opscope_kineto_step {
    int64_t number;            /* N, -1 when not a number */
    uint64_t start_ns, dur_ns;
} opscope_kineto_step;

/* One device's GPU activity (kernels, memcpys, memsets) over the window: union and rest. */
typedef struct opscope_kineto_device_busy {
    int64_t device;
    uint64_t busy_ns, idle_ns; /* busy + idle = the window */
} opscope_kineto_device_busy;

typedef struct opscope_kineto_gap {
    int64_t device, stream;
    uint64_t start_ns, len_ns;
} opscope_kineto_gap;

typedef struct opscope_kineto_phase_stats {
    uint64_t kernels, ns;
    uint64_t cat_ns[OPSCOPE_KCAT_COUNT];
} opscope_kineto_phase_stats;

/* Inference phases come from annotations; training phases from what launched a kernel: a
 * backward CPU op ("autograd::engine::evaluate_function: ...", "MmBackward0") or an
 * "Optimizer.step#..." annotation around its launch, else forward, in a trace that has either. */
enum { OPSCOPE_KINETO_PHASE_NONE = 0, OPSCOPE_KINETO_PHASE_PREFILL, OPSCOPE_KINETO_PHASE_DECODE,
       OPSCOPE_KINETO_PHASE_MIXED, OPSCOPE_KINETO_PHASE_FORWARD, OPSCOPE_KINETO_PHASE_BACKWARD,
       OPSCOPE_KINETO_PHASE_OPTIMIZER, OPSCOPE_KINETO_PHASE_COUNT };

typedef struct opscope_kineto_results {
    /* GPU activity totals */
    uint64_t kernels, kernel_ns, memcpy_n, memcpy_ns, memcpy_bytes, memset_n, memset_ns;
    uint64_t cat_count[OPSCOPE_KCAT_COUNT], cat_ns[OPSCOPE_KCAT_COUNT];
    /* links (over kernels) */
    uint64_t link_runtime;     /* kernels whose launching runtime call was found */
    uint64_t link_cpu_enclose; /* CPU op found by time enclosure of the runtime call */
    uint64_t link_cpu_ext;     /* CPU op found by External id */
    uint64_t link_python;      /* no CPU op; innermost python_function found */
    uint64_t link_none;
    uint64_t link_cpu;         /* enclose + ext */
    opscope_kineto_agg *top_cpu_ops; size_t n_top_cpu_ops; /* by GPU ns, at most TOP */
    opscope_kineto_agg *top_python;  size_t n_top_python;
    /* phases */
    uint64_t n_phase_annotations;
    uint64_t n_iterations;     /* user_annotation "ProfilerStep#N" events (profiler steps) */
    opscope_kineto_phase_stats phase[OPSCOPE_KINETO_PHASE_COUNT];
    /* layers */
    int layer_method;          /* 0 none, 1 correlation groups (CUDA graphs), 2 attention-anchored */
    uint64_t n_layers, layer_kernels, layer_ns;
    uint64_t n_layers_folded;  /* distinct ordinals once repeated passes are folded (gpu_info.layer) */
    uint64_t layer_min_ns, layer_max_ns;
    /* streams, gaps */
    opscope_kineto_stream *streams; size_t n_streams;
    opscope_kineto_gap gaps[OPSCOPE_KINETO_TOP]; size_t n_gaps;
    /* the CPU side over the profiled window: the profiler steps' span (first step start to
     * last step end), else the span of the GPU activities */
    opscope_kineto_step *steps; size_t n_steps; /* ProfilerStep#N, by start */
    uint64_t window_start_ns, window_ns;
    opscope_kineto_device_busy *devices; size_t n_devices; /* GPU busy/idle, by device id */
    uint64_t cpu_top_ns;       /* top-level CPU op time in the window: per thread the union of
                                  its cpu_op slices (nested ops count once), the busiest thread */
    bool cpu_bound;            /* a trace without GPU activity but with CPU ops; else the busiest
                                  GPU idles over half the window while the busiest
                                  CPU thread runs ops over half of it */
} opscope_kineto_results;

const opscope_kineto_results *opscope_kineto_get_results(const opscope_kineto_t *k);

/* How one kernel was linked (the analysis's per-kernel result). Names are ids in the
 * collector's string table, UINT32_MAX for none. */
typedef enum opscope_kineto_cpu_link {
    OPSCOPE_KINETO_CPU_LINK_NONE = 0,
    OPSCOPE_KINETO_CPU_LINK_ENCLOSING,   /* innermost CPU op around the launching call */
    OPSCOPE_KINETO_CPU_LINK_EXTERNAL_ID, /* CPU op with the launch's / kernel's External id */
} opscope_kineto_cpu_link;

typedef struct opscope_kineto_link {
    uint64_t record;       /* the kernel's record ordinal (opscope_kineto_event.record) */
    int64_t corr;          /* correlation id, -1 when none */
    int64_t launch_ns;     /* start of the launching runtime call (or flow start), -1 none */
    uint32_t launch_name;  /* the runtime call's name; UINT32_MAX for a flow start or none */
    uint32_t cpu_op;       /* CPU op name */
    uint32_t python;       /* innermost python_function around the launch (no CPU op only) */
    uint8_t cpu_link;      /* opscope_kineto_cpu_link */
    uint8_t phase;         /* OPSCOPE_KINETO_PHASE_* */
} opscope_kineto_link;

/* The links of every kernel in input order (after finish, with keep_links; else N = 0). */
const opscope_kineto_link *opscope_kineto_links(const opscope_kineto_t *k, size_t *n);

/*
 * Per GPU activity attribution (after finish): what the diff groups kernels by. Activities
 * come in an unspecified order; SEQ is the position in which the reader handed the activity
 * over (the order of its records in the stream). Kernels, memcpys and memsets are linked to
 * a CPU op alike (the report's link counts are over kernels only).
 */
typedef struct opscope_kineto_gpu_info {
    uint32_t seq;
    opscope_kineto_kind kind;      /* KERNEL, MEMCPY or MEMSET */
    opscope_kernel_category kcat;
    uint32_t name_id;
    int64_t device, stream, start_ns, dur_ns;
    uint32_t cpu_op;    /* name id of the linked CPU op, UINT32_MAX when none */
    uint32_t cpu_call;  /* identifies the call of that CPU op (its interval, or its External id
                           when linked by id); 0 when none. Equal ids: the same call */
    uint32_t cpu_dims;  /* name id of that call's input dims text (linked by enclosure, traces
                           with record_shapes), UINT32_MAX when none */
    uint32_t layer;     /* layer ordinal (results' layer method), folded over steps and passes (from 0 in each step's forward, from the last in its backward), UINT32_MAX when in none */
    int phase;          /* OPSCOPE_KINETO_PHASE_* */
} opscope_kineto_gpu_info;

size_t opscope_kineto_n_gpu(const opscope_kineto_t *k);
/* The runtime call that launched GPU activity I (after finish, with keep_links: 40 bytes per
 * activity; 0 <= I < opscope_kineto_n_gpu): its correlation id, name id (UINT32_MAX when
 * unknown), start and duration, and the launch delay from its end as HTA measures it (the
 * starts as HTA's doubles read them, kstats.h; not clipped). Returns 0, or -1 when it has none
 * (no call with its correlation id, only a flow start, or links not kept). */
typedef struct opscope_kineto_launch_call {
    int64_t corr, start_ns, dur_ns, hta_delay_ns;
    uint32_t name;
} opscope_kineto_launch_call;
int opscope_kineto_gpu_launch(const opscope_kineto_t *k, size_t i, opscope_kineto_launch_call *out);
/* Activity I (0 <= I < opscope_kineto_n_gpu). */
void opscope_kineto_gpu_get(const opscope_kineto_t *k, size_t i, opscope_kineto_gpu_info *out);

/* The CPU ops kept (after finish: by thread, then start), for exports that keep the CPU
 * side of a trace. THREAD is the reader's dense (pid, tid) index; NAME a name id. */
typedef struct opscope_kineto_cpu_op {
    uint32_t thread, name;
    int64_t start_ns, end_ns;
} opscope_kineto_cpu_op;
size_t opscope_kineto_n_cpu_ops(const opscope_kineto_t *k);
void opscope_kineto_cpu_op_get(const opscope_kineto_t *k, size_t i, opscope_kineto_cpu_op *out);

/* Every CPU slice of the trace as a record, nested per thread, with its self time, and their
 * groups (analyze/kineto/cpu_ops.h); after finish. */
typedef struct opscope_cpu_ops opscope_cpu_ops_t;
const opscope_cpu_ops_t *opscope_kineto_cpu_ops(const opscope_kineto_t *k);

/* The kernels CUPTI's profiler measured, attributed to their operators (cupti.h), after
 * finish; NULL when the trace has no cuda_profiler_range event. */
struct opscope_cupti;
const struct opscope_cupti *opscope_kineto_cupti(const opscope_kineto_t *k);

/* The string table (for name ids in results). */
const opscope_strtab_t *opscope_kineto_names(const opscope_kineto_t *k);
/* The same table, writable (for the reader that interns into it). */
opscope_strtab_t *opscope_kineto_names_mut(opscope_kineto_t *k);

/* Static names. */
const char *opscope_kineto_platform_name(opscope_kineto_platform p);
const char *opscope_kineto_phase_name(int phase);

#endif /* OPSCOPE_KINETO_H */
