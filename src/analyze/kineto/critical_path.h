/*
 * critical_path.h - the critical path of each profiler step of a Kineto trace (internal).
 *
 * A collector (read/kineto_event.h) put in front of the trace analysis keeps, per event, what
 * the path needs: CPU ops and runtime calls (thread, start, end, correlation, whether the call
 * blocks on the GPU), GPU activities (stream, start, end, correlation, communication or not)
 * and the runtime's cuda_sync events. opscope_critical_path_compute then builds, for one
 * window, the graph HTA's critical path analysis describes (docs/critical_path.md): a start
 * and an end node per event; per CPU thread the call-stack order of ops and runtime calls;
 * per stream the kernel order (kernel-kernel delay) or, when the stream was empty at the
 * launch, the launch delay; GPU -> CPU edges of device, stream and event synchronizations;
 * GPU -> GPU edges of cudaStreamWaitEvent. It takes the longest path with HTA's weights
 * (zero for dependencies, synchronizations and the inside of blocking calls) and splits the
 * window along it: CPU, launch delay, kernel, communication, kernel-kernel (queue), wait
 * (time the path spends inside synchronizations) and idle (what the path does not cover), so
 * the parts sum to the window.
 *
 * Memory: about 40 bytes per kept event during the read; a window's graph (4 nodes' and 4
 * edges' worth per event in it) only while it is computed. Ownership: the collector owns
 * what it keeps and borrows NEXT and its names. Thread safety: none.
 */
#ifndef OPSCOPE_CRITICAL_PATH_H
#define OPSCOPE_CRITICAL_PATH_H

#include "read/kineto_event.h"

#include <stddef.h>
#include <stdint.h>

typedef struct opscope_cpath opscope_cpath_t;

/* The breakdown of one window's critical path, in ns. The parts sum to LENGTH_NS. */
typedef struct opscope_critical_path {
    int64_t step;         /* the profiler step's number N (ProfilerStep#N), -1: no step */
    int64_t start_ns;     /* the window's start */
    uint64_t window_ns;   /* the window asked for (the step) */
    uint64_t length_ns;   /* start to the later of the window's end and the path's end (GPU
                             work launched in the step may finish after it) */
    uint64_t cpu_ns;      /* CPU ops and runtime calls on the path */
    uint64_t launch_ns;   /* kernel launch delay: runtime call start -> kernel start */
    uint64_t kernel_ns;   /* GPU compute (kernels, memcpy, memset) */
    uint64_t comm_ns;     /* GPU communication kernels (NCCL / RCCL) */
    uint64_t queue_ns;    /* kernel-kernel delay on a stream */
    uint64_t wait_ns;     /* inside blocking calls and synchronization edges */
    uint64_t idle_ns;     /* not covered by the path: between top-level ops, before, after */
    uint64_t gpu_ns;      /* kernel_ns + comm_ns */
    uint64_t n_edges;     /* edges on the path */
    uint64_t n_events;    /* CPU and GPU events in the window's graph */
} opscope_critical_path;

/* One edge of a computed path between two lanes (for flows): a CPU thread (the reader's dense
 * thread index) or a GPU stream. */
typedef enum opscope_cpath_part {
    OPSCOPE_CPATH_CPU = 0, OPSCOPE_CPATH_LAUNCH, OPSCOPE_CPATH_KERNEL, OPSCOPE_CPATH_COMM,
    OPSCOPE_CPATH_QUEUE, OPSCOPE_CPATH_WAIT, OPSCOPE_CPATH_IDLE, OPSCOPE_CPATH_PART_COUNT
} opscope_cpath_part;

typedef struct opscope_cpath_lane {
    int32_t gpu;          /* 0: CPU thread THREAD; 1: DEVICE, STREAM */
    uint32_t thread;
    int64_t device, stream;
    int64_t corr, act_start; /* GPU: the activity's correlation id and start (identify it) */
} opscope_cpath_lane;

typedef struct opscope_cpath_hop {
    int64_t src_ns, dst_ns;
    opscope_cpath_lane src, dst;
    uint8_t part;         /* opscope_cpath_part the edge's time counts as */
} opscope_cpath_hop;

/* A new collector that keeps what the path needs and hands every event on to NEXT (borrowed,
 * may be NULL: nothing is handed on). NULL when out of memory. */
opscope_cpath_t *opscope_cpath_new(opscope_kineto_collector *next);
void opscope_cpath_free(opscope_cpath_t *c);
/* C as the reader's collector (owned by C). */
opscope_kineto_collector *opscope_cpath_collector(opscope_cpath_t *c);
/* Whether the read kept anything to build a path from (CPU ops or GPU activities). */
int opscope_cpath_has_events(const opscope_cpath_t *c);

