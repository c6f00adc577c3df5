/*
 * opscope.h - public C API of opscope, the cross-backend operator profiler for ggml.
 *
 * A profile is a list of backends and a stream of records. A record is one OP (a computed
 * graph node, possibly a fused group) or one COPY (bytes moved between backends). Readers
 * deliver records one at a time to a sink, so a report over a file much larger than memory
 * runs in bounded memory; opscope_profile_t keeps records in memory for programs that want
 * random access (the capture library, the HTML viewer, tests).
 *
 * Conventions, for every function below:
 * - Strings handed to a sink are borrowed: valid only during the callback. Copy what you keep.
 * - Functions taking an opscope_error * fill it on failure and leave it untouched on success;
 *   passing NULL is allowed and discards the details.
 * - No function aborts or exits. Out of memory is reported as OPSCOPE_ERROR_NOMEM.
 * - Unless a comment says otherwise, an object is not thread safe: use one per thread or lock.
 */
#ifndef OPSCOPE_H
#define OPSCOPE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * OPSCOPE_API marks the functions of this API. The library is built with hidden visibility,
 * so a shared object that contains it exports these and nothing else of it. Define
 * OPSCOPE_API before including this header to override (e.g. as empty).
 */
#ifndef OPSCOPE_API
#if defined(__GNUC__) && __GNUC__ >= 4
#define OPSCOPE_API __attribute__((visibility("default")))
#else
#define OPSCOPE_API
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define OPSCOPE_VERSION_STRING "0.1.0"

/* Limits mirror ggml's (GGML_MAX_SRC, GGML_MAX_DIMS, GGML_MAX_OP_PARAMS / 4). */
#define OPSCOPE_MAX_SRC 10
#define OPSCOPE_MAX_DIMS 4
#define OPSCOPE_MAX_OP_PARAMS 16

/* ------------------------------------------------------------------------------------------ */
/* Errors (yyjson style: a code, a static message, a position).                                */

typedef enum opscope_error_code {
    OPSCOPE_OK = 0,
    OPSCOPE_ERROR_IO,       /* open/read/write/rename failed; errno_value holds errno */
    OPSCOPE_ERROR_NOMEM,    /* allocation failed or a documented cap was reached */
    OPSCOPE_ERROR_SYNTAX,   /* input is not valid JSON (or not valid for its format) */
    OPSCOPE_ERROR_SCHEMA,   /* valid JSON of the wrong shape: wrong type, missing part */
    OPSCOPE_ERROR_RANGE,    /* a number does not fit the field it belongs to */
    OPSCOPE_ERROR_FORMAT,   /* the input's format could not be recognised */
    OPSCOPE_ERROR_USAGE,    /* invalid argument from the caller */
    OPSCOPE_ERROR_ABORTED,  /* a sink callback asked to stop */
} opscope_error_code;

typedef struct opscope_error {
    opscope_error_code code;
    const char *msg;      /* static string, never freed; e.g. "expected ',' or '}' after member" */
    char file[256];       /* input name ("-" for stdin), may be empty */
    uint64_t pos;         /* byte offset in the input (0-based) */
    uint32_t line;        /* 1-based line, 0 if unknown */
    uint32_t col;         /* 1-based column in bytes, 0 if unknown */
    int errno_value;      /* for OPSCOPE_ERROR_IO */
} opscope_error;

/* Formats the error as one line: "FILE:LINE:COL: error: MSG" (or "FILE: byte N: ..."). */
OPSCOPE_API void opscope_error_format(const opscope_error *err, char *buf, size_t size);

/* Returns a static name of the code, e.g. "syntax error". */
OPSCOPE_API const char *opscope_error_code_name(opscope_error_code code);

/* ------------------------------------------------------------------------------------------ */
/* The record model.                                                                          */

typedef enum opscope_record_type {
    OPSCOPE_RECORD_OP = 0,
    OPSCOPE_RECORD_COPY = 1,
} opscope_record_type;

