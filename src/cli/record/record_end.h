/*
 * record_end.h - a part of `opscope record` (internal): how a process that died by a signal
 * ended, for its profile (record_end.c). Thread safety: single-threaded (the CLI's main
 * thread).
 */
#ifndef OPSCOPE_CLI_RECORD_END_H
#define OPSCOPE_CLI_RECORD_END_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* How a process that died by a signal ended, for its profile's capture "end": "crash"
 * (SIGSEGV, SIGABRT, SIGBUS...) or "killed", with *SIG its name ("SIGKILL"; NULL for a
 * signal without one here); NULL (and *SIG NULL) when STATUS is no death by a signal. */
const char *opscope_rec_end_how(int status, const char **sig);

#endif /* OPSCOPE_CLI_RECORD_END_H */
