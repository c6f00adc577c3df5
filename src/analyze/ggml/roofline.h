/*
 * roofline.h - a machine's measured peaks (the `opscope peak` file) and the roofline position
 * of an op group against them (internal; docs/metrics.md, "Roofline").
 *
 * The peaks are those of the CPU the measurement ran on: memory bandwidth (a STREAM-like
 * triad, counted as STREAM counts: 24 bytes per element, all cores and one core, once with a
 * working set far beyond the last-level cache and once with one that fits each core's L2)
 * and the f32 FMA rate. They apply to CPU backends and to Vulkan on lavapipe/llvmpipe, which
 * runs on the same CPU; a GPU's peaks are not measured (opscope_roofline_applies).
 *
 * Ownership: plain values; strings are fixed arrays. Thread safety: pure functions.
 */
#ifndef OPSCOPE_ROOFLINE_H
#define OPSCOPE_ROOFLINE_H

#include "analyze/ggml/stats.h"

#include <stdbool.h>

typedef struct opscope_peak {
    char cpu[128];          /* CPU model name */
    char host[64];          /* host name it was measured on */
    char isa[16];           /* instruction set the FMA loop ran ("avx512f", "avx2", "scalar") */
    int32_t n_threads;      /* threads of the "all" figures */
    uint64_t measured_unix; /* when (seconds since 1970) */
    double mem_gbps_all, mem_gbps_one;     /* triad, working set beyond the LLC */
    double cache_gbps_all, cache_gbps_one; /* triad, working set within L2 per thread */
    double gflops_all, gflops_one;         /* f32 FMA, 2 FLOPs per lane */
    uint64_t mem_bytes, cache_bytes;       /* the working sets (all threads together) */
} opscope_peak;

/* The "format" of a peak file. */
#define OPSCOPE_PEAK_FORMAT "opscope-peak"


/* Reads a peak file. Returns 0, or -1 with ERR filled (file, position, message). */
int opscope_peak_read(const char *path, opscope_peak *p, opscope_error *err);

/* The cache file for this machine: $XDG_CACHE_HOME/opscope/peak-HOST.json, or
 * $HOME/.cache/opscope/peak-HOST.json. Returns BUF, or NULL when neither variable is set
 * or the path does not fit. */
const char *opscope_peak_cache_path(char *buf, size_t size);

typedef enum opscope_bound {
    OPSCOPE_BOUND_UNKNOWN = 0, /* no traffic known, or no peak for its backend */
    OPSCOPE_BOUND_MEMORY,
    OPSCOPE_BOUND_COMPUTE,
} opscope_bound;

typedef struct opscope_roof {
    opscope_bound bound;
    bool cache;         /* memory-bound above the memory peak: judged against the L2 triad */
    double intensity;   /* FLOP per byte of traffic */
    double gbps;        /* achieved traffic, GB/s */
    double gflops;      /* achieved, GFLOP/s */
    double roof_gflops; /* attainable at this intensity: min(peak, intensity * bandwidth) */
    double pct;         /* % of the roofline: achieved traffic / bandwidth when memory-bound,
                         * achieved FLOP rate / peak when compute-bound */
} opscope_roof;

/* Whether P (a CPU's peaks) describes backend B (NULL: unknown backend): a CPU backend, or a
 * Vulkan device that is lavapipe/llvmpipe. */
bool opscope_roofline_applies(const opscope_backend_stats *b);

/* The roofline position of group G on backend B. P NULL or not applying gives only the
 * intensity and achieved rates (bound UNKNOWN). Returns the bound. */
opscope_bound opscope_roofline_of(const opscope_peak *p, const opscope_op_stats *g,
                                  const opscope_backend_stats *b, opscope_roof *out);

/* "memory", "compute", "memory (cache)" or "" */
const char *opscope_bound_name(const opscope_roof *r);

#endif /* OPSCOPE_ROOFLINE_H */
