/*
 * kineto_report.h - the Kineto section of `opscope report` (internal).
 *
 * Prints, as plain text (and as a JSON member for the summary of `--json`), what
 * analyze/kineto.h computed: platform and devices, event
 * counts and input quirks, kernel categories, launch links and the top CPU ops by GPU time,
 * phases, layers, the per-stream breakdown and the largest idle gaps.
 * K must have been finished (opscope_kineto_finish). Nothing is printed for a trace without
 * any Kineto content. Thread safety: none needed (reads K only).
 */
#ifndef OPSCOPE_KINETO_REPORT_H
#define OPSCOPE_KINETO_REPORT_H

#include "analyze/kineto.h"
#include "util/out.h"

void opscope_kineto_report_write(opscope_out_t *w, const opscope_kineto_t *k);

/* The same analysis as a JSON member `,\n"kineto":{...}` (keys: docs/kineto.md, "JSON"),
 * written into an open object; nothing for a trace without Kineto content. */
void opscope_kineto_report_write_json(opscope_out_t *w, const opscope_kineto_t *k);

/* The CPU side of finished results R as JSON members (no leading comma): "steps" (number,
 * start_ns, dur_ns), "window_start_ns", "window_ns", "gpu_busy" (device, busy_ns, idle_ns),
 * "cpu_top_level_ns", "cpu_bound". Used by the report's summary and by the diff's sides. */
void opscope_kineto_write_cpu_side(opscope_out_t *w, const opscope_kineto_results *r);

/*
 * The Kineto analysis of one `opscope report` run:
 *   s = opscope_kineto_session_begin();   before the read
 *   opts.kineto = opscope_kineto_session_collector(s);   the read's option (read/readers.h)
 *   opscope_kineto_session_end(s);        after the read: computes (0, or -1 out of memory)
 *   opscope_kineto_session_write(w, s);   prints the section (nothing for non-Kineto input)
 *   opscope_kineto_session_free(s);       always (NULL is a no-op)
 * begin returns NULL when out of memory (the report then simply has no Kineto section); the
 * other calls accept NULL. Thread safety: one session per read.
 */
typedef struct opscope_kineto_session opscope_kineto_session;
opscope_kineto_session *opscope_kineto_session_begin(void);
/* The collector to pass to the read (owned by S; NULL for a NULL S). */
opscope_kineto_collector *opscope_kineto_session_collector(opscope_kineto_session *s);
int opscope_kineto_session_end(opscope_kineto_session *s);
void opscope_kineto_session_write(opscope_out_t *w, const opscope_kineto_session *s);
/* opscope_kineto_report_write_json of a finished session (nothing for NULL or unfinished). */
void opscope_kineto_session_write_json(opscope_out_t *w, const opscope_kineto_session *s);
void opscope_kineto_session_free(opscope_kineto_session *s);
/* Before the read: keep every kernel's links (opscope_kineto_links) for an export. */
void opscope_kineto_session_keep_links(opscope_kineto_session *s);
/* The finished collector (borrowed, valid until free); NULL for NULL or unfinished. */
const opscope_kineto_t *opscope_kineto_session_get(const opscope_kineto_session *s);

#endif /* OPSCOPE_KINETO_REPORT_H */
