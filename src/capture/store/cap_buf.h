/*
 * cap_buf.h - raw capture records and their lock-free per-thread storage (internal).
 *
 * A raw record is what the hot path copies out of ggml: small fixed fields, the tensor name
 * (64 bytes, ggml's GGML_MAX_NAME) and one opscope_cap_src per source. Strings are not
 * resolved here: ops are enum values, backends are indices into cap_tables.c's table, so a
 * record never points into ggml memory (tensors may be freed before export).
 *
 * Storage: each thread appends to its own chains of 1 MiB chunks (no lock, no malloc per
 * record; each chunk is one anonymous mmap, faulted in whole): records of the profile to one,
 * what they point at (descriptions, plan pages: opscope_cap_buf_keep_*) to the other. A
 * chunk's fill level is published with a release store so an exporter on another thread
 * reads only complete records. Every chunk mapped and not yet freed is counted against one
 * process-wide cap (opscope_cap_buf_set_limit); past it, allocations fail and the writers
 * count the profile records they lose (opscope_cap_buf_note_dropped). A streaming export
 * (cap_log.c) takes the records committed since its last take and then frees the record
 * chunks it took wholly (opscope_cap_buf_take_new, _release_taken), so memory stays a window;
 * otherwise chunks are freed only by opscope_cap_buf_reset_all (after fork, in the child):
 * a thread that exits leaves its records for the export.
 * Thread safety: alloc/commit from the owning thread only; iterate from any thread.
 */
#ifndef OPSCOPE_CAP_BUF_H
#define OPSCOPE_CAP_BUF_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define OPSCOPE_CAP_NAME 64
#define OPSCOPE_CAP_MAX_FUSED 4

enum {
    OPSCOPE_CAP_KIND_OP = 0,
    OPSCOPE_CAP_KIND_COPY = 1,
    OPSCOPE_CAP_KIND_GRAPH = 2, /* one backend graph compute (opscope_cap_graph): no profile record */
    OPSCOPE_CAP_KIND_DESC = 3,  /* what an OP computes (shapes, params, name): no timing */
    OPSCOPE_CAP_KIND_EVENT = 4, /* an OP's timing, pointing at its DESC (opscope_cap_event) */
    OPSCOPE_CAP_KIND_PLAN = 5,  /* what the steps of a graph are (opscope_cap_plan_page) */
    OPSCOPE_CAP_KIND_CALL = 6,  /* one compute of a PLAN page: a time pair per step (opscope_cap_call) */
    OPSCOPE_CAP_KIND_GPU = 7,   /* a node group timed on the device (opscope_cap_gpu) */
};

/* Sub-op families (which name table sub_op indexes). */
enum {
    OPSCOPE_CAP_SUB_NONE = 0,
    OPSCOPE_CAP_SUB_UNARY = 1,
    OPSCOPE_CAP_SUB_GLU = 2,
};

/* Copy directions and API (COPY records: op = direction, api = which ggml call). */
enum {
    OPSCOPE_CAP_COPY_H2D = 0,
    OPSCOPE_CAP_COPY_D2H,
    OPSCOPE_CAP_COPY_D2D,
    OPSCOPE_CAP_COPY_H2H,
    OPSCOPE_CAP_COPY_COUNT,
};

/* The ggml call behind a COPY record (its api field); opscope_cap_copy_api_name (cap_convert.h)
 * names them as the profile's "extra" does. */
typedef enum opscope_cap_copy_api {
    OPSCOPE_CAP_API_TENSOR_COPY = 0,  /* ggml_backend_tensor_copy */
    OPSCOPE_CAP_API_SET,              /* ggml_backend_tensor_set */
    OPSCOPE_CAP_API_GET,
    OPSCOPE_CAP_API_SET_ASYNC,
    OPSCOPE_CAP_API_GET_ASYNC,
    OPSCOPE_CAP_API_SET_2D,           /* ggml_backend_tensor_set_2d (where ggml has it) */
    OPSCOPE_CAP_API_GET_2D,
    OPSCOPE_CAP_API_SET_2D_ASYNC,
    OPSCOPE_CAP_API_GET_2D_ASYNC,
    OPSCOPE_CAP_API_CPY_TENSOR_ASYNC, /* a backend's vtable copy, inferred (cap_copy.h) */
    OPSCOPE_CAP_API_COUNT,
} opscope_cap_copy_api;

/* backend value of a COPY into or out of host memory of no known device. */
#define OPSCOPE_CAP_BACKEND_HOST (-2)