typedef enum opscope_device_type {
    OPSCOPE_DEVICE_CPU = 0,
    OPSCOPE_DEVICE_GPU = 1,
    OPSCOPE_DEVICE_ACCEL = 2,
    OPSCOPE_DEVICE_OTHER = 3,
} opscope_device_type;

typedef struct opscope_backend {
    int32_t id;                   /* scheduler priority order in ggml profiles */
    const char *name;             /* e.g. "CPU", "Vulkan0"; never NULL ("" if unknown) */
    const char *device;           /* e.g. "AMD EPYC", "llvmpipe"; never NULL */
    opscope_device_type device_type;
    const char *process;          /* the process it ran in, e.g. "gpu-box/ggml-rpc-server" in a
                                   * profile merged from several processes (opscope merge);
                                   * NULL when the profile is one process's */
} opscope_backend;

/* Field presence bits: a reader sets a bit only when the input carried the field. */
enum {
    OPSCOPE_HAS_GRAPH = 1u << 0,      /* graph_id */
    OPSCOPE_HAS_NODE = 1u << 1,       /* node_index */
    OPSCOPE_HAS_THREAD = 1u << 2,     /* thread_id */
    OPSCOPE_HAS_HOST_TIME = 1u << 3,  /* host_start_ns, host_end_ns */
    OPSCOPE_HAS_OUT = 1u << 4,        /* ne, out_type */
    OPSCOPE_HAS_OP_PARAMS = 1u << 5,  /* op_params */
    OPSCOPE_HAS_FLOPS = 1u << 6,      /* flops was given by the input (never set for FLOPs
                                       * derived from the shapes: see opscope_record_flops) */
    OPSCOPE_HAS_STRIDES = 1u << 7,    /* nb_src */
    OPSCOPE_HAS_SRC_TYPES = 1u << 8,  /* type_src */
    OPSCOPE_HAS_DEVICE_TIME = 1u << 9, /* start_ns/duration_ns were measured on the device
                                        * (host_*_ns, when set, is the host call around it) */
    OPSCOPE_HAS_KERNEL = 1u << 10,    /* kernel, n_kernels */
    OPSCOPE_HAS_CLOCK_ALIGNED = 1u << 11, /* device time placed by submit time, not by a
                                           * calibrated clock: good durations, rough starts */
    OPSCOPE_HAS_SUB_OP = 1u << 12,    /* sub_op_value */
    OPSCOPE_HAS_WEIGHT = 1u << 13,    /* weight (sampled device timing) */
    OPSCOPE_HAS_BATCH = 1u << 14,     /* batch, queries (a record of a whole split) */
    OPSCOPE_HAS_SAMPLED_OUT = 1u << 15, /* a whole split that sampled device timing left
                                         * untimed: host time only; its device work is in
                                         * the timed computes' weights, estimates count it 0 */
    OPSCOPE_HAS_THREADS = 1u << 16,   /* threads, n_threads (a CPU node's per-thread times) */
};

/*
 * One OP or COPY. Every field of both seed layouts (ggml profiler JSON versions 2 and 3)
 * plus what opscope's capture adds. A type value of -1 means unknown (ggml type numbers are
 * those of ggml's enum ggml_type). Dimensions are ggml's ne[] order (ne[0] innermost);
 * unused dimensions and sources are 0.
 */
