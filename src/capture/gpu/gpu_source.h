/*
 * gpu_source.h - the interface between a device-timing source and the capture library
 * (internal; plain C, no ggml, no Vulkan).
 *
 * A source is code that sees a GPU backend's work on the device: the Vulkan layer today
 * (src/vklayer), a CUPTI or Metal source later. It runs in the same process as the capture
 * library (libopscope-ggml.so), but is a different shared object, loaded by another loader
 * (the Vulkan loader loads the layer). So the two meet through one exported C function,
 * opscope_gpu_attach, found with dlsym(RTLD_DEFAULT): no link-time dependency either way, and
 * each side works alone (a source without the capture passes everything through; the capture
 * without a source records one host-timed record per GPU split, as before).
 *
 * Scopes. The capture opens a scope on the calling thread around each backend graph compute
 * (and each copy call) it records; the source asks for the current scope when the program
 * records a command, so each timed item carries the compute that recorded it. When the
 * capture is done with a scope it calls end_scope: from then on the source knows how many
 * items the scope will ever have, and delivers them once they are all timed (or dropped).
 * Items recorded outside any scope (scope 0) are delivered as they complete.
 *
 * Timed and untimed scopes (ABI 2). The capture times only some computes (per graph topology:
 * the first occurrences, then one in N; capture/gpu/gpu_sample.h). Around a compute it chose
 * not to time, scope() returns OPSCOPE_GPU_SCOPE_UNTIMED. Work recorded under that scope must
 * reach the device exactly as the program recorded it: the source adds no timestamps, queries,
 * query resets, barriers, labels or submissions for it, keeps no per-item state for it, and
 * delivers nothing for it; the capture never ends it (end_scope is not called with it) and
 * writes host-timed split records for such computes. Where the source cannot leave untimed
 * work alone (a tracing API that reports every kernel), it must at least drop its items
 * without delivering them. The other scopes (1 .. OPSCOPE_GPU_SCOPE_UNTIMED - 1) are timed:
 * every item recorded under one is delivered, timed or flagged dropped.
 *
 * Times are CLOCK_MONOTONIC nanoseconds: the source converts device ticks to the host clock
 * (calibrated timestamps; OPSCOPE_GPU_F_ALIGNED when it could only align at submit time).
 */
#ifndef OPSCOPE_GPU_SOURCE_H
#define OPSCOPE_GPU_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#define OPSCOPE_GPU_ABI 2

/* The scope of a compute the capture does not time (see above). Never opened twice: one
 * constant for every untimed compute, so a source needs no table entry for it. */
#define OPSCOPE_GPU_SCOPE_UNTIMED UINT64_MAX

typedef enum opscope_gpu_item_kind {
    OPSCOPE_GPU_ITEM_DISPATCH = 0, /* a compute dispatch (name: the pipeline's) */
    OPSCOPE_GPU_ITEM_COPY = 1,     /* a buffer copy (bytes: what it moved) */
    OPSCOPE_GPU_ITEM_FILL = 2,     /* a buffer fill */
    OPSCOPE_GPU_ITEM_UPDATE = 3,   /* a buffer update from the command buffer */
} opscope_gpu_item_kind;

enum {
    OPSCOPE_GPU_F_ALIGNED = 1u << 0, /* no calibrated clock: device time aligned at submit */
    OPSCOPE_GPU_F_DROPPED = 1u << 1, /* recorded but never timed (t0 = t1 = 0) */
};

/* One timed unit of device work, in the order the program recorded it within its scope. */
typedef struct opscope_gpu_item {
    uint64_t t0, t1;      /* device start/end on the host clock (CLOCK_MONOTONIC ns) */
    uint64_t host_done;   /* when the host first knew it was done (a fence wait returned) */
    uint64_t bytes;       /* COPY/FILL/UPDATE: bytes moved; DISPATCH: 0 */
    const char *name;     /* pipeline name, "pipeline 0x..." when unnamed, or the transfer's
                           * kind; owned by the source, valid for the process's lifetime */
    const char *label;    /* the program's label of the graph node being recorded, NULL when
                           * none: ggml-vulkan's "OP+OP+... first_tensor_name" (same lifetime) */
    uint32_t label_id;    /* which opening of that label (two nodes may share a text) */
    uint32_t seq;         /* index within its scope (recording order) */
    uint32_t batch;       /* the submission that carried it (the source's counter) */
    uint8_t kind;         /* opscope_gpu_item_kind */
    uint8_t flags;        /* OPSCOPE_GPU_F_* */
    uint16_t queue;       /* the source's queue number (for concurrent queues) */
} opscope_gpu_item;

/* What the source gives the capture. Every function may be called from any thread. */
typedef struct opscope_gpu_source {
    int abi;              /* OPSCOPE_GPU_ABI */
    const char *name;     /* "vulkan" */
    /* No more items will be recorded under SCOPE (a timed scope, never 0 or
     * OPSCOPE_GPU_SCOPE_UNTIMED). Returns how many were recorded. The source may deliver the
     * scope's items from inside this call (all already timed). */
    uint64_t (*end_scope)(uint64_t scope);
    /* Reads whatever has completed, without waiting (at export). */
    void (*poll)(void);
} opscope_gpu_source;

/* What the capture gives the source. Every function may be called from any thread. */
typedef struct opscope_gpu_host {
    int abi;              /* OPSCOPE_GPU_ABI */
    /* The calling thread's open scope: 0 when none, OPSCOPE_GPU_SCOPE_UNTIMED when the
     * capture does not time the work recorded now (pass it through untouched). Cheap (a
     * thread-local read): a source may ask for every command it sees. */
    uint64_t (*scope)(void);
    /* N timed items of SCOPE (a part of them; for scope 0, each batch stands alone).
     * ITEMS is borrowed for the call. */
    void (*deliver)(uint64_t scope, const opscope_gpu_item *items, size_t n);
    /* The source lost N items it could not time at all (no query slots, no memory). */
    void (*lost)(uint64_t n);
    /* One warning line on stderr, prefixed like the capture's own. */
    void (*warn)(const char *msg);
} opscope_gpu_host;

/*
 * Exported by libopscope-ggml.so. A source calls it once it is ready; the capture keeps SRC
 * (which must stay valid) and returns its own table, or NULL when it is not recording (the
 * source then stays a pass-through). Thread safety: any thread; a second source is refused.
 */
typedef const opscope_gpu_host *(*opscope_gpu_attach_fn)(const opscope_gpu_source *src);
#define OPSCOPE_GPU_ATTACH_SYMBOL "opscope_gpu_attach"

#endif
