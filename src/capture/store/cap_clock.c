/* cap_clock.c - TSC calibration against CLOCK_MONOTONIC (see cap_clock.h). */
#include "capture/store/cap_clock.h"

#include <stdio.h>
#include <string.h>

bool opscope_cap_clock_use_tsc = false;

static bool g_inited;
static uint64_t g_tick0, g_ns0;
static double g_ns_per_tick = 1.0;

/* The TSC is usable when the CPU says it is invariant (constant_tsc and nonstop_tsc). */
static bool tsc_is_invariant(void) {
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) {
        return false;
    }
    char line[4096];
    bool constant = false, nonstop = false;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "flags", 5) == 0) {
            constant = strstr(line, " constant_tsc") != NULL;
            nonstop = strstr(line, " nonstop_tsc") != NULL;
            break;
        }
    }
    fclose(f);
    return constant && nonstop;
}

/* One (tick, ns) pair with the tick read as close to the clock_gettime as possible. */
static void sample(uint64_t *tick, uint64_t *ns) {
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 5; i++) {
        uint64_t a = opscope_cap_now();
        uint64_t n = opscope_cap_mono_ns();
        uint64_t b = opscope_cap_now();
        if (b - a < best) {
            best = b - a;
            *tick = a + (b - a) / 2;
            *ns = n;
        }
    }
}

void opscope_cap_clock_init(const char *mode) {
    if (g_inited) {
        return;
    }
    g_inited = true;
#ifdef OPSCOPE_CAP_HAVE_TSC
    bool want = !(mode && strcmp(mode, "monotonic") == 0);
    if (want && (tsc_is_invariant() || (mode && strcmp(mode, "tsc") == 0))) {
        opscope_cap_clock_use_tsc = true;
    }
#else
    (void)mode;
#endif
    sample(&g_tick0, &g_ns0);
    if (opscope_cap_clock_use_tsc) {
        /* A first ratio from a 2 ms interval, refined at export. */
        struct timespec d = {0, 2000000};
        nanosleep(&d, NULL);
        uint64_t t1, n1;
        sample(&t1, &n1);
        if (t1 > g_tick0) {
            g_ns_per_tick = (double)(n1 - g_ns0) / (double)(t1 - g_tick0);
        }
    }
}

void opscope_cap_clock_calibrate(void) {
    if (!opscope_cap_clock_use_tsc) {
        return;
    }
    uint64_t t1, n1;
    sample(&t1, &n1);
    if (n1 - g_ns0 < 20000000u) {
        struct timespec d = {0, (long)(20000000u - (n1 - g_ns0))};
        nanosleep(&d, NULL);
        sample(&t1, &n1);
    }
    if (t1 > g_tick0) {
        g_ns_per_tick = (double)(n1 - g_ns0) / (double)(t1 - g_tick0);
    }
}

uint64_t opscope_cap_ticks_to_ns(uint64_t t) {
    if (!opscope_cap_clock_use_tsc) {
        return t;
    }
    if (t >= g_tick0) {
        return g_ns0 + (uint64_t)((double)(t - g_tick0) * g_ns_per_tick + 0.5);
    }
    uint64_t back = (uint64_t)((double)(g_tick0 - t) * g_ns_per_tick + 0.5);
    return back < g_ns0 ? g_ns0 - back : 0;
}

double opscope_cap_ns_per_tick(void) {
    return g_ns_per_tick;
}

uint64_t opscope_cap_ns_to_ticks(uint64_t ns) {
    if (!opscope_cap_clock_use_tsc) {
        return ns;
    }
    double t = (double)g_tick0 + ((double)ns - (double)g_ns0) / g_ns_per_tick;
    return t > 0 ? (uint64_t)t : 0;
}
