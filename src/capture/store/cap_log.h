/*
 * cap_log.h - the record log a capture streams to disk (internal; docs/formats.md, "The
 * record log"; util/oplog.h frames it, model/oplog_rec.h encodes its records). While the
 * program runs, each flush takes the records committed since the last one out of the
 * per-thread buffers (cap_buf.h), sorts them by start, and appends them as one chunk with
 * write(2); the buffers' chunks are then freed, so memory is a window however long the
 * program runs and a flush writes only what is new. A SIGKILL leaves every flushed chunk
 * readable by every reader (read/oplog_read.c). The log's size is capped: a flush that would
 * pass the cap drops its records, counted and announced as drops.
 *
 * Thread safety: every function from the exporting thread only (cap_life.c's export lock).
 */
#ifndef OPSCOPE_CAP_LOG_H
#define OPSCOPE_CAP_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Streams to PATH (created at the first flush: a temporary file renamed over PATH, so PATH
 * is an earlier file or a whole log), at most MAX_BYTES (0: no cap). Nothing is opened here
 * (a log already open is closed: tests start several). PATH is copied. */
void opscope_cap_log_start(const char *path, uint64_t max_bytes);

/* True once opscope_cap_log_start was called (the exports then go through the log). */
bool opscope_cap_log_on(void);

/* Appends what is new: backends, records since the last flush (one chunk), the drop counters
 * when they changed, and an END chunk saying HOW ("checkpoint", "exit", "signal"; SIG: a
 * signal's name or NULL). Returns 0, or -1 with the reason in WHY (size WHY_SIZE): the log
 * could not be created or written (the records of this flush are then dropped and counted,
 * unless the log was never created: then they wait in memory for the next flush). */
int opscope_cap_log_flush(const char *how, const char *sig, char *why, size_t why_size);

/* Records in the log so far, and its size in bytes. */
uint64_t opscope_cap_log_records(void);
uint64_t opscope_cap_log_bytes(void);
/* Bytes the last flush appended, and the records in it (bench and tests: a checkpoint's cost). */
uint64_t opscope_cap_log_last_bytes(void);

/* True when the log file exists (a flush created it). */
bool opscope_cap_log_exists(void);
/* The log's descriptor (-1 when it does not exist) and its size: what an export maps to read
 * it (read/readers.h, opscope_oplog_read). */
int opscope_cap_log_fd(void);

/* One line (newline-terminated, into BUF of SIZE bytes, cut to fit) of what the capture holds
 * in memory: the store's record and kept chunks (cap_buf.h), its caches, the log's template
 * table and flush buffers, libllama's batches held (cap_decodes.h), and the C library's
 * malloc totals (mallinfo2: every arena). OPSCOPE_STATS=1 prints it after a checkpoint every
 * 10 s (bench/capture/memgrowth.py reads it). Returns its length. Exporting thread only. */
size_t opscope_cap_log_usage_line(char *buf, size_t size);

/* Closes the log (after the final export replaced it, or at the end). */
void opscope_cap_log_close(void);

#endif
