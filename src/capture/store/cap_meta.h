/*
 * cap_meta.h - what the capture says about itself in every profile: host, pid, program and
 * its clock (internal). The clock reference (CLOCK_REALTIME - CLOCK_MONOTONIC) is taken when
 * the capture starts; with the boot id and the time namespace it tells opscope merge whether
 * two profiles count on one clock (docs/formats.md, "capture").
 * Thread safety: init once (the capture's start-up); get from the exporting thread.
 */
#ifndef OPSCOPE_CAP_META_H
#define OPSCOPE_CAP_META_H

#include "opscope.h"

/* Takes the clock reference. Cheap (a few clock reads); no allocation. */
void opscope_cap_meta_init(void);

/* The capture's facts, filled on first use, with what ran gathered now (cap_run.h, with the
 * llama_decode calls the table holds: a profile written from memory). Static storage; never
 * NULL. */
const opscope_capture_info *opscope_cap_meta_get(void);
/* The same facts without gathering what ran (run: as the last get left it): the record log's
 * META chunk, whose run travels in RUN and DECODES chunks. */
const opscope_capture_info *opscope_cap_meta_facts(void);

/* What the next write says about the program's end (capture.end): HOW ("exit", "signal",
 * "checkpoint"; static strings), SIG (a static "SIGTERM" or NULL) and the clock now.
 * Called by the exporting thread only, under the export lock (cap_life.c). */
void opscope_cap_meta_set_end(const char *how, const char *sig);

#endif /* OPSCOPE_CAP_META_H */
