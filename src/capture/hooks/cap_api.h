/*
 * cap_api.h - the capture side of ggml-profiler.h (internal; cap_api.c defines the public C
 * API itself). Thread safety: any thread.
 */
#ifndef OPSCOPE_CAP_API_H
#define OPSCOPE_CAP_API_H

/* SCHED is about to be freed (the hooks' ggml_backend_sched_free): its record snapshot goes. */
void opscope_cap_api_sched_freed(const void *sched);

#endif