/* Record flags. */
enum {
    OPSCOPE_CAP_F_SPLIT_ONLY = 1u << 0, /* one record for a whole split (no per-op timing) */
    OPSCOPE_CAP_F_INEXACT = 1u << 1,    /* callback count did not match the graph walk */
    OPSCOPE_CAP_F_ALIGNED = 1u << 2,    /* device times aligned at submit, not calibrated */
    OPSCOPE_CAP_F_SYNC = 1u << 3,       /* with SPLIT_ONLY: a wait in ggml_backend_synchronize */
    OPSCOPE_CAP_F_SAMPLED_OUT = 1u << 4, /* with SPLIT_ONLY: device timing sampled it out */
};

typedef struct opscope_cap_src {
    int64_t ne[4];
    uint64_t nb[4];
    int32_t type;
    int32_t pad_;
} opscope_cap_src;

typedef struct opscope_cap_rec {
    uint16_t size;        /* bytes of this record including its sources */
    uint8_t kind;         /* OPSCOPE_CAP_KIND_* */
    uint8_t n_src;
    int16_t op;           /* ggml op enum value, or copy direction */
    int16_t sub_kind;     /* OPSCOPE_CAP_SUB_* */
    int16_t sub_op;       /* unary / glu enum value */
    int16_t api;          /* COPY: opscope_cap_copy_api */
    int16_t fused[OPSCOPE_CAP_MAX_FUSED]; /* ops of the fused group, n_fused of them */
    uint8_t n_fused;      /* nodes covered (1 when not fused) */
    uint8_t flags;        /* OPSCOPE_CAP_F_* */
    int16_t backend;      /* index in cap_tables.c's backend table */
    int16_t sched;        /* cap_tables.c's scheduler id, -1 outside a scheduler */
    int16_t thread;       /* small sequential thread number */
    int16_t pad_;
    int32_t split;
    int32_t node;
    int32_t out_type;
    /* SPLIT_ONLY: its computed nodes' batch and attention queries (opscope_record's batch,
     * queries), known on the host whether or not the device work was timed */
    int32_t batch, queries;
    int64_t graph;
    uint64_t t0, t1;      /* ticks (cap_clock.h) */
    uint64_t bytes;
    int64_t ne[4];
    int32_t op_params[16];
    char name[OPSCOPE_CAP_NAME]; /* NUL-terminated (truncated) */
    opscope_cap_src src[];
} opscope_cap_rec;

/*
 * A computed step whose description (op, shapes, params, name) is shared: the hot path
 * writes 80 bytes per record instead of several hundred when a node computes again with
 * unchanged shapes (every decode step). DESC points at an earlier OPSCOPE_CAP_KIND_DESC
 * record of the same thread, which lives as long as the buffers.
 */
typedef struct opscope_cap_event {
    uint16_t size;
    uint8_t kind;         /* OPSCOPE_CAP_KIND_EVENT */
    uint8_t n_fused;
    uint8_t flags;
    uint8_t n_threads;    /* CPU threads timed at the barriers (0: none): after the event, each
                           * thread's work and wait (uint32_t ns), then its CPU (int32_t) */
    int16_t backend;
    int16_t sched;
    int16_t thread;
    int16_t fused[OPSCOPE_CAP_MAX_FUSED];
    int32_t split;
    int32_t node;
    int64_t graph;
    uint64_t t0, t1;
    uint64_t bytes;
    const opscope_cap_rec *desc;
} opscope_cap_event;

/* The bytes after an event that carries NT threads' times (a multiple of 8). */
static inline size_t opscope_cap_event_threads_size(int nt) {
    return ((size_t)nt * 3 * sizeof(uint32_t) + 7u) & ~(size_t)7u;
}
/* E's threads' work and wait pairs (E->n_threads of them) and their CPUs; NULL when none. */
static inline const uint32_t *opscope_cap_event_threads(const opscope_cap_event *e) {
    return e->n_threads ? (const uint32_t *)(const void *)(e + 1) : NULL;
}
static inline const int32_t *opscope_cap_event_cpus(const opscope_cap_event *e) {
    return e->n_threads ? (const int32_t *)(const void *)((const uint32_t *)(const void *)(e + 1) + 2 * (size_t)e->n_threads)
                        : NULL;
}

/* One step of a plan page: what an EVENT holds besides this compute's fields. */
typedef struct opscope_cap_tmpl {
    const opscope_cap_rec *desc; /* its DESC record */
    uint64_t bytes;
    int32_t node;
    uint8_t n_fused;
    uint8_t pad_;
    int16_t fused[OPSCOPE_CAP_MAX_FUSED];
    uint8_t pad2_[2];
} opscope_cap_tmpl;

/* Steps a plan page holds at most (so pages and calls stay below the 64 KiB record size). */
#define OPSCOPE_CAP_PAGE_STEPS 1024

