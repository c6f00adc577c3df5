/*
 * cap_cupti.h - the CUPTI source for CUDA backends (internal; see cap_cupti.c and
 * docs/capture.md). Thread safety: any thread.
 */
#ifndef OPSCOPE_CAP_CUPTI_H
#define OPSCOPE_CAP_CUPTI_H

#include <stdbool.h>

/* A compute of the backend named BACKEND begins: the first CUDA one starts the source (once
 * per process; OPSCOPE_CUPTI=1 opts in, =0 is silent, anything else says it is opt-in). */
void opscope_cap_cupti_start(const char *backend);
/* Whether the source is running (loaded, subscribed, attached). */
bool opscope_cap_cupti_running(void);

#endif
