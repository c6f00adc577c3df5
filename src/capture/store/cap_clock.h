/*
 * cap_clock.h - the capture's timestamp source (internal).
 *
 * On x86-64 a timestamp is the TSC (rdtsc, about 12 ns here; the TSC is constant and nonstop
 * on every machine we support, checked at init through /proc/cpuinfo flags). Ticks are turned
 * into CLOCK_MONOTONIC nanoseconds only at export, from two (tick, ns) pairs taken at init and
 * at export. Elsewhere, or with OPSCOPE_CLOCK=monotonic, a tick is a CLOCK_MONOTONIC
 * nanosecond (vDSO, about 30 ns). Thread safety: every function may be called from any thread.
 */
#ifndef OPSCOPE_CAP_CLOCK_H
#define OPSCOPE_CAP_CLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define OPSCOPE_CAP_HAVE_TSC 1
#endif

extern bool opscope_cap_clock_use_tsc; /* set once by opscope_cap_clock_init */

static inline uint64_t opscope_cap_mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A timestamp in ticks (see above). */
static inline uint64_t opscope_cap_now(void) {
#ifdef OPSCOPE_CAP_HAVE_TSC
    if (opscope_cap_clock_use_tsc) {
        return __rdtsc();
    }
#endif
    return opscope_cap_mono_ns();
}

/* Chooses the clock and takes the first calibration point. MODE: NULL/"auto", "tsc",
 * "monotonic". Call once before the first opscope_cap_now(); later calls are no-ops. */
void opscope_cap_clock_init(const char *mode);

/* Takes the second calibration point (waits up to 20 ms when too little time has passed for
 * a precise ratio). Afterwards opscope_cap_ticks_to_ns is exact to about 1 part in 10^5. */
void opscope_cap_clock_calibrate(void);

/* CLOCK_MONOTONIC nanoseconds of tick T (after calibrate; before it, a 1:1 guess). */
uint64_t opscope_cap_ticks_to_ns(uint64_t t);

/* The tick of CLOCK_MONOTONIC nanosecond NS by the current ratio (the inverse of the above,
 * for placing times measured elsewhere, such as on a GPU, among the ticks). */
uint64_t opscope_cap_ns_to_ticks(uint64_t ns);

/* Nanoseconds per tick of the last calibration (1.0 without TSC). */
double opscope_cap_ns_per_tick(void);

#endif
