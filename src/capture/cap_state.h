/*
 * cap_state.h - process-wide capture state: configuration, backend and scheduler tables,
 * name tables, counters, export (internal; nothing here includes ggml).
 *
 * The ggml-facing code (cap_ggml.c, cap_api.c) fills these; the unit tests drive them with a
 * fake backend. Tables are append-only arrays read without locks (an entry is published by
 * a release store of the count) and written under one mutex, so lookups on the compute path
 * never block. Thread safety: every function may be called from any thread unless noted.
 */
#ifndef OPSCOPE_CAP_STATE_H
#define OPSCOPE_CAP_STATE_H

#include "capture/cap_buf.h"
#include "opscope.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>

/* ---- configuration (GGML_PROFILE, OPSCOPE_*) ---- */

typedef enum opscope_cap_dest {
    OPSCOPE_CAP_DEST_NONE = 0, /* GGML_PROFILE unset: capture off */
    OPSCOPE_CAP_DEST_STDOUT,   /* "1", "stdout", "": console summary on stdout */
    OPSCOPE_CAP_DEST_STDERR,   /* "stderr" */
    OPSCOPE_CAP_DEST_JSON,     /* "*.json" or any other path */
    OPSCOPE_CAP_DEST_TEXT,     /* "*.txt" */
} opscope_cap_dest;

typedef struct opscope_cap_config {
    opscope_cap_dest dest;
    char path[4096];           /* for JSON/TEXT; a child process gets ".PID" appended */
} opscope_cap_config;

/* Parses a GGML_PROFILE value (NULL = unset) into CFG. Pure. */
void opscope_cap_config_parse(const char *value, opscope_cap_config *cfg);

/* Appends ".PID" to CFG's path (for a descendant process). Pure. */
void opscope_cap_config_child(opscope_cap_config *cfg, long pid);

/* ---- name tables (ggml enum value -> name, copied at init) ---- */

enum { OPSCOPE_CAP_NAMES_OP = 0, OPSCOPE_CAP_NAMES_UNARY, OPSCOPE_CAP_NAMES_GLU, OPSCOPE_CAP_NAMES_COUNT };
#define OPSCOPE_CAP_MAX_NAMES 256

void opscope_cap_names_set(int family, int index, const char *name);
/* The name, or "OP_<n>" style fallback in a static buffer per family entry ("?" at worst). */
const char *opscope_cap_names_get(int family, int index);

/* ---- copy API names ---- */

/* The name of a COPY record's ggml call (its "extra": "tensor_set", "tensor_set_2d", ...),
 * or NULL for a value outside opscope_cap_copy_api. */
const char *opscope_cap_copy_api_name(int api);

/* ---- backends ---- */

#define OPSCOPE_CAP_MAX_BACKENDS 64

/* An entry is published only once every field but the program's abort callback is set, and
 * those fields never change afterwards: a thread that finds it reads it without a lock. */
typedef struct opscope_cap_backend {
    const void *key;           /* ggml_backend_t, or device pointer for copy-only entries */
    char name[64];
    char device[128];
    opscope_device_type device_type;
    bool is_device_key;        /* KEY is a device, not a backend */
    const void *dev;           /* ggml_backend_dev_t of the backend (copies find it by this) */
    void *set_abort;           /* the backend's real set_abort_callback, or NULL (ggml side, opaque) */
    /* the application's abort callback and its data (chained), set whenever it sets them */
    void *_Atomic user_cb;
    void *_Atomic user_data;
} opscope_cap_backend;

/* Index of KEY's entry (lock-free), or -1. */
int opscope_cap_backend_find(const void *key);
/* Finds or adds the entry of PROTO->key. A new entry is a copy of PROTO (user_cb and
 * user_data start NULL) made before the entry is published, so no thread can find it
 * incomplete. Returns the index, or -1 when the table is full. */
int opscope_cap_backend_add(const opscope_cap_backend *proto);
/* Index of the first entry whose dev is DEV (lock-free), or -1. */
int opscope_cap_backend_find_dev(const void *dev);
/* Entry I (0 <= I < count); stable pointer. */
opscope_cap_backend *opscope_cap_backend_at(int i);
int opscope_cap_backend_count(void);

