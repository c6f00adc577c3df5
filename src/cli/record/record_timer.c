/* record_timer.c - record --delay / --duration (see record_timer.h). */
#include "cli/record/record_timer.h"

#include "cli/record/ctl_client.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static void sleep_s(double s) {
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

/* Sends CMD once the run has a channel (its program may not have loaded ggml yet): every
 * 50 ms until one answers. True when one answered ok. */
static bool send_when_ready(const char *dir, const char *cmd, bool *recording) {
    for (;;) {
        opscope_ctl_answer a[8];
        size_t n = opscope_ctl_send(dir, cmd, 40000, a, 8);
        for (size_t i = 0; i < n && i < 8; i++) {
            if (recording) *recording = a[i].ok && strncmp(a[i].line, "recording", 9) == 0;
            if (!a[i].ok && !recording) fprintf(stderr, "opscope record: %s: pid %ld: %s\n", cmd, a[i].pid, a[i].line);
        }
        if (n) return n && a[0].ok;
        sleep_s(0.05);
    }
}

static void run_timer(const char *dir, double delay_s, double duration_s) {
    if (delay_s >= 0) {
        sleep_s(delay_s);
        send_when_ready(dir, "start", NULL);
    }
    if (duration_s < 0) return;
    bool on = false; /* until the capture records: the start, the delay's start, a ctl start */
    while (send_when_ready(dir, "status", &on) && !on) sleep_s(0.05);
    sleep_s(duration_s);
    send_when_ready(dir, "stop", NULL);
}

long opscope_rec_timer_start(const char *dir, double delay_s, double duration_s) {
    if (delay_s < 0 && duration_s < 0) return -1;
    fflush(stderr);
    pid_t parent = getpid(), pid = fork();
    if (pid < 0) {
        perror("opscope record: cannot start the --delay/--duration timer");
        return -1;
    }
    if (pid > 0) return (long)pid;
    /* the helper: dies with record, whatever way record ends; record's blocked signals stay
     * blocked here, so a Ctrl-C to the group never ends it before record */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(0);
    run_timer(dir, delay_s, duration_s);
    _exit(0);
}
