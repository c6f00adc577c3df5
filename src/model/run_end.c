/* run_end.c - how the profiled program ended (see run_end.h). */
#include "model/run_end.h"

#include <stdio.h>
#include <string.h>

static bool is(const opscope_capture_info *c, const char *how) {
    return c && c->end && !strcmp(c->end, how);
}

bool opscope_run_end_known(const opscope_capture_info *c) {
    return c && c->end && c->end[0];
}

bool opscope_run_end_partial(const opscope_capture_info *c) {
    return is(c, "checkpoint") || is(c, "killed") || is(c, "crash");
}

size_t opscope_run_end_text(const opscope_capture_info *c, char *buf, size_t size) {
    if (!size) return 0;
    buf[0] = '\0';
    if (!opscope_run_end_known(c)) return 0;
    const char *prog = c->program && c->program[0] ? c->program : "the program";
    const char *sig = c->end_signal && c->end_signal[0] ? c->end_signal : "a signal";
    const char *missing = "the capture did not see the end: records made after that write, if any, are missing";
    int n;
    if (is(c, "killed") || is(c, "crash")) {
        char after[64] = "";
        if (c->end_ns && c->died_ns > c->end_ns)
            snprintf(after, sizeof after, " %.2f s", (double)(c->died_ns - c->end_ns) / 1e9);
        n = snprintf(buf, size, "%s %s %s%s after the capture's last write; %s", prog,
                     is(c, "crash") ? "crashed with" : "was killed by", sig, after, missing);
    } else if (is(c, "checkpoint")) {
        n = snprintf(buf, size, "%s did not end before this write (a checkpoint made while it ran: it was "
                                "killed, crashed or is still running); %s", prog, missing);
    } else if (is(c, "signal")) {
        n = snprintf(buf, size, "%s ended by %s, which the capture caught: the profile was written first and "
                                "is whole", prog, sig);
    } else if (is(c, "exit")) {
        n = snprintf(buf, size, "%s exited: the profile is whole", prog);
    } else {
        n = snprintf(buf, size, "%s ended (%s)", prog, c->end);
    }
    if (n < 0) {
        buf[0] = '\0';
        return 0;
    }
    return (size_t)n < size ? (size_t)n : size - 1;
}