/*
 * A graph's steps, written once when a split graph is first seen; every later compute of
 * the same graph is one CALL record holding only the step times (16 bytes per record
 * instead of an 80-byte EVENT). Lives as long as the buffers.
 */
typedef struct opscope_cap_plan_page {
    uint16_t size;
    uint8_t kind;          /* OPSCOPE_CAP_KIND_PLAN */
    uint8_t pad_;
    int32_t n;             /* steps, <= OPSCOPE_CAP_PAGE_STEPS */
    opscope_cap_tmpl step[];
} opscope_cap_plan_page;

typedef struct opscope_cap_call {
    uint16_t size;
    uint8_t kind;          /* OPSCOPE_CAP_KIND_CALL */
    uint8_t flags;
    int16_t backend;
    int16_t sched;
    int16_t thread;
    int16_t n_threads;     /* CPU threads timed at the barriers (0: none), below */
    int32_t split;
    int32_t n;             /* steps: page->step[first .. first + n) */
    int32_t first;
    int64_t graph;
    const opscope_cap_plan_page *page;
    uint64_t t[];          /* t0, t1 of each step (ticks); then, with n_threads, each step's
                            * work and wait of every thread (uint32_t ns: opscope_cap_call_threads) */
} opscope_cap_call;

/*
 * One backend graph compute, as OPSCOPE_GRAPH_LOG lists it: what the capture made of it and
 * how long its own work after it took. Not a record of the profile.
 */
typedef struct opscope_cap_graph {
    uint16_t size;
    uint8_t kind;          /* OPSCOPE_CAP_KIND_GRAPH */
    uint8_t attr;          /* OPSCOPE_CAP_ATTR_* (cap_attr.h) of its steps */
    int16_t backend;
    int16_t sched;
    int16_t thread;
    int16_t pad_;
    int32_t split;
    int32_t n_nodes;       /* nodes of the graph */
    int32_t n_steps;       /* timed steps (records) made of them */
    int32_t pad2_;
    int64_t graph;
    uint64_t t0, t1;       /* the compute (ticks) */
    uint64_t t_done;       /* end of the capture's work after it (ticks) */
    uint64_t tail;         /* ticks of the last step after its final barrier exit */
} opscope_cap_graph;

/*
 * A group of nodes timed on the device by a GPU source (cap_gpu.c): device times already on
 * the host clock (ns), with the tick of each for ordering among the other records. DESC is
 * the description of the group's main node, or of a copy call (a DESC record with api >= 0),
 * or NULL for device work of no node or call (then FUSED names a transfer). Strings are
 * interned for the process.
 */
typedef struct opscope_cap_gpu {
    uint16_t size;
    uint8_t kind;          /* OPSCOPE_CAP_KIND_GPU */
    uint8_t flags;         /* OPSCOPE_CAP_F_* */
    int16_t backend;
    int16_t sched;
    int16_t thread;
    int16_t copy_dir;      /* DESC NULL: OPSCOPE_CAP_COPY_* of a transfer, -1 for a kernel */
    int32_t split;
    int32_t node;          /* first node of the group */
    int32_t n_fused;       /* nodes in the group's range */
    int32_t n_kernels;     /* device items (dispatches and transfers) */
    uint32_t weight;       /* sampled timing: the computes of its graph's topology it stands
                            * for (>= 1); 0: every compute timed */
    int64_t graph;
    uint64_t tick0, tick1; /* for ordering */
    uint64_t ns0, ns1;     /* device start and end, CLOCK_MONOTONIC ns */
    uint64_t host0, host1; /* the host interval of the compute (or copy call) that recorded it */
    uint64_t bytes;
    const opscope_cap_rec *desc;
    const char *fused;     /* GGML_VK_PERF_LOGGER-style group name, or NULL */
    const char *kernels;   /* the kernels' names, '+'-joined in order */
} opscope_cap_gpu;

static inline size_t opscope_cap_page_size(int n) {
    return (sizeof(opscope_cap_plan_page) + (size_t)n * sizeof(opscope_cap_tmpl) + 7u) & ~(size_t)7u;
}
static inline size_t opscope_cap_call_size(int n) {
    return sizeof(opscope_cap_call) + (size_t)n * 2 * sizeof(uint64_t);
}
/* A CALL of N steps carrying NT threads' work and wait per step, then each thread's CPU
 * (int32_t), padded to 8 bytes. */
