/*
 * html_requests.h - a llama.cpp run's requests for the HTML viewer (internal, used by html.c
 * and html_data.c): each request's span, its prompt phase (to the end of the call that gave
 * its first output) and its generation, from analyze/ggml/run_requests.h (the report's Requests
 * table: one definition), llama.cpp's warm-ups marked, written as the page data's "requests"
 * member (docs/viewer.md, "Data format"), partial ones (a capture window's edge cut them)
 * marked. The viewer draws them as a band row per slot under
 * the phase and compute bands.
 * Ownership: the caller frees what take returns (free()). Thread safety: pure.
 */
#ifndef OPSCOPE_HTML_REQUESTS_H
#define OPSCOPE_HTML_REQUESTS_H

#include "analyze/ggml/run_requests.h"
#include "util/out.h"

#include <stddef.h>
#include <stdint.h>

/* The requests of CAP's run (CAP NULL, no run or no calls: none) into *OUT (malloc'd, NULL
 * when none) and *N, warm-ups included, those a capture window's edge cut marked. 0, or -1
 * when out of memory. */
int opscope_html_requests_take(const opscope_capture_info *cap, opscope_run_request **out, size_t *n);

/* Writes `,"requests":{...}` with times in ns after T0 (negative before it): columns of N
 * requests R in request order; nothing when N is 0. Allocates nothing. */
void opscope_html_requests_write(opscope_out_t *w, const opscope_run_request *r, size_t n, uint64_t t0);

#endif /* OPSCOPE_HTML_REQUESTS_H */
