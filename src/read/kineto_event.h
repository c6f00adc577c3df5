/*
 * kineto_event.h - what the Kineto / Chrome trace reader hands to a collector of CPU-side and
 * GPU events (internal): the trace's info block, one compact event per kept event, and the
 * collector interface. The reader (read/kineto_read.c) only knows this interface; the
 * analysis behind it (analyze/kineto/kineto.h) implements it, so read/ never calls analyze/.
 *
 * Ownership: the collector's owner keeps INFO and NAMES alive for the read. Thread safety: a
 * collector is fed by one read at a time.
 */
#ifndef OPSCOPE_KINETO_EVENT_H
#define OPSCOPE_KINETO_EVENT_H

#include "model/strtab.h"
#include "read/kernel_rules.h"

#include <stdbool.h>
#include <stdint.h>

#define OPSCOPE_KINETO_MAX_DEVICES 64
#define OPSCOPE_KINETO_TOP 10

typedef enum opscope_kineto_platform {
    OPSCOPE_KINETO_PLATFORM_UNKNOWN = 0,
    OPSCOPE_KINETO_PLATFORM_NVIDIA,
    OPSCOPE_KINETO_PLATFORM_AMD,
    OPSCOPE_KINETO_PLATFORM_OTHER, /* MTIA, XPU, other accelerators */
} opscope_kineto_platform;

/* One deviceProperties entry (fields 0 / "" when absent). */
typedef struct opscope_kineto_device {
    int64_t id;
    char name[96];
    int64_t total_mem;
    int32_t compute_major, compute_minor;
    int32_t num_sms;
    int32_t warp_size;
    int32_t max_threads_per_block;
    int64_t shared_mem_per_block;
} opscope_kineto_device;

/* What the reader learned about the trace as a whole. */
typedef struct opscope_kineto_info {
    opscope_kineto_platform platform;
    char platform_hint[32];  /* "roctracer", "hip runtime", "mtia"... why the platform */
    int32_t schema_version;
    char display_time_unit[8];
    int64_t rank, world_size; /* distributedInfo, -1 when absent */
    char dist_backend[16];
    int n_devices;
    opscope_kineto_device devices[OPSCOPE_KINETO_MAX_DEVICES];
    /* event counts */
    uint64_t n_events, n_kernels, n_memcpy, n_memset, n_cpu_ops, n_runtime, n_python;
    uint64_t n_annotations, n_gpu_annotations, n_flows, n_metadata, n_other;
    uint64_t n_ends;           /* E events: each closes a B counted by its category, or none */
    /* n_events = the sum of the counts above (other: ignored categories, unclosed or
     * unusable B, non-object entries); the ones below are quirks within them */
    uint64_t n_unmatched_end; /* E without B */
    uint64_t n_unclosed_begin; /* B without E at the end */
    uint64_t n_old_categories; /* Kernel, Runtime, Memcpy... (pre-2021 Kineto) */
    uint64_t n_string_ids;     /* events whose pid or tid was a string */
    uint64_t n_float_ts;       /* events with a fractional ts */
    bool is_kineto;            /* Kineto categories or top-level keys were seen */
} opscope_kineto_info;

/* Kinds of events the reader hands over. */
typedef enum opscope_kineto_kind {
    OPSCOPE_KINETO_KERNEL = 0,
    OPSCOPE_KINETO_MEMCPY,
    OPSCOPE_KINETO_MEMSET,
    OPSCOPE_KINETO_CPU_OP,
    OPSCOPE_KINETO_RUNTIME,
    OPSCOPE_KINETO_PYTHON,
    OPSCOPE_KINETO_ANNOTATION,     /* user_annotation (CPU side) */
    OPSCOPE_KINETO_GPU_ANNOTATION, /* gpu_user_annotation (device side) */
    OPSCOPE_KINETO_FLOW_START,     /* ph "s" of ac2g / async_gpu: id = correlation */
    OPSCOPE_KINETO_COUNTERS,       /* cuda_profiler_range: one kernel measured by CUPTI's
                                      profiler, its counters (args) in counters */
    OPSCOPE_KINETO_SYNC,           /* cuda_sync ("Context Sync", "Stream Sync", "Event Sync",
                                      "Stream Wait Event"): device = pid, stream = args.stream,
                                      corr = the runtime call's correlation */
} opscope_kineto_kind;

