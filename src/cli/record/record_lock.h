/*
 * record_lock.h - a part of `opscope record` (internal): the lock that keeps two records from
 * writing one profile (record_lock.c). Thread safety: single-threaded (the CLI's main thread).
 */
#ifndef OPSCOPE_CLI_RECORD_LOCK_H
#define OPSCOPE_CLI_RECORD_LOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Takes OUTPATH (a buffer of SIZE bytes) for this record: an flock on ".NAME.opscope-lock"
 * beside it, released when the process ends. When another record holds it, OUTPATH becomes
 * the first free NAME-2.EXT, NAME-3.EXT... (unlocked, no such file), said on stderr, so both
 * keep their profile. Returns 0 (also when no lock file can be made: then unlocked), or -1
 * with the refusal printed when no name is free. */
int opscope_rec_lock(char *outpath, size_t size);

/* Removes the lock file and releases it. No-op when not locked. */
void opscope_rec_unlock(void);

#endif /* OPSCOPE_CLI_RECORD_LOCK_H */
