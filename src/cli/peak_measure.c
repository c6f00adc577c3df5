/*
 * peak_measure.c - this CPU's memory bandwidth and FLOP rate (what `opscope peak` reports).
 *
 * Bandwidth: a STREAM-like triad a[i] = b[i] + s * c[i] over doubles, each thread on its own
 * slice (first touched by that thread, so its pages are local), counted as STREAM counts it:
 * 24 bytes per element (the write-allocate read is not counted). Threads start each
 * repetition together (a barrier) and the repetition lasts until the last one is done.
 * FLOP rate: independent chains of f32 FMAs in vector registers (12 accumulators: enough to
 * cover the FMA latency of every current x86 core on both of its FMA pipes), 2 FLOPs per
 * lane per FMA. The kernels are compiled for AVX-512, AVX2+FMA and plain SSE2 and chosen by
 * what the CPU supports, so one binary measures any x86-64 machine.
 */
#include "cli/peak_measure.h"
#include "util/sort.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define PEAK_X86 1
#endif

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- kernels ---- */

#define TRIAD_BODY                                                                                 \
    for (size_t i = 0; i < n; i++) a[i] = b[i] + s * c[i];

/* GCC vectorises the triad fully only at -O3 (its -O2 cost model refuses a loop that needs an
 * epilogue); clang has no per-function optimize attribute (an unknown-attribute warning) and
 * vectorises the loop at -O2 already. */
#if defined(__clang__)
#define PEAK_O3
#else
#define PEAK_O3 __attribute__((optimize("O3")))
#endif

#ifdef PEAK_X86
__attribute__((target("avx512f"))) PEAK_O3 static void
triad_avx512(double *restrict a, const double *restrict b, const double *restrict c, double s,
             size_t n) {
    TRIAD_BODY
}
__attribute__((target("avx2"))) PEAK_O3 static void
triad_avx2(double *restrict a, const double *restrict b, const double *restrict c, double s,
           size_t n) {
    TRIAD_BODY
}
#endif
PEAK_O3 static void
triad_base(double *restrict a, const double *restrict b, const double *restrict c, double s,
           size_t n) {
    TRIAD_BODY
}

#define FMA_ACCS 12

/* Twelve named accumulators (an array would live in memory at -O2): V is the vector type,
 * FMA(a, m, k) = a * m + k. */
#define FMA_DECL(V, SET)                                                                       \
    V a0 = SET(0.f), a1 = SET(1.f), a2 = SET(2.f), a3 = SET(3.f), a4 = SET(4.f), a5 = SET(5.f), \
      a6 = SET(6.f), a7 = SET(7.f), a8 = SET(8.f), a9 = SET(9.f), a10 = SET(10.f),            \
      a11 = SET(11.f);                                                                       \
    V m = SET(0.999999f), k = SET(1e-7f);
#define FMA_STEP(FMA)                                                                          \
    a0 = FMA(a0, m, k); a1 = FMA(a1, m, k); a2 = FMA(a2, m, k); a3 = FMA(a3, m, k);            \
    a4 = FMA(a4, m, k); a5 = FMA(a5, m, k); a6 = FMA(a6, m, k); a7 = FMA(a7, m, k);            \
    a8 = FMA(a8, m, k); a9 = FMA(a9, m, k); a10 = FMA(a10, m, k); a11 = FMA(a11, m, k);
#define FMA_SUM(ADD)                                                                           \
    ADD(ADD(ADD(ADD(a0, a1), ADD(a2, a3)), ADD(ADD(a4, a5), ADD(a6, a7))),                     \
        ADD(ADD(a8, a9), ADD(a10, a11)))

#ifdef PEAK_X86
/* Each returns a value that depends on every accumulator, so nothing is optimised away. */
__attribute__((target("avx512f"))) static float fma_avx512(uint64_t iters) {
    FMA_DECL(__m512, _mm512_set1_ps)
    for (uint64_t i = 0; i < iters; i++) {
        FMA_STEP(_mm512_fmadd_ps)
    }
    return _mm512_reduce_add_ps(FMA_SUM(_mm512_add_ps));
}
__attribute__((target("avx2,fma"))) static float fma_avx2(uint64_t iters) {
    FMA_DECL(__m256, _mm256_set1_ps)
    for (uint64_t i = 0; i < iters; i++) {
        FMA_STEP(_mm256_fmadd_ps)
    }
    float v[8];
    _mm256_storeu_ps(v, FMA_SUM(_mm256_add_ps));
    return v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
}
#endif
/* No FMA unit assumed: a multiply and an add (2 FLOPs) per lane. */
#define SCALAR_SET(x) (x)
#define SCALAR_FMA(a, m, k) ((a) * (m) + (k))
#define SCALAR_ADD(a, b) ((a) + (b))
static float fma_base(uint64_t iters) {
    FMA_DECL(float, SCALAR_SET)
    for (uint64_t i = 0; i < iters; i++) {
        FMA_STEP(SCALAR_FMA)
    }
    return FMA_SUM(SCALAR_ADD);
}