/*
 * The critical path of the window [START_NS, END_NS): CPU ops and runtime calls that start in
 * it, GPU activities launched by a runtime call in it, synchronizations of those calls. Fills
 * OUT; with HOPS not NULL, appends the path's edges that change lane to *HOPS (*N_HOPS
 * elements, realloc'ed; the caller frees). Callable per window, any number of times, after
 * the read and until opscope_cpath_release_events. Returns 0, or -1 when out of memory.
 */
int opscope_critical_path_compute(opscope_cpath_t *c, int64_t start_ns, int64_t end_ns,
                                  opscope_critical_path *out, opscope_cpath_hop **hops, size_t *n_hops);

/*
 * The critical path of every profiler step of R (the trace analysis' results, after its
 * finish), else of R's window (one result, step -1), kept in C with the hops of all of them.
 * Returns 0, or -1 when out of memory (nothing kept).
 */
struct opscope_kineto_results;
int opscope_cpath_run_steps(opscope_cpath_t *c, const struct opscope_kineto_results *r);
const opscope_critical_path *opscope_cpath_steps(const opscope_cpath_t *c, size_t *n);
/*
 * The windows: the instances of the CPU annotation or op NAME (a record_function range,
 * matched by its whole name) instead of the profiler steps, as HTA's critical path takes an
 * annotation and an instance: instance INSTANCE (0-based, by start), or every instance when
 * INSTANCE < 0. opscope_cpath_run_steps then keeps one result per window, its step field the
 * instance (none when the trace has no such instance). Call before the read; NAME is copied
 * (NULL: the profiler steps again, only step INSTANCE by order when INSTANCE >= 0, a trace
 * without steps being one). Returns 0, or -1 when out of memory.
 */
int opscope_cpath_set_window(opscope_cpath_t *c, const char *name, int64_t instance);
/* The annotation of opscope_cpath_set_window, NULL for the profiler steps (or C NULL). */
const char *opscope_cpath_window_name(const opscope_cpath_t *c);
/* How many instances of it the read saw (0 for C NULL). */
size_t opscope_cpath_window_count(const opscope_cpath_t *c);
/* Takes the CPU ops and runtime calls from OPS's slices (the same read's CPU-op analysis, fed
 * by the collector after C's; borrowed until opscope_cpath_release_events) instead of keeping
 * a copy: call before the read. OPS must not be stopped (opscope_cpu_ops_stop: the path is
 * then left out). */
struct opscope_cpu_ops;
void opscope_cpath_share(opscope_cpath_t *c, const struct opscope_cpu_ops *ops);
/* Frees the events the read kept (no more windows can be computed; the steps and hops of
 * opscope_cpath_run_steps stay). */
void opscope_cpath_release_events(opscope_cpath_t *c);
const opscope_cpath_hop *opscope_cpath_hops(const opscope_cpath_t *c, size_t *n);

/* The events on the computed paths (opscope_cpath_run_steps, with opscope_cpath_keep_marks):
 * a thread's (PID, TID) or a GPU stream's (device, stream), and the event's [START_NS, END_NS)
 * as the read gave them; an event once along a path (once per window it is on). */
typedef struct opscope_cpath_mark {
    int64_t pid, tid, start_ns, end_ns;
    uint8_t gpu;
} opscope_cpath_mark;
/* The kinds of path edges kept with the marks: HTA's default ones to draw (a kernel launch, a
 * GPU -> CPU synchronization, a zero-weight dependency between two top-level ops), and any
 * other edge between two lanes. */
enum { OPSCOPE_CPATH_EDGE_LAUNCH, OPSCOPE_CPATH_EDGE_SYNC, OPSCOPE_CPATH_EDGE_DEPENDENCY, OPSCOPE_CPATH_EDGE_OTHER };
/* A path edge of those kinds: marks SRC and DST, each at its event's start (0) or end (1), the
 * part its time counts as, its kind and its weight in ns (0 for a sync or dependency). */
typedef struct opscope_cpath_medge {
    uint32_t src, dst;
    uint8_t src_end, dst_end, part, kind;
    uint64_t weight_ns;
} opscope_cpath_medge;
/* Keeps the marks and lane edges of every path opscope_cpath_run_steps computes (the critical
 * path trace: 40 bytes per event on a path); call before it. C may be NULL. */
void opscope_cpath_keep_marks(opscope_cpath_t *c);
/* After opscope_cpath_run_steps; valid until the next run or free. */
const opscope_cpath_mark *opscope_cpath_marks(const opscope_cpath_t *c, size_t *n);
const opscope_cpath_medge *opscope_cpath_medges(const opscope_cpath_t *c, size_t *n);

/* Its name ("cpu", "launch", "kernel", "comm", "queue", "wait", "idle"). */
const char *opscope_cpath_part_name(int part);

#endif /* OPSCOPE_CRITICAL_PATH_H */
