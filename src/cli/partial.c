/* partial.c - the warning for partial profiles (see partial.h). */
#include "cli/partial.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static char g_warned[4096];

/* "killed by SIGKILL", "crashed (SIGSEGV)", "ended by SIGTERM" */
static void how(char *buf, size_t size, const opscope_read_status *st) {
    const char *sig = st->end_signal[0] ? st->end_signal : "a signal";
    if (!strcmp(st->end, "crash")) snprintf(buf, size, "crashed (%s)", sig);
    else snprintf(buf, size, "was killed by %s", sig);
}

void opscope_partial_warn(const char *path, const opscope_read_status *st) {
    bool died = !strcmp(st->end, "killed") || !strcmp(st->end, "crash");
    bool checkpoint = !strcmp(st->end, "checkpoint");
    if (!st->truncated_at && !died && !checkpoint) return;
    if (!strcmp(g_warned, path)) return;
    snprintf(g_warned, sizeof g_warned, "%s", path);
    const char *prog = st->program[0] ? st->program : "the program";
    if (st->truncated_at) {
        fprintf(stderr, "opscope: warning: %s is cut short at byte %llu (its writer stopped mid-file: a crash, a "
                        "full disk, an interrupted copy); read the %llu records before it, what followed is missing\n",
                path, (unsigned long long)st->truncated_at, (unsigned long long)st->records);
    } else if (died) {
        char h[64];
        how(h, sizeof h, st);
        fprintf(stderr, "opscope: warning: %s: %s %s", path, prog, h);
        if (st->died_ns > st->end_ns && st->end_ns)
            fprintf(stderr, " %.2f s after this profile was written", (double)(st->died_ns - st->end_ns) / 1e9);
        fprintf(stderr, "; it holds the %llu records up to then, later ones are missing\n",
                (unsigned long long)st->records);
    } else {
        fprintf(stderr, "opscope: warning: %s was written while %s ran (a checkpoint) and %s did not write it "
                        "again at its end: it was killed or crashed, or is still running; the %llu records up to "
                        "the checkpoint are here, later ones are missing\n",
                path, prog, prog, (unsigned long long)st->records);
    }
}