typedef struct opscope_record {
    opscope_record_type type;
    const char *name;         /* "MUL_MAT", "UNARY", "copy_H2D", kernel name...; never NULL */
    const char *sub_op;       /* UNARY/GLU op name ("SILU", "SWIGLU"), a copy's direction in
                               * foreign traces ("HtoD"), or NULL; see opscope_record_sub_op */
    int32_t sub_op_value;     /* OPSCOPE_HAS_SUB_OP: the sub-op as ggml's enum value
                               * (enum ggml_unary_op for UNARY, enum ggml_glu_op for GLU) */
    const char *extra;        /* fused-op name when a backend fused nodes, or NULL */
    const char *tensor_name;  /* output tensor name or NULL */
    const char *category;     /* kernel category for foreign traces ("gemm"...), or NULL */
    const char *kernel;       /* OPSCOPE_HAS_KERNEL: the device kernels that computed it, in
                               * order, '+'-joined ("quantize_q8_1+mul_mat_vec_q4_0_q8_1_f32") */
    int32_t n_kernels;        /* OPSCOPE_HAS_KERNEL: dispatches and transfers it took */
    uint32_t weight;          /* OPSCOPE_HAS_WEIGHT: under sampled device timing, the graph
                               * computes this device-timed record stands for (its own and the
                               * untimed ones of the same graph before it, >= 1): estimates
                               * of the whole run multiply by it. Unset: 1, every compute timed */
    int64_t batch;            /* OPSCOPE_HAS_BATCH: a record standing for a whole split
                               * (GRAPH_SPLIT): the batch of its nodes as the host knew them,
                               * the widest MUL_MAT's src1 ne[1] (MUL_MAT_ID's ne[2]), 0: none */
    int64_t queries;          /* OPSCOPE_HAS_BATCH: its attention's queries per sequence (the
                               * largest FLASH_ATTN_EXT src0 ne[1]), 0: none */
    int32_t backend_id;
    int32_t split_id;         /* scheduler split; the stream for GPU traces */
    int64_t graph_id;         /* OPSCOPE_HAS_GRAPH */
    int32_t node_index;       /* index in the graph's nodes (first node of a fused group) */
    int32_t n_fused;          /* nodes covered by this record, >= 1 (1 when not fused) */
    int32_t thread_id;        /* OPSCOPE_HAS_THREAD */
    uint32_t has;             /* OPSCOPE_HAS_* bits */
    uint64_t start_ns;        /* on the profile's time base (device time when available) */
    uint64_t duration_ns;
    uint64_t host_start_ns;   /* OPSCOPE_HAS_HOST_TIME: host clock around the dispatch */
    uint64_t host_end_ns;
    uint64_t bytes;           /* output size for OPs, transfer size for COPYs */
    uint64_t flops;           /* OPSCOPE_HAS_FLOPS, else 0; see opscope_record_flops() */
    int32_t out_type;         /* OPSCOPE_HAS_OUT */
    int64_t ne[OPSCOPE_MAX_DIMS];
    int32_t n_src;            /* number of meaningful entries below (0..OPSCOPE_MAX_SRC) */
    int64_t ne_src[OPSCOPE_MAX_SRC][OPSCOPE_MAX_DIMS];
    uint64_t nb_src[OPSCOPE_MAX_SRC][OPSCOPE_MAX_DIMS]; /* OPSCOPE_HAS_STRIDES */
    int32_t type_src[OPSCOPE_MAX_SRC];                   /* OPSCOPE_HAS_SRC_TYPES, else -1 */
    int32_t op_params[OPSCOPE_MAX_OP_PARAMS];            /* OPSCOPE_HAS_OP_PARAMS */
    /* OPSCOPE_HAS_THREADS: a CPU node timed at ggml's barriers on every thread of its compute:
     * threads[2 * i] is thread i's work on it, threads[2 * i + 1] its wait at the barriers that
     * end it (ns; thread 0 is the one that called the compute). Borrowed from the reader, valid
     * during the callback only; at most OPSCOPE_MAX_THREADS threads. */
    const uint32_t *threads;
    int32_t n_threads;
    /* with threads, or NULL: the CPU each thread ran on at the compute's first barrier
     * (sched_getcpu), -1 unknown; borrowed like threads */
    const int32_t *thread_cpus;
} opscope_record;

/* Threads a record's per-thread times hold at most. */
#define OPSCOPE_MAX_THREADS 64

/* Sets every field to its "unknown" value: zeros, NULL strings, types -1, n_fused 1. */
OPSCOPE_API void opscope_record_init(opscope_record *rec);