/* A collective's arguments (record_param_comms ops and NCCL kernels of PyTorch >= 2.1:
 * args "Collective name", "In msg nelems", "Out msg nelems", "Group size", "dtype",
 * "Process Group Name"); read by read/kineto_comm.c. Strings cut to fit, "" when absent. */
typedef struct opscope_kineto_comm {
    char coll[32], dtype[16], pg[32];
    int64_t in_nelems, out_nelems, group_size; /* -1 when absent */
} opscope_kineto_comm;

/* One numeric arg of a cuda_profiler_range event ("smsp__sass_thread_inst_executed_op_
 * ffma_pred_on.sum": 86114304): the counter's name id and its value. */
typedef struct opscope_kineto_counter {
    uint32_t name_id;
    double value;
} opscope_kineto_counter;

typedef struct opscope_kineto_event {
    opscope_kineto_kind kind;
    uint32_t name_id;          /* id in the collector's string table */
    opscope_kernel_category kcat; /* GPU activities */
    uint64_t thread;           /* (pid, tid) key of the CPU thread; stream key for GPU */
    int64_t device, stream;    /* pid and tid (GPU activities: device and stream) */
    int64_t start_ns, dur_ns;
    int64_t corr;              /* args.correlation (or flow id), -1 when absent */
    int64_t ext;               /* args["External id"], -1 when absent */
    uint64_t bytes;
    double bw_gbps;            /* GPU activities: args["memory bandwidth (GB/s)"], 0 when absent */
    uint64_t record;           /* GPU activities: ordinal (0-based) of the record the reader
                                  emitted for it, UINT64_MAX when none (links only) */
    int64_t wait_stream;       /* SYNC: args.wait_on_stream (stream of the waited event), -1 */
    int64_t wait_corr;         /* SYNC: args.wait_on_cuda_event_record_corr_id (the
                                  cudaEventRecord call's correlation), -1 when absent */
    uint32_t dims_id;          /* CPU ops and annotations: args["Input Dims"] as text,
                                  "[4096,768]x[768,50257]" (scalars left out), name id;
                                  UINT32_MAX when none */
    uint32_t types_id;         /* CPU ops and annotations: args["Input type"] as text,
                                  "float,c10::BFloat16" ("" entries left out), name id;
                                  UINT32_MAX when none (read with want_dims only) */
    const opscope_kineto_comm *comm; /* kernels and CPU ops with a "Collective name" arg, else
                                  NULL; valid during ADD only */
    const opscope_kineto_counter *counters; /* COUNTERS: its numeric args (valid during ADD
                                  only), n_counters of them; NULL otherwise */
    uint32_t n_counters;
} opscope_kineto_event;

/*
 * A consumer of the reader's events. ADD keeps what EV's kind needs (0, or -1 when out of
 * memory); INFO is filled in place by the reader; NAMES gives the events' name ids;
 * runtime call names are always interned (they are CPU-op records, analyze/kineto/cpu_ops.h);
 * WANT_LINKS non-zero asks for the kernel links' extras; WANT_DIMS to read CPU ops' and
 * annotations' args["Input Dims"] and ["Input type"] (else dims_id, types_id are UINT32_MAX).
 */
typedef struct opscope_kineto_collector {
    void *ud;
    int (*add)(void *ud, const opscope_kineto_event *ev);
    opscope_kineto_info *info;
    opscope_strtab_t *names;
    int want_links;
    int want_dims;             /* non-zero: CPU ops carry their input dims (dims_id) */
} opscope_kineto_collector;

#endif /* OPSCOPE_KINETO_EVENT_H */
