/*
 * readers.h - internal entry points of the format readers (src/read), below the public
 * opscope_read_file / opscope_read_buffer of opscope.h.
 *
 * Every reader takes a JSON parser positioned before the input's first token, streams what it
 * reads into a sink in file order, checks that nothing but whitespace follows the top-level
 * value, and on failure fills ERR (file, line:column, byte offset, static message) and returns
 * -1. The parser stays owned by the caller. Thread safety: independent calls may run
 * concurrently; one parser is used by one call at a time.
 */
#ifndef OPSCOPE_READERS_H
#define OPSCOPE_READERS_H

#include "read/json.h"
#include "read/kineto_event.h"
#include "read/kineto_filter.h"
#include "opscope.h"

/*
 * Durations beyond any real run are refused by every reader, as bad input (exit 2, with the
 * position): a record (an event) lasting more than a year, counted with its weight (a
 * sampled record stands for WEIGHT computes), and a profile whose records add up to more
 * than 2^58 ns (9.1 years: 1000 hours on 80 lanes at once). Every aggregate downstream
 * (stats, graphs, diff sides, Kineto analysis, estimates) sums part of one or two inputs'
 * durations, or counts one at most 64 times (an event in each of its ancestors), so no
 * 64-bit sum can wrap: the bound is checked once, where the numbers come in.
 */
#define OPSCOPE_READ_MAX_DURATION_NS 31557600000000000ull /* 365.25 days */
#define OPSCOPE_READ_MAX_TOTAL_NS (1ull << 58)
/* The message for a profile's records past OPSCOPE_READ_MAX_TOTAL_NS (at the record that crosses). */
#define OPSCOPE_READ_TOTAL_MSG "the records' durations add up to more than 2^58 ns (9 years): beyond any real run"
/* The message for FIELD (a string literal) past OPSCOPE_READ_MAX_DURATION_NS. */
#define OPSCOPE_READ_DURATION_MSG(field) field " is beyond any real run (more than a year)"

/*
 * Times beyond any real run are refused the same way, at the value: every timestamp of a ggml
 * profile and of the record log (a record's start_ns, host_start_ns and host_end_ns; capture's
 * start_ns, realtime_offset_ns either way, end.at_ns and died_ns; a llama context's end_ns and
 * repetitions; a decode's start_ns and end_ns) is at most 2^62 ns, 146 years past its clock's
 * zero. CLOCK_MONOTONIC counts from boot, CLOCK_REALTIME from 1970 (it reaches 2^62 ns in
 * 2116), and Linux refuses a time namespace offset that puts CLOCK_MONOTONIC past
 * KTIME_SEC_MAX / 2 s (2^62 ns, to the second), so a real clock reads far below it: hours to
 * years of uptime, 1.8e18 ns of realtime in 2027. With durations at most a year, every end
 * (start + duration) and every difference of two times then fits in an int64_t: no reader of
 * the times (spans, merge's offsets, Chrome's timestamps) can wrap.
 */
#define OPSCOPE_READ_MAX_TIME_NS (1ull << 62)
/* The message for FIELD (a string literal) past OPSCOPE_READ_MAX_TIME_NS. */
#define OPSCOPE_READ_TIME_MSG(field) field " is beyond any real run (more than 2^62 ns: 146 years on its clock)"

/*
 * The ggml profiler JSON reader (versions 2 and 3 and opscope's own additions; the field list
 * and defaults are in docs/formats.md). Records are delivered as soon as their object closes;
 * meta once, after the top-level object closed, then on_end.
 */
/*
 * What a read found about the profile's completeness, for the CLI's one warning: the input
 * cut short (meta.truncated_at) and how the profiled program ended (capture "end"). Strings
 * are copied (cut to fit). Filled by the ggml reader; the Kineto reader fills truncated_at and
 * records (kineto_read.h); zero when the file does not say.
 */
typedef struct opscope_read_status {
    uint64_t truncated_at; /* > 0: the input ended at this byte inside the profile */
    uint64_t records;      /* records delivered */
    char program[64];      /* capture.program */
    char end[16];          /* capture.end.how: exit, signal, checkpoint, killed, crash */
    char end_signal[16];
    uint64_t end_ns, died_ns; /* capture.end.at_ns, died_ns */
    int hta_reread;        /* a read with hta_steps_once: HTA's filter would have dropped
                            * events, so the events delivered are not the filtered ones: the
                            * caller reads again without hta_steps_once */
} opscope_read_status;

/* STATUS (may be NULL) is filled as the read ends, on success only. A document cut short
 * inside the top-level object is read up to its last complete record and succeeds, with
 * meta.truncated_at set. */
int opscope_ggml_read_json(opscope_json_t *j, const opscope_sink *sink, opscope_read_status *status,
                           opscope_error *err);