/*
 * The sub-op of REC, by name and by ggml's enum value. Returns the name (REC->sub_op, else
 * the name of its value, else for UNARY/GLU the name of op_params[0]) or NULL; when VALUE is
 * not NULL stores the enum value there (REC->sub_op_value, else the value of the name, else
 * op_params[0]), -1 when there is none. Either may be known without the other: a value past
 * the enums opscope knows has no name, a copy direction has no value. The returned string is
 * static or borrowed from REC. Pure; thread-safe.
 */
OPSCOPE_API const char *opscope_record_sub_op(const opscope_record *rec, int32_t *value);

/* ggml's name of sub-op VALUE of op OP ("UNARY": enum ggml_unary_op, "GLU": enum ggml_glu_op,
 * in the order of ggml 0.27), or NULL for another op or an unknown value. Static string. */
OPSCOPE_API const char *opscope_sub_op_name(const char *op, int32_t value);

/* ggml's enum value of sub-op NAME of op OP, or -1 (inverse of opscope_sub_op_name). */
OPSCOPE_API int32_t opscope_sub_op_value(const char *op, const char *name);

/*
 * What ran (opscope's capture writes it inside "capture"; docs/formats.md, "capture"): the
 * command line, the model files the program opened (their GGUF headers as the capture read
 * them), the llama contexts it made (a llama-bench test each), the BLAS library loaded.
 * Strings are NULL and numbers 0 (file_type, model: -1) when unknown. Arrays may be empty.
 */
typedef struct opscope_run_model {
    const char *path;         /* as the program named it */
    uint64_t size_bytes;      /* the file's size */
    const char *architecture; /* general.architecture */
    const char *name;         /* general.name */
    uint64_t n_params;        /* the tensors' elements, summed */
    int32_t file_type;        /* general.file_type (llama_ftype: 0 F32, 1 F16, 7 Q8_0, 2 Q4_0...) */
} opscope_run_model;

/* One llama context, seen when the program freed it (llama_free). */
typedef struct opscope_run_context {
    int32_t model;            /* index into models, -1: unknown */
    uint32_t n_ctx, n_batch, n_ubatch, n_threads;
    uint64_t end_ns;          /* the capture's clock at llama_free */
    size_t n_reps;            /* llama_memory_clear calls while it lived: each starts a */
    const uint64_t *reps_ns;  /* repetition in llama-bench; their times */
} opscope_run_context;

/* One sequence of a llama_decode call (docs/formats.md, "decodes"): its tokens in the batch
 * (a token of several sequences counts for each), those of its prompt (the tokens up to and
 * including the request's first output; the rest were generated), and its outputs (tokens
 * whose logits were asked for: one sampled token each). */
typedef struct opscope_run_seq {
    int32_t seq;              /* llama_seq_id (llama-server: the slot) */
    uint32_t request;         /* the request this part belongs to (a sequence's run of tokens
                                 from a new prompt: its positions restarted or it was removed) */
    uint32_t n_tokens, n_prompt, n_outputs;
} opscope_run_seq;

/* One llama_decode call (libllama's own batch, read by the capture's hook). */
typedef struct opscope_run_decode {
    uint64_t start_ns, end_ns;  /* the capture's clock around the call */
    int64_t graph;              /* the first graph id computed inside the call */
    uint32_t n_graphs;          /* graph ids [graph, graph + n_graphs) started inside it */
    uint32_t n_tokens, n_outputs;
    int32_t context;            /* the llama context (numbered as first seen), -1: unknown */
    int32_t ret;                /* llama_decode's result (0: decoded) */
    size_t n_seqs;
    const opscope_run_seq *seqs;
    uint8_t wiped;              /* 1: the context's memory was wiped (llama_memory_clear with its
                                   data) since the context's previous call: llama.cpp's warm-ups
                                   end so; llama-bench's repetitions clear without data */
} opscope_run_decode;