/* ---- schedulers ---- */

#define OPSCOPE_CAP_MAX_SCHEDS 256

/* Id of SCHED, registering it at first sight (-1: table full; records then carry -1). */
int opscope_cap_sched_id(const void *sched);
/* Id of SCHED if known, else -1 (lock-free). */
int opscope_cap_sched_find(const void *sched);
/* Marks SCHED freed. Returns true when no known scheduler is left alive. */
bool opscope_cap_sched_freed(const void *sched);
/* Records of scheduler ID that started before the current tick are hidden from exports. */
void opscope_cap_sched_reset(int id);
/* Per-scheduler profiling switch for the C API (default on). */
void opscope_cap_sched_set_enabled(int id, bool on);
bool opscope_cap_sched_enabled(int id);

/* ---- counters (OPSCOPE_STATS=1 prints them at exit) ---- */

typedef struct opscope_cap_counters {
    _Atomic uint64_t graphs;          /* backend graph computes seen */
    _Atomic uint64_t graph_ticks;     /* their wall time */
    _Atomic uint64_t op_ticks;        /* sum of OP record durations */
    _Atomic uint64_t records;         /* records written */
    _Atomic uint64_t walk_ticks;      /* time spent building records after computes */
    _Atomic uint64_t callbacks;       /* abort callbacks taken */
    _Atomic uint64_t inexact_graphs;  /* callback count matched no prediction */
    _Atomic uint64_t nofusion_graphs; /* matched only the no-fusion prediction */
    _Atomic uint64_t split_only;      /* graph computes timed as a whole */
    _Atomic uint64_t descs;           /* op descriptions written (cache misses) */
    _Atomic uint64_t planned_graphs;  /* CPU graph computes recorded from a cached plan */
    _Atomic uint64_t gpu_lost;        /* device items a GPU source could not time, or given up */
} opscope_cap_counters;

extern opscope_cap_counters opscope_cap_stats;

/* ---- export ---- */

/*
 * Streams the captured records to SINK as opscope records, sorted by start time: meta,
 * every backend, then records (of scheduler SCHED only when SCHED >= 0; -2 = all).
 * Ticks become CLOCK_MONOTONIC ns. Returns 0, or -1 (out of memory / sink stopped).
 */
int opscope_cap_replay(int sched, const opscope_sink *sink);

/* Writes what DEST asks (console summary / text / JSON) for SCHED (-2 = all) to PATH
 * (temporary file + rename) or, when PATH is NULL, to FP (not closed).
 * Returns 0 or -1 with one line on stderr. */
int opscope_cap_write(opscope_cap_dest dest, const char *path, FILE *fp, int sched);

/* Writes one TSV line per backend graph compute (graph_id, split_id, backend_id, sched_id,
 * n_nodes, n_steps, start_ns, end_ns, capture_ns = the capture's own work after the compute,
 * attribution) to PATH. Returns 0 or -1. */
int opscope_cap_write_graphs(const char *path);

/* Converts a raw record to an opscope record; strings point into BUF (and static tables)
 * and stay valid until BUF is reused. */
typedef struct opscope_cap_strbuf {
    char extra[128];
    char name[OPSCOPE_CAP_NAME + 1];
} opscope_cap_strbuf;
void opscope_cap_convert(const opscope_cap_rec *r, opscope_record *out, opscope_cap_strbuf *buf);
/* The same with the sources taken from SRC (R's header describes them). */
void opscope_cap_convert_parts(const opscope_cap_rec *r, const opscope_cap_src *src, opscope_record *out,
                               opscope_cap_strbuf *buf);
/* An OP/COPY record, an opscope_cap_event, or step STEP of an opscope_cap_call (both resolved
 * through their description). */
void opscope_cap_convert_any(const opscope_cap_rec *r, int32_t step, opscope_record *out,
                             opscope_cap_strbuf *buf);

#endif
