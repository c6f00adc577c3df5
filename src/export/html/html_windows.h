/*
 * html_windows.h - a capture's windows and marks for the HTML viewer (internal, used by
 * html_data.c), from export/sections/win_out.h: the page data's "windows" member
 * (docs/viewer.md, "Data format"). The viewer shades each window on the time axis, says the
 * gaps between them "not recorded" and draws each mark as a labelled vertical line.
 * Thread safety: pure but for the writes to W.
 */
#ifndef OPSCOPE_HTML_WINDOWS_H
#define OPSCOPE_HTML_WINDOWS_H

#include "opscope.h"
#include "util/out.h"

#include <stdint.h>

/* Writes `,"windows":{...}` with times in ns after T0 (negative before it); nothing when C
 * (may be NULL) is not windowed and has no marks. A window still open ends at the
 * capture's last write, else at LAST_NS (the last record's end). Allocates nothing. */
void opscope_html_windows_write(opscope_out_t *w, const opscope_capture_info *c, uint64_t t0, uint64_t last_ns);

#endif /* OPSCOPE_HTML_WINDOWS_H */