static inline size_t opscope_cap_call_size_threads(int n, int nt) {
    return (opscope_cap_call_size(n) + ((size_t)n * 2 + 1) * (size_t)nt * sizeof(uint32_t) + 7u) & ~(size_t)7u;
}
/* Step STEP's work and wait pairs of C's threads (C->n_threads of them), NULL when none. */
static inline const uint32_t *opscope_cap_call_threads(const opscope_cap_call *c, int32_t step) {
    if (c->n_threads <= 0) {
        return NULL;
    }
    return (const uint32_t *)(const void *)&c->t[2 * (size_t)c->n] + (size_t)step * (size_t)c->n_threads * 2;
}
/* C's threads' CPUs (C->n_threads of them, -1 unknown), NULL when none. */
static inline const int32_t *opscope_cap_call_cpus(const opscope_cap_call *c) {
    if (c->n_threads <= 0) {
        return NULL;
    }
    return (const int32_t *)(const void *)((const uint32_t *)(const void *)&c->t[2 * (size_t)c->n] +
                                           (size_t)c->n * (size_t)c->n_threads * 2);
}

/* Returns space for SIZE bytes (a multiple of 8, below 64 KiB) in the calling thread's
 * buffer, or NULL (cap reached or out of memory). Nothing is counted here: only the caller
 * knows how many records of the profile a failed allocation loses, and says so with
 * opscope_cap_buf_note_dropped. Commit with opscope_cap_buf_commit_bytes. */
void *opscope_cap_buf_alloc_bytes(size_t size);
void opscope_cap_buf_commit_bytes(size_t size);

/* The same for what records point at (DESC records, PLAN pages): a chain kept after a
 * streaming export freed the records that point into it, freed only once renewed and nothing
 * can point into it any more (renewal, below). Commit with opscope_cap_buf_keep_commit. */
void *opscope_cap_buf_keep_bytes(size_t size);
void opscope_cap_buf_keep_commit(size_t size);
/* A record with N_SRC sources in the kept chain (size and n_src set), or NULL. */
opscope_cap_rec *opscope_cap_buf_keep_rec(unsigned n_src);

/* Bumped by opscope_cap_buf_reset_all: caches of record pointers must check it. */
unsigned opscope_cap_buf_generation(void);

/* The slow path of opscope_cap_buf_cache: *TABLE made (N zeroed entries of SIZE bytes) or
 * zeroed, and *GEN set to G. Returns *TABLE, or NULL when out of memory. */
void *opscope_cap_buf_cache_clear(void **table, unsigned *gen, unsigned g, size_t n, size_t size);

/* A per-thread cache of record pointers, *TABLE (N entries of SIZE bytes), as it is while the
 * buffers' generation is still *GEN (the one it was zeroed for), else made or zeroed for the
 * current generation. NULL when out of memory. Only the thread that owns *TABLE and *GEN may
 * call it. */
static inline void *opscope_cap_buf_cache(void **table, unsigned *gen, size_t n, size_t size) {
    unsigned g = opscope_cap_buf_generation();
    return *table && *gen == g ? *table : opscope_cap_buf_cache_clear(table, gen, g, n, size);
}

/* Bytes a record with N_SRC sources takes (8-aligned). */
static inline size_t opscope_cap_rec_size(unsigned n_src) {
    return (sizeof(opscope_cap_rec) + n_src * sizeof(opscope_cap_src) + 7u) & ~(size_t)7u;
}

/* Sets the process-wide cap in bytes (0: unlimited is NOT allowed; values below one chunk
 * give one chunk). Call before the first record. */
void opscope_cap_buf_set_limit(uint64_t bytes);

/*
 * Returns space for a record with N_SRC sources in the calling thread's buffer, or NULL
 * (cap reached or out of memory; not counted, as for opscope_cap_buf_alloc_bytes). Fill it,
 * then call opscope_cap_buf_commit from the same thread before the next alloc.
 */
opscope_cap_rec *opscope_cap_buf_alloc(unsigned n_src);
void opscope_cap_buf_commit(opscope_cap_rec *r);

/* The calling thread's small sequential number (1, 2, ...). */
int opscope_cap_buf_thread_id(void);

/* Counts N more records of the profile lost to a failed allocation (OP and COPY records,
 * steps of a CALL or an event batch; never descriptions, plan pages or GRAPH records, which
 * are no records of the profile). The one place drops are counted. */
void opscope_cap_buf_note_dropped(uint64_t n);

/* Records of the profile dropped so far. */
uint64_t opscope_cap_buf_dropped(void);
/* Records the calling thread dropped so far (compared before and after a graph's records to
 * learn whether that graph lost some). */
