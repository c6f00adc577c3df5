/*
 * decode_mem.c - the capture's memory over a long stream of llama_decode calls (the table of
 * store/cap_decodes.c), and what a checkpoint of the record log costs as the calls add up.
 * A llama-server-like stream: 4 slots, each a prompt of 32..95 tokens then 16..79 generation
 * steps of one token, every call carrying each slot's next piece. CALLS calls (default
 * 1,000,000: a server busy for hours) are noted in this process:
 *   log:    a checkpoint (opscope_cap_log_flush to a record log in /tmp) every FLUSH calls
 *           (default 1000: pessimistic, a checkpoint is a second and a generation step of 4
 *           slots tens of ms), the log then read back and its calls counted;
 *   no log: the same stream with no checkpoint (a stream output): the table's bound.
 * Prints, every tenth of the stream: calls noted, calls held, the table's bytes, the process's
 * RSS (VmRSS), and the median checkpoint time over the last tenth; the peak RSS of reading
 * the log back (VmHWM: the profile's run holds every call); then the cost of gathering
 * what ran for the RUN chunk (without the calls) against gathering it with a full table (what
 * each checkpoint paid before the calls left the RUN chunk's gathering).
 * Run: decode_mem [CALLS] [FLUSH]
 */
#include "capture/store/cap_clock.h"
#include "capture/store/cap_decodes.h"
#include "capture/store/cap_log.h"
#include "capture/store/cap_run.h"
#include "read/readers.h"

#include "bench_time.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { SLOTS = 4, MAX_TOKENS = 4 * 96 };

static int32_t pos[MAX_TOKENS], n_seq[MAX_TOKENS], seq[MAX_TOKENS], *seq_ptr[MAX_TOKENS];
static int8_t out[MAX_TOKENS];
static struct {
    int prompt, gen, done;
} slot[SLOTS];
static uint32_t rng = 12345;

/* The process's VmRSS (or, PEAK, VmHWM) in MiB. */
static double status_mb(bool peak) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    double kb = 0;
    const char *key = peak ? "VmHWM:" : "VmRSS:";
    while (f && fgets(line, sizeof line, f)) {
        if (strncmp(line, key, 6) == 0) kb = atof(line + 6);
    }
    if (f) fclose(f);
    return kb / 1024.0;
}

/* The next call's batch; returns its tokens. */
static int next_batch(void) {
    int n = 0;
    for (int s = 0; s < SLOTS; s++) {
        if (slot[s].done >= slot[s].gen) {
            rng = rng * 1103515245u + 12345u;
            slot[s].prompt = 32 + (int)((rng >> 16) % 64);
            slot[s].gen = 16 + (int)((rng >> 8) % 64);
            slot[s].done = -1;
        }
        if (slot[s].done < 0) {
            for (int i = 0; i < slot[s].prompt; i++, n++) {
                pos[n] = i;
                seq[n] = s;
                out[n] = i == slot[s].prompt - 1;
            }
        } else {
            pos[n] = slot[s].prompt + slot[s].done;
            seq[n] = s;
            out[n++] = 1;
        }
        slot[s].done++;
    }
    return n;
}

static void stream(long calls, long flush, const char *log_path) {
    static const int ctx = 1, mem = 2;
    memset(slot, 0, sizeof slot);
    rng = 12345;
    opscope_cap_decodes_reset();
    if (log_path) opscope_cap_log_start(log_path, 0);
    double *ft = malloc((size_t)(calls / (flush > 0 ? flush : 1) + 2) * sizeof *ft);
    long nf = 0, tenth = calls / 10 > 0 ? calls / 10 : 1;
    printf("%10s %10s %12s %9s %14s\n", "calls", "held", "table_bytes", "rss_mb", "checkpoint_us");
    for (long c = 0; c < calls; c++) {
        opscope_cap_batch b = {.n_tokens = next_batch(), .pos = pos, .n_seq_id = n_seq, .seq_id = seq_ptr,
                               .logits = out};
        opscope_cap_decode_note(&ctx, &mem, &b, (uint64_t)c * 1000, (uint64_t)c * 1000 + 500, c, c + 1, 0);
        if (log_path && (c + 1) % flush == 0) {
            char why[128];
            double t0 = bench_now_ns();
            if (opscope_cap_log_flush("checkpoint", NULL, why, sizeof why)) fprintf(stderr, "flush: %s\n", why);
            ft[nf++] = (bench_now_ns() - t0) / 1e3;
        }
        if ((c + 1) % tenth == 0) {
            opscope_cap_decodes_held h;
            opscope_cap_decodes_usage(&h);
            double med = 0;
            if (nf) {
                qsort(ft, (size_t)nf, sizeof *ft, bench_cmp_double);
                med = ft[nf / 2];
                nf = 0;
            }
            printf("%10ld %10u %12llu %9.1f %14.1f\n", c + 1, h.calls, (unsigned long long)h.bytes, status_mb(false), med);
        }
    }
    free(ft);
    opscope_cap_decodes_held h;
    opscope_cap_decodes_usage(&h);
    uint64_t not_kept = (uint64_t)calls - h.noted;
    printf("calls: %ld, lost: %llu (%llu not kept, %llu kept without their sequences)\n", calls,
           (unsigned long long)h.lost, (unsigned long long)not_kept, (unsigned long long)(h.lost - not_kept));
}

static int count_meta(void *ud, const opscope_meta *m) {
    *(size_t *)ud = m->capture && m->capture->run ? m->capture->run->n_decodes : 0;
    return 0;
}

/* The median ns of gathering what ran, ROUNDS times, with the calls or without. */
static double gather_ns(const opscope_run_info *(*get)(void), int rounds) {
    double t[31];
    for (int r = 0; r < rounds; r++) {
        double t0 = bench_now_ns();
        (void)get();
        t[r] = bench_now_ns() - t0;
    }
    qsort(t, (size_t)rounds, sizeof *t, bench_cmp_double);
    return t[rounds / 2];
}

int main(int argc, char **argv) {
    long calls = argc > 1 ? atol(argv[1]) : 1000000;
    long flush = argc > 2 ? atol(argv[2]) : 1000;
    if (calls < 10) calls = 10;
    if (flush < 1) flush = 1;
    for (int i = 0; i < MAX_TOKENS; i++) {
        seq_ptr[i] = &seq[i];
        n_seq[i] = 1;
    }
    opscope_cap_clock_init("monotonic");
    char path[128];
    snprintf(path, sizeof path, "/tmp/opscope-decode-mem-%ld.log", (long)getpid());
    printf("== record log: a checkpoint every %ld calls\n", flush);
    stream(calls, flush, path);
    opscope_cap_log_close();
    size_t n = 0;
    opscope_sink sink = {&n, count_meta, NULL, NULL, NULL};
    opscope_error err;
    if (opscope_read_file(path, OPSCOPE_FORMAT_AUTO, &sink, &err)) fprintf(stderr, "cannot read the log\n");
    printf("read back from the log: %zu calls; peak RSS %.1f MiB (the reader holds every call: what the "
           "capture's final write does, in the host, at exit)\n", n, status_mb(true));
    unlink(path);
    printf("== no record log\n");
    stream(calls, 0, NULL);
    printf("== gathering what ran, 65536 calls held: with the calls %.0f us, without (the RUN chunk) %.0f us\n",
           gather_ns(opscope_cap_run_get, 15) / 1e3, gather_ns(opscope_cap_run_get_base, 15) / 1e3);
    opscope_cap_decodes_reset();
    return 0;
}
