/*
 * summary_json.h - the JSON summary of `report --json` alone, as an output of a session: the
 * same "summary" member (json_summary.h, with a trace's Kineto sections) inside an object of
 * its own, without the profile's header and records. The Python package reads it into a
 * dict (src/py); nothing of the summary is computed here.
 *
 * Ownership: the output takes W over (on failure too: W is aborted then); W is committed at
 * the session's commit. Thread safety: none; an output belongs to one session.
 */
#ifndef OPSCOPE_SUMMARY_JSON_H
#define OPSCOPE_SUMMARY_JSON_H

#include "analyze/session/session.h"
#include "util/out.h"

/* Fills *O: at finish it writes `{"opscope_summary":1,"summary":{...}}` to W. Returns 0, or
 * -1 with ERR filled. */
int opscope_output_summary_json(opscope_output *o, opscope_out_t *w, opscope_error *err);

#endif /* OPSCOPE_SUMMARY_JSON_H */