typedef enum isa { ISA_BASE, ISA_AVX2, ISA_AVX512 } isa;

static isa detect_isa(void) {
#ifdef PEAK_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return ISA_AVX512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return ISA_AVX2;
#endif
    return ISA_BASE;
}

static const char *isa_name(isa i) {
    return i == ISA_AVX512 ? "avx512f" : i == ISA_AVX2 ? "avx2" : "scalar";
}

/* f32 lanes of one accumulator */
static int isa_lanes(isa i) { return i == ISA_AVX512 ? 16 : i == ISA_AVX2 ? 8 : 1; }

static void run_triad(isa i, double *a, const double *b, const double *c, size_t n) {
#ifdef PEAK_X86
    if (i == ISA_AVX512) {
        triad_avx512(a, b, c, 3.0, n);
        return;
    }
    if (i == ISA_AVX2) {
        triad_avx2(a, b, c, 3.0, n);
        return;
    }
#endif
    triad_base(a, b, c, 3.0, n);
}

static float run_fma(isa i, uint64_t iters) {
#ifdef PEAK_X86
    if (i == ISA_AVX512) return fma_avx512(iters);
    if (i == ISA_AVX2) return fma_avx2(iters);
#endif
    return fma_base(iters);
}

/* ---- threads ---- */

typedef struct job {
    pthread_barrier_t start, done;
    int n_threads, reps, passes; /* passes per repetition (cache-sized arrays are short) */
    size_t per_thread;           /* elements per thread */
    uint64_t fma_iters;          /* > 0: the FMA loop instead of the triad */
    isa isa;
    double *times;               /* per repetition, filled by thread 0 */
    double t_start[OPSCOPE_PEAK_MAX_THREADS], t_end[OPSCOPE_PEAK_MAX_THREADS]; /* this rep */
    volatile float sink;
    int failed;
    /* a gate before the first barrier: every thread exists before any waits there */
    pthread_mutex_t gate;
    pthread_cond_t open;
    int state; /* 0 closed, 1 go, -1 give up */
} job;

typedef struct worker {
    job *j;
    int id;
} worker;

static void *work(void *arg) {
    worker *w = arg;
    job *j = w->j;
    pthread_mutex_lock(&j->gate);
    while (j->state == 0) pthread_cond_wait(&j->open, &j->gate);
    int go = j->state > 0;
    pthread_mutex_unlock(&j->gate);
    if (!go) return NULL;
    double *a = NULL;
    size_t n = j->per_thread;
    if (!j->fma_iters) {
        /* first touch by this thread: its pages are local to it */
        a = aligned_alloc(64, ((3 * n * sizeof(double)) + 63) / 64 * 64);
        if (a)
            for (size_t i = 0; i < 3 * n; i++) a[i] = 1.0;
        else
            j->failed = 1;
    }
    for (int r = 0; r < j->reps; r++) {
        pthread_barrier_wait(&j->start);
        /* each thread times itself: a thread descheduled on its way out of the barrier
         * must not shorten the repetition (the span of all of them is its time) */
        j->t_start[w->id] = now_s();
        if (j->fma_iters) {
            float v = run_fma(j->isa, j->fma_iters);
            if (v == 12345.678f) j->sink = v;
        } else if (a) {
            for (int p = 0; p < j->passes; p++) run_triad(j->isa, a, a + n, a + 2 * n, n);
        }
        j->t_end[w->id] = now_s();
        pthread_barrier_wait(&j->done);
        if (w->id == 0) {
            double t0 = j->t_start[0], t1 = j->t_end[0];
            for (int t = 1; t < j->n_threads; t++) {
                if (j->t_start[t] < t0) t0 = j->t_start[t];
                if (j->t_end[t] > t1) t1 = j->t_end[t];
            }
            j->times[r] = t1 - t0;
        }
        /* nobody starts the next repetition before thread 0 has read this one's times */
        pthread_barrier_wait(&j->done);
    }
    free(a);
    return NULL;
}

