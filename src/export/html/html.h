/*
 * html.h - the self-contained HTML timeline viewer as an opscope_sink (internal).
 *
 * The sink keeps what the viewer needs in compact columnar form (about 24 bytes per record:
 * start, duration, lane, and an id into a table of distinct "signatures" = everything about a
 * call except its time), never opscope_record copies. opscope_html_sink_finish sorts records
 * into lanes and non-overlapping rows and writes ONE html file through opscope_out_t: the
 * viewer template (viewer/, embedded at build time) plus a JSON data block whose per-record
 * columns are base64 varint streams. Profile strings reach the file only through
 * opscope_out_json_str, which escapes < > &, so no data can close the <script> element.
 *
 * Ownership: the caller owns the handle and ends it with finish or abort exactly once.
 * Thread safety: none (one sink per thread).
 */
#ifndef OPSCOPE_HTML_H
#define OPSCOPE_HTML_H

#include "opscope.h"
#include "analyze/kineto/kineto.h"
#include "analyze/kineto/critical_path.h"
#include "analyze/record/derived.h"
#include "analyze/ggml/roofline.h"
#include "util/out.h"

#include <stddef.h>
#include <stdint.h>

typedef struct opscope_html_sink opscope_html_sink_t;

/*
 * Returns a sink that will write OUT_PATH ("-" = stdout) at finish. MAX_RECORDS = 0 keeps
 * every record; otherwise at most MAX_RECORDS evenly spaced records are kept (every k-th of
 * the stream, k a power of two, so between MAX_RECORDS/2 and MAX_RECORDS of a longer stream).
 * SOURCE_NAME (may be NULL) is shown in the viewer's title. Nothing is written before
 * finish. Returns NULL and fills ERR when out of memory.
 */
opscope_html_sink_t *opscope_html_sink_new(const char *out_path, const char *source_name,
                                           size_t max_records, opscope_error *err);

/* The opscope_sink view of H (for opscope_read_file or opscope_profile_replay). H must
 * outlive every use of the returned struct. */
opscope_sink opscope_html_sink(opscope_html_sink_t *h);
/* Its on_record with the record's derived values (analyze/record/derived.h; UD is H), for a session. */
int opscope_html_sink_derived(void *ud, const opscope_record *rec, opscope_derived *d);

/* A Kineto trace's CPU lanes: read through the returned collector (it passes every event on
 * to NEXT, the analysis, and keeps the runtime calls; NULL for a NULL NEXT), then hand the
 * finished analysis K to add_kineto (cpu_op slices, profiler steps, GPU busy per device).
 * Without them the page has no CPU side. add_kineto returns 0, or -1 when out of memory. */
opscope_kineto_collector *opscope_html_sink_kineto_tee(opscope_html_sink_t *h,
                                                       opscope_kineto_collector *next);
int opscope_html_sink_add_kineto(opscope_html_sink_t *h, const opscope_kineto_t *k);

/* The trace's critical path (analyze/kineto/critical_path.h; borrowed: it must live until the page
 * is written; NULL: none), drawn by the viewer's Critical path button. */
void opscope_html_sink_set_cpath(opscope_html_sink_t *h, const opscope_cpath_t *cp);

/* The peaks the page's roofline chart draws (copied; NULL: a chart without roofs). */
void opscope_html_sink_set_peak(opscope_html_sink_t *h, const opscope_peak *peak);

/* Writes the HTML file (temp file + rename) and frees H. Returns 0, or -1 with ERR filled
 * (then no file is left behind). */
int opscope_html_sink_finish(opscope_html_sink_t *h, opscope_error *err);

/* The same into W, opened by the caller before the read, who commits or aborts it. */
int opscope_html_sink_finish_to(opscope_html_sink_t *h, opscope_out_t *w, opscope_error *err);
/* Writes H's data object (the JSON of docs/viewer.md, "Data format") to W, for a page that
 * embeds several timelines (`opscope diff --html`). H stays alive; end it with abort.
 * Returns 0, or -1 with ERR filled. */
int opscope_html_sink_write_data(opscope_html_sink_t *h, opscope_out_t *w, opscope_error *err);

/* Frees H without writing anything. NULL is a no-op. */
void opscope_html_sink_abort(opscope_html_sink_t *h);

/* Records seen and records kept so far (kept <= seen; they differ under MAX_RECORDS). */
uint64_t opscope_html_sink_seen(const opscope_html_sink_t *h);
uint64_t opscope_html_sink_kept(const opscope_html_sink_t *h);

#endif /* OPSCOPE_HTML_H */
