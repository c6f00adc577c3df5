/*
 * chrome_state.h - the Chrome exporter's state and its event primitives, shared by chrome.c
 * (the GPU/ggml records and the metadata), chrome_cpu.c (a trace's CPU side: cpu_op slices,
 * runtime calls, user annotations, Python functions, launch flows, profiler steps) and
 * chrome_req.c (a llama.cpp run's requests). Internal to export/chrome; thread safety: none.
 */
#ifndef OPSCOPE_CHROME_STATE_H
#define OPSCOPE_CHROME_STATE_H

#include "export/chrome/chrome_lanes.h"
#include "export/sections/win_out.h"
#include "model/backend_names.h"
#include "opscope.h"
#include "read/kineto_event.h"
#include "util/out.h"
#include "util/vec.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct opscope_chrome opscope_chrome_t;

typedef struct chrome_proc {
    int32_t backend_id;
    opscope_backend_names names; /* process: a merged profile's, or NULL */
    opscope_device_type device_type;
    bool described;
    bool has_events;
    int n_threads;                          /* CPU threads with per-thread times (chrome_threads.c) */
    int32_t thread_cpu[OPSCOPE_MAX_THREADS]; /* their last known CPU + 1, 0 unknown */
} chrome_proc;

/* A launching call of a trace: a runtime call (name set) or a flow start (name UINT32_MAX). */
typedef struct chrome_launch {
    int64_t start, dur, corr;
    uint32_t thread, name;
} chrome_launch;

/* A user annotation (record_function range) or Python function slice of a trace. */
typedef struct chrome_mark {
    int64_t start, dur;
    uint32_t thread, name;
    bool python;
} chrome_mark;

/* A GPU activity with a correlation id, and the record the reader emitted for it. */
typedef struct chrome_gpu_act {
    int64_t start, corr;
    uint64_t record;
} chrome_gpu_act;

/* Where the exporter put record ordinal i of a trace: its process and thread. */
typedef struct chrome_place {
    uint32_t pid, tid;
} chrome_place;

struct opscope_chrome {
    opscope_out_t *out;
    opscope_lanes_t *lanes;
    chrome_proc *procs;
    size_t n_procs, cap_procs, last_proc;
    bool started, oom;
    const char *track_word; /* "split" for ggml profiles, "stream" for GPU traces */
    bool is_trace;          /* a Kineto / Chrome trace: its streams always get their lanes */
    bool per_split;         /* a lane per scheduler split (else one per backend) */
    uint64_t n_events;
    bool has_cpu;           /* a trace's CPU side was added: process cpu_pid, tids 0..cpu_threads */
    long cpu_pid;
    uint32_t cpu_threads;
    /* the trace collector in front of the analysis (opscope_chrome_kineto_tee) */
    opscope_kineto_collector tee, *next;
    bool teed;
    OPSCOPE_VEC(chrome_launch) launches;
    OPSCOPE_VEC(chrome_gpu_act) acts;
    OPSCOPE_VEC(chrome_mark) marks;   /* annotations (but the steps) and Python functions */
    OPSCOPE_VEC(chrome_place) places; /* per record, while teed */
    struct opscope_run_request *reqs; /* a llama.cpp run's requests (chrome_req.c), owned */
    size_t n_reqs;
    opscope_win_copy win; /* the capture's windows and marks (chrome_win.c), owned */
};

/* Starts the JSON document once. */
void opscope_chrome_start(opscope_chrome_t *c);
/* Writes the separator and the start of a metadata event WHAT of PID (and TID >= 0). */
void opscope_chrome_meta_event(opscope_chrome_t *c, const char *what, long pid, long tid);

/* chrome_threads.c: R's per-thread work and wait as slices NAME / "wait" on the CPU threads'
 * tracks of process PI (nothing without them). */
void opscope_chrome_add_threads(opscope_chrome_t *c, const opscope_record *r, long pi, const char *name);
/* Names and orders the thread tracks (after the lanes'). */
void opscope_chrome_write_thread_tracks(opscope_chrome_t *c);

/* chrome_req.c: the requests of CAP's run (NULL: none) kept for the export, from the profile's
 * metadata, those a capture window's edge cut marked; 0, or -1 out of memory (c->oom set). */
int opscope_chrome_take_requests(opscope_chrome_t *c, const opscope_capture_info *cap);
/* Writes the kept requests as process PID (nothing when none). */
void opscope_chrome_write_requests(opscope_chrome_t *c, long pid);

/* chrome_win.c: CAP's windows and marks (NULL: none) kept for the export, from the profile's
 * metadata; 0, or -1 out of memory (c->oom set). */
int opscope_chrome_take_windows(opscope_chrome_t *c, const opscope_capture_info *cap);
/* Writes the kept windows and marks as process PID (nothing when none); a window still open
 * ends at the capture's last write, else LAST_NS (0: at its start). */
void opscope_chrome_write_windows(opscope_chrome_t *c, long pid, uint64_t last_ns);

#endif /* OPSCOPE_CHROME_STATE_H */
