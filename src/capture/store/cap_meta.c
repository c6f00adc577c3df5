/* cap_meta.c - the profile's "capture" facts (see cap_meta.h). */
#include "capture/store/cap_meta.h"
#include "capture/store/cap_run.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The facts and the strings they point into. Threading contract (cap_meta.h): the clock
 * reference is written once at start-up (init, under the capture's init once), the rest by the
 * exporting thread under the export lock (get, set_end); nothing else writes. */
static struct {
    opscope_capture_info info;
    bool have_ref, filled;
    int64_t offset; /* CLOCK_REALTIME - CLOCK_MONOTONIC at start-up */
    uint64_t start; /* CLOCK_MONOTONIC then */
    char host[256], program[256], boot[64];
} g_meta;

static uint64_t ns_of(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void opscope_cap_meta_init(void) {
    if (g_meta.have_ref) {
        return;
    }
    /* The realtime read bracketed by two monotonic ones; the tightest of 5 tries. */
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 5; i++) {
        uint64_t a = ns_of(CLOCK_MONOTONIC), r = ns_of(CLOCK_REALTIME), b = ns_of(CLOCK_MONOTONIC);
        if (b - a < best) {
            best = b - a;
            g_meta.offset = (int64_t)(r - (a + (b - a) / 2));
            g_meta.start = a;
        }
    }
    g_meta.have_ref = true;
}

static void read_line(const char *path, char *buf, size_t size) {
    FILE *f = fopen(path, "r");
    buf[0] = '\0';
    if (!f) {
        return;
    }
    if (fgets(buf, (int)size, f)) {
        buf[strcspn(buf, "\n")] = '\0';
    }
    fclose(f);
}

const opscope_capture_info *opscope_cap_meta_get(void) {
    opscope_cap_meta_facts();
    g_meta.info.run = opscope_cap_run_get(); /* contexts, models and batches come and go */
    return &g_meta.info;
}

const opscope_capture_info *opscope_cap_meta_facts(void) {
    if (g_meta.filled) {
        return &g_meta.info;
    }
    g_meta.filled = true;
    opscope_capture_info *c = &g_meta.info;
    c->clock = "CLOCK_MONOTONIC";
    if (gethostname(g_meta.host, sizeof g_meta.host - 1) == 0 && g_meta.host[0]) {
        c->host = g_meta.host;
    }
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        const char *base = strrchr(exe, '/');
        base = base ? base + 1 : exe;
        size_t len = strlen(base);
        len = len < sizeof g_meta.program - 1 ? len : sizeof g_meta.program - 1;
        memcpy(g_meta.program, base, len);
        g_meta.program[len] = '\0';
        c->program = g_meta.program;
    }
    read_line("/proc/sys/kernel/random/boot_id", g_meta.boot, sizeof g_meta.boot);
    if (g_meta.boot[0]) {
        c->boot_id = g_meta.boot;
    }
    c->pid = (int64_t)getpid();
    c->has |= OPSCOPE_CAPTURE_HAS_PID;
    struct stat st;
    if (stat("/proc/self/ns/time", &st) == 0) {
        c->time_ns = (uint64_t)st.st_ino;
        c->has |= OPSCOPE_CAPTURE_HAS_TIME_NS;
    }
    if (g_meta.have_ref) {
        c->realtime_offset_ns = g_meta.offset;
        c->start_ns = g_meta.start;
        c->has |= OPSCOPE_CAPTURE_HAS_REALTIME | OPSCOPE_CAPTURE_HAS_START;
    }
    return c;
}

void opscope_cap_meta_set_end(const char *how, const char *sig) {
    opscope_cap_meta_facts(); /* what ran is gathered by the write that needs it */
    g_meta.info.end = how;
    g_meta.info.end_signal = sig;
    g_meta.info.end_ns = ns_of(CLOCK_MONOTONIC);
}