typedef struct opscope_run_info {
    size_t n_argv;
    const char *const *argv;  /* /proc/self/cmdline, argv[0] first */
    size_t n_models;
    const opscope_run_model *models;
    size_t n_contexts;
    const opscope_run_context *contexts;
    const char *blas;         /* "reference" (netlib), "OpenBLAS", "BLIS", "MKL", "other"; NULL: none */
    const char *blas_path;    /* the library's file, symbolic links resolved */
    int32_t blas_threads;     /* its threads (0: unknown; reference BLAS: 1) */
    int32_t cpu_cores;        /* CPUs online (0: unknown) */
    size_t n_decodes;         /* llama_decode calls, in call order (empty without libllama) */
    const opscope_run_decode *decodes;
    uint64_t decodes_lost;    /* calls the capture's bounded table had no room for */
} opscope_run_info;

/* A capture window: `opscope record --paused` with `opscope ctl start` / `ctl stop`, or
 * `record --delay` / `--duration`. A window opens and closes at graph-compute boundaries: the
 * graph computes that began inside it were recorded whole, the others not at all. */
typedef struct opscope_window {
    uint64_t start_ns;        /* the capture's clock when it opened */
    uint64_t end_ns;          /* when it closed; 0: still open at the profile's last write */
} opscope_window;

/* A mark (`opscope ctl mark TEXT`): a moment the user named while the program ran. */
typedef struct opscope_mark {
    uint64_t ts_ns;           /* the capture's clock when the capture took it */
    const char *text;         /* never NULL; borrowed as for records */
} opscope_mark;

/*
 * Where and on which clock a capture ran (opscope's capture writes it; docs/formats.md,
 * "capture"). opscope merge uses it to tell whether two profiles share a clock. Strings are
 * NULL when unknown; numbers 0 unless the matching has_ bit says otherwise.
 */
typedef struct opscope_capture_info {
    const char *host;         /* host name (gethostname) */
    const char *program;      /* the program's file name (no directory) */
    const char *clock;        /* what start_ns counts: "CLOCK_MONOTONIC" */
    const char *boot_id;      /* Linux boot id: one value per boot of one machine */
    int64_t pid;
    uint64_t time_ns;         /* the process's time namespace (inode of /proc/self/ns/time) */
    int64_t realtime_offset_ns; /* CLOCK_REALTIME - clock, taken when the capture started */
    uint64_t start_ns;        /* the clock when the capture started */
    uint32_t has;             /* OPSCOPE_CAPTURE_HAS_* */
    /* How the program ended, as far as the profile knows ("end" in the file): "exit",
     * "signal" (one the capture caught, then re-raised), "checkpoint" (written while the
     * program ran: a later end, normal or not, did not reach the file), "killed" or "crash"
     * (set by `opscope record` from the process's wait status); NULL when not said. */
    const char *end;
    const char *end_signal;   /* "SIGTERM"...: the signal of a "signal", "killed" or "crash" end */
    uint64_t end_ns;          /* the clock at this write (0: unknown) */
    uint64_t died_ns;         /* the clock when record saw the process die (0: unknown) */
    const opscope_run_info *run; /* what ran; NULL when the profile does not say */
    /* Windowed capture: 1 when the run was recorded in windows only (it started paused,
     * or was stopped); then the records are those of the windows, in time order, and what ran
     * outside them is not in the profile. 0: recorded from the capture's start to its end
     * (n_windows 0). Both arrays borrowed as for records; NULL when their count is 0. */
    uint8_t windowed;
    size_t n_windows;
    const opscope_window *windows;
    size_t n_marks;           /* marks, in time order, windowed or not */
    const opscope_mark *marks;
} opscope_capture_info;

enum {
    OPSCOPE_CAPTURE_HAS_PID = 1u << 0,
    OPSCOPE_CAPTURE_HAS_TIME_NS = 1u << 1,
    OPSCOPE_CAPTURE_HAS_REALTIME = 1u << 2, /* realtime_offset_ns */
    OPSCOPE_CAPTURE_HAS_START = 1u << 3,
};
/* Why a capture dropped records. */
typedef enum opscope_drop_cause {
    OPSCOPE_DROP_UNKNOWN = 0,
    OPSCOPE_DROP_CAP,           /* the memory cap (OPSCOPE_MAX_MB) was reached */
    OPSCOPE_DROP_OUT_OF_MEMORY, /* memory could not be had below the cap */
    OPSCOPE_DROP_DEVICE,        /* device work a GPU timing source could not time */
    OPSCOPE_DROP_LOG_CAP,       /* the record log's size cap on disk (OPSCOPE_MAX_MB) was reached */
} opscope_drop_cause;