/*
 * The record log a capture streams (docs/formats.md, "The record log"): the SIZE bytes at DATA
 * (NAME for errors). Its chunks are read up to the first that is not whole (a write a crash
 * cut: meta.truncated_at is then that chunk's offset, and the read succeeds); meta (totals
 * of the chunks read), the backends, then the records merged by start across the chunks
 * (the order the capture's JSON profile has), then on_end. Strings handed to the sink point
 * into DATA. STATUS as for opscope_ggml_read_json. Memory: one entry per chunk and per record
 * template, never per record.
 */
int opscope_oplog_read(const void *data, size_t size, const char *name, const opscope_sink *sink,
                       opscope_read_status *status, opscope_error *err);

/*
 * The format of a JSON document from its first SIZE bytes, without reading further: a ggml
 * profile is an object with "records", "backends" or "profiler":"ggml"/"opscope"; a Kineto
 * trace an object with "schemaVersion", "deviceProperties" or "distributedInfo", or whose
 * events use Kineto's categories ("kernel", "cpu_op", "gpu_memcpy"...); a Chrome trace an
 * array or an object with "traceEvents" and nothing Kineto-specific.
 * COMPLETE 0: more may follow; returns OPSCOPE_FORMAT_AUTO when the prefix does not decide
 * (the caller reads more). COMPLETE non-zero: those bytes are all there is (or all the caller
 * will look at); never returns AUTO: what is not recognised (truncated, invalid, of no known
 * shape) is OPSCOPE_FORMAT_CHROME when a "traceEvents" key was seen, else OPSCOPE_FORMAT_GGML,
 * so that reader says what is wrong with it.
 * *SAW_EVENTS (may be NULL) is set when a "traceEvents" key was seen. Thread safe.
 */
opscope_format opscope_detect_format(const void *prefix, size_t size, int complete,
                                     int *saw_events);

/* The format of the file at PATH (gzip or plain) from its first 64 KiB, as
 * opscope_detect_format; OPSCOPE_FORMAT_AUTO when that does not decide, for stdin ("-") and
 * when it cannot be read (the read that follows says why). Thread safe. */
opscope_format opscope_detect_file_format(const char *path);

/*
 * What a read can do beyond the public API, for `opscope report` and `opscope view`. A zeroed
 * struct (or a NULL pointer) asks for nothing: a plain opscope_read_file.
 */
typedef struct opscope_read_options {
    /* Kineto or Chrome input also fills this collector (read/kineto_event.h; analyze/kineto/kineto.h's
     * opscope_kineto_collector_of; not finished) in the same pass as the sink. NULL: none.
     * Not touched for ggml profiles. The caller keeps ownership. */
    opscope_kineto_collector *kineto;
    /* Called with PROGRESS_UD after every read from the input, with the bytes of the input
     * consumed so far (as stored: compressed bytes for gzip, so they compare with the file's
     * size). NULL: none. Called on the reading thread. */
    void (*on_progress)(void *progress_ud, uint64_t bytes_in);
    void *progress_ud;
    /* Filled for a ggml profile or a trace (see opscope_read_status). NULL: not wanted. */
    opscope_read_status *status;
    /* An opscope_kineto_steps (read/kineto_filter.h): not ALL, a trace is read through HTA's
     * profiler-step filter, in two reads of the file (opscope_read_file_opts only; stdin is
     * refused). */
    int hta_steps;
    /* With hta_steps KEEP_LAST: 1 tries one read, the trace delivered whole while the filter
     * checks whether it would drop anything (with a trace's epoch timestamps it drops only GPU
     * activities launched outside the profile); when it would, STATUS (then required) gets
     * hta_reread. */
    int hta_steps_once;
} opscope_read_options;

/* opscope_read_file / opscope_read_buffer with OPTS (may be NULL). */
int opscope_read_file_opts(const char *path, opscope_format format, const opscope_sink *sink,
                           const opscope_read_options *opts, opscope_error *err);
int opscope_read_buffer_opts(const void *data, size_t size, const char *name,
                             opscope_format format, const opscope_sink *sink,
                             const opscope_read_options *opts, opscope_error *err);

/*
 * Hands parser J to the reader of FORMAT (not OPSCOPE_FORMAT_AUTO): the step after detection
 * in opscope_read_file and opscope_read_buffer (read.c). KINETO (may be NULL) is the
 * collector for Kineto and Chrome input, as in opscope_read_options.
 */
int opscope_read_json_stream(opscope_json_t *j, opscope_format format, const opscope_sink *sink,
                             opscope_kineto_collector *kineto, opscope_read_status *status,
                             opscope_error *err);

#endif /* OPSCOPE_READERS_H */
