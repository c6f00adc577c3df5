/*
 * ggml-profiler.h - the profiling C API of ggml's proposed cross-backend profiler,
 * implemented by opscope's capture library (libopscope-ggml.so) on top of an unmodified ggml.
 *
 * Link the program with -lopscope-ggml (before ggml), or LD_PRELOAD the library; either way
 * ggml's scheduler and backends are observed from outside (see docs/capture.md). Records
 * accumulate across graph computes until reset or until the scheduler is freed.
 *
 * Thread safety: every function may be called from any thread. Records returned by
 * ggml_backend_sched_get_profiling_records stay valid until the next call of it for the same
 * scheduler, ggml_backend_sched_reset_profiling or ggml_backend_sched_free.
 * NULL handling: a NULL scheduler is ignored (getters return 0 / false, writers fail).
 * No function aborts or exits; writers return false (and print one line on stderr) on error.
 * With a static ggml (nothing to interpose), link libopscope-ggml-static.a with the -Wl,--wrap
 * flags of lib/opscope-ggml-static.ldflags instead: same API, see docs/capture.md "Static ggml".
 */
#ifndef GGML_PROFILER_H
#define GGML_PROFILER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * GGML_PROFILER_API marks the functions of this API, the ones libopscope-ggml.so exports
 * beside the ggml functions it interposes (its other symbols stay hidden). Define it before
 * including this header to override (e.g. as empty).
 */
#ifndef GGML_PROFILER_API
#if defined(__GNUC__) && __GNUC__ >= 4
#define GGML_PROFILER_API __attribute__((visibility("default")))
#else
#define GGML_PROFILER_API
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ggml_backend_sched * ggml_backend_sched_t;

#define GGML_PROFILE_MAX_SRC 10

enum ggml_profile_event_type {
    GGML_PROFILE_EVENT_OP = 0,
    GGML_PROFILE_EVENT_COPY = 1,
};

/* One event, with the fields of the profiler's JSON (versions 2 and 3) plus opscope's. */
typedef struct ggml_profile_record {
    enum ggml_profile_event_type type;
    const char *name;        /* "MUL_MAT", "copy_H2D", ... (static or owned by the library) */
    const char *sub_op;      /* UNARY/GLU op name or NULL */
    const char *extra;       /* fused-op name ("RMS_NORM+MUL") or NULL */
    const char *tensor_name; /* output tensor name or NULL */
    int backend_id;
    int split_id;
    int64_t graph_id;
    int node_index;
    int n_fused;
    int thread_id;
    uint64_t start_ns;       /* CLOCK_MONOTONIC */
    uint64_t duration_ns;
    uint64_t bytes;          /* output bytes (OP) or bytes moved (COPY) */
    uint64_t flops;          /* from the shapes (docs/metrics.md); 0 when the op defines none */
    int64_t ne_src0[4];      /* version 2 fields */
    int64_t ne_src1[4];
    int64_t ne_src2[4];
    int n_src;               /* version 3 fields */
    int64_t ne_src[GGML_PROFILE_MAX_SRC][4];
    size_t nb_src[GGML_PROFILE_MAX_SRC][4];
    int type_src[GGML_PROFILE_MAX_SRC];
    int64_t ne[4];
    int out_type;
    int32_t op_params[16];
} ggml_profile_record;

/* Turns profiling of SCHED on or off (with GGML_PROFILE set, every scheduler starts on). */
GGML_PROFILER_API void ggml_backend_sched_set_profiling(ggml_backend_sched_t sched, bool enable);
GGML_PROFILER_API bool ggml_backend_sched_get_profiling(ggml_backend_sched_t sched);

/* Stores a pointer to SCHED's records (sorted by start) in *RECORDS; returns their count. */
GGML_PROFILER_API int ggml_backend_sched_get_profiling_records(
    ggml_backend_sched_t sched, const ggml_profile_record **records);

/* Console summary on stdout. */
GGML_PROFILER_API void ggml_backend_sched_print_profiling(ggml_backend_sched_t sched);

/* JSON (version 3 + opscope fields) / plain-text report to a file (written whole or not at
 * all) or to an open FILE * (not closed). */
GGML_PROFILER_API bool ggml_backend_sched_export_profiling_json(ggml_backend_sched_t sched,
                                                                const char *path);
GGML_PROFILER_API bool ggml_backend_sched_export_profiling_text(ggml_backend_sched_t sched,
                                                                const char *path);
GGML_PROFILER_API bool ggml_backend_sched_write_profiling_json(ggml_backend_sched_t sched,
                                                               FILE *fp);
GGML_PROFILER_API bool ggml_backend_sched_write_profiling_text(ggml_backend_sched_t sched,
                                                               FILE *fp);

/* Forgets SCHED's records so far (memory is reused only within the library's cap). */
GGML_PROFILER_API void ggml_backend_sched_reset_profiling(ggml_backend_sched_t sched);

#ifdef __cplusplus
}
#endif

#endif /* GGML_PROFILER_H */