/* Runs J on its threads; returns 0, or -1 when threads or memory were refused. */
static int run_job(job *j) {
    pthread_t tid[OPSCOPE_PEAK_MAX_THREADS];
    worker ws[OPSCOPE_PEAK_MAX_THREADS];
    if (pthread_barrier_init(&j->start, NULL, (unsigned)j->n_threads)) return -1;
    if (pthread_barrier_init(&j->done, NULL, (unsigned)j->n_threads)) {
        pthread_barrier_destroy(&j->start);
        return -1;
    }
    pthread_mutex_init(&j->gate, NULL);
    pthread_cond_init(&j->open, NULL);
    j->state = 0;
    int started = 1;
    for (int t = 0; t < j->n_threads; t++) ws[t] = (worker){j, t};
    for (int t = 1; t < j->n_threads; t++, started++)
        if (pthread_create(&tid[t], NULL, work, &ws[t])) break;
    pthread_mutex_lock(&j->gate);
    j->state = started == j->n_threads ? 1 : -1;
    pthread_cond_broadcast(&j->open);
    pthread_mutex_unlock(&j->gate);
    if (j->state > 0) work(&ws[0]);
    for (int t = 1; t < started; t++) pthread_join(tid[t], NULL);
    int rc = j->state > 0 && !j->failed ? 0 : -1;
    pthread_cond_destroy(&j->open);
    pthread_mutex_destroy(&j->gate);
    pthread_barrier_destroy(&j->start);
    pthread_barrier_destroy(&j->done);
    return rc;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Best and median time of the repetitions (the first is a warm-up and not counted). */
static void best_median(double *t, int reps, double *best, double *median) {
    int n = reps - 1;
    opscope_sort(t + 1, (size_t)n, sizeof *t, cmp_double);
    *best = t[1];
    *median = n % 2 ? t[1 + n / 2] : (t[n / 2] + t[1 + n / 2]) / 2;
}

static int triad(isa i, int threads, uint64_t bytes, int reps, double min_rep_s,
                 opscope_peak_figure *out) {
    job j = {0};
    j.n_threads = threads;
    j.isa = i;
    j.reps = reps + 1;
    j.per_thread = bytes / 24 / (uint64_t)threads;
    if (j.per_thread < 1024) j.per_thread = 1024;
    /* cache-sized arrays: enough passes that a repetition lasts MIN_REP_S at 100 GB/s/thread */
    double pass_s = (double)(j.per_thread * 24) / 100e9;
    j.passes = pass_s >= min_rep_s ? 1 : (int)(min_rep_s / pass_s) + 1;
    double times[64];
    j.times = times;
    if (run_job(&j)) return -1;
    double best, med;
    best_median(times, j.reps, &best, &med);
    double moved = 24.0 * (double)j.per_thread * threads * j.passes;
    out->best = moved / best / 1e9;
    out->median = moved / med / 1e9;
    out->threads = threads;
    out->bytes = 24 * j.per_thread * (uint64_t)threads;
    return 0;
}

static int flops(isa i, int threads, uint64_t iters, int reps, opscope_peak_figure *out) {
    job j = {0};
    j.n_threads = threads;
    j.isa = i;
    j.reps = reps + 1;
    j.fma_iters = iters;
    double times[64];
    j.times = times;
    if (run_job(&j)) return -1;
    double best, med;
    best_median(times, j.reps, &best, &med);
    double f = 2.0 * (double)isa_lanes(i) * FMA_ACCS * (double)iters * threads;
    out->best = f / best / 1e9;
    out->median = f / med / 1e9;
    out->threads = threads;
    return 0;
}

static uint64_t cache_size(int name, uint64_t fallback) {
    long v = sysconf(name);
    return v > 0 ? (uint64_t)v : fallback;
}

int opscope_peak_measure(const opscope_peak_opts *o, opscope_peak_result *r,
                         void (*progress)(const char *what)) {
    memset(r, 0, sizeof *r);
    isa i = detect_isa();
    snprintf(r->isa, sizeof r->isa, "%s", isa_name(i));
    int threads = o->threads;
    if (threads <= 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        threads = n > 0 ? (int)n : 1;
    }
    if (threads > OPSCOPE_PEAK_MAX_THREADS) threads = OPSCOPE_PEAK_MAX_THREADS;
    int reps = o->reps > 0 && o->reps < 60 ? o->reps : 5;
    uint64_t llc = cache_size(_SC_LEVEL3_CACHE_SIZE, 0);
    if (!llc) llc = cache_size(_SC_LEVEL2_CACHE_SIZE, 8u << 20);
    uint64_t l2 = cache_size(_SC_LEVEL2_CACHE_SIZE, 256u << 10);
    uint64_t mem = o->mem_bytes;
    if (!mem) {
        /* far beyond the last-level cache, within reason on a shared machine */
        mem = 4 * llc;
        if (mem < (256u << 20)) mem = 256u << 20;
        uint64_t phys = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
        if (mem > (1u << 30)) mem = 1u << 30;
        if (phys && mem > phys / 8) mem = phys / 8;
    }
    r->llc_bytes = llc;
    /* half of each thread's L2: the three arrays stay in it */
    uint64_t cache = l2 / 2 * (uint64_t)threads;
    uint64_t cache_one = l2 / 2;
    uint64_t iters = o->fma_iters ? o->fma_iters : 20u * 1000 * 1000;

    if (progress) progress("memory bandwidth, all threads");
    if (triad(i, threads, mem, reps, 0, &r->mem_all)) return -1;
    if (progress) progress("memory bandwidth, one thread");
    if (triad(i, 1, mem, reps, 0, &r->mem_one)) return -1;
    if (progress) progress("cache bandwidth");
    if (triad(i, threads, cache, reps, 0.02, &r->cache_all)) return -1;
    if (triad(i, 1, cache_one, reps, 0.02, &r->cache_one)) return -1;
    if (progress) progress("FLOP rate");
    if (flops(i, threads, iters, reps, &r->flops_all)) return -1;
    if (flops(i, 1, iters, reps, &r->flops_one)) return -1;
    return 0;
}