/* Profile-level facts. Strings borrowed as for records. */
typedef struct opscope_meta {
    const char *profiler;     /* "ggml", "opscope", "kineto"... or "" */
    int32_t version;          /* format version, 0 if absent */
    uint64_t total_records;   /* as stated by the file (may differ from the records seen) */
    uint64_t total_ns;        /* as stated by the file, 0 if absent */
    uint64_t dropped_records; /* records the capture could not keep (memory cap) */
    const opscope_capture_info *capture; /* NULL when the profile does not say */
    /* Where the dropped records belonged (opscope capture; 0 when unknown): how many graphs
     * lost records and the first and last of their graph ids (meaningful when dropped_graphs
     * > 0), the capture's memory cap in MiB and why records were dropped. */
    uint64_t dropped_graphs;
    int64_t dropped_first_graph, dropped_last_graph;
    uint64_t capture_cap_mb;
    opscope_drop_cause dropped_cause;
    /* > 0: the input ended early, at this byte, inside the profile (a file cut short: a crash
     * while it was written, a copy interrupted); the records before it were read and
     * delivered, the rest is missing. The read still succeeds. */
    uint64_t truncated_at;
} opscope_meta;

/*
 * A consumer of a record stream. Any callback may be NULL. A callback returns 0 to go on,
 * non-zero to stop the reader (which then fails with OPSCOPE_ERROR_ABORTED).
 * on_meta and on_backend may come before, between or after records: in a streamed file
 * they come in file order, so consumers must not need backends before the first record.
 * on_end is called once after the last record when the whole input was read successfully.
 */
typedef struct opscope_sink {
    void *ud;
    int (*on_meta)(void *ud, const opscope_meta *meta);
    int (*on_backend)(void *ud, const opscope_backend *backend);
    int (*on_record)(void *ud, const opscope_record *rec);
    int (*on_end)(void *ud);
} opscope_sink;

/* ------------------------------------------------------------------------------------------ */
/* Readers.                                                                                   */

typedef enum opscope_format {
    OPSCOPE_FORMAT_AUTO = 0,    /* detect from content */
    OPSCOPE_FORMAT_GGML,        /* ggml profiler JSON, versions 2 and 3 (and opscope's own) */
    OPSCOPE_FORMAT_KINETO,      /* PyTorch profiler / Kineto trace */
    OPSCOPE_FORMAT_CHROME,      /* generic Chrome Trace Event JSON */
} opscope_format;

/*
 * Reads PATH ("-" = stdin; ".gz" read through zlib where supported) and streams it into
 * SINK. Memory stays bounded by the largest single JSON value of a record, not by file size.
 * Returns 0 on success; on failure fills ERR (file, position, static message) and returns -1.
 * Thread safety: independent calls may run concurrently.
 */
OPSCOPE_API int opscope_read_file(const char *path, opscope_format format,
                                  const opscope_sink *sink, opscope_error *err);

/* Same over a memory buffer; NAME is used in error messages (may be NULL). */
OPSCOPE_API int opscope_read_buffer(const void *data, size_t size, const char *name,
                                    opscope_format format, const opscope_sink *sink,
                                    opscope_error *err);

/* ------------------------------------------------------------------------------------------ */
/* In-memory profile.                                                                         */

typedef struct opscope_profile opscope_profile_t;

/* Returns a new empty profile, or NULL when out of memory. Free with opscope_profile_free. */
OPSCOPE_API opscope_profile_t *opscope_profile_new(void);

/* Frees P and every string it owns. NULL is a no-op. */
OPSCOPE_API void opscope_profile_free(opscope_profile_t *p);

/* Copies B (and its strings) in; an existing backend with the same id is replaced. */
OPSCOPE_API int opscope_profile_add_backend(opscope_profile_t *p, const opscope_backend *b);

