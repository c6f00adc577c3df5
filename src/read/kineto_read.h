/*
 * kineto_read.h - streaming reader of Kineto (PyTorch profiler) and Chrome Trace Event JSON.
 *
 * Maps a trace onto opscope records in one pass, in file order:
 *   - GPU kernels (cat "kernel", old "Kernel", MTIA "mtia_ccp_events") -> OP records:
 *     backend = device (pid), split_id = stream (tid), name = kernel name, category = the
 *     kernel category of kernel_rules.def, start/duration in ns;
 *   - "gpu_memcpy" ("Memcpy") -> COPY records, sub_op = direction ("HtoD", "DtoH", "DtoD",
 *     "HtoH", "PtoP") from the name or args, bytes from args.bytes;
 *   - "gpu_memset" ("Memset") -> OP records of category "memory", bytes from args.bytes;
 *   - CPU-side events (cpu_op, cuda_runtime/driver, python_function, user_annotation, flows)
 *     are not records: they go to the optional collector (read/kineto_event.h) for linking
 *     and phases;
 *   - with OPSCOPE_FORMAT_CHROME, every X slice (or B/E pair) of a category Kineto does not
 *     define becomes an OP record too: backend = pid, split_id = tid, category = cat.
 * Timestamps are microseconds (as the Trace Event format defines, whatever displayTimeUnit
 * says); they are converted to integer ns from the number's text, exactly for up to three
 * decimals (Kineto writes ns as "123.456"), rounded half away from zero beyond.
 *
 * Memory: the reader keeps per-thread B/E stacks, the pid/thread tables and the interned
 * names of kernels; the collector keeps ~40 bytes per kept event (see analyze/kineto/kineto.h).
 * Thread safety: independent calls may run concurrently.
 */
#ifndef OPSCOPE_KINETO_READ_H
#define OPSCOPE_KINETO_READ_H

#include "read/json.h"
#include "read/kineto_event.h"
#include "read/kineto_filter.h"
#include "read/readers.h"
#include "opscope.h"

/*
 * Reads the trace from parser J (positioned before its first token) into SINK (may be NULL
 * when only the collector is wanted) and, when AN is not NULL, into the collector AN
 * (opscope_kineto_finish is NOT called). FORMAT is OPSCOPE_FORMAT_KINETO, _CHROME or _AUTO
 * (= KINETO). Returns 0, or -1 with ERR filled (position of a JSON error). Files, gzip and
 * progress are the generic reader's (read.c, readers.h opscope_read_file_opts), which calls
 * this; the reader itself prints nothing.
 */
int opscope_kineto_read_json(opscope_json_t *j, opscope_format format, const opscope_sink *sink,
                             opscope_kineto_collector *an, opscope_error *err);

/* As opscope_kineto_read_json, with STATUS (may be NULL) filled on success: a trace cut short
 * inside its events (a crash while writing, a copy interrupted) is read up to its last
 * complete event and succeeds, with status->truncated_at the byte where the input ended and
 * status->records the records delivered (the CLI's one warning, cli/partial.c). */
int opscope_kineto_read_json_status(opscope_json_t *j, opscope_format format, const opscope_sink *sink,
                                    opscope_kineto_collector *an, opscope_read_status *status,
                                    opscope_error *err);

/* As opscope_kineto_read_json_status through HTA's step filter FILTER (read/kineto_filter.h;
 * NULL: none): SCAN 1 is the filter's first read (every slice goes to
 * opscope_kineto_filter_see and nothing else is delivered), 2 a checked read (every event
 * delivered, the slices seen and the GPU-side correlations noted), 0 the read that delivers
 * only the events FILTER keeps (ready). */
int opscope_kineto_read_json_filtered(opscope_json_t *j, opscope_format format, const opscope_sink *sink,
                                      opscope_kineto_collector *an, opscope_kineto_filter_t *filter, int scan,
                                      opscope_read_status *status, opscope_error *err);

/* A "ts" or "dur" token T (microseconds: a number or a numeric string) as integer ns into
 * *OUT, exactly as the reader converts it (from the number's text). 0, or -1 when it is no
 * time (or beyond 73 years). Thread safe. */
int opscope_kineto_us_to_ns(const opscope_json_token *t, int64_t *out);

#endif /* OPSCOPE_KINETO_READ_H */