uint64_t opscope_cap_buf_dropped_here(void);
/* True when a chunk could not be mapped although the cap was not reached (out of memory). */
bool opscope_cap_buf_drop_oom(void);
/* The cap in bytes (opscope_cap_buf_set_limit). */
uint64_t opscope_cap_buf_limit(void);
/* Bytes of chunks allocated so far. */
uint64_t opscope_cap_buf_bytes(void);

/* What the store holds now (OPSCOPE_STATS, tests, benchmarks): bytes of record chunks (the
 * streamed window, or every record without a log), of kept chunks (descriptions and plan
 * pages) now, of everything ever committed to kept chains (renewed ones too: how fast
 * descriptions are made), of the per-thread caches of record pointers, and the threads
 * that recorded. Relaxed reads of atomics: any thread, no lock. */
typedef struct opscope_cap_buf_held {
    uint64_t rec_bytes, keep_bytes, keep_written, cache_bytes, threads;
    uint64_t holds; /* pending described scopes (opscope_cap_buf_keep_hold) */
} opscope_cap_buf_held;
void opscope_cap_buf_usage(opscope_cap_buf_held *h);

/* Calls FN for every committed record of every thread not yet taken (any thread may be
 * writing concurrently: only records committed before the call's start of each chunk are
 * seen), the kept chain's first.
 * Stops when FN returns non-zero and returns that value. */
int opscope_cap_buf_foreach(int (*fn)(void *ud, const opscope_cap_rec *r), void *ud);

/* Calls FN for every record of the profile chains committed since the last
 * opscope_cap_buf_release_taken (records of the kept chain are not visited: what the records
 * point at stays readable). Stops when FN returns non-zero and returns that value (then
 * nothing counts as taken). Only the exporting thread, one take at a time. */
int opscope_cap_buf_take_new(int (*fn)(void *ud, const opscope_cap_rec *r), void *ud);
/* Marks what the last take visited as taken and frees the chunks wholly taken (their
 * records must no longer be needed). Only the exporting thread. */
void opscope_cap_buf_release_taken(void);

/*
 * Renewal of the kept chains. What records point at (descriptions, plan pages) is kept, and
 * a server's shapes keep changing (batches of any size, a KV cache of any length), so a
 * thread's kept chain would grow for as long as the program runs. While a streaming export
 * takes the records (opscope_cap_buf_renew_enable, cap_log.c), a thread whose kept chain
 * reached a few chunks retires it at its next safe point and starts a new one: its caches of
 * record pointers see a new generation (opscope_cap_buf_generation) and describe again what
 * they need, and the retired chain is freed once every record committed before it retired
 * was taken (opscope_cap_buf_release_taken). Memory then stays a window whatever the run's
 * length. A chain that fills within a few hundred computes is the working set, not growth:
 * its thread's threshold doubles instead.
 *
 * A GPU source's device work outlives the compute that recorded it: its records are written
 * when its times arrive, by whichever thread sees that, and point at descriptions of the
 * describing thread's kept chain. Each such pending scope holds that chain
 * (opscope_cap_buf_keep_hold) until its records are committed or it is given up
 * (opscope_cap_buf_keep_unhold). A held chain is renewed like any other, since holds are
 * always pending somewhere in a steady stream of device work, but once retired it is freed
 * only after its holds are gone and a take begun after that has visited every buffer (the
 * held work's records, on other threads, are then taken too).
 */
/* Allows renewals (ON) or stops them. Any thread. */
void opscope_cap_buf_renew_enable(bool on);

/* A hold on a kept chain: CHAIN its first chunk (NULL: nothing held), GEN the store's
 * generation when taken (a hold from before opscope_cap_buf_reset_all is void). */
typedef struct opscope_cap_keep_hold {
    void *chain;
    unsigned gen;
} opscope_cap_keep_hold;
/* Holds the calling thread's current kept chain, where every description it obtained since
 * its last safe point lives, for pending work that points at them after that safe point.
 * Two atomic additions, no lock. Owner thread; let go exactly once. */
opscope_cap_keep_hold opscope_cap_buf_keep_hold(void);
/* Lets go of H (nothing when H holds nothing or is void) once the held work's records are
 * committed, or it was given up: no record written after this may point into the chain.
 * One atomic subtraction each on the store and the chain; any thread. */
void opscope_cap_buf_keep_unhold(opscope_cap_keep_hold h);
/* The calling thread holds no pointer into its kept chain other than through its caches
 * (the records of a compute are out: cap_record.c's graph record): its chain may be renewed
 * here. Cheap when nothing is due (a few loads). Owner thread. */
void opscope_cap_buf_safe_point(void);

/* Forgets every record and frees every chunk. Only when no other thread can append (in a
 * fork child, or in tests). */
void opscope_cap_buf_reset_all(void);

#endif