/* Copies REC (and its strings, interned) in. Returns 0, or -1 when out of memory. */
OPSCOPE_API int opscope_profile_add_record(opscope_profile_t *p, const opscope_record *rec);

/* Sets the profile's meta (strings copied). */
OPSCOPE_API int opscope_profile_set_meta(opscope_profile_t *p, const opscope_meta *meta);

OPSCOPE_API size_t opscope_profile_n_records(const opscope_profile_t *p);
OPSCOPE_API size_t opscope_profile_n_backends(const opscope_profile_t *p);

/* Pointers stay valid until the profile is modified or freed; strings until it is freed. */
OPSCOPE_API const opscope_record *opscope_profile_record(const opscope_profile_t *p, size_t i);
OPSCOPE_API const opscope_backend *opscope_profile_backend(const opscope_profile_t *p, size_t i);
OPSCOPE_API const opscope_meta *opscope_profile_meta(const opscope_profile_t *p);

/* A sink that appends everything it receives to P (for opscope_read_file). */
OPSCOPE_API opscope_sink opscope_profile_sink(opscope_profile_t *p);

/* Replays P into SINK (meta, backends, records, end). Returns 0 or -1 (sink stopped). */
OPSCOPE_API int opscope_profile_replay(const opscope_profile_t *p, const opscope_sink *sink);

/* Removes every record (backends and meta stay). */
OPSCOPE_API void opscope_profile_clear(opscope_profile_t *p);

/* ------------------------------------------------------------------------------------------ */
/* Derived quantities.                                                                        */

/*
 * Floating-point operations of REC: REC->flops when OPSCOPE_HAS_FLOPS is set, else the
 * formula for its op (MUL_MAT, MUL_MAT_ID, FLASH_ATTN_EXT, CONV_*; see docs/metrics.md),
 * else 0 (the op defines none).
 */
OPSCOPE_API uint64_t opscope_record_flops(const opscope_record *rec);

/*
 * Memory traffic of one record: the bytes it reads and writes, derived from its shapes, types
 * and op (docs/metrics.md, "Traffic"). Each source counts as the part the op touches (a view:
 * the viewed elements; GET_ROWS: the selected rows; MUL_MAT_ID: the experts it can use), each
 * byte once (compulsory traffic: caches that re-read a tile are not modelled).
 * flags: OPSCOPE_TRAFFIC_KNOWN when the record carries what the rules need (shapes with ggml
 * types); otherwise read and write are 0 and nothing is guessed (a Kineto kernel, a file
 * without types). OPSCOPE_TRAFFIC_UPPER_BOUND when the true figure may be lower: MUL_MAT_ID
 * whose expert ids are not in the record, so every expert a token could use is counted.
 * A COPY's traffic is its transfer size, read once and written once.
 */
enum {
    OPSCOPE_TRAFFIC_KNOWN = 1u << 0,
    OPSCOPE_TRAFFIC_UPPER_BOUND = 1u << 1,
};

typedef struct opscope_traffic {
    uint64_t read_bytes;
    uint64_t write_bytes;
    uint32_t flags; /* OPSCOPE_TRAFFIC_* */
} opscope_traffic;

/* Fills *OUT (never NULL) from REC (NULL gives an unknown traffic). Returns read + write
 * bytes (saturating), 0 when unknown. Thread safety: pure. */
OPSCOPE_API uint64_t opscope_record_traffic(const opscope_record *rec, opscope_traffic *out);

/* Bytes of NE elements of ggml TYPE stored densely (rounded up to whole blocks); 0 for an
 * unknown type. */
OPSCOPE_API uint64_t opscope_ggml_type_bytes(int32_t type, uint64_t ne);

/* ggml type name for a ggml type number ("f32", "q4_0"...), "?" for unknown or -1. */
OPSCOPE_API const char *opscope_ggml_type_name(int32_t type);

#ifdef __cplusplus
}
#endif

#endif /* OPSCOPE_H */
