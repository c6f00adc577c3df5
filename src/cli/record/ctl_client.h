/*
 * ctl_client.h - opscope ctl's side of the capture's control channel (the capture's side:
 * src/capture/life/cap_ctl.h): every process of a record run listens on DIR/ctl.PID; a
 * command is one line, its answer one line ("ok ..." or "err ..."). Used by `opscope ctl` and
 * by `record --delay/--duration`'s timer.
 *
 * Ownership: the caller's buffers. Thread safety: none needed.
 */
#ifndef OPSCOPE_CLI_RECORD_CTL_CLIENT_H
#define OPSCOPE_CLI_RECORD_CTL_CLIENT_H

#include <stdbool.h>
#include <stddef.h>

/* One process's answer. */
typedef struct opscope_ctl_answer {
    long pid;       /* from the socket's name */
    bool ok;        /* the line began "ok" */
    char line[256]; /* the answer, without its newline; why it failed when no answer came */
} opscope_ctl_answer;

/* Sends CMD (one line, no newline) to every control socket in DIR and reads each answer,
 * waiting at most TIMEOUT_MS per process (a stop waits for the computes in flight). Up to MAX
 * answers go to ANS. Returns the number of sockets found (0: the run has no channel yet). */
size_t opscope_ctl_send(const char *dir, const char *cmd, int timeout_ms, opscope_ctl_answer *ans, size_t max);

#endif
